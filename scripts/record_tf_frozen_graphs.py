"""Records frozen models written by TensorFlow: a small MLP and a small convolutional network.

    /path/to/tf-venv/bin/python scripts/record_tf_frozen_graphs.py

Needs TensorFlow (`tf.compat.v1` with v2 behaviour off; the recorded files
were made with 2.21) and is run by hand. Each model is built with fixed
weights, frozen with `tf.graph_util.convert_variables_to_constants` and
written, as TensorFlow advises for readers older than the writer, with
default-valued attrs stripped (`strip_default_valued_attrs`: TensorFlow 2's
MatMul would otherwise carry `grad_a`/`grad_b`, which TF 1.15 and minitf do
not know). Into `tests/graph/data/`:

- `frozen_mlp.pb`: x [None, 4] -> dense 8, relu -> dense 3 -> softmax
  ("probabilities");
- `frozen_conv.pb`: x [None, 6, 6, 1] -> conv 3x3x2, relu -> max pool 2x2
  -> dense 3 ("logits");
- `frozen_graphs.json`: for each, its nodes (name, op) as TensorFlow wrote
  them, a fixed input, and TensorFlow's output for it.
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.framework import meta_graph

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests/graph/data"


def dense(x, rng, units, name):
    w = tf.Variable(rng.normal(0, 0.5, (int(x.shape[-1]), units)).astype(np.float32),
                    name=name + "/kernel")
    b = tf.Variable(rng.normal(0, 0.1, units).astype(np.float32), name=name + "/bias")
    return tf.nn.bias_add(tf.matmul(x, w), b, name=name + "/BiasAdd")


def build_mlp(rng):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    hidden = tf.nn.relu(dense(x, rng, 8, "hidden"), name="hidden/Relu")
    tf.nn.softmax(dense(hidden, rng, 3, "output"), name="probabilities")
    return rng.normal(0, 1, (5, 4)).astype(np.float32), "probabilities"


def build_conv(rng):
    x = tf.placeholder(tf.float32, [None, 6, 6, 1], name="x")
    kernel = tf.Variable(rng.normal(0, 0.5, (3, 3, 1, 2)).astype(np.float32), name="conv/kernel")
    conv = tf.nn.relu(tf.nn.conv2d(x, kernel, [1, 1, 1, 1], "SAME"), name="conv/Relu")
    pooled = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
    flat = tf.reshape(pooled, [-1, 3 * 3 * 2], name="flatten")
    tf.identity(dense(flat, rng, 3, "dense"), name="logits")
    return rng.normal(0, 1, (2, 6, 6, 1)).astype(np.float32), "logits"


def freeze(build, filename):
    rng = np.random.RandomState(0)
    with tf.Graph().as_default() as graph:
        feed, output = build(rng)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            expected = sess.run(output + ":0", {"x:0": feed})
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), [output])
    meta = tf.MetaGraphDef()
    meta.graph_def.CopyFrom(frozen)
    meta_graph.strip_graph_default_valued_attrs(meta)
    (DATA / filename).write_bytes(meta.graph_def.SerializeToString(deterministic=True))
    return {"nodes": [[n.name, n.op] for n in meta.graph_def.node], "output": output + ":0",
            "x": feed.tolist(), "expected": expected.tolist()}


def main():
    tf.disable_v2_behavior()
    record = {"tensorflow": tf.__version__, "frozen_mlp.pb": freeze(build_mlp, "frozen_mlp.pb"),
              "frozen_conv.pb": freeze(build_conv, "frozen_conv.pb")}
    (DATA / "frozen_graphs.json").write_text(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
