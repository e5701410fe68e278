"""A graph of 10,000 small ops: its first run, and every run after it, beside TensorFlow.

The graph: 10,000 nodes: a fed float32 vector of 8 values, a constant 0.5,
and elementwise ops (Add, Mul, Sub, Maximum, in a fixed pseudo-random
pattern), each reading two tensors among the 20 made just before it, sums
and differences halved (another Mul by the 0.5) so that values stay in
[-1, 1]; the last 10 are fetched. The
first `sess.run` prunes, places, optimizes and builds the executor; the
second and later ones only run it, so their time is the runtime's cost per
node: for small tensors, the kernels are a fraction of it. That is where
the single-threaded executor (`minitf/executor/single_threaded_executor.py`)
helps: a flat loop over an order fixed when the executor was built.

With `--tensorflow PYTHON`, the same program runs under that interpreter's
TensorFlow (`tf.compat.v1`, graph mode), in a process of its own.

Target: the second run takes at most 8 ms.
"""

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from _common import BenchResult, report

import minitf

TARGET_MS = 8.0
WINDOW = 20


def build(tf, num_ops):
    """A graph of `num_ops` nodes in all (the placeholder and one shared 0.5 among them)."""
    rng = np.random.default_rng(0)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [8], name="x")
        half = tf.constant(0.5, name="half")
        tensors = [x]
        ops = [tf.add, tf.multiply, tf.subtract, tf.maximum]
        while len(graph.get_operations()) < num_ops:
            low = max(0, len(tensors) - WINDOW)
            a, b = rng.integers(low, len(tensors), 2)
            op = ops[rng.integers(0, len(ops))]
            value = op(tensors[a], tensors[b])
            # Halving sums and differences keeps every value in [-1, 1]: no overflow to inf.
            if op in (tf.add, tf.subtract) and len(graph.get_operations()) < num_ops:
                value = value * half
            tensors.append(value)
        fetches = tensors[-10:]
    return graph, x, fetches, len(graph.get_operations())


def measure(tf, num_ops, repeats):
    graph, x, fetches, nodes = build(tf, num_ops)
    feed = {x: np.linspace(-1, 1, 8).astype(np.float32)}
    with tf.Session(graph=graph) as sess:
        start = time.perf_counter()
        sess.run(fetches, feed)
        first = time.perf_counter() - start
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            values = sess.run(fetches, feed)
            times.append(time.perf_counter() - start)
    times.sort()
    return {"nodes": nodes, "first_ms": first * 1e3, "best_ms": times[0] * 1e3,
            "median_ms": times[len(times) // 2] * 1e3,
            "checksum": float(sum(np.sum(v) for v in values))}


def _tensorflow_child(num_ops, repeats):
    import tensorflow.compat.v1 as tf  # noqa: PLC0415 - only the child has TensorFlow

    tf.disable_eager_execution()
    print(json.dumps(measure(tf, num_ops, repeats)))


def _measure_tensorflow(python, num_ops, repeats):
    done = subprocess.run([python, __file__, "--child-tensorflow", "--ops", str(num_ops),
                           "--repeats", str(repeats)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(num_ops=10000, repeats=20, tensorflow=None):
    ours = measure(minitf, num_ops, repeats)
    rows = [["minitf", ours["nodes"], "%.0f" % ours["first_ms"], "%.2f" % ours["best_ms"],
             "%.2f" % ours["median_ms"]]]
    notes = ["Later runs: best and median of %d." % repeats]
    if tensorflow:
        theirs = _measure_tensorflow(tensorflow, num_ops, repeats)
        rows.append(["TensorFlow", theirs["nodes"], "%.0f" % theirs["first_ms"],
                     "%.2f" % theirs["best_ms"], "%.2f" % theirs["median_ms"]])
        if not np.isclose(ours["checksum"], theirs["checksum"], rtol=1e-4):
            notes.append("**The two results differ: %r vs %r**"
                         % (ours["checksum"], theirs["checksum"]))
        notes.append("TensorFlow: %s" % tensorflow)
    return BenchResult("A graph of %d small ops" % ours["nodes"],
                       ["", "graph nodes", "first run ms", "later run ms (best)",
                        "later run ms (median)"], rows,
                       "≤ %.0f ms for a later run" % TARGET_MS, ours["best_ms"] <= TARGET_MS,
                       notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10000, help="nodes in the graph")
    parser.add_argument("--repeats", type=int, default=20, help="later runs timed")
    parser.add_argument("--tensorflow", metavar="PYTHON",
                        help="an interpreter with TensorFlow installed, to compare")
    parser.add_argument("--child-tensorflow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_tensorflow:
        _tensorflow_child(args.ops, args.repeats)
        return
    report(run(args.ops, args.repeats, args.tensorflow))


if __name__ == "__main__":
    sys.exit(main())
