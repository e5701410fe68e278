"""Meta graphs: export_meta_graph, import_meta_graph, write_graph."""

import logging
import os

import numpy as np
import pytest

import minitf as tf
from minitf.graph import graph_def_proto
from minitf.graph.graph_def import GraphDef
from minitf.proto import meta_graph_pb2
from minitf.proto import variable_pb2
from minitf.saver import meta_graph as meta_graph_lib
from minitf.saver.meta_graph import MetaGraphDef

X = np.array([[1.0, 2.0], [0.5, -1.0], [-2.0, 0.0], [3.0, 1.0]], np.float32)
Y = np.array([[1.0], [0.0], [-1.0], [2.0]], np.float32)


def build_model(device=None):
    """A two-weight linear model trained by Adam, with the usual collections filled."""
    with tf.device(device):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable([[0.1], [-0.2]], name="w")
        b = tf.Variable([0.3], name="b")
        prediction = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    tf.add_to_collection(tf.GraphKeys.LOSSES, loss)
    tf.add_to_collection("prediction", prediction)
    return train_op, loss


def train(train_op, loss, steps, x_name="x:0", y_name="y:0"):
    """Initializes, trains `steps` steps, returns the loss before each step."""
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            losses.append(sess.run([loss, train_op], {x_name: X, y_name: Y})[0])
    return losses


def test_export_stores_each_collection_by_kind(caplog):
    train_op, loss = build_model()
    tf.add_to_collection("names", "hello")
    tf.add_to_collection("names", b"bytes")
    tf.add_to_collection("counts", 3)
    tf.add_to_collection("rates", 0.5)
    tf.add_to_collection("objects", object())
    tf.add_to_collection("mixed", 1)
    tf.add_to_collection("mixed", "a")
    with caplog.at_level(logging.WARNING, logger="minitf"):
        meta_graph_def = tf.train.export_meta_graph()
    collections = meta_graph_def.collection_def
    assert collections["train_op"].kind == "node_list"
    assert collections["train_op"].value == [train_op.name]
    assert collections["losses"].value == ["loss:0"]
    assert collections["names"].kind == "bytes_list"
    assert collections["names"].value == [b"hello", b"bytes"]  # TF stores bytes
    assert (collections["counts"].kind, collections["counts"].value) == ("int64_list", [3])
    assert (collections["rates"].kind, collections["rates"].value) == ("float_list", [0.5])
    # Like TF: what cannot be stored is left out, with a warning naming the collection.
    assert "objects" not in collections and "mixed" not in collections
    assert "Issue encountered when serializing: objects." in caplog.text
    assert "Issue encountered when serializing: mixed." in caplog.text

    trainable = collections["trainable_variables"]
    assert trainable.kind == "variable_list"
    w_def = trainable.value[0]
    assert (w_def.variable_name, w_def.initializer_name, w_def.snapshot_name,
            w_def.initial_value_name, w_def.trainable) == (
        "w:0", "w/Assign", "w/read:0", "w/initial_value:0", True)
    global_names = [v.variable_name for v in collections["variables"].value]
    assert global_names == ["w:0", "b:0", "global_step:0", "beta1_power:0", "beta2_power:0",
                            "w/Adam:0", "w/Adam_1:0", "b/Adam:0", "b/Adam_1:0"]
    step_def = collections["global_step"].value[0]
    assert (step_def.variable_name, step_def.trainable) == ("global_step:0", False)
    assert meta_graph_def.saver_def is None and not meta_graph_def.HasField("saver_def")
    op_defs = {op.name: op for op in meta_graph_def.meta_info_def.stripped_op_list.op}
    assert op_defs["ApplyAdam"] is tf.get_default_graph().get_operation_by_name("Adam/update_w/"
                                                                               "ApplyAdam").op_def
    assert meta_graph_def.graph_def.node[0].attr["_output_shapes"][0].as_list() == [None, 2]


def test_file_round_trip_in_both_forms(tmp_path):
    build_model()
    tf.add_to_collection("rates", float("nan"))
    binary = tf.train.export_meta_graph(str(tmp_path / "a" / "model.meta"))
    text = tf.train.export_meta_graph(str(tmp_path / "model.pbtxt"), as_text=True)
    assert binary == text
    raw = (tmp_path / "a" / "model.meta").read_bytes()
    assert MetaGraphDef.FromString(raw) == binary
    proto = meta_graph_pb2.MetaGraphDef.FromString(raw)  # TensorFlow's message
    assert list(proto.collection_def["train_op"].node_list.value) == ["Adam"]
    variable_def = variable_pb2.VariableDef.FromString(
        proto.collection_def["trainable_variables"].bytes_list.value[0])
    assert (variable_def.variable_name, variable_def.trainable) == ("w:0", True)
    readable = (tmp_path / "model.pbtxt").read_text()
    assert readable.count("\n") > 100
    assert 'collection_def {\n  key: "train_op"\n  value {\n    node_list {\n      value: "Adam"' \
        in readable
    read_back = meta_graph_lib.read_meta_graph_file(str(tmp_path / "model.pbtxt"))
    assert read_back == binary
    assert np.isnan(read_back.collection_def["rates"].value[0])
    assert not [name for name in os.listdir(tmp_path) if ".tmp" in name]


def test_import_into_fresh_graph_gives_equal_graph_def_and_collections():
    build_model()
    tf.add_to_collection("names", "hello")
    saver_def = tf.train.Saver().saver_def
    exported = tf.train.export_meta_graph(saver_def=saver_def)
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(exported)
        # Importing creates exactly the stored nodes: neither the Variables nor the
        # Saver rebuilt from its SaverDef added any.
        assert len(graph.get_operations()) == len(exported.graph_def.node)
        again = tf.train.export_meta_graph(saver_def=saver.saver_def)
    assert again.graph_def == exported.graph_def
    assert again == exported


def test_without_a_saver_def_import_builds_a_new_saver_if_there_are_variables():
    build_model()
    exported = tf.train.export_meta_graph()
    assert not any(n.op == "SaveV2" for n in exported.graph_def.node)
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(exported)
        assert isinstance(saver, tf.train.Saver)
        assert any(op.type == "SaveV2" for op in graph.get_operations())


def test_imported_variables_wrap_the_imported_nodes():
    build_model()
    exported = tf.train.export_meta_graph()
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(exported)
        trainable = tf.trainable_variables()
        assert [v.name for v in trainable] == ["w:0", "b:0"]
        w = trainable[0]
        assert isinstance(w, tf.Variable)
        assert w is tf.global_variables()[0]  # one object, whichever collections list it
        assert w.op is graph.get_operation_by_name("w")
        assert w.initializer is graph.get_operation_by_name("w/Assign")
        assert w.value() is graph.get_tensor_by_name("w/read:0")
        assert w.initial_value is graph.get_tensor_by_name("w/initial_value:0")
        assert w.dtype == tf.float32_ref and w.shape.as_list() == [2, 1]
        slots = [v.name for v in tf.global_variables() if not v.trainable]
        assert slots == ["global_step:0", "beta1_power:0", "beta2_power:0", "w/Adam:0",
                         "w/Adam_1:0", "b/Adam:0", "b/Adam_1:0"]
        step = tf.train.get_global_step()
        assert isinstance(step, tf.Variable) and step.name == "global_step:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(w), np.float32([[0.1], [-0.2]]))
            np.testing.assert_array_equal(sess.run(w + 1.0),
                                          np.float32([[0.1], [-0.2]]) + np.float32(1.0))


def test_imported_train_op_trains_exactly_like_the_original():
    train_op, loss = build_model()
    expected = train(train_op, loss, 5)
    exported = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(exported)
        imported_train_op = tf.get_collection("train_op")[0]
        imported_loss = tf.get_collection(tf.GraphKeys.LOSSES)[0]
        assert imported_train_op.type == "AssignAdd"  # the global step's increment
        assert train(imported_train_op, imported_loss, 5) == expected
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(imported_train_op, {"x:0": X, "y:0": Y})
            assert sess.run(tf.train.get_global_step()) == 3
            m = sess.run(tf.get_default_graph().get_tensor_by_name("w/Adam:0"))
            assert np.all(m != 0)  # Adam's first moment moved
    assert expected[-1] < expected[0]


def test_clear_devices_on_export_and_on_import():
    build_model(device="/cpu:0")
    kept = tf.train.export_meta_graph()
    assert {n.device for n in kept.graph_def.node if n.name.startswith("w")} == {
        "/device:CPU:0"}
    cleared = tf.train.export_meta_graph(clear_devices=True)
    assert {n.device for n in cleared.graph_def.node} == {""}
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(kept)
        assert graph.get_operation_by_name("MatMul").device == "/device:CPU:0"
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(kept, clear_devices=True)
        assert graph.get_operation_by_name("MatMul").device == ""


def test_import_scope_prefixes_nodes_and_collections():
    train_op, loss = build_model()
    tf.add_to_collection("names", "hello")
    tf.add_to_collection("counts", 7)
    expected = train(train_op, loss, 3)
    exported = tf.train.export_meta_graph()
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(exported, import_scope="imported")
        tf.train.import_meta_graph(exported, import_scope="imported")
        assert graph.get_operation_by_name("imported/w").type == "VariableV2"
        assert graph.get_operation_by_name("imported_1/w").type == "VariableV2"
        assert [v.name for v in tf.trainable_variables()] == [
            "imported/w:0", "imported/b:0", "imported_1/w:0", "imported_1/b:0"]
        assert [op.name for op in tf.get_collection("train_op")] == [
            "imported/Adam", "imported_1/Adam"]
        # As in TF, strings in collections are taken for names and get the scope too.
        assert tf.get_collection("names") == ["imported/hello", "imported_1/hello"]
        assert tf.get_collection("counts") == [7, 7]
        imported_loss = tf.get_collection(tf.GraphKeys.LOSSES)[1]
        assert imported_loss.name == "imported_1/loss:0"
        assert train(tf.get_collection("train_op")[1], imported_loss, 3,
                     "imported_1/x:0", "imported_1/y:0") == expected


def test_export_scope_keeps_one_scope_with_its_names_stripped():
    with tf.variable_scope("tower"):
        w = tf.get_variable("w", initializer=tf.constant([2.0, 3.0]))
        doubled = tf.multiply(w, 2.0, name="doubled")
    other = tf.Variable(1.0, name="other")
    tf.add_to_collection("outputs", doubled)
    tf.add_to_collection("outputs", other.value())
    exported = tf.train.export_meta_graph(export_scope="tower")
    names = {n.name for n in exported.graph_def.node}
    assert {"w", "w/Assign", "w/read", "doubled"} <= names
    assert not any(name.startswith(("tower", "other")) for name in names)
    assert exported.collection_def["outputs"].value == ["doubled:0"]
    assert [v.variable_name for v in exported.collection_def["variables"].value] == ["w:0"]
    with tf.Graph().as_default():
        tf.train.import_meta_graph(exported, import_scope="copy")
        assert [v.name for v in tf.global_variables()] == ["copy/w:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(tf.get_collection("outputs")[0]), [4., 6.])


def test_export_scope_records_inputs_from_outside_it():
    a = tf.constant([1.0, 2.0], name="a")
    with tf.name_scope("inner"):
        tf.multiply(a, 3.0, name="tripled")
    exported = tf.train.export_meta_graph(export_scope="inner")
    tripled = [n for n in exported.graph_def.node if n.name == "tripled"][0]
    assert tripled.input[0] == "$unbound_inputs_a"
    assert exported.collection_def["unbound_inputs"].value == [b"$unbound_inputs_a"]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Graph contains unbound inputs: "
                                             r"\$unbound_inputs_a. Must provide"):
            tf.train.import_meta_graph(exported)


def test_strip_default_attrs_and_collection_list():
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    tf.matmul(x, x, name="product")
    tf.add_to_collection("kept", 1)
    tf.add_to_collection("dropped", 2)
    full = tf.train.export_meta_graph()
    stripped = tf.train.export_meta_graph(strip_default_attrs=True, collection_list=["kept"])
    node = {n.name: n for n in full.graph_def.node}["product"]
    assert node.attr["transpose_a"] is False
    stripped_node = {n.name: n for n in stripped.graph_def.node}["product"]
    assert "transpose_a" not in stripped_node.attr and "T" in stripped_node.attr
    assert stripped.meta_info_def.stripped_default_attrs is True
    assert sorted(stripped.collection_def) == ["kept"]
    with tf.Graph().as_default() as graph:
        assert tf.train.import_meta_graph(stripped) is None  # no variables: no Saver
        product = graph.get_operation_by_name("product")
        assert product.get_attr("transpose_a") is False
        assert tf.get_collection("kept") == [1] and tf.get_collection("dropped") == []
        with tf.Session() as sess:
            np.testing.assert_array_equal(
                sess.run("product:0", {"x:0": [[1., 2.], [3., 4.]]}), [[7., 10.], [15., 22.]])


def test_restore_collections_predicate_and_input_map():
    x = tf.placeholder(tf.float32, [2], name="x")
    doubled = tf.multiply(x, 2.0, name="doubled")
    tf.add_to_collection("out", doubled)
    tf.add_to_collection("skip", doubled)
    exported = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        fed = tf.constant([5.0, 6.0], name="fed")
        tf.train.import_meta_graph(exported, import_scope="m", input_map={"x:0": fed},
                                   restore_collections_predicate=lambda key: key != "skip")
        assert tf.get_collection("skip") == []
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(tf.get_collection("out")[0]), [10., 12.])


def test_saver_def_is_stored_and_the_saver_rebuilt(tmp_path):
    build_model()
    saver = tf.train.Saver(max_to_keep=3)
    exported = tf.train.export_meta_graph(str(tmp_path / "m.meta"), saver_def=saver.saver_def)
    stored = meta_graph_lib.read_meta_graph_file(str(tmp_path / "m.meta")).saver_def
    assert stored.max_to_keep == 3
    assert stored.save_tensor_name == saver.saver_def.save_tensor_name
    assert stored.restore_op_name == saver.saver_def.restore_op_name
    with tf.Graph().as_default():
        imported = tf.train.import_meta_graph(exported)
        assert isinstance(imported, tf.train.Saver)
        assert imported.saver_def.restore_op_name == saver.saver_def.restore_op_name


def test_clear_extraneous_savers_drops_the_other_savers_nodes():
    build_model()
    first = tf.train.Saver()
    tf.train.Saver()
    scope_of_first = first.saver_def.save_tensor_name.split("/")[0]
    everything = tf.train.export_meta_graph(saver_def=first.saver_def)
    cleared = tf.train.export_meta_graph(saver_def=first.saver_def,
                                         clear_extraneous_savers=True)
    saver_scopes = {n.name.split("/")[0] for n in everything.graph_def.node
                    if n.op in ("SaveV2", "RestoreV2")}
    assert len(saver_scopes) == 2
    kept_scopes = {n.name.split("/")[0] for n in cleared.graph_def.node
                   if n.op in ("SaveV2", "RestoreV2")}
    assert kept_scopes == {scope_of_first}
    with tf.Graph().as_default():
        tf.train.import_meta_graph(cleared)  # still a complete graph


def test_savers_collection_comes_back_as_savers():
    build_model()
    saver = tf.train.Saver()
    tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
    exported = tf.train.export_meta_graph()
    assert exported.collection_def["savers"].kind == "saver_list"
    with tf.Graph().as_default():
        tf.train.import_meta_graph(exported)
        restored, = tf.get_collection(tf.GraphKeys.SAVERS)
        assert isinstance(restored, tf.train.Saver)
        assert restored.saver_def.save_tensor_name == saver.saver_def.save_tensor_name


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "nothing.meta"))
    (tmp_path / "bad.meta").write_text('graph_def { node { nme: "x" } }')
    with pytest.raises(OSError, match="Cannot parse file .*bad.meta.*has no field named "
                                      '"nme"'):
        tf.train.import_meta_graph(str(tmp_path / "bad.meta"))
    (tmp_path / "junk.meta").write_bytes(b"\x08\x01\xff")
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.train.import_meta_graph(str(tmp_path / "junk.meta"))
    with pytest.raises(TypeError, match="unexpected keyword arguments: bogus"):
        tf.train.export_meta_graph(bogus=1)


def test_write_graph_text_and_binary(tmp_path):
    a = tf.constant([1.0, 2.0], name="a")
    tf.square(a, name="sq")
    graph = tf.get_default_graph()
    path = tf.train.write_graph(graph, str(tmp_path / "logs"), "graph.pbtxt")
    assert path == os.path.join(str(tmp_path / "logs"), "graph.pbtxt")
    text = open(path).read()
    assert text.startswith('node {\n  name: "a"\n  op: "Const"\n') and 'op: "Square"' in text
    assert text.endswith("versions {\n  producer: 134\n}\n")
    assert graph_def_proto.graph_def_from_text(text).node == graph.as_graph_def().node
    binary_path = tf.train.write_graph(graph.as_graph_def(), str(tmp_path / "logs"),
                                       "graph.pb", as_text=False)
    with open(binary_path, "rb") as f:
        assert GraphDef.FromString(f.read()).node == graph.as_graph_def().node
    assert sorted(os.listdir(tmp_path / "logs")) == ["graph.pb", "graph.pbtxt"]
    with pytest.raises(TypeError, match="Graph, a GraphDef or a MetaGraphDef"):
        tf.train.write_graph("not a graph", str(tmp_path), "x.pbtxt")


@pytest.mark.parametrize("as_text", [False, True])
def test_save_debug_info_writes_each_nodes_creation_stack(tmp_path, as_text):
    from google.protobuf import text_format

    from minitf.proto import graph_debug_info_pb2

    tf.constant(1.0, name="one")  # this line is the stack's last frame
    tf.train.export_meta_graph(str(tmp_path / "model.meta"), save_debug_info=True,
                               as_text=as_text)
    raw = (tmp_path / "model.debug").read_bytes()
    info = graph_debug_info_pb2.GraphDebugInfo()
    if as_text:
        text_format.Parse(raw.decode("utf-8"), info)
    else:
        info.ParseFromString(raw)
    frame = info.traces["one"].file_line_cols[-1]
    assert info.files[frame.file_index] == __file__
    assert frame.func == "test_save_debug_info_writes_each_nodes_creation_stack"
    with open(__file__) as f:
        assert "this line is the stack's last frame" in f.read().splitlines()[frame.line - 1]


def test_variable_from_a_variable_def_builds_no_nodes():
    w = tf.Variable([1.0, 2.0], name="w")
    variable_def = meta_graph_lib._variable_def(w, None)
    before = len(tf.get_default_graph().get_operations())
    again = tf.Variable(variable_def=variable_def)
    assert len(tf.get_default_graph().get_operations()) == before
    assert (again.op, again.initializer, again.value()) == (w.op, w.initializer, w.value())
    assert tf.global_variables() == [w]  # wrapping registers nothing
    with pytest.raises(ValueError, match="variable_def and initial_value are mutually"):
        tf.Variable(1.0, variable_def=variable_def)
