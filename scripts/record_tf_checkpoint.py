"""Records checkpoints and meta graphs written by TensorFlow, and TensorFlow's reading of minitf's.

    /path/to/tf-venv/bin/python scripts/record_tf_checkpoint.py

Needs TensorFlow (`tf.compat.v1` with v2 behaviour off, so reference
variables as in TF 1.x; the recorded files were made with 2.21)
and is run by hand; the tests only read what it wrote, under
`tests/saver/data/`:

- `tf_model.index`, `tf_model.data-00000-of-00001`: a linear model
  trained three steps and saved by TensorFlow's Saver, with one extra
  variable of each dtype both have; `tf_model.meta`: the meta graph of the
  same model without its training ops; `tf_model.json`: every tensor's
  dtype, shape and value as TensorFlow's reader gives them, and the
  model's prediction and loss for a fixed input;
- `minitf_model_tf_parse.json`: what TensorFlow makes of the checkpoint and
  meta graph that minitf wrote (`minitf_model.*`, written by
  `scripts/write_minitf_model.py`, to run first): each tensor as
  TensorFlow's reader gives it, and, once `tf.train.import_meta_graph` has
  read the `.meta` and the Saver has restored the checkpoint, the
  prediction, the loss, the loss after one training step and the step.
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

from interop_model import EXTRAS, X, Y  # beside this script

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests/saver/data"


def as_json(value):
    """A tensor's value as JSON: bytes as lists of ints, everything else as nested lists."""
    value = np.asarray(value)
    if value.dtype == object:
        return [list(bytes(v)) for v in value.ravel()]
    return value.tolist()


def read_checkpoint(prefix):
    reader = tf.train.NewCheckpointReader(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    return {name: {"dtype": dtypes[name].name, "shape": shape,
                   "value": as_json(reader.get_tensor(name))}
            for name, shape in sorted(reader.get_variable_to_shape_map().items())}


def build_tf_model():
    """The linear model and the extra variables; returns x, y, prediction, loss."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable([[0.1], [-0.2]], name="w")
    b = tf.Variable([0.3], name="b")
    prediction = tf.add(tf.matmul(x, w), b, name="prediction")
    loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
    tf.train.get_or_create_global_step()
    with tf.variable_scope("extra"):
        for name, (value, dtype) in EXTRAS.items():
            tf.Variable(value, dtype=tf.as_dtype(dtype), name=name)
    return x, y, prediction, loss


def write_tf_model():
    """Trains and saves; the `.meta` is of the model without its training ops.

    (TensorFlow 2's gradient MatMuls set `grad_a`/`grad_b`, attrs TF 1.15
    did not have, to true: TF 1.15 could not import them, and neither can
    minitf. The inference graph's MatMul has them at their default, which
    the meta graph's stripped_op_list lets an importer drop.)
    """
    with tf.Graph().as_default():
        x, y, prediction, loss = build_tf_model()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op, {x: X, y: Y})
            outputs = sess.run({"prediction": prediction, "loss": loss}, {x: X, y: Y})
            saver.save(sess, str(DATA / "tf_model"), write_state=False, write_meta_graph=False)
    with tf.Graph().as_default():
        build_tf_model()
        tf.add_to_collection("prediction", tf.get_default_graph().get_tensor_by_name(
            "prediction:0"))
        tf.train.Saver().export_meta_graph(str(DATA / "tf_model.meta"))
    (DATA / "tf_model.json").write_text(json.dumps(
        {"tensorflow": tf.__version__, "x": X.tolist(), "y": Y.tolist(),
         "prediction": outputs["prediction"].tolist(), "loss": float(outputs["loss"]),
         "tensors": read_checkpoint(str(DATA / "tf_model"))}, indent=1) + "\n")


def read_minitf_model():
    prefix = str(DATA / "minitf_model")
    parse = {"tensorflow": tf.__version__, "tensors": read_checkpoint(prefix)}
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            feed = {"x:0": X, "y:0": Y}
            parse["prediction"] = sess.run("prediction:0", feed).tolist()
            parse["loss"] = float(sess.run("loss:0", feed))
            sess.run(tf.get_collection("train_op")[0], feed)
            parse["loss_after_one_step"] = float(sess.run("loss:0", feed))
            parse["global_step"] = int(sess.run(tf.train.get_global_step(graph)))
    (DATA / "minitf_model_tf_parse.json").write_text(json.dumps(parse, indent=1) + "\n")


def main():
    tf.disable_v2_behavior()  # TF 1.x graphs: reference variables (VariableV2), no eager
    write_tf_model()
    read_minitf_model()


if __name__ == "__main__":
    main()
