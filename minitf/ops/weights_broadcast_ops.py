"""Weights for losses and metrics: broadcast to the values' shape, but only in the allowed ways.

A weight may be a scalar, or have the values' rank with each dimension
either 1 or the values' own. `broadcast_weights` multiplies the weights by
`ones_like(values)` after `assert_broadcastable` has checked that: while
building when the shapes are known (a ValueError), else at run time (an
Assert of a `tf.cond` that compares dimensions only when the ranks agree).

Mirrors `tensorflow/python/ops/weights_broadcast_ops.py`.
"""

from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops, control_flow_ops, math_ops
from minitf.ops.control_flow_ops import Assert

_ERROR_PREFIX = "weights can not be broadcast to values."


def assert_broadcastable(weights, values):
    """A NoOp, or an Assert, checking that `weights` can be broadcast to `values`.

    Raises ValueError while building when the static shapes already say no.
    Otherwise the Assert checks at run time, where a `tf.cond` on the ranks
    compares the dimensions only when the ranks agree.
    """
    with ops.name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with ops.name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        with ops.name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        static_weights_rank, static_values_rank = weights.shape.ndims, values.shape.ndims
        if static_weights_rank is not None and static_values_rank is not None:
            if static_weights_rank == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if static_weights_rank != static_values_rank:
                raise ValueError("%s values.rank=%s. weights.rank=%s. values.shape=%s. "
                                 "weights.shape=%s." % (_ERROR_PREFIX, static_values_rank,
                                                        static_weights_rank, values.shape,
                                                        weights.shape))
            static_weights = constant_value(weights_shape)
            static_values = constant_value(values_shape)
            if static_weights is not None and static_values is not None:
                for i, (w, v) in enumerate(zip(static_weights, static_values)):
                    if w not in (1, v):
                        raise ValueError("%s Mismatch at dim %s. values.shape=%s "
                                         "weights.shape=%s." % (_ERROR_PREFIX, i, static_values,
                                                                static_weights))
                return control_flow_ops.no_op(name="static_dims_check_success")
        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")
        data = (_ERROR_PREFIX, "weights.shape=", weights.name, weights_shape,
                "values.shape=", values.name, values_shape, "is_scalar=", is_scalar)
        is_valid_shape = control_flow_ops.cond(
            is_scalar, lambda: is_scalar,
            lambda: _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank,
                                               values_shape),
            name="is_valid_shape")
        return Assert(is_valid_shape, data, name=scope)


def _has_valid_nonscalar_shape(weights_rank, weights_shape, values_rank, values_shape):
    """Whether the ranks agree and each dimension of the weights is 1 or the values' own."""
    with ops.name_scope(None, "has_valid_nonscalar_shape",
                        (weights_rank, weights_shape, values_rank, values_shape)) as scope:
        is_same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
        return control_flow_ops.cond(is_same_rank,
                                     lambda: _has_valid_dims(weights_shape, values_shape),
                                     lambda: is_same_rank, name=scope)


def _has_valid_dims(weights_shape, values_shape):
    """Whether each dimension of the weights is 1 or the values' (same ranks)."""
    with ops.name_scope(None, "has_invalid_dims", (weights_shape, values_shape)) as scope:
        return math_ops.reduce_all(math_ops.logical_or(
            math_ops.equal(weights_shape, 1), math_ops.equal(weights_shape, values_shape)),
            name=scope)


def broadcast_weights(weights, values):
    """`weights` broadcast to the shape of `values` (checked first), of the values' dtype."""
    with ops.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if (weights.shape.is_fully_defined() and values.shape.is_fully_defined()
                and weights.shape.is_compatible_with(values.shape)):
            return weights
        with ops.control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)
