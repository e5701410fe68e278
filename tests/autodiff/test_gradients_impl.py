"""tf.gradients, tf.hessians and tf.custom_gradient.

The backward walk is checked on the graphs where TF clones go wrong:
diamonds, fan-out, skip connections, long chains, several ys; then the
options (grad_ys, stop_gradients, gate_gradients, colocation, aggregation),
the sparse (IndexedSlices) path, the registry (LookupError, overrides,
RegisterGradient) and the names of the nodes it adds. Values are compared
with gradients worked out by hand in NumPy, or with finite differences
(`tf.test.compute_gradient_error`, float64). Expected node names and error
messages were read off a reference TensorFlow (`tf.compat.v1`, graph mode)
building the same graphs, with TF 1.15's naming of the default grad_ys
(`gradients/Fill` fed by `gradients/grad_ys_0`).

`GRADIENT_CASES` lists the numeric checks of IdentityN, the op that
tf.custom_gradient routes its results through (its default gradient lives
in array_grad.py); `tests/autodiff/test_gradient_coverage.py` reads it.
"""

import collections

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff import registry
from minitf.framework import common_shapes, op_def
from minitf.framework.kernel_registry import register_kernel
from minitf.graph.op_def_library import apply_op


# =============================================================================
# Test ops, registered once however often this module is imported
# =============================================================================

def _register_unary_test_op(op_type, kernel):
    if op_def.is_registered(op_type):
        return
    op_def.register_op(op_type).input("x: T").output("y: T").attr(
        "T: {float32, float64}").set_shape_fn(common_shapes.unchanged_shape)
    register_kernel(op_type, ("CPU",))(kernel)


def _square_kernel(ctx, x):
    return x * x


_register_unary_test_op("TestSquare", _square_kernel)
_register_unary_test_op("TestNoGradOp", _square_kernel)  # deliberately without a gradient


def _register_gradient_once(op_type, function):
    if not registry.is_registered(op_type):
        tf.RegisterGradient(op_type)(function)


def _test_square_grad(op, grad):
    return grad * (2.0 * op.inputs[0])


def _ten_times_square_grad(op, grad):  # used through gradient_override_map
    return grad * (20.0 * op.inputs[0])


def _wrong_shape_grad(op, grad):
    return tf.zeros([7], dtype=grad.dtype)


def _two_grads_for_one_input(op, grad):
    return grad, grad


_register_gradient_once("TestSquare", _test_square_grad)
_register_gradient_once("TestTenTimesSquareGrad", _ten_times_square_grad)
_register_gradient_once("TestWrongShapeGrad", _wrong_shape_grad)
_register_gradient_once("TestTwoGradsForOneInput", _two_grads_for_one_input)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _op_types(graph=None):
    return [op.type for op in (graph or tf.get_default_graph()).get_operations()]


def _names_under(prefix):
    return [op.name for op in tf.get_default_graph().get_operations()
            if op.name.startswith(prefix)]


# =============================================================================
# The walk: diamonds, fan-out, skip connections, chains, several ys
# =============================================================================

def test_diamond_sums_both_paths_before_going_on():
    x = tf.placeholder(tf.float64, [3], name="x")
    u = tf.tanh(x)
    a = u * 2.0
    b = u * u
    y = a + b
    (grad,) = tf.gradients(y, x)
    x_value = np.array([0.1, -0.5, 1.2])
    t = np.tanh(x_value)
    np.testing.assert_allclose(_run(grad, {x: x_value}), (2.0 + 2 * t) * (1 - t ** 2))
    # Tanh's gradient function ran once, on the sum of the two paths (one AddN).
    assert _op_types().count("TanhGrad") == 1
    assert not _names_under("gradients/Tanh_grad_1")
    add_n = tf.get_default_graph().get_operation_by_name("gradients/AddN")
    assert add_n.type == "AddN" and len(add_n.inputs) == 3  # from u * 2.0 and twice u * u
    assert add_n.outputs[0].consumers()[0].type == "TanhGrad"


def test_fan_out_to_several_consumers_makes_one_add_n():
    x = tf.placeholder(tf.float64, [2], name="x")
    y = tf.reduce_sum(tf.sin(x) + tf.exp(x) + x * 3.0 + tf.square(x))
    (grad,) = tf.gradients(y, x)
    x_value = np.array([0.3, -0.7])
    expected = np.cos(x_value) + np.exp(x_value) + 3.0 + 2 * x_value
    np.testing.assert_allclose(_run(grad, {x: x_value}), expected)
    assert grad.op.type == "AddN" and len(grad.op.inputs) == 4
    assert grad.op.name == "gradients/AddN"


def test_skip_connections_match_finite_differences():
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    w1 = tf.constant(rng.randn(3, 3) * 0.5)
    w2 = tf.constant(rng.randn(3, 3) * 0.5)
    h1 = tf.tanh(tf.matmul(x, w1))
    h2 = tf.tanh(tf.matmul(h1, w2)) + h1 + x  # two skip connections
    y = tf.reduce_sum(h2 * h2, axis=1)
    error = tf.test.compute_gradient_error(x, [2, 3], y, [2], x_init_value=rng.randn(2, 3),
                                           delta=1e-5)
    assert error < 1e-8


def test_skip_connections_match_a_hand_written_backprop():
    rng = np.random.RandomState(1)
    x_value, w_value = rng.randn(4, 3), rng.randn(3, 3) * 0.5
    x = tf.placeholder(tf.float64, [4, 3])
    w = tf.constant(w_value)
    h = tf.tanh(tf.matmul(x, w))
    out = h + x
    y = tf.reduce_sum(out * out)
    (grad,) = tf.gradients(y, x)
    # By hand: dy/dout = 2 out; through h: (dy/dout * (1 - h^2)) w^T; plus the skip.
    h_value = np.tanh(x_value @ w_value)
    d_out = 2 * (h_value + x_value)
    expected = (d_out * (1 - h_value ** 2)) @ w_value.T + d_out
    np.testing.assert_allclose(_run(grad, {x: x_value}), expected, rtol=1e-12)


def test_chain_of_depth_50():
    x = tf.placeholder(tf.float64, [2], name="x")
    h = x
    for _ in range(50):
        h = tf.sin(h) * 1.1
    (grad,) = tf.gradients(h, x)
    x_value = np.array([0.2, -0.4])
    v, expected = x_value.copy(), np.ones(2)
    for _ in range(50):
        expected *= 1.1 * np.cos(v)
        v = np.sin(v) * 1.1
    np.testing.assert_allclose(_run(grad, {x: x_value}), expected, rtol=1e-10)
    assert _op_types().count("Cos") == 50  # Sin's gradient, once per link
    assert "AddN" not in _op_types()  # no fan-out, nothing to sum


def test_two_ys_sum_their_gradients():
    x = tf.placeholder(tf.float64, [2])
    y1 = tf.reduce_sum(x * x)
    y2 = tf.reduce_sum(tf.exp(x))
    x_value = np.array([0.5, 1.5])
    (grad,) = tf.gradients([y1, y2], x)
    np.testing.assert_allclose(_run(grad, {x: x_value}), 2 * x_value + np.exp(x_value))


def test_a_y_that_feeds_another_y_waits_for_its_gradient():
    x = tf.placeholder(tf.float64, [2])
    y1 = x * 3.0
    y2 = y1 * y1
    x_value = np.array([1.0, 2.0])
    (grad,) = tf.gradients([y1, y2], x)
    # d(y1 + y2)/dx = 3 + 2 * y1 * 3
    np.testing.assert_allclose(_run(grad, {x: x_value}), 3.0 + 18.0 * x_value)
    assert _op_types().count("AddN") == 1  # y1 received grad_ys and y2's gradient


def test_several_xs_and_an_x_downstream_of_another():
    a = tf.placeholder(tf.float64, [], name="a")
    x = a * 2.0
    y = x * a
    grad_a, grad_x = tf.gradients(y, [a, x])
    # y = 2 a^2: dy/da = 4a through both paths; dy/dx = a with x held as it is.
    assert _run([grad_a, grad_x], {a: 3.0}) == [12.0, 3.0]


def test_gradient_with_respect_to_y_itself_is_grad_ys():
    x = tf.placeholder(tf.float64, [2])
    y = x * 2.0
    (grad,) = tf.gradients(y, y)
    np.testing.assert_allclose(_run(grad, {x: [1.0, 2.0]}), [1.0, 1.0])


# =============================================================================
# Unconnected and integer paths
# =============================================================================

def test_unconnected_x_gets_none():
    x = tf.placeholder(tf.float32, [2])
    other = tf.placeholder(tf.float32, [2])
    y = x * 2.0
    assert tf.gradients(y, [x, other])[1] is None
    assert tf.gradients(y, other) == [None]


def test_unconnected_gradients_zero():
    x = tf.placeholder(tf.float32, [2])
    other = tf.placeholder(tf.float32, [3])
    y = x * 2.0
    (grad,) = tf.gradients(y, other, unconnected_gradients="zero")
    np.testing.assert_array_equal(_run(grad, {other: np.ones(3)}), np.zeros(3))
    (grad,) = tf.gradients(y, other, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert grad.op.type in ("Const", "ZerosLike")
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tf.gradients(y, other, unconnected_gradients="sometimes")


def test_integer_inputs_get_none():
    xi = tf.placeholder(tf.int32, [2])
    y = tf.cast(xi, tf.float32) * 2.0
    assert tf.gradients(y, xi) == [None]


def test_integer_path_is_cut_but_float_path_counts():
    x = tf.placeholder(tf.float64, [2])
    rounded = tf.cast(tf.cast(x, tf.int32), tf.float64)  # carries no gradient
    y = rounded * x
    (grad,) = tf.gradients(y, x)
    np.testing.assert_allclose(_run(grad, {x: [1.7, 2.2]}), [1.0, 2.0])


def test_integer_y_gets_integer_ones():
    xi = tf.placeholder(tf.int32, [2])
    assert tf.gradients(xi * 2, xi) == [None]
    assert tf.get_default_graph().get_operation_by_name("gradients/grad_ys_0").get_attr(
        "dtype") == tf.int32


# =============================================================================
# grad_ys
# =============================================================================

def test_grad_ys_as_tensor_and_as_value():
    x = tf.placeholder(tf.float64, [3])
    y = x * x
    x_value = np.array([1.0, 2.0, 3.0])
    weights = np.array([1.0, 10.0, 100.0])
    (from_tensor,) = tf.gradients(y, x, grad_ys=tf.constant(weights))
    (from_value,) = tf.gradients(y, x, grad_ys=[weights])
    (from_list,) = tf.gradients(y, x, grad_ys=[[1.0, 10.0, 100.0]])  # takes y's dtype
    for grad in _run([from_tensor, from_value, from_list], {x: x_value}):
        np.testing.assert_allclose(grad, 2 * x_value * weights)
    assert from_list.dtype == tf.float64


def test_grad_ys_node_names_follow_tf():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = x * 2.0
    tf.gradients(y, x)
    tf.gradients(y, x, grad_ys=[[1.0, 2.0, 3.0]])
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("gradients/Shape").type == "Const"
    assert graph.get_operation_by_name("gradients/grad_ys_0").type == "Const"
    assert graph.get_operation_by_name("gradients/Fill").type == "Fill"
    assert graph.get_operation_by_name("gradients_1/grad_y_0").type == "Const"
    assert graph.get_operation_by_name("gradients_1/grad_ys_0").type == "Identity"
    assert graph.get_operation_by_name("gradients/mul_grad/Mul").type == "Mul"
    assert graph.get_operation_by_name("gradients_1/mul_grad/Mul").type == "Mul"


def test_grad_ys_errors():
    x = tf.placeholder(tf.float32, [2])
    y = x * 2.0
    with pytest.raises(ValueError, match="Passed 2 grad_ys for 1 ys"):
        tf.gradients(y, x, grad_ys=[1.0, 2.0])
    with pytest.raises(TypeError, match="Gradient type string generated for real or "
                                        "integer-valued tensor .* must be real or integer"):
        tf.gradients(y, x, grad_ys=[tf.constant(["a", "b"])])


def test_grad_ys_may_be_integer_for_an_integer_y():
    xi = tf.placeholder(tf.int32, [2])
    y = xi * 2
    assert tf.gradients(y, xi, grad_ys=[tf.constant([1, 1])]) == [None]


# =============================================================================
# stop_gradients and tf.stop_gradient
# =============================================================================

def test_stop_gradients_hold_tensors_constant():
    # TF's documented example: with stop_gradients the result is [1, 1], without [3, 1].
    a = tf.constant(0.0)
    b = 2 * a
    with_stop = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    without = tf.gradients(a + b, [a, b])
    assert _run(with_stop) == [1.0, 1.0]
    assert _run(without) == [3.0, 1.0]


def test_tf_stop_gradient_cuts_the_path_through_it():
    a = tf.constant(0.0)
    b = 2 * a
    a_stopped = tf.stop_gradient(a)
    b_stopped = tf.stop_gradient(b)
    # Gradients w.r.t. the stopped tensors are like stop_gradients=[a, b] ...
    assert _run(tf.gradients(a_stopped + b_stopped, [a_stopped, b_stopped])) == [1.0, 1.0]
    # ... but nothing reaches a and b themselves.
    assert tf.gradients(a_stopped + b_stopped, [a, b]) == [None, None]


def test_stop_gradients_accepts_ops_and_cuts_below_them():
    x = tf.placeholder(tf.float64, [])
    h = x * 3.0
    y = h * x
    (through_op,) = tf.gradients(y, x, stop_gradients=[h.op])
    (through_tensor,) = tf.gradients(y, x, stop_gradients=h)
    (free,) = tf.gradients(y, x)
    assert _run([through_op, through_tensor, free], {x: 2.0}) == [6.0, 6.0, 12.0]


# =============================================================================
# Variables as xs, IndexedSlices
# =============================================================================

def test_variable_as_x_gets_the_gradient_of_its_value():
    v = tf.Variable([1.0, 2.0], name="v")
    y = tf.reduce_sum(v * v * 3.0)
    (grad,) = tf.gradients(y, v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(grad), [6.0, 12.0])
    assert tf.gradients(y, tf.Variable(1.0)) == [None]


def test_gather_gradients_stay_sparse_and_concatenate():
    params = tf.Variable(np.arange(8.0).reshape(4, 2), name="params")
    first = tf.gather(params, [0, 2])
    second = tf.gather(params, [2, 3])
    y = tf.reduce_sum(first) + 2.0 * tf.reduce_sum(second)
    (grad,) = tf.gradients(y, params)
    assert isinstance(grad, tf.IndexedSlices)
    assert "AddN" not in _op_types()  # summed by concatenation, not densified
    dense = tf.convert_to_tensor(grad)
    with tf.Session() as sess:
        sess.run(params.initializer)
        values, indices, dense_shape, dense_value = sess.run(
            [grad.values, grad.indices, grad.dense_shape, dense])
    rows = sorted((int(i), row.tolist()) for i, row in zip(indices, values))
    assert rows == [(0, [1.0, 1.0]), (2, [1.0, 1.0]), (2, [2.0, 2.0]), (3, [2.0, 2.0])]
    np.testing.assert_array_equal(dense_shape, [4, 2])
    np.testing.assert_allclose(dense_value, [[1, 1], [0, 0], [3, 3], [2, 2]])


def test_sparse_and_dense_gradients_sum_to_dense():
    params = tf.Variable(np.ones([3, 2]), name="params")
    y = tf.reduce_sum(tf.gather(params, [1])) + tf.reduce_sum(params * 5.0)
    (grad,) = tf.gradients(y, params)
    assert isinstance(grad, tf.Tensor)
    with tf.Session() as sess:
        sess.run(params.initializer)
        np.testing.assert_allclose(sess.run(grad), [[5, 5], [6, 6], [5, 5]])


def test_sparse_gradient_is_made_dense_for_a_dense_gradient_function():
    x = tf.placeholder(tf.float64, [3, 2])
    params = x * 3.0  # Mul's gradient function receives an IndexedSlices
    y = tf.reduce_sum(tf.gather(params, [0, 0, 2]))
    (grad,) = tf.gradients(y, x)
    np.testing.assert_allclose(_run(grad, {x: np.ones([3, 2])}),
                               [[6, 6], [0, 0], [3, 3]])
    assert "UnsortedSegmentSum" in _op_types()


def test_indexed_slices_without_dense_shape_cannot_be_made_dense():
    slices = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    with pytest.raises(ValueError, match="IndexedSlices without dense_shape"):
        tf.convert_to_tensor(slices)


# =============================================================================
# The registry: LookupError, RegisterGradient, gradient_override_map
# =============================================================================

def test_missing_gradient_raises_lookup_error_naming_op_and_type():
    x = tf.placeholder(tf.float32, [2])
    y = apply_op("TestNoGradOp", x=x, name="no_grad_here")
    with pytest.raises(LookupError, match=r"No gradient defined for operation 'no_grad_here' "
                                          r"\(op type: TestNoGradOp\)"):
        tf.gradients(y * 2.0, x)


def test_missing_gradient_off_the_path_is_not_needed():
    x = tf.placeholder(tf.float32, [2])
    apply_op("TestNoGradOp", x=x)  # consumes x, but y does not depend on it
    y = x * 2.0
    (grad,) = tf.gradients(y, x)
    np.testing.assert_allclose(_run(grad, {x: [1.0, 1.0]}), [2.0, 2.0])
    # Nor when it reaches y only along an integer path (which carries no gradient).
    z = tf.cast(tf.cast(apply_op("TestNoGradOp", x=x), tf.int32), tf.float32) + x
    (grad,) = tf.gradients(z, x)
    np.testing.assert_allclose(_run(grad, {x: [1.0, 1.0]}), [1.0, 1.0])


def test_stop_gradient_upstream_does_not_excuse_a_missing_gradient():
    # As in TF: the op is still between x and y, so its gradient is looked up.
    x = tf.placeholder(tf.float32, [2])
    z = apply_op("TestNoGradOp", x=tf.stop_gradient(x), name="after_stop") * 2.0 + x
    with pytest.raises(LookupError, match="operation 'after_stop'"):
        tf.gradients(z, x)


def test_register_gradient_for_a_new_op():
    x = tf.placeholder(tf.float64, [3])
    y = apply_op("TestSquare", x=x)
    (grad,) = tf.gradients(y, x)
    np.testing.assert_allclose(_run(grad, {x: [1.0, 2.0, 3.0]}), [2.0, 4.0, 6.0])
    assert grad.op.name.startswith("gradients/TestSquare_grad/")
    error = tf.test.compute_gradient_error(x, [3], y, [3])
    assert error < 1e-8


def test_registering_twice_is_a_key_error():
    with pytest.raises(KeyError, match="Registering two gradient with name 'TestSquare'"):
        tf.RegisterGradient("TestSquare")(_test_square_grad)
    with pytest.raises(KeyError, match="Registering two gradient with name 'TestSquare'"):
        tf.NotDifferentiable("TestSquare")
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.RegisterGradient(42)


def test_gradient_override_map_replaces_the_gradient_function():
    x = tf.placeholder(tf.float64, [2])
    graph = tf.get_default_graph()
    with graph.gradient_override_map({"TestSquare": "TestTenTimesSquareGrad"}):
        overridden = apply_op("TestSquare", x=x)
    plain = apply_op("TestSquare", x=x)
    assert overridden.op.get_attr("_gradient_op_type") == "TestTenTimesSquareGrad"
    (g_overridden,) = tf.gradients(overridden, x)
    (g_plain,) = tf.gradients(plain, x)
    np.testing.assert_allclose(_run([g_overridden, g_plain], {x: [1.0, 2.0]}),
                               [[20.0, 40.0], [2.0, 4.0]])


def test_override_to_an_unregistered_name_is_a_lookup_error():
    x = tf.placeholder(tf.float32, [2])
    with tf.get_default_graph().gradient_override_map({"Square": "TestNeverRegistered"}):
        y = tf.square(x, name="sq")
    with pytest.raises(LookupError, match=r"operation 'sq' \(op type: Square\)"):
        tf.gradients(y, x)


def test_gradient_of_wrong_shape_is_a_value_error():
    x = tf.placeholder(tf.float32, [2])
    with tf.get_default_graph().gradient_override_map({"Identity": "TestWrongShapeGrad"}):
        y = tf.identity(x, name="ident")
    with pytest.raises(ValueError, match="Incompatible shapes between op input and calculated "
                                         "input gradient.*Forward operation: ident"):
        tf.gradients(y, x)


def test_wrong_number_of_gradients_is_a_value_error():
    x = tf.placeholder(tf.float32, [2])
    with tf.get_default_graph().gradient_override_map({"Identity": "TestTwoGradsForOneInput"}):
        y = tf.identity(x)
    with pytest.raises(ValueError, match="Num gradients 2 generated for op .* do not match "
                                         "num inputs 1"):
        tf.gradients(y, x)


# =============================================================================
# Names, gating, colocation, aggregation
# =============================================================================

def test_gradient_node_names():
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    with tf.name_scope("layer"):
        y = tf.matmul(x, x)
    (grad,) = tf.gradients(y, x)
    (again,) = tf.gradients(y, x, name="my_grads")
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("gradients/layer/MatMul_grad/MatMul").type == "MatMul"
    assert graph.get_operation_by_name("gradients/layer/MatMul_grad/MatMul_1").type == "MatMul"
    assert grad.op.name == "gradients/AddN"  # x feeds MatMul twice
    assert again.op.name == "my_grads/AddN"


def test_gate_gradients_groups_an_ops_gradients():
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    w = tf.placeholder(tf.float32, [2, 2], name="w")
    y = tf.matmul(x, w)
    g_x, g_w = tf.gradients(y, [x, w], gate_gradients=True)
    assert g_x.name == "gradients/MatMul_grad/tuple/control_dependency:0"
    assert g_w.name == "gradients/MatMul_grad/tuple/control_dependency_1:0"
    group = tf.get_default_graph().get_operation_by_name("gradients/MatMul_grad/tuple/group_deps")
    assert group.type == "NoOp"
    assert {op.name for op in group.control_inputs} == {"gradients/MatMul_grad/MatMul",
                                                        "gradients/MatMul_grad/MatMul_1"}
    values = _run([g_x, g_w], {x: np.eye(2), w: [[1.0, 2.0], [3.0, 4.0]]})
    np.testing.assert_allclose(values[0], [[3.0, 7.0], [3.0, 7.0]])


def test_colocate_gradients_with_ops():
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    with tf.device("/device:CPU:0"):
        y = tf.matmul(x, x, name="mm")
    with tf.device("/device:CPU:1"):
        (grad,) = tf.gradients(y, x, colocate_gradients_with_ops=True)
    graph = tf.get_default_graph()
    np.testing.assert_allclose(_run(grad, {x: np.eye(2)}), [[2.0, 2.0], [2.0, 2.0]])
    mm_grad = graph.get_operation_by_name("gradients/mm_grad/MatMul")
    assert mm_grad.get_attr("_class") == ["loc:@mm"]
    assert mm_grad.device == "/device:CPU:0"
    tf.gradients(y, x)  # without colocation
    assert "_class" not in graph.get_operation_by_name("gradients_1/mm_grad/MatMul").node_def.attr


def test_aggregation_methods():
    assert tf.AggregationMethod.ADD_N == tf.AggregationMethod.DEFAULT == 0
    assert tf.AggregationMethod.EXPERIMENTAL_TREE == 1
    assert tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N == 2
    x = tf.placeholder(tf.float64, [2], name="x")
    y = tf.sin(x) + tf.cos(x) + x * x  # four gradients reach x
    (tree,) = tf.gradients(y, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
    x_value = np.array([0.3, 0.9])
    np.testing.assert_allclose(_run(tree, {x: x_value}),
                               np.cos(x_value) - np.sin(x_value) + 2 * x_value)
    sums = [op for op in tf.get_default_graph().get_operations() if op.type == "AddN"]
    assert [len(op.inputs) for op in sums] == [2, 2, 2]  # pairwise, not one AddN of 4
    assert all(op.name.startswith("gradients/x_gradient_sum/") for op in sums)
    (add_n,) = tf.gradients(y, x, aggregation_method=tf.AggregationMethod.ADD_N)
    assert add_n.op.type == "AddN" and len(add_n.op.inputs) == 4
    with pytest.raises(ValueError, match="Invalid aggregation_method specified 7"):
        tf.gradients(y, x, aggregation_method=7)


# =============================================================================
# tf.hessians
# =============================================================================

def test_hessians_of_a_cubic_vector_function():
    x = tf.placeholder(tf.float64, [3])
    y = tf.reduce_sum(x * x * x) + x[0] * x[1]
    (hessian,) = tf.hessians(y, x)
    assert hessian.shape.as_list() == [3, 3]
    x_value = np.array([1.0, -2.0, 0.5])
    expected = np.diag(6 * x_value)
    expected[0, 1] = expected[1, 0] = 1.0
    np.testing.assert_allclose(_run(hessian, {x: x_value}), expected)


def test_hessians_of_a_quadratic_form_in_a_matrix():
    # f(X) = sum_l X[:, l]^T B X[:, l]; H[(k, l), (m, n)] = [l == n] (B + B^T)[k, m].
    b_value = np.array([[1.0, 2.0], [0.5, 3.0]])
    x = tf.placeholder(tf.float64, [2, 2])
    y = tf.reduce_sum(x * tf.matmul(tf.constant(b_value), x))
    (hessian,) = tf.hessians(y, x)
    assert hessian.shape.as_list() == [2, 2, 2, 2]
    expected = np.einsum("ln,km->klmn", np.eye(2), b_value + b_value.T)
    np.testing.assert_allclose(_run(hessian, {x: np.ones([2, 2])}), expected)


def test_hessians_with_respect_to_a_variable():
    v = tf.Variable([1.0, 2.0], dtype=tf.float64, name="v")
    (hessian,) = tf.hessians(tf.reduce_sum(v * v * v), v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(hessian), [[6.0, 0.0], [0.0, 12.0]])


def test_hessians_loop_over_a_size_known_only_at_run_time():
    # TF builds the Hessian in a while loop over the gradient's elements, so x's size
    # may be known only when the graph runs.
    unknown = tf.placeholder(tf.float64, [None])
    (hessian,) = tf.hessians(tf.reduce_sum(unknown * unknown), unknown)
    assert hessian.shape.as_list() == [None, None]
    assert "TensorArrayV3" in {op.type for op in tf.get_default_graph().get_operations()}
    np.testing.assert_allclose(_run(hessian, {unknown: [1.0, 2.0, 3.0]}), 2.0 * np.eye(3))


def test_hessians_of_a_linear_function_fail_as_in_tensorflow():
    # Each gradient element is constant in x: its gradient is None, which TF cannot write.
    x = tf.placeholder(tf.float64, [2])
    with pytest.raises(ValueError, match="None values not supported"):
        tf.hessians(tf.reduce_sum(x * 3.0), x)


# =============================================================================
# tf.custom_gradient
# =============================================================================

def test_custom_gradient_replaces_the_gradient_clipping_it():
    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_value(dy, -1.0, 1.0)
        return tf.identity(x), grad

    x = tf.placeholder(tf.float64, [3])
    y = clip_gradient(x) * tf.constant([0.5, 5.0, -5.0], dtype=tf.float64)
    (grad,) = tf.gradients(y, x)
    np.testing.assert_allclose(_run(grad, {x: np.ones(3)}), [0.5, 1.0, -1.0])
    identity_n = y.op.inputs[0].op
    assert identity_n.type == "IdentityN"
    assert identity_n.get_attr("_gradient_op_type").startswith("CustomGradient-")


def test_custom_gradient_value_is_the_forward_value():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad

    x = tf.placeholder(tf.float64, [2])
    y = log1pexp(x)
    (grad,) = tf.gradients(y, x)
    x_value = np.array([0.0, 2.0])
    value, grad_value = _run([y, grad], {x: x_value})
    np.testing.assert_allclose(value, np.log1p(np.exp(x_value)))
    np.testing.assert_allclose(grad_value, 1 / (1 + np.exp(-x_value)))


def test_custom_gradient_cuts_a_gradient():
    # The seeds' cached_value: read one tensor, send the gradient to another.
    @tf.custom_gradient
    def cached_value(var, cached):
        def grad(dy):
            return dy, None
        return tf.identity(cached), grad

    var = tf.Variable([1.0, 2.0], name="var")
    cached = tf.Variable([10.0, 20.0], name="cached", trainable=False)
    y = tf.reduce_sum(cached_value(var, cached) * 3.0)
    grad_var, grad_cached = tf.gradients(y, [var, cached])
    assert grad_cached is None
    with tf.Session() as sess:
        sess.run([var.initializer, cached.initializer])
        assert sess.run(y) == 90.0
        np.testing.assert_allclose(sess.run(grad_var), [3.0, 3.0])


def test_custom_gradient_sends_a_given_gradient():
    # The seeds' replace_gradient_zero: forward zeros, backward a given gradient.
    @tf.custom_gradient
    def replace_gradient_zero(tensor, gradient):
        def grad(dy):
            return tf.cast(gradient, tensor.dtype), None
        return tf.cast(tf.zeros_like(tensor), tf.float32), grad

    x = tf.placeholder(tf.float32, [2])
    replaced = replace_gradient_zero(x, tf.constant([7.0, -7.0]))
    (grad,) = tf.gradients(replaced, x)
    value, grad_value = _run([replaced, grad], {x: [1.0, 2.0]})
    np.testing.assert_array_equal(value, [0.0, 0.0])
    np.testing.assert_array_equal(grad_value, [7.0, -7.0])


def test_custom_gradient_with_several_inputs_and_outputs():
    @tf.custom_gradient
    def swap(a, b):
        def grad(d_first, d_second):
            return d_second * 10.0, d_first * 100.0
        return (b * 1.0, a * 1.0), grad

    a = tf.placeholder(tf.float64, [])
    b = tf.placeholder(tf.float64, [])
    first, second = swap(a, b)
    grad_a, grad_b = tf.gradients(first * 2.0 + second * 3.0, [a, b])
    assert _run([grad_a, grad_b], {a: 1.0, b: 2.0}) == [30.0, 200.0]


def test_custom_gradient_with_variables():
    w = tf.Variable([2.0, 3.0], name="w")

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            (v,) = variables
            assert v is w
            return dy * 100.0, [dy * 1000.0]
        return x * w, grad

    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(scale(x))
    grad_x, grad_w = tf.gradients(y, [x, w])
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run([grad_x, grad_w], {x: [1.0, 1.0]}),
                                   [[100.0, 100.0], [1000.0, 1000.0]])


def test_custom_gradient_errors():
    w = tf.Variable(1.0, name="w")

    @tf.custom_gradient
    def uses_variable(x):
        return x * w, lambda dy: dy

    with pytest.raises(TypeError, match="grad_fn must accept a keyword argument 'variables'"):
        uses_variable(tf.constant(1.0))

    @tf.custom_gradient
    def identity(x):
        return tf.identity(x), lambda dy: dy

    with pytest.raises(ValueError, match="supports keywords arguments only when eager"):
        identity(x=tf.constant(1.0))


def test_each_custom_gradient_call_registers_a_new_name():
    @tf.custom_gradient
    def double_grad(x):
        return tf.identity(x), lambda dy: dy * 2.0

    x = tf.placeholder(tf.float32, [])
    first, second = double_grad(x), double_grad(x)
    names = {first.op.get_attr("_gradient_op_type"), second.op.get_attr("_gradient_op_type")}
    assert len(names) == 2 and all(registry.is_registered(n) for n in names)
    (grad,) = tf.gradients(first * second, x)
    assert _run(grad, {x: 3.0}) == pytest.approx(12.0)  # 2 * (3 * 2)


# =============================================================================
# Numeric checks of IdentityN (read by test_gradient_coverage.py)
# =============================================================================

IdentityNCase = collections.namedtuple("IdentityNCase", ["label", "shapes"])

GRADIENT_CASES = {
    "IdentityN": [IdentityNCase("one_vector", [[3]]),
                  IdentityNCase("matrix_and_scalar", [[2, 3], []]),
                  IdentityNCase("three_tensors", [[2], [2, 2], [1, 2, 1]])],
}

ALL_CASES = [(op_type, case) for op_type, cases in GRADIENT_CASES.items() for case in cases]


@pytest.mark.parametrize("op_type, case", ALL_CASES,
                         ids=["%s-%s" % (op_type, case.label) for op_type, case in ALL_CASES])
def test_gradient_matches_finite_differences(op_type, case):
    assert op_type == "IdentityN"
    rng = np.random.RandomState(len(case.shapes))
    xs = [tf.placeholder(tf.float64, shape) for shape in case.shapes]
    outputs = tf.identity_n(xs)
    assert outputs[0].op.type == "IdentityN"
    # Weight each output differently so that a mixed-up gradient shows.
    y = tf.add_n([tf.reduce_sum(out * out * float(i + 1)) for i, out in enumerate(outputs)])
    values = [rng.randn(*shape) for shape in case.shapes]
    feeds = dict(zip(xs, values))
    for x, shape, value in zip(xs, case.shapes, values):
        others = {k: v for k, v in feeds.items() if k is not x}
        error = tf.test.compute_gradient_error(x, shape, y, [], x_init_value=value,
                                               extra_feed_dict=others)
        assert error < 1e-8
