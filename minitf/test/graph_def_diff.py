"""`tf.test.assert_equal_graph_def`: two GraphDefs the same, whatever their nodes' order.

A test that builds a graph checks it against the GraphDef it expects. The
nodes are matched by name, and the first difference is the AssertionError's
message, in TensorFlow's words: a node missing or unexpected, another op,
device, input or attr value. Control inputs (`^name`) count as a set, as
their order means nothing; data inputs count in order.

Mirrors `assert_equal_graph_def` of `tensorflow/python/framework/test_util.py`
and `EqualGraphDef` of `tensorflow/core/util/equal_graph_def.cc`.
"""

import re

import numpy as np

from minitf.graph.graph_def import GraphDef, attr_values_equal

# The random part of the temporary file name a sharded V2 save writes to.
_SHARDED_SAVE_OP_PATTERN = "_temp_[0-9a-z]{32}/part"


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError, saying the first difference, unless the GraphDefs hold the same nodes.

    `checkpoint_v2` ignores the random temporary names of sharded saves;
    `hash_table_shared_name` ignores the shared names of hash tables.
    """
    for what, graph_def in (("actual", actual), ("expected", expected)):
        if not isinstance(graph_def, GraphDef):
            raise TypeError("Expected tf.GraphDef for %s, got %s"
                            % (what, type(graph_def).__name__))
    ignore = _ignored_attrs(checkpoint_v2, hash_table_shared_name)
    difference = _difference(actual, expected, ignore)
    if difference:
        raise AssertionError(difference)


def _ignored_attrs(checkpoint_v2, hash_table_shared_name):
    """A predicate on (node, attr name, value): whether the comparison skips the attr."""
    def ignored(node, key, value):
        if hash_table_shared_name and node.op.startswith("HashTable") and key == "shared_name":
            return True
        if checkpoint_v2 and isinstance(value, np.ndarray) and value.size == 1:
            text = value.reshape(-1)[0]
            text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
            return re.search(_SHARDED_SAVE_OP_PATTERN, text) is not None
        return False
    return ignored


def _difference(actual, expected, ignore):
    """The first difference of two GraphDefs, as EqualGraphDef words it, or ''."""
    actual_nodes = {node.name: node for node in actual.node}
    for node in expected.node:
        if node.name not in actual_nodes:
            return "Did not find expected node '%s'" % _summary(node)
        difference = _node_difference(actual_nodes.pop(node.name), node, ignore)
        if difference:
            return difference
    for node in actual_nodes.values():
        return "Found unexpected node '%s'" % _summary(node)
    return ""


def _summary(node):
    return "%s = %s(%s)" % (node.name, node.op, ", ".join(node.input))


def _node_difference(actual, expected, ignore):
    name = actual.name
    if actual.op != expected.op:
        return "Node named '%s' has op '%s' that does not match expected '%s'" % (
            name, actual.op, expected.op)
    if actual.device != expected.device:
        return "Node named '%s' has device '%s' that does not match expected '%s'" % (
            name, actual.device, expected.device)
    return (_input_difference(actual, expected) or _control_difference(actual, expected)
            or _attr_difference(actual, expected, ignore))


def _input_difference(actual, expected):
    name = actual.name
    data = [[i for i in node.input if not i.startswith("^")] for node in (actual, expected)]
    for index, (a, e) in enumerate(zip(*data)):
        if a != e:
            return "Node named '%s' has input %d '%s' that doesn't match expected '%s'" % (
                name, index, a, e)
    if len(data[0]) < len(data[1]):
        index = len(data[0])
        return "Node named '%s' missing input %d '%s'" % (name, index, data[1][index])
    if len(data[0]) > len(data[1]):
        index = len(data[1])
        return "Node named '%s' has unexpected input %d '%s'" % (name, index, data[0][index])
    return ""


def _control_difference(actual, expected):
    controls = [{i for i in node.input if i.startswith("^")} for node in (actual, expected)]
    for control in sorted(controls[1] - controls[0]):
        return "Node named '%s' missing expected control input '%s'" % (actual.name, control)
    for control in sorted(controls[0] - controls[1]):
        return "Node named '%s' has unexpected control input '%s'" % (actual.name, control)
    return ""


def _attr_difference(actual, expected, ignore):
    name = actual.name
    kept = [{k: v for k, v in node.attr.items() if not ignore(node, k, v)}
            for node in (actual, expected)]
    for key, value in sorted(kept[0].items()):
        if key not in kept[1]:
            return "Node named '%s' has unexpected attr '%s' with value: %s" % (name, key, value)
        if not attr_values_equal(value, kept[1][key]):
            return ("Node named '%s' has attr '%s' with value: %s that does not match "
                    "expected: %s" % (name, key, value, kept[1][key]))
    for key in sorted(set(kept[1]) - set(kept[0])):
        return "Node named '%s' missing expected attr '%s' with value: %s" % (
            name, key, kept[1][key])
    return ""
