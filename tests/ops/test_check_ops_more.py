"""The rest of `tf.debugging`'s asserts, and check_numerics (tf.check_numerics,
tf.debugging.assert_all_finite, tf.add_check_numerics_ops)."""

import numpy as np
import pytest

import minitf as tf


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def fails(op, feed_dict, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(op, feed_dict)


# --- elementwise asserts at run time --------------------------------------------------------

@pytest.mark.parametrize("assert_fn, good, bad, words", [
    (tf.assert_equal, ([1, 2], [1, 2]), ([1, 2], [1, 3]), "x == y"),
    (tf.assert_none_equal, ([1, 2], [2, 1]), ([1, 2], [1, 3]), "x != y"),
    (tf.assert_greater, ([2, 3], [1, 2]), ([2, 3], [2, 2]), "x > y"),
])
def test_binary_asserts(assert_fn, good, bad, words):
    x, y = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    check = assert_fn(x, y, message="ctx")
    run(check, {x: good[0], y: good[1]})
    fails(check, {x: bad[0], y: bad[1]}, r"assertion failed: \[ctx\] \[Condition %s did not "
          r"hold element-wise:\] \[x \(Placeholder:0\) = \] \[%d %d\]"
          % (words.replace(">", r">"), bad[0][0], bad[0][1]))


@pytest.mark.parametrize("assert_fn, good, bad, symbol", [
    (tf.assert_positive, [1, 2], [0, 2], ">"),
    (tf.assert_negative, [-1, -2], [-1, 0], "<"),
    (tf.assert_non_positive, [0, -2], [1, 0], "<="),
])
def test_sign_asserts(assert_fn, good, bad, symbol):
    x = tf.placeholder(tf.float32)
    check = assert_fn(x)
    assert check.name.startswith(assert_fn.__name__ + "/")
    run(check, {x: good})
    fails(check, {x: bad}, r"Condition x %s 0 did not hold element-wise" % symbol)


def test_assert_positive_builds_what_tensorflow_builds():
    # A float tensor among the data: the Assert is guarded by a cond, as TF 1.15 guards it.
    check = tf.assert_positive(tf.placeholder(tf.float32, [2]))
    assert check.name == "assert_positive/assert_less/Assert/AssertGuard/Merge"


def test_assert_equal_of_constants_fails_while_building():
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    assert str(raised.value) == ("Condition x == y did not hold element-wise:\n"
                                 "x (Const:0) = \n[1 2]\ny (Const_1:0) = \n[1 3]")
    run(tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])))


def test_assert_near():
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    check = tf.assert_near(x, y, rtol=0.1, atol=0.0)
    run(check, {x: [1.0, 10.0], y: [1.05, 10.5]})
    fails(check, {x: [1.0, 10.0], y: [1.0, 12.0]}, "x and y not equal to tolerance rtol")
    tight = tf.assert_near(x, y)                 # 10 epsilons of float32 by default
    run(tight, {x: [1.0], y: [1.0 + 1e-7]})
    fails(tight, {x: [1.0], y: [1.0 + 1e-5]}, "not equal to tolerance")


# --- types and ranks --------------------------------------------------------------------------

def test_assert_integer():
    assert tf.assert_integer(tf.constant([1])).type == "NoOp"
    with pytest.raises(TypeError, match='Expected "x" to be integer type.  Found: '
                                        'Const_1:0 of dtype'):
        tf.assert_integer(tf.constant([1.0]))


def test_assert_rank_decided_while_building():
    assert tf.assert_rank(tf.constant([1, 2]), 1).name == "assert_rank/static_checks_determined_all_ok"
    with pytest.raises(ValueError, match=r"Tensor Const_1:0 must have rank 2.  "
                                         r"Received rank 1, shape"):
        tf.assert_rank(tf.constant([1, 2]), 2)
    with pytest.raises(ValueError, match="must have rank at least 2"):
        tf.assert_rank_at_least(tf.constant([1, 2]), 2)
    tf.assert_rank_at_least(tf.constant([[1]]), 1)
    with pytest.raises(ValueError, match="Rank must be a scalar"):
        tf.assert_rank(tf.constant([1]), [1])


def test_assert_rank_at_run_time():
    x = tf.placeholder(tf.float32)
    run(tf.assert_rank(x, 2), {x: [[1.0]]})
    fails(tf.assert_rank(x, 2), {x: [1.0]}, "must have rank")
    run(tf.assert_rank_at_least(x, 1), {x: [[1.0]]})
    fails(tf.assert_rank_at_least(x, 3), {x: [[1.0]]}, "must have rank at least")
    rank = tf.placeholder(tf.int32)
    fails(tf.assert_rank(x, rank), {x: [1.0], rank: [1]}, "Rank must be a scalar")


def test_assert_scalar():
    scalar = tf.constant(3.0)
    assert tf.assert_scalar(scalar) is scalar
    with pytest.raises(ValueError, match=r"Expected scalar shape for assert_scalar_1:0, saw shape: \(2,\)."):
        tf.assert_scalar([1.0, 2.0])


def test_assert_same_float_dtype():
    a, b = tf.constant(1.0), tf.constant(2.0)
    assert tf.assert_same_float_dtype([a, b]) == tf.float32
    assert tf.assert_same_float_dtype(None, tf.float64) == tf.float64
    assert tf.assert_same_float_dtype() == tf.float32
    with pytest.raises(ValueError, match="must be of the same type"):
        tf.assert_same_float_dtype([a, tf.constant(1.0, tf.float64)])
    with pytest.raises(ValueError, match="Expected floating point type, got"):
        tf.assert_same_float_dtype([tf.constant(1)])


def test_assert_proper_iterable():
    tf.assert_proper_iterable([1, 2])
    tf.assert_proper_iterable((tf.constant(1),))
    for value in ("ab", b"ab", np.zeros(2), tf.constant([1])):
        with pytest.raises(TypeError, match='to be a "proper" iterable'):
            tf.assert_proper_iterable(value)
    with pytest.raises(TypeError, match="to be iterable"):
        tf.assert_proper_iterable(3)


# --- order ------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, non_decreasing, strictly_increasing", [
    ([1, 2, 2, 5], True, False), ([1, 2, 3], True, True), ([3, 1], False, False),
    ([7], True, True), ([], True, True), ([[1, 2], [3, 4]], True, True),
])
def test_is_non_decreasing_and_strictly_increasing(values, non_decreasing, strictly_increasing):
    x = tf.placeholder(tf.float32)
    assert run([tf.is_non_decreasing(x), tf.is_strictly_increasing(x)],
               {x: np.asarray(values, dtype=np.float32)}) == [non_decreasing, strictly_increasing]


def test_is_numeric_tensor():
    assert tf.is_numeric_tensor(tf.constant(1)) and tf.is_numeric_tensor(tf.constant(1.0))
    assert not tf.is_numeric_tensor(tf.constant("a")) and not tf.is_numeric_tensor(1.0)
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        tf.is_non_decreasing(tf.constant(["a"]))


# --- numerics -----------------------------------------------------------------------------------

@pytest.mark.parametrize("values, kinds", [
    ([1.0, np.nan], "NaN"), ([np.inf, 1.0], "Inf"), ([np.nan, -np.inf], "Inf and NaN"),
])
def test_check_numerics(values, kinds):
    x = tf.placeholder(tf.float32)
    checked = tf.check_numerics(x, "logits")
    assert checked.op.type == "CheckNumerics" and checked.dtype == tf.float32
    np.testing.assert_array_equal(run(checked, {x: [1.0, 2.0]}), [1.0, 2.0])
    fails(checked, {x: values}, "^logits : Tensor had %s values" % kinds)


def test_check_numerics_takes_only_floats():
    with pytest.raises(TypeError):
        tf.check_numerics(tf.constant([1]), "ints")


def test_the_gradient_is_checked_too():
    x = tf.placeholder(tf.float32)
    y = tf.check_numerics(x, "x") * np.inf
    grad, = tf.gradients(tf.reduce_sum(y), [x])
    fails(grad, {x: [1.0]}, "Not a number \\(NaN\\) or infinity \\(Inf\\) values detected in "
          "gradient. x : Tensor had Inf values")


def test_assert_all_finite():
    x = tf.placeholder(tf.float64)
    checked = tf.debugging.assert_all_finite(x, "bad x")
    assert checked.op.name == "VerifyFinite/control_dependency"
    assert tf.verify_tensor_all_finite is tf.debugging.assert_all_finite
    assert run(checked, {x: 2.0}) == 2.0
    fails(checked, {x: np.nan}, "bad x : Tensor had NaN values")


def test_add_check_numerics_ops_reports_the_first_bad_tensor():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.log(x, name="log")
    z = tf.multiply(y, 2.0, name="z")
    check = tf.add_check_numerics_ops()
    assert run([z, check], {x: 1.0})[0] == 0.0
    fails(check, {x: -1.0}, "^log:0 : Tensor had NaN values")


def test_on_the_stand_in_gpu(stand_in_gpu):
    with tf.device("/device:GPU:0"):
        x = tf.placeholder(tf.float32)
        checked = tf.check_numerics(x * 1.0, "gpu")
    np.testing.assert_array_equal(run(checked, {x: [1.0]}), [1.0])
    fails(checked, {x: [np.inf]}, "gpu : Tensor had Inf values")


def test_the_debugging_namespace():
    assert tf.debugging.assert_equal is tf.assert_equal and tf.debugging.Assert is tf.Assert
    assert tf.debugging.check_numerics is tf.check_numerics
    tf.debugging.set_log_device_placement(False)
    assert tf.debugging.get_log_device_placement() is False
    with pytest.raises(AttributeError, match="tf.debugging.enable_check_numerics is a name of "
                                             "TensorFlow 1.15 that minitf leaves out"):
        tf.debugging.enable_check_numerics  # noqa: B018


# --- tf.Print ---------------------------------------------------------------------------------

def test_print_passes_its_input_and_prints_the_data(capfd):
    x = tf.constant([1.0, 2.0])
    printed = tf.Print(x, [x, tf.constant([3, 4, 5, 6])], "msg: ", summarize=3)
    assert printed.op.type == "Print" and printed.shape.as_list() == [2]
    np.testing.assert_array_equal(run(printed), [1.0, 2.0])
    assert capfd.readouterr().err == "msg: [1 2][3 4 5...]\n"


def test_print_first_n(capfd):
    printed = tf.Print(tf.constant(1), [tf.constant(7)], first_n=2)
    with tf.Session() as sess:
        for _ in range(4):
            sess.run(printed)
    assert capfd.readouterr().err == "[7]\n[7]\n"
