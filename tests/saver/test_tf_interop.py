"""Checkpoints and meta graphs that TensorFlow wrote, read by minitf, and the other way round.

The files under `data/` were written by TensorFlow (`tf_model.*`, by
`scripts/record_tf_checkpoint.py`, run by hand with TensorFlow) or by
minitf (`minitf_model.*`, by `scripts/write_minitf_model.py`), and
TensorFlow's reading of minitf's files was recorded by the first script
(`minitf_model_tf_parse.json`).
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import minitf as tf
from minitf.framework import tensor_bundle
from minitf.saver import meta_graph

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import write_minitf_model  # noqa: E402 - scripts/ is not a package

DATA = pathlib.Path(__file__).resolve().parent / "data"
TF_MODEL = str(DATA / "tf_model")
TF_RECORD = json.loads((DATA / "tf_model.json").read_text())


def value_of(record):
    """A recorded tensor (dtype, shape, value) as a NumPy array."""
    dtype = tf.as_dtype(record["dtype"])
    if dtype == tf.string:
        flat = np.empty(len(record["value"]), dtype=object)
        flat[:] = [bytes(v) for v in record["value"]]
        return flat.reshape(record["shape"])
    return np.array(record["value"], dtype=dtype.as_numpy_dtype).reshape(record["shape"])


def assert_same(actual, expected):
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def test_a_checkpoint_tensorflow_wrote_reads_tensor_for_tensor():
    reader = tf.train.NewCheckpointReader(TF_MODEL)
    assert reader.get_variable_to_shape_map() == {
        name: record["shape"] for name, record in TF_RECORD["tensors"].items()}
    dtypes = reader.get_variable_to_dtype_map()
    for name, record in TF_RECORD["tensors"].items():
        assert dtypes[name] == tf.as_dtype(record["dtype"])
        assert_same(reader.get_tensor(name), value_of(record))
    assert tf.train.list_variables(TF_MODEL) == [
        (name, record["shape"]) for name, record in sorted(TF_RECORD["tensors"].items())]
    assert_same(tf.train.load_variable(TF_MODEL, "w:0"), value_of(TF_RECORD["tensors"]["w"]))


def test_minitf_writes_the_bytes_tensorflow_wrote(tmp_path):
    prefix = str(tmp_path / "again")
    tensor_bundle.write_checkpoint(prefix, [
        (name, value_of(record), tf.as_dtype(record["dtype"]))
        for name, record in sorted(TF_RECORD["tensors"].items())])
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / ("again" + suffix)).read_bytes() == (
            DATA / ("tf_model" + suffix)).read_bytes(), suffix


def test_a_saver_restores_a_tensorflow_checkpoint_into_minitf_variables():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(tf.zeros([2, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    prediction = tf.matmul(x, w) + b
    words = tf.Variable(np.array([[b""] * 2] * 2, dtype=object), name="extra/words")
    saver = tf.train.Saver([w, b, words])
    with tf.Session() as sess:
        saver.restore(sess, TF_MODEL)
        np.testing.assert_allclose(sess.run(prediction, {x: TF_RECORD["x"]}),
                                   TF_RECORD["prediction"], rtol=1e-6)
        assert_same(sess.run(words), value_of(TF_RECORD["tensors"]["extra/words"]))


def test_a_tensorflow_checkpoint_that_does_not_fit_leaves_the_variables_alone():
    w = tf.Variable(tf.ones([3, 1]), name="w")  # TF's w is [2, 1]
    saver = tf.train.Saver([w])
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"lhs shape= \[3,1\] rhs shape= \[2,1\]"):
            saver.restore(sess, TF_MODEL)
        assert_same(sess.run(w), np.ones([3, 1], np.float32))


# --- TensorFlow's meta graph in minitf ----------------------------------------------------

def test_a_tensorflow_meta_graph_imports_and_restores_its_checkpoint():
    saver = tf.train.import_meta_graph(TF_MODEL + ".meta")
    assert [v.name for v in tf.trainable_variables()][:2] == ["w:0", "b:0"]
    assert isinstance(tf.trainable_variables()[0], tf.Variable)
    prediction, = tf.get_collection("prediction")
    with tf.Session() as sess:
        saver.restore(sess, TF_MODEL)
        np.testing.assert_allclose(sess.run(prediction, {"x:0": TF_RECORD["x"]}),
                                   TF_RECORD["prediction"], rtol=1e-6)


def test_an_attr_minitf_lacks_is_dropped_only_where_the_producer_says_it_is_a_default():
    meta_graph_def = meta_graph.read_meta_graph_file(TF_MODEL + ".meta")
    matmul, = [n for n in meta_graph_def.graph_def.node if n.op == "MatMul"]
    assert matmul.attr["grad_a"] is False  # TensorFlow 2's attr, at its default
    with pytest.raises(ValueError, match="NodeDef mentions attr 'grad_a' not in Op<name=MatMul"):
        tf.import_graph_def(meta_graph_def.graph_def, name="")
    assert tf.get_default_graph().get_operations() == []  # nothing half-imported
    tf.import_graph_def(meta_graph_def.graph_def, name="",
                        producer_op_list=meta_graph_def.meta_info_def.stripped_op_list)
    assert "grad_a" not in tf.get_default_graph().get_operation_by_name("MatMul").node_def.attr


# --- minitf's files in TensorFlow -------------------------------------------------------

MINITF_MODEL = str(DATA / "minitf_model")
TF_PARSE = json.loads((DATA / "minitf_model_tf_parse.json").read_text())


def test_minitf_still_writes_the_checkpoint_tensorflow_read(tmp_path):
    write_minitf_model.write_minitf_model(str(tmp_path / "minitf_model"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / ("minitf_model" + suffix)).read_bytes() == (
            DATA / ("minitf_model" + suffix)).read_bytes(), (
            "minitf's checkpoint bytes changed: rerun scripts/write_minitf_model.py, then "
            "scripts/record_tf_checkpoint.py with TensorFlow")


def test_tensorflow_read_minitfs_checkpoint_tensor_for_tensor():
    reader = tf.train.NewCheckpointReader(MINITF_MODEL)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(TF_PARSE["tensors"])
    for name, record in TF_PARSE["tensors"].items():
        assert_same(reader.get_tensor(name), value_of(record))


def test_tensorflow_ran_minitfs_meta_graph_as_minitf_does():
    saver = tf.train.import_meta_graph(MINITF_MODEL + ".meta")
    feed = {"x:0": TF_RECORD["x"], "y:0": TF_RECORD["y"]}
    with tf.Session() as sess:
        saver.restore(sess, MINITF_MODEL)
        np.testing.assert_allclose(sess.run("prediction:0", feed), TF_PARSE["prediction"],
                                   rtol=1e-6)
        np.testing.assert_allclose(sess.run("loss:0", feed), TF_PARSE["loss"], rtol=1e-6)
        sess.run(tf.get_collection("train_op")[0], feed)
        np.testing.assert_allclose(sess.run("loss:0", feed), TF_PARSE["loss_after_one_step"],
                                   rtol=1e-5)
        assert sess.run(tf.train.get_global_step()) == TF_PARSE["global_step"]
