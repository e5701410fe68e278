"""tf.cond, tf.case, tf.Assert and smart_cond: what they build, what runs, what fails.

Node names and error messages are TensorFlow 1.15's, as the reference
TensorFlow builds the same programs.
"""

import collections

import numpy as np
import pytest

import minitf as tf
from minitf.ops import control_flow_ops


def _ops():
    return {op.name: op for op in tf.get_default_graph().get_operations()}


def test_cond_returns_the_taken_branch():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    assert (r.op.name, r.op.type) == ("cond/Merge", "Merge")
    with tf.Session() as sess:
        assert sess.run(r, {x: 3.0, p: True}) == 6.0
        assert sess.run(r, {x: 3.0, p: False}) == 4.0


def test_cond_builds_tensorflows_graph():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    tf.cond(p, lambda: x * 2.0, lambda: x + tf.constant(1.0))
    ops = _ops()
    wiring = {name: ([t.name for t in op.inputs], [c.name for c in op.control_inputs])
              for name, op in ops.items() if name.startswith("cond")}
    assert wiring == {
        "cond/Switch": (["p:0", "p:0"], []),
        "cond/switch_t": (["cond/Switch:1"], []),
        "cond/switch_f": (["cond/Switch:0"], []),
        "cond/pred_id": (["p:0"], []),
        "cond/mul/y": ([], ["cond/switch_t"]),
        "cond/mul": (["cond/mul/Switch:1", "cond/mul/y:0"], []),
        "cond/mul/Switch": (["x:0", "cond/pred_id:0"], []),
        "cond/Const": ([], ["cond/switch_f"]),
        "cond/add": (["cond/add/Switch:0", "cond/Const:0"], []),
        "cond/add/Switch": (["x:0", "cond/pred_id:0"], []),
        "cond/Merge": (["cond/add:0", "cond/mul:0"], []),
    }
    # The Switch of an outside tensor is colocated with it.
    assert ops["cond/mul/Switch"].get_attr("_class") == ["loc:@x"]
    contexts = tf.get_collection(tf.GraphKeys.COND_CONTEXT)
    assert [(c.name, c.branch) for c in contexts] == [("cond/cond_text", 1),
                                                      ("cond/cond_text_1", 0)]


def test_only_the_taken_branch_runs():
    counter = tf.Variable(0, name="counter")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.assign_add(counter, 1), lambda: tf.assign_add(counter, 10))
    with tf.Session() as sess:
        sess.run(counter.initializer)
        assert sess.run(r, {p: True}) == 1
        assert sess.run(r, {p: True}) == 2
        assert sess.run(r, {p: False}) == 12
        assert sess.run(counter) == 12


def test_a_side_effect_in_the_branch_not_taken_does_not_happen():
    flag = tf.Variable(0.0, name="flag")
    p = tf.placeholder(tf.bool, [], name="p")

    def untaken():
        with tf.control_dependencies([tf.assign(flag, 1.0)]):
            return tf.constant(0.0)

    r = tf.cond(p, lambda: tf.constant(5.0), untaken)
    with tf.Session() as sess:
        sess.run(flag.initializer)
        assert sess.run(r, {p: True}) == 5.0
        assert sess.run(flag) == 0.0
        sess.run(r, {p: False})
        assert sess.run(flag) == 1.0


def test_tensors_made_outside_the_branches_always_run():
    counter = tf.Variable(0, name="counter")
    p = tf.placeholder(tf.bool, [], name="p")
    bumped = tf.assign_add(counter, 1)
    r = tf.cond(p, lambda: bumped * 2, lambda: tf.constant(0))
    with tf.Session() as sess:
        sess.run(counter.initializer)
        assert sess.run(r, {p: False}) == 0
        assert sess.run(counter) == 1  # computed, though only the true branch reads it


def test_nested_structures_come_back_as_they_were_returned():
    Pair = collections.namedtuple("Pair", "a b")
    x = tf.constant([1.0, 2.0])
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: Pair(x * 2.0, {"k": x, "n": (x, 3)}),
                lambda: Pair(x + 1.0, {"k": tf.zeros([2]), "n": (x * 0.0, 4)}))
    assert isinstance(r, Pair) and sorted(r.b) == ["k", "n"]
    with tf.Session() as sess:
        value = sess.run(r, {p: False})
    assert isinstance(value, Pair)
    np.testing.assert_array_equal(value.a, [2.0, 3.0])
    np.testing.assert_array_equal(value.b["k"], [0.0, 0.0])
    assert value.b["n"][1] == 4


def test_singletons_are_unpacked_unless_strict():
    x = tf.constant(1.0)
    p = tf.constant(True)
    assert isinstance(tf.cond(p, lambda: [x], lambda: [x]), tf.Tensor)
    strict = tf.cond(p, lambda: [x], lambda: [x], strict=True)
    assert isinstance(strict, list) and len(strict) == 1


def test_a_branch_may_return_an_operation():
    v = tf.Variable(1.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.assign(v, 5.0).op, lambda: tf.no_op())
    assert r.dtype == tf.bool  # the pivot stands for the op
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r, {p: False}) is np.False_ or not sess.run(r, {p: False})
        assert sess.run(v) == 1.0
        sess.run(r, {p: True})
        assert sess.run(v) == 5.0


def test_nested_conds_and_a_branch_returning_an_outside_tensor():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    r = tf.cond(p, lambda: tf.cond(q, lambda: x, lambda: x * 3.0), lambda: x - 1.0)
    with tf.Session() as sess:
        results = [sess.run(r, {x: 2.0, p: pv, q: qv}) for pv in (True, False)
                   for qv in (True, False)]
    assert results == [2.0, 6.0, 1.0, 1.0]
    # The inner cond reads x through the outer branch's Switch, then its own.
    ops = _ops()
    assert ops["cond/cond/Switch_1"].inputs[0].name == "x:0"
    assert ops["cond/cond/Switch_1"].inputs[1].name == "cond/pred_id:0"
    assert ops["cond/cond/Switch_2"].inputs[0].name == "cond/cond/Switch_1:1"


def test_cond_over_indexed_slices_and_sparse_tensors():
    p = tf.placeholder(tf.bool, [], name="p")
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    other = tf.IndexedSlices(tf.constant([[5.0, 6.0]]), tf.constant([0]), tf.constant([3, 2]))
    r = tf.cond(p, lambda: slices, lambda: other)
    assert isinstance(r, tf.IndexedSlices)
    sparse = tf.SparseTensor([[0, 1]], [7.0], [2, 2])
    s = tf.cond(p, lambda: sparse, lambda: tf.SparseTensor([[1, 0]], [8.0], [2, 2]))
    assert isinstance(s, tf.SparseTensor)
    with tf.Session() as sess:
        values, indices = sess.run([r.values, r.indices], {p: True})
        np.testing.assert_array_equal(values, [[1.0, 2.0]])
        assert indices.tolist() == [1]
        assert sess.run(s, {p: False}).indices.tolist() == [[1, 0]]


def test_ops_inside_a_branch_cannot_be_fetched():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: x * 2.0, lambda: x)
    with tf.Session() as sess:
        for name in ("cond/mul:0", "cond/Switch:0", "cond/switch_t:0"):
            with pytest.raises(ValueError, match="'%s' has been marked as not fetchable" % name):
                sess.run(name, {x: 1.0, p: True})
        assert sess.run(r, {x: 1.0, p: True}) == 2.0


@pytest.mark.parametrize("build, error, message", [
    (lambda x, p: tf.cond(True, lambda: x, lambda: x), TypeError,
     "pred must not be a Python bool"),
    (lambda x, p: tf.cond(p, lambda: x, 3), TypeError, "false_fn must be callable."),
    (lambda x, p: tf.cond(p, None, lambda: x), TypeError, r"cond\(\): true_fn argument required"),
    (lambda x, p: tf.cond(p, lambda: x, lambda: x, fn2=lambda: x), TypeError,
     "false_fn and fn2 may not be set simultaneously"),
    (lambda x, p: tf.cond(p, lambda: (x, x), lambda: x), ValueError,
     "The two structures don't have the same"),
    (lambda x, p: tf.cond(p, lambda: x, lambda: tf.cast(x, tf.int32)), ValueError,
     "Outputs of true_fn and false_fn must have the same type: float32, int32"),
    (lambda x, p: tf.cond(p, lambda: None, lambda: x), ValueError,
     "true_fn must have a return value."),
    (lambda x, p: tf.cond(x, lambda: x, lambda: x), TypeError, "bool"),
    (lambda x, p: tf.cond(tf.constant([True, False]), lambda: x, lambda: x), ValueError,
     "Shape must be rank 0 but is rank 1"),
])
def test_cond_errors(build, error, message):
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    with pytest.raises(error, match=message):
        build(x, p)


def test_the_deprecated_fn1_fn2_names_still_work():
    r = tf.cond(tf.constant(False), fn1=lambda: tf.constant(1), fn2=lambda: tf.constant(2))
    with tf.Session() as sess:
        assert sess.run(r) == 2


# --- tf.case ----------------------------------------------------------------------------

def test_case_takes_the_first_true_predicate_else_the_default():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(tf.less(x, 0), lambda: tf.constant(-1)),
                 (tf.equal(x, 0), lambda: tf.constant(0)),
                 (tf.less(x, 10), lambda: tf.constant(1))],
                default=lambda: tf.constant(99))
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-5, 0, 3, 50)] == [-1, 0, 1, 99]
    # Nested conds, the first predicate tested outermost.
    assert r.op.name == "case/cond/Merge"
    assert _ops()["case/cond/Switch"].inputs[0].op.name == "Less"


def test_case_without_default_uses_the_last_pair_and_asserts_it():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(tf.less(x, 0), lambda: tf.constant(-1)),
                 (tf.greater_equal(x, 0), lambda: tf.constant(1))])
    with tf.Session() as sess:
        assert sess.run(r, {x: -3}) == -1 and sess.run(r, {x: 3}) == 1
    r2 = tf.case([(tf.less(x, 0), lambda: tf.constant(-1)),
                  (tf.greater(x, 5), lambda: tf.constant(1))])
    _fails_at_run_time(r2, {x: 3}, r"assertion failed: \[Input error: None of conditions "
                                   r"evaluated as True:\] \[0 0\]")


def test_exclusive_case_checks_that_at_most_one_predicate_is_true():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(tf.less(x, 5), lambda: tf.constant(1)),
                 (tf.less(x, 3), lambda: tf.constant(2))],
                default=lambda: tf.constant(0), exclusive=True)
    with tf.Session() as sess:
        assert sess.run(r, {x: 4}) == 1 and sess.run(r, {x: 7}) == 0
    _fails_at_run_time(r, {x: 1}, r"Input error: exclusive=True: more than 1 conditions "
                                  r"\(Less:0, Less_1:0\) evaluated as True:\] \[1 1\]")


def _fails_at_run_time(fetch, feed, message):
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(fetch, feed)


def test_case_takes_a_dict_in_the_order_of_the_predicates_names():
    x = tf.placeholder(tf.int32, [], name="x")
    second = tf.less(x, 10, name="b_pred")
    first = tf.less(x, 5, name="a_pred")
    r = tf.case({second: lambda: tf.constant(2), first: lambda: tf.constant(1)},
                default=lambda: tf.constant(0))
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (1, 7, 20)] == [1, 2, 0]


@pytest.mark.parametrize("pairs, message", [
    (3, "fns must be a list, tuple, or dict"),
    ([(tf.constant(True), lambda: 1, 3)], "Each entry in pred_fn_pairs must be a 2-tuple"),
    ([(True, lambda: tf.constant(1))], "pred must be a Tensor, got: True"),
    ([(tf.constant(1), lambda: tf.constant(1))], "pred must be Tensor of type bool"),
    ([(tf.constant(True), 3)], "fn for pred Const.*:0 must be callable."),
])
def test_case_errors(pairs, message):
    with pytest.raises(TypeError, match=message):
        tf.case(pairs)


# --- tf.Assert and smart_cond ---------------------------------------------------------------

def test_assert_fails_with_a_summary_of_its_data():
    x = tf.placeholder(tf.float32, [None], name="x")
    check = tf.Assert(tf.reduce_all(x > 0.0), ["x must be positive:", x], summarize=2)
    assert check.name == "Assert/AssertGuard/Merge"  # float data: the summary is guarded
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[x must be positive:\] \[1 -2\.5\.\.\.\]"):
            sess.run(y, {x: [1.0, -2.5, 3.0]})
    strings_only = tf.Assert(tf.constant(False), ["ints", tf.constant([[1, 2], [3, 4]])])
    assert (strings_only.name, strings_only.type) == ("Assert_1/Assert", "Assert")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[ints\] \[\[1 2\]\[3\.\.\.\]\.\.\.\]"):
            sess.run(strings_only)


def test_smart_cond_builds_one_branch_when_the_predicate_is_known():
    x = tf.constant(2.0)
    assert control_flow_ops.smart_cond(True, lambda: x * 2.0, lambda: x).op.type == "Mul"
    known = control_flow_ops.smart_cond(tf.constant(False), lambda: x * 2.0, lambda: x + 1.0)
    assert known.op.type in ("Add", "AddV2")
    p = tf.placeholder(tf.bool, [])
    assert control_flow_ops.smart_cond(p, lambda: x, lambda: x).op.type == "Merge"
    with pytest.raises(TypeError, match="`pred` must be a Tensor, or a Python bool"):
        control_flow_ops.smart_cond("yes", lambda: x, lambda: x)
