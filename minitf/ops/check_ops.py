"""`tf.assert_*`: checks on tensors, as ops that fail the step (or as errors when building).

Each check returns an op: an `Assert` that fails the step with an
InvalidArgumentError when the condition does not hold at run time, or a
NoOp when the check could be decided while building the graph (a wrong
dtype or a wrong static rank is then a TypeError or ValueError at once).
Code that must not run on bad values puts the op in its control
dependencies, as `tf.metrics` and `tf.confusion_matrix` do.

`assert_equal` alone decides while building when both sides are constants:
an InvalidArgumentError at once, with the values, as in TF 1.15.

Mirrors `tensorflow/python/ops/check_ops.py` (TF 1.15's graph-mode paths).
"""

import numpy as np

from minitf.graph import dtypes, errors, ops
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops, control_flow_ops, math_ops
from minitf.ops.control_flow_ops import Assert

__all__ = ["assert_greater_equal", "assert_less_equal", "assert_less", "assert_non_negative",
           "assert_type", "assert_rank_in", "assert_equal", "assert_none_equal", "assert_greater",
           "assert_positive", "assert_negative", "assert_non_positive", "assert_near",
           "assert_integer", "assert_rank", "assert_rank_at_least", "assert_scalar",
           "assert_same_float_dtype", "assert_proper_iterable", "is_numeric_tensor",
           "is_non_decreasing", "is_strictly_increasing"]


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


# --- comparisons ----------------------------------------------------------------------------

def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x == y elementwise; when both are constants, an
    InvalidArgumentError at once if they differ."""
    with ops.name_scope(name, "assert_equal", [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [message or "", "Condition x == y did not hold element-wise:",
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        condition = math_ops.reduce_all(math_ops.equal(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None \
                and not np.all(np.asarray(x_static) == np.asarray(y_static)):
            raise errors.InvalidArgumentError(None, None, "\n".join(
                _static_text(datum) for datum in data if not (isinstance(datum, str)
                                                                and not datum)))
        return Assert(condition, data, summarize=summarize)


def _static_text(datum):
    """A datum of an assert's message as it reads while building: a constant's value."""
    if isinstance(datum, ops.Tensor):
        value = constant_value(datum)
        return str(datum) if value is None else str(value)
    return str(datum)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x != y elementwise (with broadcasting)."""
    return _binary_assert("!=", "assert_none_equal", math_ops.not_equal, x, y, data, summarize,
                          message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x > y elementwise (with broadcasting)."""
    return _binary_assert(">", "assert_greater", math_ops.greater, x, y, data, summarize,
                          message, name)


def _sign_assert(symbol, op_name, check, x, data, summarize, message, name):
    """`check(x, zero)` (assert_less and its kin) in the scope `op_name`, the message in
    terms of x and 0."""
    with ops.name_scope(name, op_name, [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message or "", "Condition x %s 0 did not hold element-wise:" % symbol,
                    "x (%s) = " % x.name, x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return check(x, zero, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails unless every element of x is > 0."""
    return _sign_assert(">", "assert_positive", lambda x, zero, **kw: assert_less(zero, x, **kw),
                        x, data, summarize, message, name)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails unless every element of x is < 0."""
    return _sign_assert("<", "assert_negative", assert_less, x, data, summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails unless every element of x is <= 0."""
    return _sign_assert("<=", "assert_non_positive", assert_less_equal, x, data, summarize,
                        message, name)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """An op that fails unless |x - y| < atol + rtol * |y| elementwise (both tolerances 10
    machine epsilons of x's type by default)."""
    with ops.name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=x.dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=x.dtype)
        if data is None:
            data = [message or "",
                    "x and y not equal to tolerance rtol = %s, atol = %s" % (rtol, atol),
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        tolerance = atol + rtol * math_ops.abs(y)
        difference = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(difference, tolerance))
        return Assert(condition, data, summarize=summarize)


# --- types and ranks, decided while building where they can be -----------------------------

def assert_integer(x, message=None, name=None):
    """A NoOp when x has an integer dtype; a TypeError (while building) when not."""
    with ops.name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError('%s  Expected "x" to be integer type.  Found: %s of dtype %s'
                            % (message or "", x.name, x.dtype))
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x has rank `rank`; decided while building when both are known
    (a NoOp, or a ValueError)."""
    return _rank_assert("assert_rank", "rank", lambda actual, given: actual == given,
                        math_ops.equal, x, rank, data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """An op that fails unless x has rank `rank` or more; decided while building when both are
    known."""
    return _rank_assert("assert_rank_at_least", "rank at least",
                        lambda actual, given: actual >= given, math_ops.greater_equal, x, rank,
                        data, summarize, message, name)


def _rank_assert(op_name, words, static_condition, dynamic_condition, x, rank, data, summarize,
                 message, name):
    with ops.name_scope(name, op_name, (x, rank) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        if data is None:
            data = [message or "", "Tensor %s must have %s" % (x.name, words), rank,
                    "Received shape: ", array_ops.shape(x)]
        assert_type(rank, dtypes.int32)
        rank_static = constant_value(rank)
        if rank_static is not None:
            if np.ndim(rank_static) != 0:
                raise ValueError("Rank must be a scalar.")
            if x.shape.ndims is not None:
                if not static_condition(x.shape.ndims, int(rank_static)):
                    raise ValueError("%sTensor %s must have %s %d.  Received rank %d, shape %s"
                                     % ("%s.  " % message if message else "", x.name, words,
                                        int(rank_static), x.shape.ndims, x.shape))
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        condition = dynamic_condition(array_ops.rank(x), rank)
        if rank_static is None:
            rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ",
                                                    rank])
            condition = control_flow_ops.with_dependencies([rank_check], condition)
        return Assert(condition, data, summarize=summarize)


def assert_scalar(tensor, name=None, message=None):
    """`tensor` as a tensor, when its static shape is a scalar's; a ValueError when not."""
    with ops.name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        if tensor.shape.ndims != 0:
            raise ValueError("%sExpected scalar shape for %s, saw shape: %s."
                             % ("%s.  " % message if message else "", tensor.name,
                                tensor.shape))
        return tensor


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one float dtype of `tensors` (and of `dtype`, if given); float32 when there is
    none. ValueError when they differ or the type is not a float."""
    first = None  # the tensor that set `dtype`, when none was given
    for tensor in tensors or ():
        if tensor is None:
            continue
        item_type = tensor.dtype.base_dtype
        if dtype is None:
            dtype, first = item_type, tensor
        elif item_type != dtype:
            raise ValueError("%s, type=%s, must be of the same type (%s)%s." % (
                tensor.name, item_type, dtype, " as %s" % first.name if first is not None else ""))
    if dtype is None:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


def assert_proper_iterable(values):
    """TypeError unless `values` is an iterable of values: a tensor, an array or a string is
    iterable too, but by accident."""
    if isinstance(values, (ops.Tensor, SparseTensor, np.ndarray, bytes, str)):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: %s'
                        % type(values))
    if not hasattr(values, "__iter__"):
        raise TypeError('Expected argument "values" to be iterable.  Found: %s' % type(values))


# --- order ----------------------------------------------------------------------------------

def is_numeric_tensor(tensor):
    """True for a tensor of numbers (not of strings, bools, resources)."""
    return isinstance(tensor, ops.Tensor) and (
        tensor.dtype.is_floating or tensor.dtype.is_integer or tensor.dtype.is_complex)


def is_non_decreasing(x, name=None):
    """A boolean scalar: whether x, read in row-major order, never decreases."""
    with ops.name_scope(name, "is_non_decreasing", [x]):
        diff = _successive_differences(x)
        zero = convert_to_tensor(0, dtype=diff.dtype)
        return math_ops.reduce_all(math_ops.less_equal(zero, diff))


def is_strictly_increasing(x, name=None):
    """A boolean scalar: whether x, read in row-major order, always increases."""
    with ops.name_scope(name, "is_strictly_increasing", [x]):
        diff = _successive_differences(x)
        zero = convert_to_tensor(0, dtype=diff.dtype)
        return math_ops.reduce_all(math_ops.less(zero, diff))


def _successive_differences(x):
    """x[1:] - x[:-1] of x flattened: empty for fewer than two elements.

    (TensorFlow builds a tf.cond for that case; the slices are empty anyway.)
    """
    x = array_ops.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError("Expected x to be numeric, instead found: %s" % x)
    return (array_ops.strided_slice(x, [1], [0], end_mask=1)
            - array_ops.strided_slice(x, [0], [-1]))


# --- assert_shapes: ranks and dimensions, named ones consistent across tensors ----------------

def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks each (tensor, shape spec) of `shapes` (pairs, or a dict).

    A spec lists the dimensions: an int is that size, a string names a size
    that every other dimension of that name must share (`("N", 3)`,
    `("N",)`), None is any size, and a leading "..." or "*" allows any
    dimensions before the rest. What the static shapes decide raises
    ValueError at once; the rest is checked when the returned op runs.
    """
    del data, summarize
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = (message + "  ") if message else ""
    with ops.name_scope(name, "assert_shapes", [x for x, _ in pairs]):
        assertions = []
        sizes = {}  # name -> (its size: an int or a scalar tensor, which tensor and dim)
        for x, spec in pairs:
            x = convert_to_tensor(x)
            spec = list(spec)
            any_prefix = bool(spec) and spec[0] in ("...", "*")
            dims = spec[1:] if any_prefix else spec
            assertions.append(_assert_spec_rank(x, len(dims), any_prefix, prefix))
            shape = array_ops.shape(x)
            static = x.shape.as_list() if x.shape.ndims is not None else None
            for offset, dim in enumerate(dims):
                if dim is None:
                    continue
                index = offset - len(dims) if any_prefix else offset
                known = static[index] if static is not None else None
                actual = known if known is not None else shape[index]
                if isinstance(dim, str):
                    if dim not in sizes:
                        sizes[dim] = (actual, x, index)
                        continue
                    expected, source, source_index = sizes[dim]
                    cause = "Specified by tensor %s dimension %d.  " % (source.name, source_index)
                else:
                    expected, cause = int(dim), "Specified explicitly.  "
                what = "%s%sTensor %s dimension %d must have size" % (prefix, cause, x.name, index)
                if isinstance(actual, int) and isinstance(expected, int):
                    if actual != expected:
                        raise ValueError("%s %d.  Received size %d, shape %s" % (
                            what, expected, actual, tuple(static)))
                    continue
                assertions.append(control_flow_ops.Assert(
                    math_ops.equal(math_ops.cast(actual, dtypes.int64),
                                   math_ops.cast(expected, dtypes.int64)),
                    [what, expected, "Received size", actual]))
        return control_flow_ops.group(*[a for a in assertions if a is not None])


def _assert_spec_rank(x, rank, at_least, prefix):
    """The rank check of one spec: at once when the rank is known, else an op (or None)."""
    if x.shape.ndims is not None:
        ok = x.shape.ndims >= rank if at_least else x.shape.ndims == rank
        if not ok:
            raise ValueError("%sTensor %s must have rank %s%d.  Received rank %d, shape %s" % (
                prefix, x.name, "at least " if at_least else "", rank, x.shape.ndims,
                tuple(x.shape.as_list())))
        return None
    if at_least:
        return assert_rank_at_least(x, rank)
    return assert_rank(x, rank)
