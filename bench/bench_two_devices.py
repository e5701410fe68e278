"""One graph, two devices: two independent matmul chains on /cpu:0 and /cpu:1 at once.

Each branch is a chain of 4 float32 products of 1024x1024 matrices,
`y = x @ w1 @ w2 @ w3 @ w4`; the two branches share nothing, so they can run
at the same time. BLAS is pinned to one thread (`OPENBLAS_NUM_THREADS=1` and
`OMP_NUM_THREADS=1`, set by `_training.py` before NumPy is imported), so a
product uses one core, and the only way to use two cores is to run two
products at once: NumPy releases Python's global lock inside a product.

Rows:

* **one device, `inter_op_parallelism_threads=1`**: both branches on CPU:0,
  one thread runs everything: the baseline;
* **two devices**: branch 0 on `/cpu:0`, branch 1 on `/cpu:1`, in a session
  with `ConfigProto(device_count={"CPU": 2})` and its default thread pool
  (one inter-op thread per core). The session places the graph, gives each
  device a partition and an executor, and runs the two executors of a step
  together; the speed-up over the baseline is the headline;
* **one device, default threads**: both branches on CPU:0 with the default
  pool, for comparison: an executor runs independent expensive nodes on the
  pool by itself, devices or not;
* **NumPy**, the two chains one after the other, and on a
  `concurrent.futures.ThreadPoolExecutor(2)`: what two Python threads can
  get out of two cores for this work, the reference for the speed-up.

Before timing, every run's result is checked against NumPy's. Then the
variants are timed in turns, round after round (so that all meet the same
background load), and the best round of each counts. A last traced run of
the two-device session says how much of the step the two branches really
overlapped, and on how many threads the products ran.

Target: on 2 cores, two devices run the step at least 1.8x faster than one
device with one inter-op thread.
"""

import _training  # noqa: I001 - before NumPy: pins BLAS to one thread

import argparse
import concurrent.futures
import contextlib
import functools
import os

import numpy as np

from _common import BenchResult, report

import minitf as tf
from minitf import visualize

TARGET_SPEEDUP = 1.8
SIZE = 1024
CHAIN_LENGTH = 4
BASELINE = "one device, inter_op_parallelism_threads=1"
TWO_DEVICES = "two devices (/cpu:0 and /cpu:1), default threads"
ONE_DEVICE_POOL = "one device, default threads"
NUMPY_SERIAL = "NumPy, the two chains one after the other"
NUMPY_POOL = "NumPy, ThreadPoolExecutor(2)"


def branch_values(size=SIZE, length=CHAIN_LENGTH, seed=0):
    """[(x, [w1, ..., wn])] for the two branches; weights scaled so values stay near 1."""
    rng = np.random.default_rng(seed)
    branches = []
    for _ in range(2):
        x = rng.standard_normal((size, size)).astype(np.float32)
        weights = [(rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32)
                   for _ in range(length)]
        branches.append((x, weights))
    return branches


def build_graph(branches, devices):
    """A graph with one matmul chain per branch, branch i under `tf.device(devices[i])`.

    Returns the graph, the feeds (each branch's `x` is a placeholder: a chain
    of constants alone would be computed once, by constant folding, and not
    in the step) and the two outputs.
    """
    graph = tf.Graph()
    feeds, outputs = {}, []
    with graph.as_default():
        for i, ((x, weights), device) in enumerate(zip(branches, devices)):
            with tf.device(device), tf.name_scope("branch%d" % i):
                y = tf.placeholder(tf.float32, x.shape, name="x")
                feeds[y] = x
                for j, w in enumerate(weights):
                    y = tf.matmul(y, tf.constant(w, name="w%d" % j))
            outputs.append(y)
    return graph, feeds, outputs


def numpy_chain(branch):
    x, weights = branch
    for w in weights:
        x = x @ w
    return x


MINITF_RUNS = [  # (label, devices of the two branches, ConfigProto arguments)
    (BASELINE, ("/cpu:0", "/cpu:0"), {"inter_op_parallelism_threads": 1}),
    (TWO_DEVICES, ("/cpu:0", "/cpu:1"), {"device_count": {"CPU": 2}}),
    (ONE_DEVICE_POOL, ("/cpu:0", "/cpu:0"), {}),
]


def overlap_of_branches(sess, feeds, outputs):
    """(share of the step when both branches' products ran at once, threads that ran them)."""
    run_metadata = tf.RunMetadata()
    sess.run(outputs, feeds, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
             run_metadata=run_metadata)
    rows = [r for r in visualize.schedule(run_metadata.step_stats) if r.op == "MatMul"]
    intervals = {0: [], 1: []}
    for row in rows:
        intervals[0 if row.node.startswith("branch0/") else 1].append((row.start_us, row.end_us))
    both = sum(max(0, min(e0, e1) - max(s0, s1))
               for s0, e0 in intervals[0] for s1, e1 in intervals[1])
    span = max(r.end_us for r in rows) - min(r.start_us for r in rows)
    return both / span, len({r.thread for r in rows})


def run(rounds=10, steps_per_round=1, size=SIZE, length=CHAIN_LENGTH):
    branches = branch_values(size, length)
    expected = [numpy_chain(b) for b in branches]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    with contextlib.ExitStack() as stack:
        stack.callback(pool.shutdown)
        steps, sessions = {}, {}
        for label, devices, config in MINITF_RUNS:
            graph, feeds, outputs = build_graph(branches, devices)
            sess = stack.enter_context(tf.Session(graph=graph,
                                                  config=tf.ConfigProto(**config)))
            for got, want in zip(sess.run(outputs, feeds), expected):  # builds the executors
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
            sess.run(outputs, feeds)  # a second step: now each executor knows its long kernels
            steps[label] = functools.partial(sess.run, outputs, feeds)
            sessions[label] = (sess, feeds, outputs)
        steps[NUMPY_SERIAL] = lambda: [numpy_chain(b) for b in branches]
        steps[NUMPY_POOL] = lambda: list(pool.map(numpy_chain, branches))
        times = _training.per_step_seconds(steps, rounds, steps_per_round)
        overlap, threads = overlap_of_branches(*sessions[TWO_DEVICES])

    def speedup(label, baseline):
        return times[baseline][0] / times[label][0]

    rows = []
    for label, (best, median) in times.items():
        baseline = NUMPY_SERIAL if label.startswith("NumPy") else BASELINE
        rows.append([label, "%.1f" % (best * 1e3), "%.1f" % (median * 1e3),
                     "%.2fx" % speedup(label, baseline)])
    headline = speedup(TWO_DEVICES, BASELINE)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    notes = [
        "Speed-up: the baseline's best time over the row's best time; the baseline is the "
        "first row for minitf and the serial NumPy row for NumPy. %d cores available."
        % cores,
        "In a traced two-device step the %d MatMuls ran on %d thread(s), and both branches "
        "were computing at once for %.0f%% of the step." % (2 * length, threads, 100 * overlap),
        _training.blas_note() + ".",
    ]
    return BenchResult(
        "Two devices: two chains of %d matmuls of %dx%d float32 on /cpu:0 and /cpu:1 "
        "(best of %d rounds)" % (length, size, size, rounds),
        ["run", "best ms", "median ms", "speed-up"], rows,
        "two devices ≥ %.1fx faster than one device with one thread (2 cores)"
        % TARGET_SPEEDUP, headline >= TARGET_SPEEDUP, notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="take the best of this many")
    parser.add_argument("--steps", type=int, default=1, help="steps timed per round and run")
    parser.add_argument("--size", type=int, default=SIZE, help="matrices are size x size")
    parser.add_argument("--length", type=int, default=CHAIN_LENGTH, help="matmuls per branch")
    args = parser.parse_args()
    report(run(args.rounds, args.steps, args.size, args.length))


if __name__ == "__main__":
    main()
