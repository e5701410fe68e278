"""The elementwise functions beyond arithmetic: trigonometry, inf/nan tests, special divisions.

Values are checked against NumPy; node names, error classes and edge cases
(truncating vs flooring division, x * log(y) at x = 0, ...) were read off a
reference TensorFlow (`tf.compat.v1`, graph mode) running the same
expressions. Property tests run each unary function on random shapes and
float dtypes.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf

X = np.array([-0.9, -0.25, 0.0, 0.5, 0.75], np.float32)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


# Each function with its NumPy twin and a domain where it is finite.
UNARY = [
    (tf.acos, np.arccos, X), (tf.asin, np.arcsin, X), (tf.atan, np.arctan, X * 5),
    (tf.tan, np.tan, X), (tf.acosh, np.arccosh, 1 + X ** 2 * 3), (tf.asinh, np.arcsinh, X * 5),
    (tf.atanh, np.arctanh, X), (tf.cosh, np.cosh, X * 5), (tf.sinh, np.sinh, X * 5),
    (tf.expm1, np.expm1, X * 1e-6), (tf.rint, np.rint, np.array([-2.5, -0.5, 0.5, 1.5, 2.4])),
]


@pytest.mark.parametrize("function, numpy_function, values", UNARY,
                         ids=[f.__name__ for f, _, _ in UNARY])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions_match_numpy(function, numpy_function, values, dtype):
    x = values.astype(dtype)
    result = run(function(tf.constant(x)))
    assert result.dtype == dtype
    np.testing.assert_allclose(result, numpy_function(x), rtol=2e-6 if dtype == np.float32
                               else 1e-14)


@pytest.mark.parametrize("function", [f for f, _, _ in UNARY], ids=lambda f: f.__name__)
def test_unary_functions_build_their_op_under_the_name_given(function):
    y = function(tf.constant([0.5]), name="f")
    assert y.op.name == "f" and y.shape.as_list() == [1]
    assert tf.math.__dict__[function.__name__] is function


def test_unary_functions_are_nan_or_inf_outside_their_domain():
    acos, acosh, atanh, rint = run([tf.acos(2.0), tf.acosh(0.5), tf.atanh([1.0, -1.0]),
                                    tf.rint(np.float32(np.nan))])
    assert np.isnan(acos) and np.isnan(acosh) and np.isnan(rint)
    assert atanh.tolist() == [np.inf, -np.inf]


def test_trigonometry_of_complex_numbers():
    z = np.array([0.5 + 0.25j, -0.3 - 0.1j], np.complex64)
    results = run([f(tf.constant(z)) for f in (tf.acos, tf.asin, tf.atan, tf.tan, tf.sinh,
                                                  tf.cosh, tf.asinh, tf.atanh, tf.expm1)])
    expected = [np.arccos(z), np.arcsin(z), np.arctan(z), np.tan(z), np.sinh(z), np.cosh(z),
                np.arcsinh(z), np.arctanh(z), np.expm1(z)]
    for result, want in zip(results, expected):
        assert result.dtype == np.complex64
        np.testing.assert_allclose(result, want, rtol=1e-5)


def test_is_finite_is_inf_is_nan():
    x = tf.constant([1.0, np.inf, -np.inf, np.nan, 0.0])
    finite, inf, nan = run([tf.is_finite(x), tf.is_inf(x), tf.is_nan(x)])
    assert finite.tolist() == [True, False, False, False, True]
    assert inf.tolist() == [False, True, True, False, False]
    assert nan.tolist() == [False, False, False, True, False]
    assert tf.math.is_nan(x).dtype == tf.bool


@pytest.mark.parametrize("function", [tf.acos, tf.rint, tf.is_nan, tf.sinh])
def test_unary_functions_refuse_integers_at_build_time(function):
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        function([1, 2])


# =============================================================================
# Binary functions
# =============================================================================

def test_atan2_finds_the_quadrant():
    y = tf.constant([1.0, 1.0, -1.0, -1.0, 0.0])
    x = tf.constant([1.0, -1.0, -1.0, 1.0, -1.0])
    angle = tf.atan2(y, x, name="angle")
    assert angle.op.type == "Atan2" and [t.name for t in angle.op.inputs] == ["Const:0",
                                                                               "Const_1:0"]
    np.testing.assert_allclose(run(angle), np.arctan2(run(y), run(x)), rtol=1e-6)
    assert run(tf.math.atan2(0.0, -1.0)) == np.float32(np.pi)


def test_truncating_and_flooring_division_differ_for_negative_operands():
    x = tf.constant([7, -7, 7, -7])
    y = tf.constant([2, 2, -2, -2])
    truncated, truncated_mod, floored, floored_mod = run([
        tf.truncatediv(x, y), tf.truncatemod(x, y), tf.floor_div(x, y), tf.floormod(x, y)])
    assert truncated.tolist() == [3, -3, -3, 3] and truncated_mod.tolist() == [1, -1, 1, -1]
    assert floored.tolist() == [3, -4, -4, 3] and floored_mod.tolist() == [1, 1, -1, -1]
    # The same rules for floats: truncatediv rounds toward zero.
    div, mod = run([tf.truncatediv(-7.5, 2.0), tf.truncatemod(-7.5, 2.0)])
    assert div == -3.0 and mod == -1.5
    with tf.Graph().as_default():
        assert tf.floor_div(3, 2).op.name == "FloorDiv"  # no `floordiv` name scope
        assert tf.truncatediv(3, 2).op.name == "TruncateDiv"


@pytest.mark.parametrize("function", [tf.truncatediv, tf.truncatemod])
def test_integer_truncating_division_by_zero_fails_at_run_time(function):
    # (TensorFlow reports an InternalError here; minitf says it as its FloorDiv does.)
    y = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        run(function(tf.constant([3, 4]), y), {y: [1, 0]})


def test_truncatemod_wants_int32_int64_or_floats():
    with pytest.raises(TypeError, match="int8 not in list of allowed values"):
        tf.truncatemod(tf.constant([1], tf.int8), tf.constant([1], tf.int8))


def test_xdivy_xlogy_xlog1py_are_zero_where_x_is_zero():
    x = tf.constant([0.0, 0.0, 2.0, 3.0])
    y = tf.constant([0.0, -1.0, 4.0, 0.5])
    xdivy, xlogy, xlog1py = run([tf.math.xdivy(x, y), tf.math.xlogy(x, y),
                                 tf.math.xlog1py(x, y)])
    assert xdivy.tolist() == [0, 0, 0.5, 6]
    np.testing.assert_allclose(xlogy, [0, 0, 2 * np.log(4), 3 * np.log(0.5)], rtol=1e-6)
    np.testing.assert_allclose(xlog1py, [0, 0, 2 * np.log(5), 3 * np.log(1.5)], rtol=1e-6)
    assert np.isnan(run(tf.math.xlogy(1.0, -1.0)))


def test_multiply_no_nan_and_reciprocal_no_nan():
    product = tf.math.multiply_no_nan(tf.constant([np.inf, np.nan, 2.0]), [0.0, 0.0, 3.0])
    reciprocal = tf.math.reciprocal_no_nan([0.0, 2.0])
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "Const", "multiply_no_nan/y", "multiply_no_nan", "reciprocal_no_nan/x",
        "reciprocal_no_nan/one", "reciprocal_no_nan"]
    assert run(product).tolist() == [0, 0, 6]
    assert run(reciprocal).tolist() == [0, 0.5]
    assert tf.math.divide_no_nan is tf.div_no_nan


def test_nextafter_steps_to_the_neighbouring_float():
    up, down = run([tf.math.nextafter(1.0, 2.0), tf.math.nextafter(
        tf.constant(1.0, tf.float64), tf.constant(0.0, tf.float64))])
    assert up == np.nextafter(np.float32(1), np.float32(2)) and down == np.nextafter(1.0, 0.0)


def test_binary_functions_broadcast_and_check_shapes():
    assert tf.math.xlogy(tf.ones([2, 1]), tf.ones([3])).shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.atan2(tf.ones([2]), tf.ones([3]))
    x = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        run(tf.math.xdivy(x, [1.0, 2.0, 3.0]), {x: [1.0, 2.0]})


def test_arg_max_and_arg_min_want_their_dimension():
    x = tf.constant([[1, 5, 2], [7, 0, 3]])
    biggest, smallest = tf.arg_max(x, 1), tf.arg_min(x, 0, output_type=tf.int32)
    assert biggest.op.name == "ArgMax" and smallest.dtype == tf.int32
    assert [t.tolist() for t in run([biggest, smallest])] == [[1, 0], [0, 1, 0]]


# =============================================================================
# Property tests
# =============================================================================

PROPERTY_FUNCTIONS = {
    "sinh": (tf.sinh, np.sinh, 5), "cosh": (tf.cosh, np.cosh, 5), "atan": (tf.atan, np.arctan, 50),
    "asinh": (tf.asinh, np.arcsinh, 50), "tan": (tf.tan, np.tan, 1.25),
    "expm1": (tf.expm1, np.expm1, 5), "rint": (tf.rint, np.rint, 50),
    "atanh": (tf.atanh, np.arctanh, 0.75), "asin": (tf.asin, np.arcsin, 1),
}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(PROPERTY_FUNCTIONS)),
       dtype=st.sampled_from([np.float32, np.float64]),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), data=st.data())
def test_unary_functions_on_random_shapes(name, dtype, shape, data):
    function, numpy_function, bound = PROPERTY_FUNCTIONS[name]
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(
        -bound, bound, width=np.dtype(dtype).itemsize * 8)))
    with tf.Graph().as_default():
        placeholder = tf.placeholder(dtype, None)
        y = function(placeholder)
        assert y.shape.ndims is None
        result = run(y, {placeholder: x})
    assert result.shape == x.shape and result.dtype == dtype
    np.testing.assert_allclose(result, numpy_function(x), rtol=1e-5 if dtype == np.float32
                               else 1e-12, atol=1e-6)
