"""Gradients through conds, loops and TensorArrays, checked against finite differences.

GRADIENT_CASES lists, per op type, graphs whose gradient goes through that
op's gradient function; each is checked numerically in float64 with
`tf.test.compute_gradient_error`. The Ref ops (a variable's reference in a
cond or a loop) are checked against finite differences of the variable's
value. Then: node names of the gradient graph as TensorFlow builds them,
second derivatives (`tf.hessians`), and optimizers that minimize through a
cond and a while loop.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.ops import control_flow_ops as cf


class Case:
    """y = build(*xs) at the point `inputs` (float64), with `feed` for other placeholders.

    With `static=False` the inputs have no static shape, so the gradient
    takes its dynamic-shape paths (shapes saved on stacks, zeros of run-time
    shapes).
    """

    def __init__(self, name, build, *inputs, feed=None, static=True):
        self.name = name
        self.build = build
        self.inputs = [np.asarray(v, dtype=np.float64) for v in inputs]
        self.feed = feed or {}
        self.static = static

    def __repr__(self):
        return self.name


def V(*shape, offset=0.0):  # noqa: N802 - short, as in the other gradient case modules
    count = int(np.prod(shape))
    return (np.arange(count, dtype=np.float64) * 0.37 + 0.4 + offset).reshape(shape)


_PRED = {}  # name -> the bool placeholder a case feeds


def _pred(name="p"):
    if name not in _PRED or _PRED[name].graph is not tf.get_default_graph():
        _PRED[name] = tf.placeholder(tf.bool, [], name=name)
    return _PRED[name]


def _cond(value):
    return lambda x: tf.cond(_pred(), lambda: x * x * 3.0, lambda: tf.sin(x) + x)


def _power(n):
    def build(x):
        return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x),
                             [0, tf.ones_like(x)])[1]
    return build


def _nested_loops(x):
    def outer(i, a):
        inner = tf.while_loop(lambda j, b: j < i + 1, lambda j, b: (j + 1, b * x + 0.5),
                              [0, a])[1]
        return i + 1, inner
    return tf.while_loop(lambda i, a: i < 3, outer, [0, x])[1]


def _cond_in_loop(x):
    def body(i, a):
        return i + 1, tf.cond(tf.reduce_sum(a) > 4.0, lambda: a * 0.5, lambda: a * x)
    return tf.while_loop(lambda i, a: i < 4, body, [0, tf.ones_like(x)])[1]


def _loop_in_cond(x):
    return tf.cond(_pred(), lambda: _power(3)(x), lambda: x * 2.0)


def _unused_loop_variable(x):
    # y reads only `a`; `b`'s Exit gets a zero gradient, but `a` depends on `b`.
    _, a, _ = tf.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a + b, b * x),
                            [0, tf.zeros_like(x), x])
    return a


def _independent_of_itself(x):
    # The next value of `a` does not read `a`: its gradient after the first iteration is 0.
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, x * 2.0 + 1.0),
                         [0, x])[1]


def _gather_in_loop(params):
    def body(i, total):
        return i + 1, total + tf.gather(params, [i % 3, 1])
    return tf.while_loop(lambda i, t: i < 4, body, [0, tf.zeros([2, 2], tf.float64)])[1]


def _tensor_array_loop(x):
    ta = tf.TensorArray(tf.float64, size=3)
    _, ta = tf.while_loop(lambda i, t: i < 3,
                          lambda i, t: (i + 1, t.write(i, x * tf.cast(i + 1, tf.float64))),
                          [0, ta])
    return ta.stack()


def _raw_switch_and_merge(x):
    out_false, out_true = cf.switch(x, _pred())
    return cf.merge([out_false * 3.0, out_true * out_true])[0]


def _read_both(ta):
    return tf.concat([ta.read(1) * 2.0, ta.read(0)], 0)


def _ta(size=3, **kwargs):
    return tf.TensorArray(tf.float64, size=size, **kwargs)


GRADIENT_CASES = {
    "Switch": [
        Case("cond_true", _cond(True), V(3), feed={"p": True}),
        Case("cond_false", _cond(False), V(3), feed={"p": False}),
        Case("outside_tensor_returned", lambda x: tf.cond(
            _pred(), lambda: x, lambda: x * 2.0), V(2, 2), feed={"p": False}),
        Case("nested_conds", lambda x: tf.cond(_pred(), lambda: tf.cond(
            _pred(), lambda: x * x, lambda: x), lambda: x * 4.0), V(3), feed={"p": True}),
        Case("raw_switch", _raw_switch_and_merge, V(3), feed={"p": True}),
        Case("loop_switch", _power(3), V(3)),
        Case("loop_switch_unknown_shape", _power(2), V(2, 3), static=False),
    ],
    "Merge": [
        Case("cond", _cond(True), V(2), feed={"p": True}),
        Case("raw_merge", _raw_switch_and_merge, V(3), feed={"p": False}),
        Case("cond_in_loop", _cond_in_loop, V(2)),
        Case("cond_in_loop_unknown_shape", _cond_in_loop, V(2), static=False),
    ],
    "Enter": [
        Case("loop_variable_and_invariant", _power(4), V(3)),
        Case("invariant_of_unknown_shape", _power(3), V(3), static=False),
        Case("nested_loops", _nested_loops, V(2)),
        Case("loop_in_cond", _loop_in_cond, V(2), feed={"p": True}),
        Case("indexed_slices_invariant", _gather_in_loop, V(3, 2)),
    ],
    "Exit": [
        Case("loop_result", _power(2), V(2)),
        Case("unused_loop_variable", _unused_loop_variable, V(3)),
        Case("next_value_independent_of_itself", _independent_of_itself, V(2)),
    ],
    "NextIteration": [
        Case("chain_of_iterations", _power(5), V(2)),
        Case("map_fn", lambda x: tf.map_fn(lambda r: r * r + x[0], x), V(3)),
        Case("scan", lambda x: tf.scan(lambda a, r: a * r + 1.0, x), V(4)),
        Case("foldl", lambda x: tf.foldl(lambda a, r: a * r, x), V(3, 2)),
        Case("foldr", lambda x: tf.foldr(lambda a, r: a * 2.0 + r, x, tf.zeros([2], tf.float64)),
             V(3, 2)),
    ],
    "TensorArrayWriteV3": [
        Case("write_then_read", lambda x: _ta().write(0, x).write(1, x * x).read(1), V(2)),
        Case("in_a_loop", _tensor_array_loop, V(2)),
    ],
    "TensorArrayReadV3": [
        Case("read_of_unstack", lambda x: _ta().unstack(x).read(2) * 3.0, V(3, 2)),
        Case("unread_elements_get_zeros", lambda x: _ta().unstack(x).read(0), V(3, 2)),
    ],
    "TensorArrayGatherV3": [
        Case("stack", lambda x: _ta().unstack(x * x).stack(), V(3, 2)),
        Case("gather", lambda x: _ta().unstack(x).gather([2, 0]), V(3, 2)),
    ],
    "TensorArrayScatterV3": [
        Case("scatter", lambda x: _ta().scatter([2, 0, 1], x).stack(), V(3, 2)),
        Case("unstack", lambda x: _ta().unstack(x).read(1), V(3)),
    ],
    "TensorArrayConcatV3": [
        Case("concat", lambda x: _ta(2).write(0, x).write(1, x * 2.0).concat(), V(2, 3)),
    ],
    "TensorArraySplitV3": [
        Case("split", lambda x: _read_both(_ta(2, infer_shape=False).split(x, [1, 3])), V(4, 2)),
        Case("equal_pieces", lambda x: _ta(2).split(x, [2, 2]).read(0), V(4, 2)),
        Case("split_then_concat", lambda x: _ta(3, infer_shape=False).split(
            x, [2, 0, 2]).concat() * x, V(4)),
    ],
}

def _numeric_checks():
    for op_type, cases in GRADIENT_CASES.items():
        for case in cases:
            yield pytest.param(op_type, case, id="%s-%s" % (op_type, case.name))


_NUMERIC_CHECKS = list(_numeric_checks())  # before REF_CASES join GRADIENT_CASES below


@pytest.mark.parametrize("op_type, case", _NUMERIC_CHECKS)
def test_gradient_matches_finite_differences(op_type, case):
    if case.static:  # constants, or placeholders of unknown shape
        xs = [tf.constant(v) for v in case.inputs]
    else:
        xs = [tf.placeholder_with_default(v, shape=None) for v in case.inputs]
    y = case.build(*xs)
    op_types = {op.type for op in tf.get_default_graph().get_operations()}
    assert op_type in op_types, "%s is not in the graph: %s" % (op_type, sorted(op_types))
    feed = {_PRED[name]: value for name, value in case.feed.items()}
    with tf.Session():
        jacobians = tf.test.compute_gradient(xs, [v.shape for v in case.inputs], y,
                                             y.eval(feed).shape, x_init_value=case.inputs,
                                             extra_feed_dict=feed)
    for symbolic, numeric in jacobians:
        np.testing.assert_allclose(symbolic, numeric, atol=1e-4)


# --- the Ref ops: a variable's reference in a cond or a loop --------------------------------

def _ref_cond(v, w):
    # Both branches return a reference: RefSwitch in, RefMerge out.
    return tf.cond(_pred(), lambda: v._ref(), lambda: w._ref()) * 3.0


def _ref_loop(v, w):
    # A reference as loop variable: RefEnter, RefMerge, RefSwitch, RefIdentity,
    # RefNextIteration, RefExit; the loop runs three times.
    out = tf.while_loop(lambda r: tf.reduce_sum(r) > -1e9, lambda r: r, [v._ref()],
                        maximum_iterations=3)
    return out * w


REF_CASES = {
    "RefSwitch": [(_ref_cond, True), (_ref_cond, False), (_ref_loop, None)],
    "RefMerge": [(_ref_cond, True), (_ref_loop, None)],
    "RefEnter": [(_ref_loop, None)],
    "RefExit": [(_ref_loop, None)],
    "RefNextIteration": [(_ref_loop, None)],
    "RefIdentity": [(_ref_loop, None)],
}
GRADIENT_CASES.update({op_type: ["see REF_CASES"] for op_type in REF_CASES})
_ALL_REF_CASES = [(op_type, build, pred) for op_type, cases in REF_CASES.items()
                  for build, pred in cases]


@pytest.mark.parametrize("op_type, build, pred", _ALL_REF_CASES,
                         ids=["%s-%s-%s" % (t, b.__name__, p) for t, b, p in _ALL_REF_CASES])
def test_gradient_through_references_matches_finite_differences(op_type, build, pred):
    v = tf.Variable(V(3), name="v")
    w = tf.Variable(V(3, offset=1.0), name="w")
    y = tf.reduce_sum(build(v, w) ** 2)
    assert op_type in {op.type for op in tf.get_default_graph().get_operations()}
    grads = tf.gradients(y, [v, w])
    feed = {} if pred is None else {_PRED["p"]: pred}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        symbolic = [np.zeros(3) if g is None else sess.run(g, feed) for g in grads]
        numeric = [_finite_differences(sess, y, var, feed) for var in (v, w)]
    for got, expected in zip(symbolic, numeric):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def _finite_differences(sess, y, var, feed, delta=1e-4):
    start = sess.run(var)
    result = np.zeros_like(start)
    for i in range(start.size):
        step = np.zeros_like(start)
        step.flat[i] = delta
        var.load(start + step, sess)
        above = sess.run(y, feed)
        var.load(start - step, sess)
        below = sess.run(y, feed)
        result.flat[i] = (above - below) / (2 * delta)
    var.load(start, sess)
    return result


# --- the gradient graph, as TensorFlow builds it ---------------------------------------

def test_a_loop_gradient_is_a_loop_with_counters_stacks_and_an_accumulator():
    x = tf.placeholder(tf.float32, [], name="x")
    out = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * x),
                        [tf.constant(0), tf.constant(1.0)])
    tf.gradients(out[1], x)
    graph = tf.get_default_graph()
    ops = {op.name: op for op in graph.get_operations()}
    # The forward counter, pushed before; the backward counter, popped after.
    assert ops["gradients/f_count_1"].type == "Enter"
    assert ops["gradients/f_count_2"].type == "Exit"
    assert ops["gradients/b_count_2"].type == "LoopCond"
    assert [t.name for t in ops["gradients/b_count_1"].inputs] == ["gradients/f_count_2:0"]
    # a * x saves `a` for each iteration on a stack and pops it in the gradient loop.
    push = ops["gradients/while/mul_grad/Mul_1/StackPushV2"]
    assert [t.name for t in push.inputs] == ["gradients/while/mul_grad/Mul_1/Enter:0",
                                             "while/Identity_1:0"]
    assert [c.name for c in push.control_inputs] == ["gradients/Add"]
    assert ops["gradients/while/mul_grad/Mul_1/f_acc"].type == "StackV2"
    assert ops["gradients/while/mul_grad/Mul_1/StackPopV2"].control_inputs == [ops["gradients/Sub"]]
    assert ops["gradients/while/mul_grad/Mul_1/b_sync"].type == "ControlTrigger"
    # x is a loop invariant: its gradient is summed over the iterations.
    assert ops["gradients/while/mul/Enter_grad/b_acc_2"].type == "Merge"
    assert ops["gradients/while/mul/Enter_grad/b_acc_3"].type == "Exit"
    # The gradient loop's frame is named after the forward loop's.
    enter = ops["gradients/while/Exit_1_grad/b_exit"]
    assert enter.get_attr("frame_name") == "gradients/while/while_context"
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.gradients(out[1], x), {x: 1.5}),
                                   [10 * 1.5 ** 9], rtol=1e-5)


def test_swap_memory_is_passed_to_the_stacks_of_the_gradient():
    x = tf.placeholder(tf.float32, [], name="x")
    out = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x),
                        [tf.constant(0), tf.constant(1.0)], swap_memory=True)
    (g,) = tf.gradients(out[1], x)
    pushes = [op for op in tf.get_default_graph().get_operations() if op.type == "StackPushV2"]
    assert pushes and all(op.get_attr("swap_memory") for op in pushes)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: 1.5}), 4 * 1.5 ** 3, rtol=1e-5)


def test_the_gradient_of_a_cond_is_a_cond():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: x * x, lambda: x * 3.0)
    (g,) = tf.gradients(r, x)
    ops = {op.name: op for op in tf.get_default_graph().get_operations()}
    assert ops["gradients/cond/Merge_grad/cond_grad"].type == "Switch"
    assert ops["gradients/cond/mul/Switch_grad/cond_grad"].type == "Merge"
    assert g.op.type == "AddN"
    with tf.Session() as sess:
        assert sess.run(g, {x: 2.0, p: True}) == 4.0
        assert sess.run(g, {x: 2.0, p: False}) == 3.0


def test_gradient_through_the_initial_value_from_inside_the_loop_is_an_error():
    x = tf.constant(2.0, name="x")

    def body(a):
        with pytest.raises(ValueError, match="Cannot compute gradient inside while loop with "
                                             "respect to op 'x'"):
            tf.gradients(a, x)
        return a * 2.0

    tf.while_loop(lambda a: a < 10.0, body, [x])


def test_no_gradient_through_a_loop_built_without_back_prop():
    x = tf.constant(2.0)
    out = tf.while_loop(lambda a: a < 10.0, lambda a: a * x, [x], back_prop=False)
    assert tf.gradients(out, x) == [None]


def test_a_second_derivative_of_a_loop_is_a_type_error():
    x = tf.constant(2.0)
    out = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])[1]
    (g,) = tf.gradients(out, x)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        tf.gradients(g, x)


def test_hessians_are_built_in_a_while_loop():
    x = tf.placeholder(tf.float64, [3])
    (hessian,) = tf.hessians(tf.reduce_sum(x ** 3) + x[0] * x[2], x)
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert {"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayGatherV3", "LoopCond"} <= types
    value = np.array([1.0, -2.0, 0.5])
    expected = np.diag(6 * value)
    expected[0, 2] = expected[2, 0] = 1.0
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(hessian, {x: value}), expected)


# --- training through control flow -----------------------------------------------------

def test_an_optimizer_minimizes_a_loss_computed_in_a_cond_and_a_loop():
    w = tf.Variable(3.0, name="w")
    b = tf.Variable(-1.0, name="b")
    use_square = tf.placeholder(tf.bool, [], name="use_square")
    # loss = (w * 1.1^3 + b - 2)^2 through a loop, or (w + b)^2 through the other branch.
    grown = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 1.1), [0, w])[1]
    loss = tf.cond(use_square, lambda: tf.square(grown + b - 2.0), lambda: tf.square(w + b))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {use_square: True})
        for _ in range(60):
            sess.run(train, {use_square: True})
        assert sess.run(loss, {use_square: True}) < 1e-3 * first
        for _ in range(60):
            sess.run(train, {use_square: False})
        assert sess.run(loss, {use_square: False}) < 1e-3
