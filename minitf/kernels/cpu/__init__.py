"""The built-in kernels. Each module registers the kernels of one op family.

Kernels registered for ("CPU", "GPU") are written against `ctx.xp`, the
device's array module, and so serve both device types.
"""

from minitf.kernels import runtime_ops  # noqa: F401
from minitf.kernels.cpu import accumulator_kernels  # noqa: F401
from minitf.kernels.cpu import array_kernels  # noqa: F401
from minitf.kernels.cpu import bitwise_kernels  # noqa: F401
from minitf.kernels.cpu import candidate_sampling_kernels  # noqa: F401
from minitf.kernels.cpu import control_flow_kernels  # noqa: F401
from minitf.kernels.cpu import ctc_kernels  # noqa: F401
from minitf.kernels.cpu import data_flow_kernels  # noqa: F401
from minitf.kernels.cpu import fused_kernels  # noqa: F401
from minitf.kernels.cpu import io_kernels  # noqa: F401
from minitf.kernels.cpu import linalg_kernels  # noqa: F401
from minitf.kernels.cpu import logging_kernels  # noqa: F401
from minitf.kernels.cpu import lookup_kernels  # noqa: F401
from minitf.kernels.cpu import math_kernels  # noqa: F401
from minitf.kernels.cpu import nn_kernels  # noqa: F401
from minitf.kernels.cpu import parsing_kernels  # noqa: F401
from minitf.kernels.cpu import queue_kernels  # noqa: F401
from minitf.kernels.cpu import random_kernels  # noqa: F401
from minitf.kernels.cpu import reader_kernels  # noqa: F401
from minitf.kernels.cpu import script_kernels  # noqa: F401
from minitf.kernels.cpu import search_kernels  # noqa: F401
from minitf.kernels.cpu import serialize_sparse_kernels  # noqa: F401
from minitf.kernels.cpu import sparse_cross_kernels  # noqa: F401
from minitf.kernels.cpu import space_kernels  # noqa: F401
from minitf.kernels.cpu import sparse_kernels  # noqa: F401
from minitf.kernels.cpu import special_math_kernels  # noqa: F401
from minitf.kernels.cpu import state_kernels  # noqa: F401
from minitf.kernels.cpu import string_kernels  # noqa: F401
from minitf.kernels.cpu import summary_kernels  # noqa: F401
from minitf.kernels.cpu import training_kernels  # noqa: F401
from minitf.kernels.cpu import user_ops_kernels  # noqa: F401
