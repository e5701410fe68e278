"""Per-op dispatch overhead: what the executor adds to each kernel call.

A chain of N scalar adds starting from a float32 placeholder is run in a
session; hand-written NumPy does the same N adds on the same 0-d arrays.
NumPy's time is the kernels' own work, so

    overhead per node = (session time - NumPy time) / nodes run

is what scheduling, input passing and output checking cost per node. Two
ways of writing the chain are timed:

* `y = tf.add(y, one)` with one shared constant: N Add nodes (the headline);
* `y = tf.add(y, 1.0)`, as people write it: each add converts 1.0 to its
  own Const node. The executor computes Consts when it is built, so N
  nodes run here too, each reading a constant of its own.

A first row calls the registered Add kernel directly, without a session:
its overhead over NumPy is the kernel's own (argument checks, error state);
the rest of a session's overhead is the executor's. The fixed cost of one
`session.run` (see bench_run_overhead.py) is included in the session rows
but spread over the nodes. Each time is the best of several repeats.

Target: at most 1 µs of overhead per op.
"""

import argparse
import types

import numpy as np
from _common import BenchResult, best_time, report

import minitf as tf
from minitf.framework.kernel_registry import find_kernel

TARGET_US = 1.0


def build_chain(num_ops, shared_constant):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        one = tf.constant(1.0, name="one") if shared_constant else 1.0
        y = x
        for _ in range(num_ops):
            y = tf.add(y, one)
    return graph, x, y


def session_seconds(num_ops, repeats, shared_constant=True, config=None):
    graph, x, y = build_chain(num_ops, shared_constant)
    with tf.Session(graph=graph, config=config) as sess:
        feed = {x: np.float32(0.0)}
        assert sess.run(y, feed) == num_ops  # warm-up: builds and caches the executor
        return best_time(lambda: sess.run(y, feed), repeats)


def numpy_seconds(num_ops, repeats):
    start, one = np.asarray(0.0, np.float32), np.asarray(1.0, np.float32)

    def chain():
        value = start
        for _ in range(num_ops):
            value = np.add(value, one)
        return value

    assert chain() == num_ops
    return best_time(chain, repeats)


def kernel_seconds(num_ops, repeats):
    """The registered Add kernel called directly, without a session: the kernel's own cost."""
    kernel = find_kernel("Add", "CPU").fn
    ctx = types.SimpleNamespace(xp=np, may_forward=False)  # what an elementwise kernel reads
    start, one = np.asarray(0.0, np.float32), np.asarray(1.0, np.float32)

    def chain():
        value = start
        for _ in range(num_ops):
            value = kernel(ctx, value, one)
        return value

    assert chain() == num_ops
    return best_time(chain, repeats)


def run(num_ops=1000, repeats=50):
    numpy_us = numpy_seconds(num_ops, repeats) / num_ops * 1e6
    single_thread = tf.ConfigProto(inter_op_parallelism_threads=1)
    runs = [("`tf.add(y, one)`, default session", 1, True, None),
            ("`tf.add(y, one)`, inter_op_parallelism_threads=1", 1, True, single_thread),
            # The Consts are computed when the executor is built: only the adds run.
            ("`tf.add(y, 1.0)` (a Const per add), default session", 1, False, None)]
    kernel_us = kernel_seconds(num_ops, repeats) / num_ops * 1e6
    rows = [["the Add kernel called directly (no session)", num_ops, "%.2f" % kernel_us,
             "%.2f" % numpy_us, "%.2f" % (kernel_us - numpy_us)]]
    overheads = []
    for label, nodes_per_add, shared_constant, config in runs:
        minitf_us = session_seconds(num_ops, repeats, shared_constant, config) / num_ops * 1e6
        overhead = (minitf_us - numpy_us) / nodes_per_add
        overheads.append(overhead)
        rows.append([label, num_ops * nodes_per_add, "%.2f" % minitf_us, "%.2f" % numpy_us,
                     "%.2f" % overhead])
    return BenchResult(
        "Per-op dispatch overhead (%d scalar adds, best of %d)" % (num_ops, repeats),
        ["chain", "nodes run", "minitf µs/add", "NumPy µs/add", "overhead µs/node"], rows,
        "≤ %.1f µs of overhead per op" % TARGET_US,
        all(overhead <= TARGET_US for overhead in overheads),
        ["Target checked on the session rows (overhead per node run)."])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000, help="length of the add chain")
    parser.add_argument("--repeats", type=int, default=50, help="take the best of this many")
    args = parser.parse_args()
    report(run(args.ops, args.repeats))


if __name__ == "__main__":
    main()
