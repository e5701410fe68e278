"""Frozen models that TensorFlow wrote, imported and run by minitf; and tf.graph_util.

`data/frozen_mlp.pb` and `data/frozen_conv.pb` (with their inputs and
TensorFlow's outputs in `data/frozen_graphs.json`) were written by
`scripts/record_tf_frozen_graphs.py`, run by hand with TensorFlow.
"""

import json
import pathlib

import numpy as np
import pytest

import minitf as tf
from minitf.proto import graph_pb2

DATA = pathlib.Path(__file__).resolve().parent / "data"
RECORD = json.loads((DATA / "frozen_graphs.json").read_text())


def load(name):
    return tf.GraphDef.FromString((DATA / name).read_bytes())


@pytest.mark.parametrize("name", ["frozen_mlp.pb", "frozen_conv.pb"])
def test_a_frozen_graph_tensorflow_wrote_computes_tensorflows_output(name):
    record = RECORD[name]
    graph_def = load(name)
    assert [[n.name, n.op] for n in graph_def.node] == record["nodes"]
    output, = tf.import_graph_def(graph_def, return_elements=[record["output"]], name="")
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(output, {"x:0": record["x"]}), record["expected"],
                                   rtol=1e-5, atol=1e-6)


def test_an_op_minitf_lacks_is_not_found_and_nothing_is_imported():
    graph_def = load("frozen_conv.pb")
    conv, = [n for n in graph_def.node if n.op == "Conv2D"]
    conv.op = "Conv9D"
    with pytest.raises(tf.errors.NotFoundError,
                       match="Node 'Conv2D': Op type not registered 'Conv9D'"):
        tf.import_graph_def(graph_def)
    assert tf.get_default_graph().get_operations() == []


def test_an_attr_minitf_lacks_is_a_value_error_naming_node_attr_and_op():
    # Written without stripping: TensorFlow 2's MatMul carries grad_a and grad_b.
    graph_def = tf.GraphDef.FromString((DATA / "tf_small_graph.pb").read_bytes())
    with pytest.raises(ValueError, match=r"NodeDef mentions attr 'grad_a' not in "
                                         r"Op<name=MatMul; .*NodeDef: {{node MatMul}}"):
        tf.import_graph_def(graph_def)
    assert tf.get_default_graph().get_operations() == []


def test_a_missing_attr_without_default_is_a_value_error():
    graph_def = load("frozen_mlp.pb")
    del [n for n in graph_def.node if n.op == "BiasAdd"][0].attr["T"]
    with pytest.raises(ValueError, match="NodeDef missing attr 'T' from Op<name=BiasAdd"):
        tf.import_graph_def(graph_def)
    assert tf.get_default_graph().get_operations() == []


# --- tf.graph_util ----------------------------------------------------------------------

def build_mlp():
    """The MLP of frozen_mlp.pb, with the same names and weights."""
    rng = np.random.RandomState(0)

    def dense(x, units, name):
        w = tf.Variable(rng.normal(0, 0.5, (int(x.shape[-1]), units)).astype(np.float32),
                        name=name + "/kernel")
        b = tf.Variable(rng.normal(0, 0.1, units).astype(np.float32), name=name + "/bias")
        return tf.nn.bias_add(tf.matmul(x, w), b, name=name + "/BiasAdd")

    x = tf.placeholder(tf.float32, [None, 4], name="x")
    hidden = tf.nn.relu(dense(x, 8, "hidden"), name="hidden/Relu")
    probabilities = tf.nn.softmax(dense(hidden, 3, "output"), name="probabilities")
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(probabilities))
    return probabilities


def test_freezing_minitfs_mlp_gives_tensorflows_frozen_graph():
    record = RECORD["frozen_mlp.pb"]
    build_mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), ["probabilities"])
    assert [[n.name, n.op] for n in frozen.node] == record["nodes"]  # training ops are gone
    tensorflows = {n.name: n for n in load("frozen_mlp.pb").node}
    for node in frozen.node:
        if node.op == "Const":
            np.testing.assert_array_equal(node.attr["value"], tensorflows[node.name].attr["value"])
    with tf.Graph().as_default():
        output, = tf.import_graph_def(frozen, return_elements=["probabilities:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(output, {"x:0": record["x"]}),
                                       record["expected"], rtol=1e-5)


def test_a_whitelist_freezes_only_the_named_variables():
    build_mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), ["probabilities"],
            variable_names_whitelist=["hidden/kernel"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["hidden/kernel"] == "Const" and ops["output/kernel"] == "VariableV2"


def test_extract_sub_graph_keeps_what_the_nodes_need_in_order():
    graph_def = load("frozen_mlp.pb")
    sub = tf.graph_util.extract_sub_graph(graph_def, ["hidden/Relu"])
    assert [n.name for n in sub.node] == ["x", "hidden/kernel", "hidden/kernel/read",
                                          "hidden/bias", "hidden/bias/read", "MatMul",
                                          "hidden/BiasAdd", "hidden/Relu"]
    with pytest.raises(TypeError, match="dest_nodes must be a list"):
        tf.graph_util.extract_sub_graph(graph_def, "hidden/Relu")
    with pytest.raises(AssertionError, match="nowhere is not in graph"):
        tf.graph_util.extract_sub_graph(graph_def, ["nowhere"])


def test_remove_training_nodes_splices_out_identities():
    record = RECORD["frozen_mlp.pb"]
    graph_def = load("frozen_mlp.pb")
    slim = tf.graph_util.remove_training_nodes(graph_def, protected_nodes=["output/bias/read"])
    names = [n.name for n in slim.node]
    assert "hidden/kernel/read" not in names and "output/bias/read" in names
    matmul, = [n for n in slim.node if n.name == "MatMul"]
    assert matmul.input == ["x", "hidden/kernel"]
    output, = tf.import_graph_def(slim, return_elements=["probabilities:0"], name="")
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(output, {"x:0": record["x"]}), record["expected"],
                                   rtol=1e-5)


def test_write_graph_writes_tensorflows_text_and_bytes(tmp_path):
    graph_def = load("frozen_mlp.pb")
    binary = tf.io.write_graph(graph_def, str(tmp_path), "mlp.pb", as_text=False)
    ours = graph_pb2.GraphDef.FromString(open(binary, "rb").read())
    tensorflows = graph_pb2.GraphDef.FromString((DATA / "frozen_mlp.pb").read_bytes())
    # Node for node TensorFlow's bytes; the versions say TensorFlow 1.15 (134) wrote it.
    assert [n.SerializeToString(deterministic=True) for n in ours.node] == [
        n.SerializeToString(deterministic=True) for n in tensorflows.node]
    assert (ours.versions.producer, tensorflows.versions.producer) == (134, 2474)
    text = open(tf.io.write_graph(graph_def, str(tmp_path), "mlp.pbtxt"), encoding="utf-8").read()
    assert text.startswith('node {\n  name: "x"\n  op: "Placeholder"\n')
    assert tf.train.write_graph is tf.io.write_graph
