"""The OpDefs of every op minitf has, one module per family.

Importing this package registers them all. The framework package imports
it, so any code that looks an op type up (`get_op_def`) sees every op the
runtime may meet, whatever the user imported: the front end's constructors
(`minitf/ops/`), the Saver, the optimizers and the feature columns only
*use* these OpDefs.

Mirrors `tensorflow/core/ops/` (one `*_ops.cc` file per family, all linked
into the TensorFlow library).
"""

from minitf.framework.op_defs import accumulators  # noqa: F401
from minitf.framework.op_defs import array  # noqa: F401
from minitf.framework.op_defs import bitwise  # noqa: F401
from minitf.framework.op_defs import candidate_sampling  # noqa: F401
from minitf.framework.op_defs import control_flow  # noqa: F401
from minitf.framework.op_defs import ctc  # noqa: F401
from minitf.framework.op_defs import data_flow  # noqa: F401
from minitf.framework.op_defs import dataset  # noqa: F401
from minitf.framework.op_defs import function  # noqa: F401
from minitf.framework.op_defs import io  # noqa: F401
from minitf.framework.op_defs import linalg  # noqa: F401
from minitf.framework.op_defs import logging  # noqa: F401
from minitf.framework.op_defs import lookup  # noqa: F401
from minitf.framework.op_defs import math  # noqa: F401
from minitf.framework.op_defs import nn  # noqa: F401
from minitf.framework.op_defs import parsing  # noqa: F401
from minitf.framework.op_defs import random  # noqa: F401
from minitf.framework.op_defs import readers  # noqa: F401
from minitf.framework.op_defs import sendrecv  # noqa: F401
from minitf.framework.op_defs import sparse  # noqa: F401
from minitf.framework.op_defs import state  # noqa: F401
from minitf.framework.op_defs import string  # noqa: F401
from minitf.framework.op_defs import training  # noqa: F401
from minitf.framework.op_defs import user_ops  # noqa: F401
