"""The Assert kernel: nothing when the condition holds, else the step fails, saying why.
(And, at the end, CheckNumerics: its input, unless it holds a NaN or an infinity; and
Print: its input, printing data as it passes; PrintV2: one formatted string, printed.)

The error is an InvalidArgumentError whose message is
`assertion failed: [first datum] [second datum] ...`, each datum printed as
TensorFlow's `Tensor::SummarizeValue` prints it: its first `summarize`
elements, nested dimensions in brackets, `...` for the rest, strings as they
are, floats in the shortest of `%.6g` / `%.9g` that reads back the same.

Mirrors `tensorflow/core/kernels/logging_ops.cc` (AssertOp) and
`Tensor::SummarizeValue` of `core/framework/tensor.cc`; CheckNumerics mirrors
`core/kernels/check_numerics_op.cc`.
"""

import logging
import sys
import threading
import time

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES, register_kernel
from minitf.kernels.kernel_util import host_array, invalid, shape_text


@register_kernel("Assert", ALL_DEVICE_TYPES, is_expensive=False)
def assert_(ctx, condition, *data, T, summarize):  # noqa: N803 - the attr's name
    del T
    condition = host_array(ctx, condition)
    if condition.size != 1:
        raise invalid("In[0] should be a scalar: %s" % shape_text(condition.shape))
    if bool(condition.reshape(())):
        return None
    raise invalid("assertion failed: " + " ".join(
        "[%s]" % summarize_value(host_array(ctx, datum), summarize) for datum in data))


def summarize_value(value, max_entries):
    """The first `max_entries` elements of `value` (all when negative) as TensorFlow prints them."""
    flat = value.reshape(-1)
    limit = flat.size if max_entries < 0 else min(max_entries, flat.size)
    elements = [_format_element(v, value.dtype) for v in flat[:limit]]
    if value.ndim == 0:
        text = " ".join(elements)
    else:
        parts = []
        _format_dim(value.shape, 0, elements, [0], parts)
        text = "".join(parts)
    return text + ("..." if flat.size > limit else "")


def _format_dim(shape, dim, elements, printed, parts):
    """Dimension `dim` of the nested text; `printed[0]` counts the elements written so far."""
    if printed[0] >= len(elements):
        return
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if printed[0] >= len(elements):
                if dim != 0:
                    parts.append("...")
                return
            parts.append((" " if i > 0 else "") + elements[printed[0]])
            printed[0] += 1
        return
    for _ in range(shape[dim]):
        opened = printed[0] < len(elements)
        parts.append("[" if opened else "")
        _format_dim(shape, dim + 1, elements, printed, parts)
        parts.append("]" if opened else "")


def _format_element(value, dtype):
    if dtype == object:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if dtype == np.bool_:
        return "1" if value else "0"
    if np.issubdtype(dtype, np.floating):
        digits, more = (6, 9) if dtype.itemsize <= 4 else (15, 17)
        text = "%.*g" % (digits, value)
        return text if dtype.type(text) == value or np.isnan(value) else "%.*g" % (more, value)
    return str(value)


@register_kernel("CheckNumerics", ALL_DEVICE_TYPES)
def check_numerics(ctx, tensor, *, T, message):  # noqa: N803 - the attr's name
    """`tensor` itself, unless it holds a NaN or an infinity: then the step fails."""
    del T
    has_inf = bool(ctx.xp.isinf(tensor).any())
    has_nan = bool(ctx.xp.isnan(tensor).any())
    if has_inf or has_nan:
        kinds = "Inf and NaN" if has_inf and has_nan else "Inf" if has_inf else "NaN"
        raise invalid("%s : Tensor had %s values" % (message, kinds))
    return tensor


@register_kernel("Print", ALL_DEVICE_TYPES)
def print_(ctx, input_, *data, T, U, message, first_n, summarize):  # noqa: N803
    """`input_` unchanged, after printing `message[datum][datum]...` to stderr (the first
    `first_n` runs of the node only, unless first_n is -1)."""
    del T, U
    with _print_lock:
        runs = ctx.state.get("runs", 0)
        ctx.state["runs"] = runs + 1
    if first_n < 0 or runs < first_n:
        sys.stderr.write(message + "".join(
            "[%s]" % summarize_value(host_array(ctx, datum), summarize) for datum in data) + "\n")
    return input_


_print_lock = threading.Lock()


# The streams PrintV2 writes to: Python's own, or a level of the `tensorflow` logger.
_LOG_LEVELS = {"log(info)": logging.INFO, "log(warning)": logging.WARNING,
               "log(error)": logging.ERROR}


@register_kernel("PrintV2", ALL_DEVICE_TYPES)
def print_v2(ctx, input_, *, output_stream, end):
    """Writes the string scalar `input_` and `end` to `output_stream` (tf.print's op)."""
    value = host_array(ctx, input_)
    if value.size != 1:
        raise invalid("Input is expected to be scalar, but got %s" % shape_text(value.shape))
    text = value.reshape(()).item()
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if output_stream in ("stderr", "stdout"):
        stream = sys.stderr if output_stream == "stderr" else sys.stdout
        with _print_lock:
            stream.write(text + end)
            stream.flush()
    elif output_stream in _LOG_LEVELS:
        logging.getLogger("tensorflow").log(_LOG_LEVELS[output_stream], text)
    else:
        raise invalid("%s is not a valid output stream. Valid streams are: stderr, stdout, "
                      "log(info), log(warning), log(error)" % output_stream)


@register_kernel("Timestamp", ALL_DEVICE_TYPES, is_expensive=False)
def timestamp(ctx):
    """The wall-clock time of this run of the node, in seconds since the epoch."""
    return ctx.xp.asarray(time.time(), dtype=np.float64)
