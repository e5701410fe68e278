"""tf.while_loop: values, structures, shape invariants, variables in the body, errors.

Node names and error messages are TensorFlow 1.15's, as the reference
TensorFlow builds the same programs.
"""

import collections
import time

import numpy as np
import pytest

import minitf as tf


def _op(name):
    return tf.get_default_graph().get_operation_by_name(name)


def test_a_sum_of_the_first_numbers():
    n = tf.placeholder(tf.int32, [], name="n")
    _, total = tf.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + i), [0, 0])
    with tf.Session() as sess:
        assert [sess.run(total, {n: k}) for k in (0, 1, 10, 100)] == [0, 1, 55, 5050]


def test_a_matrix_power():
    a = np.array([[1.0, 1.0], [1.0, 0.0]])  # Fibonacci numbers
    m = tf.constant(a)
    _, power = tf.while_loop(lambda i, p: i < 10, lambda i, p: (i + 1, tf.matmul(p, m)),
                             [1, m])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(power), np.linalg.matrix_power(a, 10))


def test_while_loop_builds_tensorflows_graph():
    x = tf.placeholder(tf.float32, [], name="x")
    tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * x),
                  [tf.constant(0), tf.constant(1.0)])
    wiring = {op.name: (op.type, [t.name for t in op.inputs],
                        [c.name for c in op.control_inputs])
              for op in tf.get_default_graph().get_operations() if op.name.startswith("while/")}
    assert wiring == {
        "while/Enter": ("Enter", ["Const:0"], []),
        "while/Enter_1": ("Enter", ["Const_1:0"], []),
        "while/Merge": ("Merge", ["while/Enter:0", "while/NextIteration:0"], []),
        "while/Merge_1": ("Merge", ["while/Enter_1:0", "while/NextIteration_1:0"], []),
        "while/Less/y": ("Const", [], ["while/Merge"]),
        "while/Less": ("Less", ["while/Merge:0", "while/Less/y:0"], []),
        "while/LoopCond": ("LoopCond", ["while/Less:0"], []),
        "while/Switch": ("Switch", ["while/Merge:0", "while/LoopCond:0"], []),
        "while/Switch_1": ("Switch", ["while/Merge_1:0", "while/LoopCond:0"], []),
        "while/Identity": ("Identity", ["while/Switch:1"], []),
        "while/Identity_1": ("Identity", ["while/Switch_1:1"], []),
        "while/add/y": ("Const", [], ["while/Identity"]),
        "while/add": ("AddV2", ["while/Identity:0", "while/add/y:0"], []),
        "while/mul": ("Mul", ["while/Identity_1:0", "while/mul/Enter:0"], []),
        "while/mul/Enter": ("Enter", ["x:0"], []),
        "while/NextIteration": ("NextIteration", ["while/add:0"], []),
        "while/NextIteration_1": ("NextIteration", ["while/mul:0"], []),
        "while/Exit": ("Exit", ["while/Switch:0"], []),
        "while/Exit_1": ("Exit", ["while/Switch_1:0"], []),
    }
    attrs = {name: (_op(name).get_attr("frame_name"), _op(name).get_attr("is_constant"),
                    _op(name).get_attr("parallel_iterations"))
             for name in ("while/Enter", "while/mul/Enter")}
    assert attrs == {"while/Enter": ("while/while_context", False, 10),
                     "while/mul/Enter": ("while/while_context", True, 10)}
    context, = tf.get_collection(tf.GraphKeys.WHILE_CONTEXT)
    assert context.name == "while/while_context" and context.pivot.name == "while/LoopCond:0"


def test_ten_thousand_iterations():
    start = time.perf_counter()
    _, x = tf.while_loop(lambda i, x: i < 10000, lambda i, x: (i + 1, x * 0.5 + 1.0),
                         [0, tf.constant(0.0, tf.float64)])
    with tf.Session() as sess:
        assert sess.run(x) == pytest.approx(2.0)
    assert time.perf_counter() - start < 30  # seconds: about a second when idle


def test_maximum_iterations_stops_the_loop():
    counted = tf.while_loop(lambda a: a < 1e9, lambda a: a * 2.0, [tf.constant(1.0)],
                            maximum_iterations=5)
    early = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [tf.constant(1.0)],
                          maximum_iterations=100)
    pair = tf.while_loop(lambda i, a: i < 1000, lambda i, a: [i + 1, a + i],
                         [0, 0], maximum_iterations=tf.constant(4))
    assert _op("while/iteration_counter").type == "Const"
    with tf.Session() as sess:
        assert sess.run([counted, early]) == [32.0, 16.0]
        assert sess.run(pair) == [4, 6]
    with pytest.raises(ValueError, match="maximum_iterations must be a scalar"):
        tf.while_loop(lambda a: a < 1.0, lambda a: a, [1.0], maximum_iterations=[1, 2])


def test_nested_loop_variables_keep_their_structure():
    Pair = collections.namedtuple("Pair", "j k")
    ijk = tf.while_loop(lambda i, p: i < 10, lambda i, p: (i + 1, Pair(p.j + p.k, p.j - p.k)),
                        (tf.constant(0), Pair(tf.constant(1), tf.constant(2))))
    assert isinstance(ijk[1], Pair)
    single = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    same = tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0], return_same_structure=True)
    assert isinstance(single, tf.Tensor) and isinstance(same, list)
    mapping = tf.while_loop(lambda d: d["a"] < 5,
                            lambda d: [{"a": d["a"] + 1, "b": d["b"] * 2}], [{"a": 0, "b": 1}])
    with tf.Session() as sess:
        i, pair = sess.run(ijk)
        assert i == 10 and isinstance(pair, Pair) and (pair.j, pair.k) == (32, 64)
        assert sess.run([single, same]) == [3, [3]]
        assert sess.run(mapping) == [{"a": 5, "b": 32}]


def test_nested_loops():
    def outer_body(i, total):
        _, inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), [0, 0])
        return i + 1, total + inner

    _, total = tf.while_loop(lambda i, t: i < 6, outer_body, [0, 0])
    with tf.Session() as sess:
        assert sess.run(total) == sum(sum(range(i)) for i in range(6))
    assert _op("while/while/Enter").get_attr("frame_name") == "while/while/while_context"


def test_a_cond_in_a_loop_and_a_loop_in_a_cond():
    def body(i, x):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: x * 3, lambda: x + 1)

    _, x = tf.while_loop(lambda i, x: i < 5, body, [0, 1])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.while_loop(lambda k: k < 7, lambda k: k + 2, [0]),
                lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert sess.run(x) == ((((1 * 3) + 1) * 3 + 1) * 3)
        assert sess.run(y, {p: True}) == 8 and sess.run(y, {p: False}) == -1


def test_shape_invariants_let_a_loop_variable_grow():
    m = tf.while_loop(lambda i, m: i < 3, lambda i, m: (i + 1, tf.concat([m, m], 0)),
                      [0, tf.ones([1, 2])],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])[1]
    assert m.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        assert sess.run(m).shape == (8, 2)


def test_a_shape_change_without_an_invariant_is_an_error():
    with pytest.raises(ValueError, match=(
            r"Input tensor 'ones:0' enters the loop with shape \(1, 2\), but has shape "
            r"\(2, 2\) after one iteration. To allow the shape to vary across iterations, use "
            r"the `shape_invariants` argument of tf.while_loop to specify a less-specific "
            r"shape.")):
        tf.while_loop(lambda i, m: i < 3, lambda i, m: (i + 1, tf.concat([m, m], 0)),
                      [0, tf.ones([1, 2])])


def test_an_invariant_the_initial_value_does_not_meet_is_an_error():
    with pytest.raises(ValueError, match=(
            r"The shape invariant specified for ones:0 is not compatible with the initial "
            r"shape of the loop variable. It enters the loop with shape \(1, 2\), but the "
            r"specified shape invariant is \(\?, 3\).")):
        tf.while_loop(lambda m: True, lambda m: m, [tf.ones([1, 2])],
                      shape_invariants=[tf.TensorShape([None, 3])])


def test_indexed_slices_and_sparse_tensors_as_loop_variables():
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([4, 2]))

    def grow(i, s):
        return i + 1, tf.IndexedSlices(tf.concat([s.values, s.values * 2.0], 0),
                                       tf.concat([s.indices, s.indices + 1], 0), s.dense_shape)

    _, grown = tf.while_loop(lambda i, s: i < 2, grow, [0, slices],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])
    assert isinstance(grown, tf.IndexedSlices)
    sparse = tf.SparseTensor([[0, 0]], [1.0], [3, 3])
    _, doubled = tf.while_loop(lambda i, s: i < 3, lambda i, s: (
        i + 1, tf.SparseTensor(s.indices, s.values * 2.0, s.dense_shape)), [0, sparse])
    assert isinstance(doubled, tf.SparseTensor)
    with tf.Session() as sess:
        values, indices = sess.run([grown.values, grown.indices])
        np.testing.assert_array_equal(values, [[1, 2], [2, 4], [2, 4], [4, 8]])
        assert indices.tolist() == [0, 1, 1, 2]
        assert sess.run(doubled).values.tolist() == [8.0]


def test_a_tensor_array_as_a_loop_variable():
    ta = tf.TensorArray(tf.int32, size=5)
    _, ta = tf.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t.write(i, i * i)), [0, ta])
    assert isinstance(ta, tf.TensorArray)
    with tf.Session() as sess:
        assert sess.run(ta.stack()).tolist() == [0, 1, 4, 9, 16]


def test_variables_read_and_assigned_in_the_body():
    v = tf.Variable(0.0, name="v")

    def body(i, seen):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            return i + 1, seen + v.read_value()

    _, seen = tf.while_loop(lambda i, s: i < 4, body, [0, 0.0])
    assert _op("while/AssignAdd/RefEnter").type == "RefEnter"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(seen) == 1.0 + 2.0 + 3.0 + 4.0
        assert sess.run(v) == 4.0


def test_control_dependencies_from_outside_the_loop_become_data_inside():
    v = tf.Variable(1.0, name="v")
    update = tf.assign(v, 10.0)
    with tf.control_dependencies([update]):
        counted = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])

    def body(i):
        with tf.control_dependencies([update]):
            return i + tf.constant(1)

    after = tf.while_loop(lambda i: i < 2, body, [0])
    # Inside the loop the outside op is reached through an Enter and an Identity; the
    # constant also runs once per iteration (the pivot, while_1/Identity).
    const = _op("while_1/Const_1")
    assert [c.name for c in const.control_inputs] == ["while_1/Identity", "while_1/Identity_1"]
    assert const.control_inputs[1].inputs[0].op.type == "RefEnter"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(counted) == 3 and sess.run(v) == 10.0
        v.load(1.0, sess)
        assert sess.run(after) == 2 and sess.run(v) == 10.0


def test_a_tensor_made_in_the_loop_cannot_be_used_outside_it():
    made_inside = []

    def body(i):
        made_inside.append(i * 2)
        return i + 1

    tf.while_loop(lambda i: i < 2, body, [0])
    with pytest.raises(ValueError, match="Cannot use 'while/mul' as input to 'add' because "
                                         "'while/mul' is in a while loop"):
        tf.add(made_inside[0], 1, name="add")


def test_loop_ops_cannot_be_fed_or_fetched():
    w = tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0])
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="'while/Identity:0' has been marked as not "
                                             "fetchable"):
            sess.run("while/Identity:0")
        with pytest.raises(ValueError, match="Tensor while/Identity:0 may not be fed"):
            sess.run(w, {"while/Identity:0": 5})
        assert sess.run(w) == 2


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, []), ValueError,
     "No loop variables provided"),
    (lambda: tf.while_loop(3, lambda i: i + 1, [0]), TypeError, "cond must be callable"),
    (lambda: tf.while_loop(lambda i: i < 3, 5, [0]), TypeError, "body must be callable"),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], parallel_iterations=0),
     TypeError, "parallel_iterations must be a positive integer"),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [0]), ValueError,
     "The two structures don't have the same"),
    (lambda: tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + i), [0, 0],
                           maximum_iterations=4), TypeError,
     "The two structures don't have the same sequence type"),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1.0, [0]), TypeError,
     "Input 'y' of 'AddV2' Op has type float32 that does not match type int32"),
    (lambda: tf.while_loop(lambda i: [True, False], lambda i: i + 1, [0]), ValueError,
     "Shape must be rank 0 but is rank 1"),
])
def test_while_loop_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_parallel_iterations_and_back_prop_are_recorded():
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], parallel_iterations=3,
                  back_prop=False)
    context, = tf.get_collection(tf.GraphKeys.WHILE_CONTEXT)
    assert (context.parallel_iterations, context.back_prop) == (3, False)
    assert _op("while/Enter").get_attr("parallel_iterations") == 3


@pytest.mark.parametrize("parallel_iterations", [1, 2, 10])
def test_the_result_does_not_depend_on_parallel_iterations(parallel_iterations):
    def body(i, acc):
        return i + 1, acc + tf.reduce_sum(tf.matmul(tf.ones([3, 3]) * tf.cast(i, tf.float32),
                                                     tf.ones([3, 3])))

    _, acc = tf.while_loop(lambda i, a: i < 20, body, [0, 0.0],
                           parallel_iterations=parallel_iterations)
    config = tf.ConfigProto(inter_op_parallelism_threads=4)
    with tf.Session(config=config) as sess:
        assert sess.run(acc) == sum(27.0 * i for i in range(20))


def test_a_graph_def_with_a_loop_imports_and_runs():
    # A loop is a cycle in the GraphDef: the importer creates each Merge before its
    # NextIteration and closes the back edge afterwards, as TensorFlow's importer does.
    i, x = tf.while_loop(lambda i, x: i < 5,
                         lambda i, x: (i + 1, tf.concat([x, x[-1:] * 2.0], 0)),
                         [0, tf.constant([1.0])],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        i2, x2 = tf.import_graph_def(graph_def, return_elements=[i.name, x.name],
                                     name="imported")
        assert i2.op.name == "imported/while/Exit"
        merge = tf.get_default_graph().get_operation_by_name("imported/while/Merge_1")
        assert [t.op.type for t in merge.inputs] == ["Enter", "NextIteration"]
        with tf.Session() as sess:
            assert sess.run(i2) == 5
            np.testing.assert_array_equal(sess.run(x2), [1, 2, 4, 8, 16, 32])


def test_a_meta_graph_with_a_loop_and_its_gradient_imports_and_runs():
    a = tf.constant(0.5, name="a")
    _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * a + 1.0), [0, 1.0])
    grad = tf.identity(tf.gradients(x, a)[0], name="grad")
    meta_graph = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta_graph)
        with tf.Session() as sess:
            # x3 = a^3 + a^2 + a + 1: its derivative at a = 0.5 is 3a^2 + 2a + 1.
            assert sess.run("grad:0") == pytest.approx(3 * 0.25 + 2 * 0.5 + 1)
