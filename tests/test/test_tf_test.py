"""The helpers of `tf.test` beyond TestCase: GraphDef comparison, attribute stubs, mock."""

import unittest

import pytest

import minitf as tf


def graph_def(build):
    graph = tf.Graph()
    with graph.as_default():
        build()
    return graph.as_graph_def()


def two_constants(second=2.0, device=""):
    a = tf.constant(1.0, name="a")
    with tf.device(device):
        b = tf.constant(second, name="b")
    tf.add(a, b, name="sum")


def test_the_same_graph_built_twice_is_equal():
    tf.test.assert_equal_graph_def(graph_def(two_constants), graph_def(two_constants))


def test_the_order_of_nodes_does_not_matter():
    reordered = graph_def(two_constants)
    reordered.node.reverse()
    tf.test.assert_equal_graph_def(reordered, graph_def(two_constants))


@pytest.mark.parametrize("other, message", [
    (lambda: two_constants(second=3.0), "Node named 'b' has attr 'value' with value: "),
    (lambda: two_constants(device="/device:CPU:0"),
     "Node named 'b' has device '/device:CPU:0' that does not match expected ''"),
    (lambda: tf.subtract(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="sum"),
     "Node named 'sum' has op 'Sub' that does not match expected 'Add'"),
    (lambda: tf.add(tf.constant(1.0, name="a"), 2.0, name="sum"),
     "Did not find expected node 'b = Const\\(\\)'"),
    (lambda: (tf.constant(1.0, name="a"), tf.constant(2.0, name="b"),
              tf.add_n([tf.constant(1.0, name="a_1")], name="sum")), "Node named 'sum' has op 'Identity'"),
    (lambda: (two_constants(), tf.constant(0, name="extra")), "Found unexpected node 'extra"),
    (lambda: tf.constant(1.0, name="a"), "Did not find expected node 'b"),
])
def test_a_difference_is_an_assertion_error_that_names_it(other, message):
    with pytest.raises(AssertionError, match=message):
        tf.test.assert_equal_graph_def(graph_def(other), graph_def(two_constants))


def test_inputs_in_another_order_differ():
    def swapped():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        tf.add(b, a, name="sum")
    with pytest.raises(AssertionError, match="Node named 'sum' has input 0 'b' that doesn't "
                                             "match expected 'a'"):
        tf.test.assert_equal_graph_def(graph_def(swapped), graph_def(two_constants))


def test_only_graph_defs_are_compared():
    with pytest.raises(TypeError, match="Expected tf.GraphDef for actual, got str"):
        tf.test.assert_equal_graph_def("x", graph_def(two_constants))


class _Thing:
    value = 1

    @staticmethod
    def twice(x):
        return 2 * x


def test_stubs_are_undone_in_reverse_order():
    stubs = tf.test.StubOutForTesting()
    stubs.Set(_Thing, "value", 2)
    stubs.Set(_Thing, "value", 3)
    stubs.Set(_Thing, "twice", staticmethod(lambda x: 0))
    assert _Thing.value == 3 and _Thing.twice(5) == 0
    stubs.CleanUp()
    assert _Thing.value == 1 and _Thing.twice(5) == 10
    with pytest.raises(AttributeError):
        stubs.Set(_Thing, "nothing", 1)


def test_smart_set_removes_what_the_object_only_inherited():
    thing = _Thing()
    stubs = tf.test.StubOutForTesting()
    stubs.SmartSet(thing, "value", 5)
    assert thing.value == 5
    stubs.SmartUnsetAll()
    assert "value" not in vars(thing) and thing.value == 1


def test_the_other_helpers():
    assert tf.test.mock is unittest.mock
    assert tf.test.is_built_with_xla() is False
    with pytest.raises(AttributeError, match="tf.test.test_src_dir_path is a name of "
                                             "TensorFlow 1.15 that minitf leaves out"):
        tf.test.test_src_dir_path  # noqa: B018


def test_control_inputs_count_as_a_set():
    def with_controls(order):
        a, b = tf.no_op(name="x"), tf.no_op(name="y")
        with tf.control_dependencies([a, b][::order]):
            tf.constant(1.0, name="c")
    tf.test.assert_equal_graph_def(graph_def(lambda: with_controls(1)),
                                   graph_def(lambda: with_controls(-1)))

    def with_one():
        a, _ = tf.no_op(name="x"), tf.no_op(name="y")
        with tf.control_dependencies([a]):
            tf.constant(1.0, name="c")
    with pytest.raises(AssertionError, match="Node named 'c' missing expected control input "
                                             "'\\^y'"):
        tf.test.assert_equal_graph_def(graph_def(with_one), graph_def(lambda: with_controls(1)))
