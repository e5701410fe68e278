"""The small helpers the built-in kernels share.

What several op families need in the same words is written once here: an
InvalidArgumentError without a node (the executor adds the node when the
error leaves the kernel), a shape printed as TensorFlow's kernels print it,
a small input read on the host, a string element as a Python str, the
buffer of the variable a ref input brings, and the values max and min start
from. A kernel sees only its context (`minitf/framework/op_kernel.py`) and
its inputs; so do these helpers.

Mirrors the helpers TensorFlow's kernels call: `errors::InvalidArgument`
(`tensorflow/core/lib/core/errors.h`), `TensorShape::DebugString`
(`tensorflow/core/framework/tensor_shape.h`), inputs declared
`HostMemory(...)` in `REGISTER_KERNEL_BUILDER`, and the check that a ref
input is initialized, which TensorFlow's executor makes before the kernel
runs (`tensorflow/core/common_runtime/executor.cc`, PrepareInputs).
"""

import numpy as np

from minitf.framework.resource_mgr import Var
from minitf.graph import errors


# --- errors and shapes ---------------------------------------------------------------

def invalid(message):
    """An InvalidArgumentError in a kernel's words; the executor adds the node to it."""
    return errors.InvalidArgumentError(None, None, message)


def shape_text(shape):
    """A shape as TensorFlow prints it in kernel errors: `[2,3]`.

    `shape` is a tuple of ints, or the 1-D integer array a shape input holds.
    """
    return "[%s]" % ",".join(str(d) for d in shape)


# The names TensorFlow's runtime prints for dtypes (DataTypeString), where they
# differ from the Python names.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dtype):
    """A dtype as TensorFlow's runtime prints it in kernel errors: `float`, `int32`."""
    return _TF_TYPE_NAMES.get(dtype.name, dtype.name)


# --- host memory ---------------------------------------------------------------------

def host_array(ctx, value):
    """A small input (axes, indices, a shape) as a NumPy array on the host (a no-op on the CPU).

    TensorFlow keeps such inputs in host memory even for a GPU kernel, since
    the kernel reads them to decide what to compute.
    """
    return np.asarray(ctx.device.copy_to_host(value))


def on_device(ctx, array):
    """A small host array computed here (a shape, a size) as a value of the kernel's device."""
    return ctx.device.copy_to_device(array)


# --- strings -------------------------------------------------------------------------

def text(value, decode_errors="strict"):
    """A string tensor's element (bytes, str, or a 0-d array of one) as a Python str.

    `decode_errors` is `bytes.decode`'s `errors`: "replace" where the text only
    goes into an error message, which must not itself fail on bytes that are
    not UTF-8.
    """
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode("utf-8", decode_errors) if isinstance(value, bytes) else str(value)


def texts(array):
    """Every element of a string tensor, in row-major order, as Python strs."""
    return [text(v) for v in np.asarray(array, dtype=object).reshape(-1)]


# --- variables -----------------------------------------------------------------------

def check_is_variable(ctx, ref, index=0):
    """A fed tensor replaces a variable's reference for reads, but cannot be updated."""
    if not isinstance(ref, Var):
        raise invalid("Input %d of node %s was passed %s from a fed tensor incompatible "
                      "with expected %s_ref" % (index, ctx.node_name, ref.dtype, ref.dtype))


def variable_buffer(var):
    """The variable's buffer; FailedPreconditionError while it is uninitialized."""
    if var.value is None:
        raise errors.FailedPreconditionError(
            None, None, "Attempting to use uninitialized value %s" % var.name)
    return var.value


# --- identities of max and min -------------------------------------------------------

def max_identity(dtype):
    """What a max starts from, a value that never wins: -inf, or the smallest integer.

    Max pooling pads its windows with it too.
    """
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def min_identity(dtype):
    """What a min starts from, a value that never wins: inf, or the largest integer."""
    return np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max
