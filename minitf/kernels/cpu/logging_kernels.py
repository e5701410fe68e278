"""The kernel of Assert: a failed check, with a summary of the tensors it was given.

The message is TensorFlow's: `assertion failed: [msg] [1.5 2 3...]`, each
tensor in brackets, at most `summarize` of its elements, nested rows in
brackets of their own, `...` where elements were left out. Numbers print
with the fewest digits that give the same float back (6 or 9 digits for
float32, 15 or 17 for float64), booleans as 1 and 0.

Mirrors `tensorflow/core/kernels/logging_ops.cc` (AssertOp) and
`Tensor::SummarizeValue` of `tensorflow/core/framework/tensor.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


@register_kernel("Assert", ALL_DEVICE_TYPES, is_expensive=False)
def assert_op(ctx, condition, *data, summarize):
    condition = host_array(ctx, condition)
    if condition.size != 1:
        raise invalid("In[0] should be a scalar: %s" % shape_text(condition.shape))
    if bool(condition.reshape(-1)[0]):
        return None
    parts = ["[%s]" % summarize_value(host_array(ctx, value), summarize) for value in data]
    raise invalid("assertion failed: " + " ".join(parts))


def summarize_value(array, max_entries):
    """At most `max_entries` elements of `array` as text, in TF's (non-v2) format."""
    flat = array.reshape(-1)
    limit = flat.size if max_entries < 0 else min(max_entries, flat.size)
    if array.ndim == 0:
        text = " ".join(_element_text(v) for v in flat[:limit])
    else:
        pieces, _ = _one_dim(array.shape, 0, flat, 0, limit)
        text = "".join(pieces)
    return text + ("..." if flat.size > limit else "")


def _one_dim(shape, dim, flat, index, limit):
    """The text of the sub-array starting at `flat[index]` along dims `dim`..: (pieces, index)."""
    pieces = []
    if index >= limit:
        return pieces, index
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if index >= limit:
                if dim != 0:
                    pieces.append("...")
                return pieces, index
            if i > 0:
                pieces.append(" ")
            pieces.append(_element_text(flat[index]))
            index += 1
        return pieces, index
    for _ in range(shape[dim]):
        opened = index < limit
        if opened:
            pieces.append("[")
        inner, index = _one_dim(shape, dim + 1, flat, index, limit)
        pieces.extend(inner)
        if index < limit or opened:
            pieces.append("]")
    return pieces, index


def _element_text(value):
    if isinstance(value, (bytes, str)):
        return _c_escape(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (np.floating, float)):
        return _float_text(value)
    return str(value)


def _float_text(value):
    """The shortest of TF's two precisions that gives the same float back."""
    short, long_ = (6, 9) if np.asarray(value).dtype.itemsize <= 4 else (15, 17)
    text = "%.*g" % (short, value)
    if np.asarray(float(text), np.asarray(value).dtype) != value:
        text = "%.*g" % (long_, value)
    return text


def _c_escape(text):
    escapes = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}
    return "".join(escapes.get(c, c) for c in text)
