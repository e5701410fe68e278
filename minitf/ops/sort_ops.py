"""`tf.sort` and `tf.argsort`: sorting along an axis, built on top_k.

TensorFlow has no sort kernel: a descending sort is `top_k` with k the
length of the axis, and an ascending one is a descending sort of the
negated values. An axis other than the last is moved last by a transpose
first (and back after), since top_k works on rows.

Mirrors `tensorflow/python/ops/sort_ops.py`.
"""

import numpy as np

from minitf.graph import ops
from minitf.graph import tensor_util
from minitf.graph.constant_op import constant
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import nn_ops

__all__ = ["argsort", "sort"]


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """The values sorted along `axis` ("ASCENDING" or "DESCENDING"); `axis` a constant."""
    with ops.name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort `values` along `axis` (ties keep their order: always stable)."""
    del stable  # top_k keeps equal values in order, so every sort here is stable
    with ops.name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in _SORT_IMPL:
        raise ValueError("%s should be one of %s" % (direction, ", ".join(sorted(_SORT_IMPL))))
    axis = convert_to_tensor(axis, name="axis")
    axis_static = tensor_util.constant_value(axis)
    if axis.shape.ndims != 0 or axis_static is None:
        raise ValueError("axis must be a constant scalar")
    values = convert_to_tensor(values, name="values")
    return _SORT_IMPL[direction](values, int(axis_static), return_argsort)


def _descending_sort(values, axis, return_argsort=False):
    """top_k over the whole axis, moved last by a transpose when it is not last already."""
    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values.shape.ndims
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if axis < 0:
            axis += static_rank if static_rank is not None else rank
        if static_rank is not None:
            transposition = constant(np.r_[np.arange(axis), [static_rank - 1],
                                           np.arange(axis + 1, static_rank - 1), [axis]].astype(
                                               np.int32), name="transposition")
        else:
            transposition = array_ops.concat([math_ops.range(axis), [rank - 1],
                                              math_ops.range(axis + 1, rank - 1), [axis]], axis=0)
        top_k_input = array_ops.transpose(values, transposition)
    sorted_values, indices = nn_ops.top_k(top_k_input, k)
    result = indices if return_argsort else sorted_values
    if transposition is not None:
        result = array_ops.transpose(result, transposition)
    return result


def _ascending_sort(values, axis, return_argsort=False):
    """The descending sort of -values (negated back when the values are wanted)."""
    values_or_indices = _descending_sort(math_ops.negative(values), axis, return_argsort)
    return values_or_indices if return_argsort else math_ops.negative(values_or_indices)


_SORT_IMPL = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}
