"""Histograms of fixed-width bins: `tf.histogram_fixed_width` and its per-value bins.

`histogram_fixed_width(values, [lo, hi], nbins)` counts the values in
`nbins` equal bins spanning [lo, hi); a value below lo counts in the first
bin and one at or above hi in the last. It is one op, HistogramFixedWidth
(kernel in `minitf/kernels/cpu/math_kernels.py`).
`histogram_fixed_width_bins` gives instead each value's bin index, built
from elementwise ops.

Mirrors `tensorflow/python/ops/histogram_ops.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import clip_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops

__all__ = ["histogram_fixed_width", "histogram_fixed_width_bins"]


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """A 1-D tensor of `nbins` counts: how many `values` fall in each bin of `value_range`."""
    with ops.name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as name:
        return apply_op("HistogramFixedWidth", name=name, values=values, value_range=value_range,
                        nbins=nbins, dtype=dtype)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each value (same shape as `values`), clipped into [0, nbins - 1]."""
    del dtype  # TF's signature has it; the indices are int32 as in TF
    with ops.name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        values = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        check = control_flow_ops.Assert(math_ops.greater(nbins, 0),
                                        ["nbins %s must > 0" % nbins])
        nbins = control_flow_ops.with_dependencies([check], nbins)
        nbins_float = math_ops.cast(nbins, values.dtype)
        scaled_values = math_ops.truediv(values - value_range[0],
                                         value_range[1] - value_range[0], name="scaled_values")
        indices = math_ops.floor(nbins_float * scaled_values, name="indices")
        indices = math_ops.cast(clip_ops.clip_by_value(indices, 0, nbins_float - 1),
                                dtypes.int32)
        return array_ops.reshape(indices, shape)
