"""Kernels that find and compare values: unique values and their counts, what one list
lacks of another, where values fall in sorted rows, and the edit distance of sequences.

UniqueWithCounts, ListDiff, LowerBound and UpperBound are written against
`ctx.xp`; EditDistance compares sequences of any dtype (strings too) element
by element on the host, and is registered for the CPU, as in TensorFlow.

Mirrors `tensorflow/core/kernels/unique_op.cc`, `listdiff_op.cc`,
`searchsorted_op.cc` and `edit_distance_op.cc` (with `core/lib/gtl/edit_distance.h`).
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


@register_kernel("UniqueWithCounts", ALL_DEVICE_TYPES)
def unique_with_counts(ctx, x, *, out_idx):
    """Unique's outputs and, for each distinct value, how many times it occurs."""
    xp = ctx.xp
    if x.ndim != 1:
        raise invalid("unique expects a 1D vector.")
    values, first_positions, inverse, counts = xp.unique(
        x, return_index=True, return_inverse=True, return_counts=True)
    # np.unique sorts the values; TF keeps them in order of first appearance.
    order = xp.argsort(first_positions, kind="stable")
    new_position = xp.empty_like(order)
    new_position[order] = xp.arange(order.shape[0])
    index_type = out_idx.as_numpy_dtype
    return (values[order], new_position[xp.reshape(inverse, (-1,))].astype(index_type),
            counts[order].astype(index_type))


@register_kernel("ListDiff", ALL_DEVICE_TYPES)
def list_diff(ctx, x, y, *, out_idx):
    """The values of `x` that are not in `y`, in order, and their positions in `x`."""
    xp = ctx.xp
    for name, value in (("x", x), ("y", y)):
        if value.ndim != 1:
            raise invalid("%s should be a 1D vector." % name)
    keep = xp.logical_not(xp.isin(x, y))
    return x[keep], xp.flatnonzero(keep).astype(out_idx.as_numpy_dtype)


def _bound_kernel(op_type, side):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, sorted_inputs, values, *, out_type):
        """For each row, where each value would go in the sorted row (searchsorted)."""
        for name, tensor in (("sorted_inputs", sorted_inputs), ("values", values)):
            if tensor.ndim != 2:
                raise invalid("%s must have rank 2, got shape %s"
                              % (name, shape_text(tensor.shape)))
        if sorted_inputs.shape[0] != values.shape[0]:
            raise invalid("Leading dim_size of both tensors must match.")
        xp = ctx.xp
        rows = [xp.searchsorted(sorted_inputs[i], values[i], side=side)
                for i in range(values.shape[0])]
        if not rows:
            return xp.zeros(values.shape, dtype=out_type.as_numpy_dtype)
        return xp.stack(rows).astype(out_type.as_numpy_dtype)
    return kernel


_bound_kernel("LowerBound", "left")
_bound_kernel("UpperBound", "right")


# =============================================================================
# EditDistance
# =============================================================================

def _sequences(indices, values, shape, what):
    """{position (index without its last coordinate): the values in order of the last one}."""
    if indices.ndim != 2:
        raise invalid("%s_indices should be a matrix, but got shape: %s"
                      % (what, shape_text(indices.shape)))
    if values.ndim != 1 or shape.ndim != 1:
        raise invalid("%s_values and %s_shape should be vectors, but got shapes: %s and %s"
                      % (what, what, shape_text(values.shape), shape_text(shape.shape)))
    if indices.shape[0] != values.shape[0]:
        raise invalid("Expected %s_indices.dim_size(0) == %s_values.NumElements(), got %d vs. "
                      "%d" % (what, what, indices.shape[0], values.shape[0]))
    if indices.shape[1] != shape.shape[0]:
        raise invalid("Expected %s_shape.NumElements == #cols(%s_indices), their shapes are: "
                      "%s and %s" % (what, what, shape_text(shape.shape),
                                     shape_text(indices.shape)))
    grouped = {}
    for index, value in sorted(zip(map(tuple, indices.tolist()), values), key=lambda p: p[0]):
        grouped.setdefault(index[:-1], []).append(value)
    return grouped


def _levenshtein(a, b):
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@register_kernel("EditDistance", ("CPU",))
def edit_distance(ctx, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                  truth_values, truth_shape, *, normalize):
    """The Levenshtein distance between the sequences at each position (the last dimension
    orders them), divided by the truth's length when `normalize`."""
    host = [np.asarray(host_array(ctx, t)) for t in (
        hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
        truth_shape)]
    hypotheses = _sequences(*host[:3], "hypothesis")
    truths = _sequences(*host[3:], "truth")
    if host[2].shape != host[5].shape:
        raise invalid("Expected truth and hypothesis to have matching ranks, but their shapes "
                      "are: %s and %s" % (shape_text(host[5].shape), shape_text(host[2].shape)))
    out_shape = tuple(np.maximum(host[2], host[5])[:-1].tolist())
    out = np.zeros(out_shape, dtype=np.float32)
    for position in set(hypotheses) | set(truths):
        if any(not 0 <= p < d for p, d in zip(position, out_shape)):
            raise invalid("Index %s is outside the shape %s" % (list(position),
                                                                 shape_text(out_shape)))
        hypothesis, truth = hypotheses.get(position, []), truths.get(position, [])
        distance = _levenshtein(hypothesis, truth)
        if normalize:
            distance = np.float32(distance) / len(truth) if truth else np.float32(np.inf)
        out[position] = distance
    return out
