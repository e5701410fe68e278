"""Calling a kernel: its inputs read from variables, its context, its outputs checked.

What every loop that runs nodes does around a kernel call, whichever loop
it is: the general executor's (`executor.py`), the flat loop of a partition
(`single_threaded_executor.py`) and the flat loop of a loop's iterations
(`flat_frames.py`), the last two gathering the inputs from their places
with a `gatherer`. A non-Ref input that is a variable is read as a
read-only view of its buffer; the context lets the kernel write into the
inputs the executor found free (buffer forwarding); the result must be the
outputs the OpDef promises, of exactly their dtypes; and any failure
becomes an OpError naming the node, its op type and device.

Mirrors the parts of `tensorflow/core/common_runtime/executor.cc` around
`OpKernel::Compute` (PrepareInputs, ProcessOutputs).
"""

import operator

from minitf.framework import buffers
from minitf.framework.op_kernel import ForwardingContext, OpKernelContext
from minitf.framework.resource_mgr import Var
from minitf.graph import errors


def read_variable(node, var):
    """What a non-Ref input reads from a variable: a read-only view of its buffer."""
    if not isinstance(var, Var):
        return var
    value = var.value
    if value is None:
        raise errors.FailedPreconditionError(
            node.node_def, None, "Attempting to use uninitialized value %s" % var.name)
    return buffers.read_only_view(value)  # later updates change the buffer in place


def check_outputs(node, result):
    """The kernel's result as a tuple of outputs, each of exactly the dtype the OpDef promises.

    Only a Switch and a _Recv may leave an output without a value (None): it is dead.
    """
    if node.single_output:
        expected = node.output_dtypes[0]
        dtype = getattr(result, "dtype", None)
        if expected is not None and dtype is not expected and dtype != expected and not (
                result is None and node.is_transfer):
            raise _wrong_dtype(result, expected)
        return (result,)
    outputs = tuple(result or ())
    if len(outputs) != node.num_outputs:
        raise errors.InternalError(None, None, "Kernel returned %d outputs, expected %d"
                                   % (len(outputs), node.num_outputs))
    for value, expected in zip(outputs, node.output_dtypes):
        if expected is not None and getattr(value, "dtype", None) != expected and not (
                value is None and node.is_switch):
            raise _wrong_dtype(value, expected)
    return outputs


def _wrong_dtype(value, expected):
    return errors.InternalError(None, None, "Kernel produced %s, expected %s" % (
        _describe(value), expected.type.__name__))


def _describe(value):
    dtype = getattr(value, "dtype", None)
    return str(dtype) if dtype is not None else "a %s" % type(value).__name__


def as_op_error(node, exception):
    """Any kernel failure as an OpError naming the node, its op type and device."""
    if isinstance(exception, errors.OpError) and exception._node_name is not None:
        return exception  # already names its node (it came through a rendezvous)
    if isinstance(exception, errors.OpError):
        error_class, message = type(exception), exception.message
    elif isinstance(exception, (ValueError, IndexError, TypeError, ZeroDivisionError)):
        error_class, message = errors.InvalidArgumentError, str(exception)
    elif isinstance(exception, MemoryError):
        error_class, message = errors.ResourceExhaustedError, "OOM: %s" % exception
    else:
        error_class = errors.InternalError
        message = "%s: %s" % (type(exception).__name__, exception)
    if "[[node " not in message:
        message = "%s\n\t [[node %s (op: %s, device: %s)]]" % (
            message, node.name, node.op_type, node.device.name)
    error = error_class(node.node_def, None, message)
    error._node_name = node.name
    return error


def kernel_context(node, candidates, step, args, iteration=None, is_dead=False):
    """The kernel's context, letting it write into those of the inputs `candidates` (slots of
    `args`, from `_plan_forwarding`) that are free now."""
    if not candidates:
        return OpKernelContext(node, step, iteration, is_dead)
    free = tuple(slot for slot in candidates if buffers.only_reference(args, slot))
    if not free:
        return OpKernelContext(node, step, iteration, is_dead)
    return ForwardingContext(node, step, iteration, is_dead, free)


def gatherer(places):
    """A function of `values` giving the inputs at `places` as a sequence, all in C.

    (A list comprehension costs a Python frame per node; `itemgetter` with
    two or more places gives a tuple, with a slice a list.)
    """
    if len(places) >= 2:
        return operator.itemgetter(*places)
    if places:
        return operator.itemgetter(slice(places[0], places[0] + 1))
    return operator.itemgetter(slice(0, 0))
