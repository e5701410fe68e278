"""`tf.assert_*`: checks on tensors, as ops that fail the step (or as errors when building).

Each check returns an op: an `Assert` that fails the step with an
InvalidArgumentError when the condition does not hold at run time, or a
NoOp when the check could be decided while building the graph (a wrong
dtype or a wrong static rank is then a TypeError or ValueError at once).
Code that must not run on bad values puts the op in its control
dependencies, as `tf.metrics` and `tf.confusion_matrix` do.

Mirrors `tensorflow/python/ops/check_ops.py` (TF 1.15's graph-mode paths).
"""

from minitf.graph import dtypes, ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops, control_flow_ops, math_ops
from minitf.ops.control_flow_ops import Assert

__all__ = ["assert_greater_equal", "assert_less_equal", "assert_less", "assert_non_negative",
           "assert_type", "assert_rank_in"]


def _binary_assert(symbol, op_name, compare, x, y, data, summarize, message, name):
    """Assert that `compare(x, y)` holds for every element; the message names x and y."""
    with ops.name_scope(name, op_name, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [message or "", "Condition x %s y did not hold element-wise:" % symbol,
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        condition = math_ops.reduce_all(compare(x, y))
        return Assert(condition, data, summarize=summarize)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x >= y elementwise (with broadcasting)."""
    return _binary_assert(">=", "assert_greater_equal", math_ops.greater_equal, x, y, data,
                          summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x <= y elementwise (with broadcasting)."""
    return _binary_assert("<=", "assert_less_equal", math_ops.less_equal, x, y, data,
                          summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x < y elementwise (with broadcasting)."""
    return _binary_assert("<", "assert_less", math_ops.less, x, y, data, summarize, message,
                          name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails unless every element of x is >= 0."""
    with ops.name_scope(name, "assert_non_negative", [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message or "", "Condition x >= 0 did not hold element-wise:",
                    "x (%s) = " % x.name, x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return assert_less_equal(zero, x, data=data, summarize=summarize)


def assert_type(tensor, tf_type, message=None, name=None):
    """A NoOp when `tensor` has dtype `tf_type`; a TypeError (while building) when not."""
    tf_type = dtypes.as_dtype(tf_type)
    with ops.name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError("%s  %s must be of type %s" % (message or "", tensor.name, tf_type))
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """An op that fails unless the rank of `x` is one of `ranks`.

    When both are known while building, the check happens then: a NoOp if
    it holds, a ValueError if not.
    """
    with ops.name_scope(name, "assert_rank_in", (x,) + tuple(ranks) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(rank, name="rank") for rank in ranks)
        if data is None:
            data = ([message or "", "Tensor %s must have rank in" % x.name] + list(ranks)
                    + ["Received shape: ", array_ops.shape(x)])
        for rank in ranks:
            assert_type(rank, dtypes.int32)
        static_ranks = [constant_value(rank) for rank in ranks]
        if all(r is not None for r in static_ranks):
            if any(r.ndim != 0 for r in static_ranks):
                raise ValueError("Rank must be a scalar.")
            if x.shape.ndims is not None:
                if x.shape.ndims not in [int(r) for r in static_ranks]:
                    raise ValueError("%sTensor %s must have rank in %s.  Received rank %d, "
                                     "shape %s" % ("%s.  " % message if message else "",
                                                   x.name, tuple(int(r) for r in static_ranks),
                                                   x.shape.ndims, x.shape))
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        actual = array_ops.rank(x)
        condition = math_ops.equal(ranks[0], actual)
        for rank in ranks[1:]:
            condition = math_ops.logical_or(condition, math_ops.equal(rank, actual))
        return Assert(condition, data, summarize=summarize)
