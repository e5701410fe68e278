"""The Gradients chapter: the gradient registry, tf.gradients and the gradient functions.

Importing this package registers the gradient function of every built-in op.
Mirrors `tensorflow/python/ops/gradients_impl.py`, `gradients_util.py`,
`custom_gradient.py` and the `*_grad.py` modules.
"""

from minitf.autodiff import array_grad  # noqa: F401  registers gradients
from minitf.autodiff import control_flow_grad  # noqa: F401  registers gradients
from minitf.autodiff import data_grad  # noqa: F401  registers gradients
from minitf.autodiff import lookup_grad  # noqa: F401  registers gradients
from minitf.autodiff import math_grad  # noqa: F401  registers gradients
from minitf.autodiff import nn_grad  # noqa: F401  registers gradients
from minitf.autodiff import sparse_grad  # noqa: F401  registers gradients
from minitf.autodiff import string_grad  # noqa: F401  registers gradients
from minitf.autodiff import tensor_array_grad  # noqa: F401  registers gradients
from minitf.autodiff.custom_gradient import custom_gradient  # noqa: F401
from minitf.autodiff.gradients_impl import (  # noqa: F401
                                            AggregationMethod,
                                            UnconnectedGradients,
                                            gradients,
                                            hessians,
)
from minitf.autodiff.registry import NotDifferentiable, RegisterGradient, no_gradient  # noqa: F401
