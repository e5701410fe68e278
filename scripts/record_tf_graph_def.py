"""Records a small GraphDef written by TensorFlow, as test data for minitf's reader.

    /path/to/tf-venv/bin/python scripts/record_tf_graph_def.py

Needs TensorFlow (`tf.compat.v1`; the recorded file was made with 2.21) and
is run by hand. It writes `tests/graph/data/tf_small_graph.pb` (the bytes of
a GraphDef with a placeholder, constants of several dtypes, a MatMul, a
BiasAdd and a Relu) and `tf_small_graph.json` (what TensorFlow says about
it: each node's op and inputs, and the Relu's output for a fixed input).
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests/graph/data"


def main():
    tf.disable_eager_execution()
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
        b = tf.constant([0.5, -1.0], name="b")
        tf.constant(["a", "bc"], name="words")
        tf.constant(7, dtype=tf.int64, name="seven")
        with tf.device("/cpu:0"):
            y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b), name="y")
    feed = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]], np.float32)
    with tf.Session(graph=graph) as sess:
        output = sess.run(y, {x: feed})
    graph_def = graph.as_graph_def()
    (DATA / "tf_small_graph.pb").write_bytes(graph_def.SerializeToString())
    nodes = [{"name": n.name, "op": n.op, "input": list(n.input), "device": n.device,
              "attrs": sorted(n.attr)} for n in graph_def.node]
    (DATA / "tf_small_graph.json").write_text(json.dumps(
        {"tensorflow": tf.__version__, "producer": graph_def.versions.producer,
         "nodes": nodes, "feed": feed.tolist(), "y": output.tolist()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
