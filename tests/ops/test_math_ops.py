"""Math ops: values against NumPy, dtypes, node names, static shapes and errors.

Node names, op types and error wording were read off a reference TensorFlow
(`tf.compat.v1` in graph mode) by building the same expressions there.
"""

import numpy as np
import pytest

import minitf as tf


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def assert_same(actual, expected):
    """Equal values (NaN equal to NaN) and exactly the same dtype."""
    expected = np.asarray(expected)
    assert np.asarray(actual).dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-6, equal_nan=True)


# =============================================================================
# Binary elementwise arithmetic
# =============================================================================

X = np.array([[-3.5, -1.0, 0.5], [2.0, 4.25, 7.0]])
Y = np.array([1.5, -2.0, 3.0])  # broadcasts along the rows of X

BINARY_CASES = [
    (tf.add, np.add, "Add"),
    (tf.subtract, np.subtract, "Sub"),
    (tf.multiply, np.multiply, "Mul"),
    (tf.maximum, np.maximum, "Maximum"),
    (tf.minimum, np.minimum, "Minimum"),
    (tf.squared_difference, lambda x, y: (x - y) ** 2, "SquaredDifference"),
]


@pytest.mark.parametrize("fn, reference, op_type", BINARY_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_binary_ops_broadcast_like_numpy_and_keep_the_dtype(fn, reference, op_type, dtype):
    x, y = X.astype(dtype), Y.astype(dtype)
    z = fn(tf.constant(x), tf.constant(y))
    assert z.op.type == op_type
    assert z.dtype == tf.as_dtype(dtype)
    assert z.shape.as_list() == [2, 3]
    assert_same(run(z), reference(x, y).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.float16])
def test_small_dtypes_stay_small_and_wrap(dtype):
    x = np.array([100, 7], dtype=dtype)
    result = run([tf.add(x, x), tf.multiply(x, x), tf.maximum(x, x)])
    assert_same(result[0], x + x)
    assert_same(result[1], x * x)
    assert_same(result[2], x)


def test_functions_name_their_nodes_like_tensorflow():
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    names = [t.op.name for t in (
        tf.add(a, b), tf.subtract(a, b), tf.multiply(a, b), tf.divide(a, b), tf.truediv(a, b),
        tf.div(a, b), tf.realdiv(a, b), tf.floordiv(a, b), tf.mod(a, b), tf.floormod(a, b),
        tf.pow(a, b), tf.maximum(a, b), tf.minimum(a, b), tf.squared_difference(a, b))]
    assert names == ["Add", "Sub", "Mul", "truediv", "truediv_1", "div", "RealDiv", "floordiv",
                     "FloorMod", "FloorMod_1", "Pow", "Maximum", "Minimum", "SquaredDifference"]


def test_python_operands_take_the_tensor_dtype():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    z = tf.add(x, 1)
    assert z.dtype == tf.float64
    assert_same(run(z), np.array([2.0, 3.0]))


def test_mismatched_dtypes_are_a_type_error():
    with pytest.raises(TypeError, match="Input 'y' of 'Add' Op has type float32 that does not "
                                        "match type int32 of argument 'x'"):
        tf.add(tf.constant(1), tf.constant(2.0))
    with pytest.raises(TypeError):
        tf.constant(1) + 1.5
    with pytest.raises(TypeError, match="Expected int32"):
        1.5 + tf.constant(1)


def test_dtype_outside_the_allowed_list_is_a_type_error():
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.multiply(tf.constant(True), tf.constant(False))
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: "
                                        "float16, float32, float64"):
        tf.sqrt(tf.constant(4))


def test_incompatible_static_shapes_are_a_value_error():
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3 for 'Add' "
                                         r"\(op: 'Add'\) with input shapes: \[2\], \[3\]"):
        tf.add(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_incompatible_fed_shapes_are_an_invalid_argument_at_run_time():
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    z = x * y
    assert z.shape.ndims is None
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs\. "
                                                             r"\[3\]"):
        run(z, {x: [1.0, 2.0], y: [1.0, 2.0, 3.0]})


def test_partially_known_shapes_broadcast_statically():
    x = tf.placeholder(tf.float32, [None, 1, 5])
    y = tf.placeholder(tf.float32, [4, 1])
    assert (x + y).shape.as_list() == [None, 4, 5]
    assert (x - tf.placeholder(tf.float32)).shape.ndims is None


def test_strings_join_with_add():
    result = run([tf.add(tf.constant(["a", "b"]), "c"), tf.constant("x") + "y"])
    assert result[0].tolist() == [b"ac", b"bc"]
    assert result[1] == b"xy"


def test_pow_matches_numpy_and_rejects_negative_integer_powers():
    assert_same(run(tf.pow([2.0, 4.0], [0.5, -1.0])), np.array([2 ** 0.5, 0.25], np.float32))
    assert_same(run(tf.pow([2, 3], 3)), np.array([8, 27], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Integers to negative integer powers are not allowed"):
        run(tf.pow([2, 3], [1, -1]))


# --- division --------------------------------------------------------------------

def test_truediv_casts_integers_to_floats_first():
    small = tf.truediv(tf.constant([1, 3], tf.int8), tf.constant([2, 2], tf.int8))
    big = tf.truediv(tf.constant([1, 3]), tf.constant([2, 2]))
    assert small.dtype == tf.float32 and big.dtype == tf.float64
    assert [t.op.name for t in big.op.inputs] == ["truediv_1/Cast", "truediv_1/Cast_1"]
    assert_same(run(small), np.array([0.5, 1.5], np.float32))
    assert_same(run(big), np.array([0.5, 1.5]))


def test_truediv_rejects_mixed_and_non_numeric_dtypes():
    with pytest.raises(TypeError, match=r"x and y must have the same dtype, got tf.int32 != "
                                        r"tf.float32"):
        tf.truediv(tf.constant(1), tf.constant(2.0))
    with pytest.raises(TypeError, match="Invalid dtype tf.bool in __truediv__"):
        tf.truediv(tf.constant(True), tf.constant(False))


def test_divide_is_true_division_and_takes_a_name():
    quotient = tf.divide(tf.constant([7, -7]), tf.constant(2), name="dv")
    assert quotient.op.name == "dv" and quotient.dtype == tf.float64
    assert_same(run(quotient), np.array([3.5, -3.5]))
    assert_same(run(tf.divide(7, tf.constant(2.0))), np.float32(3.5))


def test_legacy_div_floors_integers_and_divides_floats():
    ints = tf.div(tf.constant([-7, 7]), tf.constant([2, 2]))
    floats = tf.div(tf.constant([-7.0, 7.0]), 2.0)
    assert (ints.op.type, floats.op.type) == ("FloorDiv", "RealDiv")
    assert_same(run(ints), np.array([-4, 3], np.int32))
    assert_same(run(floats), np.array([-3.5, 3.5], np.float32))


def test_floor_division_and_modulo_follow_the_sign_of_the_divisor():
    x = np.array([5, -5, 5, -5, 0])
    y = np.array([-3, 3, 3, -3, 2])
    for dtype in (np.int32, np.int64, np.float32, np.float64):
        quotient, remainder = run([tf.floordiv(x.astype(dtype), y.astype(dtype)),
                                   tf.floormod(x.astype(dtype), y.astype(dtype))])
        assert_same(quotient, np.floor_divide(x, y).astype(dtype))
        assert_same(remainder, np.mod(x, y).astype(dtype))


def test_float_floor_division_is_floor_of_the_quotient():
    # TF computes floor(x / y): 1.0 // 0.1 is 10, where Python (and NumPy) say 9.
    assert_same(run(tf.floordiv(1.0, 0.1)), np.float32(10.0))


@pytest.mark.parametrize("fn", [tf.floordiv, tf.floormod, tf.div])
def test_integer_division_by_zero_is_an_invalid_argument(fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        run(fn(tf.constant([1, 2]), tf.constant([1, 0])))


def test_float_division_by_zero_gives_ieee_values():
    result = run(tf.constant([1.0, -1.0, 0.0]) / 0.0)
    assert result[0] == np.inf and result[1] == -np.inf and np.isnan(result[2])


# =============================================================================
# Unary elementwise
# =============================================================================

UNARY_CASES = [
    (tf.negative, np.negative, "Neg"),
    (tf.abs, np.abs, "Abs"),
    (tf.sign, np.sign, "Sign"),
    (tf.square, np.square, "Square"),
    (tf.sqrt, np.sqrt, "Sqrt"),
    (tf.rsqrt, lambda x: 1 / np.sqrt(x), "Rsqrt"),
    (tf.exp, np.exp, "Exp"),
    (tf.log, np.log, "Log"),
    (tf.log1p, np.log1p, "Log1p"),
    (tf.sin, np.sin, "Sin"),
    (tf.cos, np.cos, "Cos"),
    (tf.tanh, np.tanh, "Tanh"),
    (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), "Sigmoid"),
    (tf.floor, np.floor, "Floor"),
    (tf.ceil, np.ceil, "Ceil"),
    (tf.round, np.round, "Round"),
    (tf.reciprocal, np.reciprocal, "Reciprocal"),
]


@pytest.mark.parametrize("fn, reference, op_type", UNARY_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_ops_match_numpy(fn, reference, op_type, dtype):
    x = np.array([[0.25, 1.5, 2.5], [3.0, 0.5, 7.75]], dtype=dtype)
    y = fn(tf.constant(x))
    assert (y.op.type, y.op.name, y.dtype) == (op_type, op_type, tf.as_dtype(dtype))
    assert y.shape.as_list() == [2, 3]
    assert_same(run(y), reference(x).astype(dtype))


@pytest.mark.parametrize("fn, reference", [(tf.negative, np.negative), (tf.abs, np.abs),
                                           (tf.sign, np.sign), (tf.square, np.square)])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_unary_ops_keep_the_dtype(fn, reference, dtype):
    x = np.array([-3, 0, 5], dtype=dtype)
    assert_same(run(fn(x)), reference(x))


def test_round_halves_to_even_and_passes_integers_through():
    assert_same(run(tf.round([0.5, 1.5, 2.5, -0.5, -1.5])),
                np.array([0.0, 2.0, 2.0, -0.0, -2.0], np.float32))
    ints = tf.constant([1, 2])
    assert tf.round(ints) is ints


def test_sigmoid_is_stable_far_from_zero():
    assert_same(run(tf.sigmoid([-1000.0, -20.0, 0.0, 20.0, 1000.0])),
                np.array([0.0, 2.0611537e-09, 0.5, 1.0, 1.0], np.float32))


def test_log_sigmoid_is_minus_softplus_of_minus_x_and_stays_finite():
    x = np.array([-800.0, -1.0, 0.0, 2.0, 800.0], np.float32)
    y = tf.log_sigmoid(x)
    assert y.op.type == "Neg" and y.op.inputs[0].op.type == "Softplus"
    expected = -np.logaddexp(0.0, -x.astype(np.float64))
    np.testing.assert_allclose(run(y), expected.astype(np.float32), rtol=1e-6)
    assert tf.math.log_sigmoid is tf.log_sigmoid


def test_log_sigmoid_gradient_matches_numeric():
    x = tf.constant(np.array([-3.0, -0.5, 0.5, 3.0]))
    with tf.Session():
        error = tf.test.compute_gradient_error(x, [4], tf.log_sigmoid(x), [4])
    assert error < 1e-6


# =============================================================================
# Comparisons and logic
# =============================================================================

@pytest.mark.parametrize("fn, reference", [
    (tf.equal, np.equal), (tf.not_equal, np.not_equal), (tf.less, np.less),
    (tf.less_equal, np.less_equal), (tf.greater, np.greater),
    (tf.greater_equal, np.greater_equal)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_comparisons_give_bool(fn, reference, dtype):
    x = np.array([[1, 2, 3], [3, 2, 1]], dtype=dtype)
    y = np.array([2, 2, 2], dtype=dtype)
    z = fn(x, y)
    assert z.dtype == tf.bool and z.shape.as_list() == [2, 3]
    assert_same(run(z), reference(x, y))


def test_equal_compares_strings():
    assert run(tf.equal(tf.constant(["a", "b"]), "a")).tolist() == [True, False]


@pytest.mark.parametrize("fn, reference", [
    (tf.logical_and, np.logical_and), (tf.logical_or, np.logical_or),
    (tf.logical_xor, np.logical_xor)])
def test_logical_ops_broadcast(fn, reference):
    x = np.array([[True, False], [False, True]])
    y = np.array([True, False])
    assert_same(run(fn(x, y)), reference(x, y))
    assert_same(run(tf.logical_not(x)), ~x)


def test_logical_ops_need_bools():
    with pytest.raises(TypeError, match="LogicalAnd"):
        tf.logical_and(tf.constant(1), tf.constant(1))


def test_logical_xor_is_built_from_and_or_not():
    xor = tf.logical_xor(tf.constant([True]), tf.constant([False]))
    assert (xor.op.name, xor.op.type) == ("LogicalXor", "LogicalAnd")
    assert [t.op.type for t in xor.op.inputs] == ["LogicalOr", "LogicalNot"]


# =============================================================================
# Tensor operators
# =============================================================================

def test_operators_build_the_ops_tensorflow_builds():
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    m = tf.constant([[1.0]])
    t, f = tf.constant([True]), tf.constant([False])
    results = [a + b, a - b, a * b, a / b, a // b, a % b, a ** b, m @ m, -a, abs(a), ~t,
               t & f, t | f, t ^ f, a < b, a <= b, a > b, a >= b]
    assert [(r.op.name, r.op.type) for r in results] == [
        ("add", "AddV2"), ("sub", "Sub"), ("mul", "Mul"), ("truediv", "RealDiv"),
        ("floordiv", "FloorDiv"), ("mod", "FloorMod"), ("pow", "Pow"), ("matmul", "MatMul"),
        ("Neg", "Neg"), ("Abs", "Abs"), ("LogicalNot", "LogicalNot"), ("and", "LogicalAnd"),
        ("or", "LogicalOr"), ("xor", "LogicalAnd"), ("Less", "Less"),
        ("LessEqual", "LessEqual"), ("Greater", "Greater"), ("GreaterEqual", "GreaterEqual")]
    values = run(results)
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    for value, expected in zip(values, [x + y, x - y, x * y, x / y, x // y, x % y, x ** y,
                                        [[1.0]], -x, x, [False], [False], [True], [True],
                                        x < y, x <= y, x > y, x >= y], strict=True):
        np.testing.assert_allclose(value, expected)


def test_reflected_operators_convert_the_python_operand_in_their_scope():
    a = tf.constant([1.0, 2.0])
    results = [1.0 + a, 1.0 - a, 2.0 * a, 1.0 / a, 5.0 // a, 5.0 % a, 2.0 ** a,
               [[1.0, 1.0]] @ tf.constant([[1.0], [2.0]])]
    assert [r.op.name for r in results] == ["add", "sub", "mul", "truediv", "floordiv", "mod",
                                            "pow", "matmul"]
    assert [r.op.inputs[0].op.name for r in results] == [
        "add/x", "sub/x", "mul/x", "truediv/x", "floordiv/x", "mod/x", "pow/x", "matmul/x"]
    values = run(results)
    x = np.array([1.0, 2.0], np.float32)
    for value, expected in zip(values, [1 + x, 1 - x, 2 * x, 1 / x, 5 // x, 5 % x, 2 ** x,
                                        [[3.0]]], strict=True):
        np.testing.assert_allclose(value, expected)


def test_reflected_logical_operators():
    t = tf.constant([True, False])
    values = run([True & t, False | t, True ^ t])
    assert [v.tolist() for v in values] == [[True, False], [True, False], [False, True]]


def test_python_number_on_the_left_of_a_comparison_reflects_it():
    a = tf.constant([1.0, 2.0])
    comparison = 1.5 < a
    assert comparison.op.type == "Greater"
    assert run(comparison).tolist() == [False, True]


def test_operators_on_integers_use_true_division():
    result = tf.constant([7, -7]) / 2
    assert result.dtype == tf.float64
    assert_same(run(result), np.array([3.5, -3.5]))


def test_tensors_compare_by_identity_so_they_can_be_dict_keys():
    a = tf.constant(1.0)
    b = tf.constant(1.0)
    assert (a == a) is True and (a == b) is False and (a != b) is True
    assert {a: "a", b: "b"}[b] == "b"


def test_the_math_namespace_holds_the_same_functions():
    for name in ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "floordiv",
                 "floormod", "mod", "pow", "maximum", "minimum", "squared_difference",
                 "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p",
                 "sin", "cos", "tanh", "sigmoid", "floor", "ceil", "round", "reciprocal",
                 "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_and", "logical_or", "logical_not", "logical_xor", "add_n",
                 "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                 "reduce_any", "reduce_all", "argmax", "argmin", "count_nonzero"]:
        assert getattr(tf.math, name) is getattr(tf, name), name


# =============================================================================
# where
# =============================================================================

def test_where_with_only_a_condition_gives_int64_coordinates():
    condition = tf.constant([[True, False], [False, True]])
    coordinates = tf.where(condition)
    assert coordinates.dtype == tf.int64 and coordinates.op.type == "Where"
    assert coordinates.shape.as_list() == [None, 2]
    assert_same(run(coordinates), np.array([[0, 0], [1, 1]], np.int64))
    assert_same(run(tf.where([0, 3, 0, 1])), np.array([[1], [3]], np.int64))


def test_where_of_a_scalar_is_an_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unhandled input dimensions: 0"):
        run(tf.where(True))


def test_where_with_x_and_y_selects_elementwise():
    condition = np.array([[True, False], [False, True]])
    x, y = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    chosen = tf.where(condition, x, y)
    assert (chosen.op.type, chosen.op.name) == ("Select", "Select")
    assert_same(run(chosen), np.where(condition, x, y))


def test_where_with_a_vector_condition_selects_rows():
    x, y = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    assert run(tf.where([True, False], x, y)).tolist() == [[1, 2], [7, 8]]
    assert run(tf.where(True, x, y)).tolist() == [[1, 2], [3, 4]]


def test_where_needs_both_x_and_y():
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None"):
        tf.where([True], [1])


def test_where_static_shape_errors():
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 "
                                         r"and 3\. Shapes are \[2\] and \[3\]"):
        tf.where([True, False], [1, 2, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal"):
        tf.where([[True, False]], [[1, 2]], [[1, 2, 3]])


def test_where_run_time_shape_errors():
    condition = tf.placeholder(tf.bool)
    x = tf.placeholder(tf.int32)
    y = tf.placeholder(tf.int32)
    chosen = tf.where(condition, x, y)
    rows = {x: [[1, 2], [3, 4]], y: [[1, 2], [3, 4]]}
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Number of batches of 'then' must match size of 'cond', but saw: "
                             "2 vs. 3"):
        run(chosen, {**rows, condition: [True, False, True]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have the same size and "
                                                             "shape"):
        run(chosen, {**rows, condition: [[True, False, True]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="'then' and 'else' must have the "
                                                             "same size"):
        run(chosen, {condition: [True, False], x: [[1, 2], [3, 4]], y: [[1, 2]]})


# =============================================================================
# cast
# =============================================================================

def test_cast_truncates_wraps_and_tests_for_non_zero():
    floats = tf.constant([1.7, -1.7, 2.5, 0.0])
    to_int = tf.cast(floats, tf.int32)
    assert to_int.op.type == "Cast"
    assert to_int.op.get_attr("SrcT") == tf.float32 and to_int.op.get_attr("DstT") == tf.int32
    assert to_int.op.get_attr("Truncate") is False
    assert_same(run(to_int), np.array([1, -1, 2, 0], np.int32))
    assert_same(run(tf.cast(floats, tf.bool)), np.array([True, True, True, False]))
    assert_same(run(tf.cast([300, -1], tf.uint8)), np.array([44, 255], np.uint8))
    assert_same(run(tf.cast([True, False], tf.float64)), np.array([1.0, 0.0]))


def test_cast_to_the_same_dtype_adds_no_op():
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32) is x
    assert tf.to_float(x) is x
    converted = tf.cast([1, 2], tf.int32)
    assert (converted.op.name, converted.op.type) == ("Cast/x", "Const")


def test_deprecated_casts_have_their_own_names():
    x = tf.constant([1.5, -2.5])
    results = [tf.to_int32(x), tf.to_int64(x), tf.to_double(x), tf.to_float(tf.constant([1]))]
    assert [r.op.name for r in results] == ["ToInt32", "ToInt64", "ToDouble", "ToFloat"]
    assert [r.dtype for r in results] == [tf.int32, tf.int64, tf.float64, tf.float32]
    values = run(results)
    assert_same(values[0], np.array([1, -2], np.int32))
    assert_same(values[1], np.array([1, -2], np.int64))


def test_cast_between_strings_and_numbers_is_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError, match="Cast string to float32"):
        run(tf.cast(tf.constant(["1"]), tf.float32))


def test_cast_of_a_sparse_tensor_casts_its_values():
    sparse = tf.SparseTensor(indices=[[0, 0]], values=[1.5], dense_shape=[2, 2])
    cast = tf.cast(sparse, tf.int32)
    assert isinstance(cast, tf.SparseTensor)
    assert cast.values.dtype == tf.int32
    assert_same(run(cast.values), np.array([1], np.int32))


# =============================================================================
# add_n
# =============================================================================

def test_add_n_sums_a_list_of_tensors():
    values = [np.arange(6, dtype=np.int64).reshape(2, 3) * i for i in range(1, 5)]
    total = tf.add_n(values)
    assert (total.op.type, total.op.name, total.dtype) == ("AddN", "AddN", tf.int64)
    assert total.op.get_attr("N") == 4
    assert_same(run(total), sum(values))


def test_add_n_of_one_tensor_is_that_tensor():
    x = tf.constant([1.0])
    assert tf.add_n([x]) is x
    named = tf.add_n([x], name="total")
    assert (named.op.name, named.op.type) == ("total", "Identity")


def test_add_n_errors():
    with pytest.raises(ValueError, match="inputs must be a list of at least one"):
        tf.add_n([])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 "
                                         "and 3"):
        tf.add_n([tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])])
    with pytest.raises(TypeError, match="don't all match"):
        tf.add_n([tf.constant([1.0]), tf.constant([1])])
    x, y = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must have the same size and shape.  Input 0: \[1\] != input 1: "
                             r"\[2\]"):
        run(tf.add_n([x, y]), {x: [1], y: [1, 2]})


# =============================================================================
# matmul
# =============================================================================

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_matmul_matches_numpy(dtype):
    product = tf.matmul(A.astype(dtype), B.astype(dtype))
    assert (product.op.type, product.op.name) == ("MatMul", "MatMul")
    assert product.shape.as_list() == [2, 4]
    assert_same(run(product), (A @ B).astype(dtype))


def test_matmul_transposes_and_adjoints():
    a_t, b_t = tf.constant(A.T), tf.constant(B.T)
    results = [tf.matmul(a_t, B, transpose_a=True), tf.matmul(A, b_t, transpose_b=True),
               tf.matmul(a_t, b_t, adjoint_a=True, adjoint_b=True),
               tf.matmul(A, B, a_is_sparse=True, b_is_sparse=True)]
    assert all(r.op.type == "MatMul" and r.shape.as_list() == [2, 4] for r in results)
    assert results[2].op.get_attr("transpose_a") is True
    for value in run(results):
        assert_same(value, A @ B)


def test_matmul_rejects_transpose_together_with_adjoint():
    with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a can be True"):
        tf.matmul(A, A, transpose_a=True, adjoint_a=True)


def test_batched_matmul_broadcasts_batch_dimensions():
    x = np.random.RandomState(0).randn(2, 1, 2, 3)
    y = np.random.RandomState(1).randn(5, 3, 4)
    product = tf.matmul(x, y)
    assert product.op.type == "BatchMatMulV2"
    assert product.shape.as_list() == [2, 5, 2, 4]
    assert_same(run(product), np.matmul(x, y))
    adjoint = tf.matmul(np.swapaxes(x, -1, -2), np.swapaxes(y, -1, -2), transpose_a=True,
                        adjoint_b=True)
    assert adjoint.op.get_attr("adj_x") is True and adjoint.op.get_attr("adj_y") is True
    assert_same(run(adjoint), np.matmul(x, y))


def test_matmul_of_unknown_rank_is_batched():
    x, y = tf.placeholder(tf.float64), tf.placeholder(tf.float64)
    product = tf.matmul(x, y, transpose_b=True)
    assert product.op.type == "BatchMatMulV2" and product.shape.ndims is None
    a = np.arange(6.0).reshape(2, 3)
    assert_same(run(product, {x: a, y: a}), a @ a.T)


def test_matmul_static_shape_errors():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.matmul(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.matmul(np.ones(3, np.float32), np.ones((3, 5), np.float32))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.matmul(np.ones((2, 2, 3), np.float32), np.ones((3, 3, 5), np.float32))
    with pytest.raises(TypeError):
        tf.matmul(tf.constant([[1]]), tf.constant([[1.0]]))


def test_matmul_run_time_shape_errors():
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.placeholder(tf.float32, [None, None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]"):
        run(tf.matmul(x, y), {x: np.ones((2, 3)), y: np.ones((4, 5))})
    p, q = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    batched = tf.matmul(p, q)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        run(batched, {p: np.ones((2, 2, 3)), q: np.ones((2, 4, 5))})
    with pytest.raises(tf.errors.InvalidArgumentError, match="compatible batch dimensions"):
        run(batched, {p: np.ones((2, 2, 3)), q: np.ones((3, 3, 5))})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] ndims must be >= 2: 1"):
        run(batched, {p: np.ones(3), q: np.ones((3, 5))})


# =============================================================================
# range
# =============================================================================

def test_range_counts_like_python():
    results = [tf.range(5), tf.range(2, 11, 3), tf.range(10, 1, -3)]
    assert [r.shape.as_list() for r in results] == [[5], [3], [3]]
    assert (results[0].op.name, results[0].op.type) == ("range", "Range")
    assert [i.op.name for i in results[0].op.inputs] == ["range/start", "range/limit",
                                                         "range/delta"]
    values = run(results)
    expected_ranges = [range(5), range(2, 11, 3), range(10, 1, -3)]
    for value, expected in zip(values, expected_ranges, strict=True):
        assert_same(value, np.array(list(expected), np.int32))


def test_range_infers_the_widest_dtype():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(tf.constant(1, tf.int64), 5).dtype == tf.int64
    mixed = tf.range(1, 5.5)
    assert mixed.dtype == tf.float32
    assert [i.op.name for i in mixed.op.inputs] == ["range_2/Cast", "range_2/limit",
                                                    "range_2/Cast_1"]
    assert tf.range(5, dtype=tf.float64).dtype == tf.float64
    assert_same(run(mixed), np.arange(1, 5.5, dtype=np.float32))


def test_float_range_computes_start_plus_i_times_delta_in_the_dtype():
    # From the reference TensorFlow: the last element is 0.9f * 1 rounded, 0.90000004.
    values = run(tf.range(0.0, 1.0, 0.1))
    assert values.dtype == np.float32 and values.shape == (10,)
    assert_same(values, np.float32(0.0) + np.arange(10, dtype=np.float32) * np.float32(0.1))


def test_range_errors_at_build_and_run_time():
    with pytest.raises(ValueError, match="Requires start <= limit when delta > 0: 5/1"):
        tf.range(5, 1)
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 5, 0)
    limit = tf.placeholder(tf.int32)
    counting = tf.range(limit)
    assert counting.shape.as_list() == [None]
    assert_same(run(counting, {limit: 3}), np.arange(3, dtype=np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Requires start >= limit when delta < 0: 0/5"):
        run(tf.range(0, limit, -1), {limit: 5})
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.range(tf.constant([1, 2]))


# =============================================================================
# Reductions
# =============================================================================

M = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]])

REDUCTIONS = [(tf.reduce_sum, np.sum, "Sum"), (tf.reduce_mean, np.mean, "Mean"),
              (tf.reduce_max, np.max, "Max"), (tf.reduce_min, np.min, "Min"),
              (tf.reduce_prod, np.prod, "Prod")]


@pytest.mark.parametrize("fn, reference, op_type", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], [-1, 0]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions_match_numpy(fn, reference, op_type, axis, keepdims):
    x = M.astype(np.float32)
    y = fn(x, axis=axis, keepdims=keepdims)
    assert (y.op.type, y.op.name, y.dtype) == (op_type, op_type, tf.float32)
    numpy_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = reference(x, axis=numpy_axis, keepdims=keepdims).astype(np.float32)
    assert y.shape.as_list() == list(expected.shape)
    assert y.op.get_attr("keep_dims") is keepdims
    assert_same(run(y), expected)


def test_integer_reductions_stay_in_the_input_dtype():
    small = tf.constant([100, 100], tf.int8)
    assert_same(run(tf.reduce_sum(small)), np.int8(-56))  # wraps, as in TF
    assert_same(run(tf.reduce_prod(tf.constant([100, 3], tf.int8))), np.int8(44))
    # Integer means truncate toward zero (values from the reference TensorFlow).
    assert_same(run(tf.reduce_mean([-1, -2])), np.int32(-1))
    assert_same(run(tf.reduce_mean([[-3, -4], [5, 6]], axis=1)), np.array([-3, 5], np.int32))
    assert_same(run(tf.reduce_mean(tf.constant([200, 100], tf.uint8))), np.uint8(150))
    assert_same(run(tf.reduce_max(tf.constant([3, 9, 2], tf.int64))), np.int64(9))


def test_float16_mean_is_accurate():
    assert_same(run(tf.reduce_mean(tf.constant([1.0, 2.0, 4.0], tf.float16))),
                np.float16(7.0 / 3.0))


def test_reductions_over_empty_axes_give_the_identity():
    empty = tf.constant(np.zeros((0, 2), np.float32))
    values = run([tf.reduce_max(empty, 0), tf.reduce_min(tf.constant(np.zeros((0, 2), np.int32)),
                                                         0),
                  tf.reduce_sum(empty, 0), tf.reduce_prod(empty, 0), tf.reduce_mean(empty, 0)])
    assert_same(values[0], np.array([-np.inf, -np.inf], np.float32))
    assert_same(values[1], np.array([2147483647] * 2, np.int32))
    assert_same(values[2], np.zeros(2, np.float32))
    assert_same(values[3], np.ones(2, np.float32))
    assert_same(values[4], np.array([np.nan, np.nan], np.float32))


def test_reduce_any_and_all():
    x = np.array([[True, False], [True, True]])
    results = [tf.reduce_any(x), tf.reduce_all(x), tf.reduce_any(x, 1), tf.reduce_all(x, 0),
               tf.reduce_all(x, 1, keepdims=True)]
    assert [r.op.type for r in results] == ["Any", "All", "Any", "All", "All"]
    values = run(results)
    for value, expected in zip(values, [x.any(), x.all(), x.any(1), x.all(0),
                                        x.all(1, keepdims=True)], strict=True):
        assert_same(value, expected)


def test_legacy_argument_names():
    x = M.astype(np.float32)
    legacy = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)
    assert legacy.shape.as_list() == [2, 1]
    assert_same(run(legacy), x.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.reduce_sum(x, keepdims=True, keep_dims=True)


def test_reduction_over_every_axis_uses_a_constant_axis_list():
    total = tf.reduce_sum(tf.constant(M))
    axes = total.op.inputs[1]
    assert axes.op.type == "Const" and axes.dtype == tf.int32
    assert total.op.get_attr("Tidx") == tf.int32
    assert axes.op.get_attr("value").tolist() == [0, 1]


def test_reduction_axis_out_of_range():
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 "
                                         "dimensions"):
        tf.reduce_sum(tf.constant(M), axis=2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
        tf.reduce_mean(tf.constant(M), axis=-3)
    x = tf.placeholder(tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)"):
        run(tf.reduce_sum(x, axis=2), {x: M})


def test_duplicate_reduction_axes_fail_at_run_time():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Axes contains duplicate dimension: 0"):
        run(tf.reduce_sum(tf.constant(M), axis=[0, -2]))


def test_reduction_static_shapes_with_unknown_parts():
    axis = tf.placeholder(tf.int32)
    cube = tf.constant(np.zeros((2, 3, 4)))
    assert tf.reduce_sum(cube, axis).shape.ndims is None
    assert tf.reduce_sum(cube, axis, keepdims=True).shape.as_list() == [None, None, None]
    partly = tf.placeholder(tf.float32, [None, 3, 4])
    assert tf.reduce_sum(partly, [1, -1], keepdims=True).shape.as_list() == [None, 1, 1]
    assert tf.reduce_max(partly, 2).shape.as_list() == [None, 3]
    assert tf.reduce_sum(tf.placeholder(tf.float32), 1).shape.ndims is None
    assert_same(run(tf.reduce_sum(cube, axis), {axis: [0, 2]}), np.zeros(3))


def test_reducing_everything_of_an_unknown_rank_gives_a_scalar():
    x = tf.placeholder(tf.float32)
    total = tf.reduce_sum(x)
    assert total.shape.as_list() == []
    assert_same(run(total, {x: np.ones((2, 3, 4))}), np.float32(24.0))


# --- argmax / argmin -----------------------------------------------------------------

def test_argmax_and_argmin():
    x = np.array([[1, 5, 5], [7, 2, 0]], np.float32)
    results = [tf.argmax(x), tf.argmax(x, 1), tf.argmin(x, axis=-1),
               tf.argmax(x, dimension=1), tf.argmin(x, 0, output_type=tf.int32)]
    assert [r.op.type for r in results] == ["ArgMax", "ArgMax", "ArgMin", "ArgMax", "ArgMin"]
    assert [r.dtype for r in results] == [tf.int64] * 4 + [tf.int32]
    assert [r.shape.as_list() for r in results] == [[3], [2], [2], [2], [3]]
    values = run(results)
    for value, expected in zip(values, [x.argmax(0), x.argmax(1), x.argmin(-1), x.argmax(1),
                                        x.argmin(0).astype(np.int32)], strict=True):
        assert_same(value, expected)


def test_argmax_errors():
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\)"):
        tf.argmax(tf.constant(M), axis=2)
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'"):
        tf.argmax(tf.constant(M), axis=0, dimension=0)
    x = tf.placeholder(tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension in the range \[-2, 2\), but got 2"):
        run(tf.argmax(x, 2), {x: M})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Reduction axis 0 is empty in shape \[0,2\]"):
        run(tf.argmax(x, 0), {x: np.zeros((0, 2))})
    assert tf.argmax(tf.constant(M), tf.placeholder(tf.int32)).shape.as_list() == [None]


def test_count_nonzero():
    x = np.array([[1, 0], [3, 0]])
    results = [tf.count_nonzero(x), tf.count_nonzero(x, 0), tf.count_nonzero(x > 0, 1, True),
               tf.count_nonzero(x, dtype=tf.int32)]
    assert [r.dtype for r in results] == [tf.int64, tf.int64, tf.int64, tf.int32]
    values = run(results)
    assert_same(values[0], np.int64(2))
    assert_same(values[1], np.array([2, 0], np.int64))
    assert_same(values[2], np.array([[1], [1]], np.int64))
    assert_same(values[3], np.int32(2))
