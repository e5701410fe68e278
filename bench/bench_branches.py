"""Four independent branches on one device: what a second inter-op thread buys.

Four branches, each a chain of two float32 products of 1024x1024 matrices
(`y_k = x_k @ w_k @ v_k`), share nothing, on one device. With BLAS pinned
to one thread (`_training.py`), a product uses one core, and the only way
to use two is to run two products at once: NumPy releases Python's global
lock inside a product. The session's executor runs independent expensive
nodes on its inter-op pool when it has measured them long
(`minitf/executor/scheduling.py`), and the thread driving the step takes
back work it handed to the pool that no pool thread has started yet
(`_StepRun.run_handed_off` in `minitf/executor/executor.py`), so that both
threads stay busy until the last branch is done.

Rows: the session with `inter_op_parallelism_threads=1` (the baseline) and
with 2; NumPy, the four chains one after the other and on a
`concurrent.futures.ThreadPoolExecutor(2)` (the reference for what two
Python threads get out of two cores). Every variant's result is checked
against NumPy's, then the variants are timed in turns, round after round,
and the best round of each counts.

Target: on 2 cores, two inter-op threads run the step at least 1.85x faster
than one.
"""

import _training  # noqa: I001 - before NumPy: pins BLAS to one thread

import argparse
import concurrent.futures
import time

import numpy as np

from _common import BenchResult, report

import minitf as tf

TARGET_SPEEDUP = 1.85
BRANCHES = 4


def operands(size, seed=0):
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(size)
    return [[(rng.standard_normal((size, size)) * scale).astype(np.float32) for _ in range(3)]
            for _ in range(BRANCHES)]


def numpy_chain(x, w, v):
    return x @ w @ v


def build(values):
    graph = tf.Graph()
    with graph.as_default():
        outputs = []
        for k, (x, w, v) in enumerate(values):
            x_in = tf.placeholder(tf.float32, x.shape, name="x%d" % k)
            outputs.append((x_in, tf.matmul(tf.matmul(x_in, tf.constant(w)), tf.constant(v))))
    feed = {x_in: branch[0] for (x_in, _), branch in zip(outputs, values)}
    return graph, [y for _, y in outputs], feed


def run(rounds=7, steps=3, size=1024):
    values = operands(size)
    expected = [numpy_chain(*branch) for branch in values]
    graph, fetches, feed = build(values)
    sessions = {threads: tf.Session(graph=graph, config=tf.ConfigProto(
        inter_op_parallelism_threads=threads)) for threads in (1, 2)}
    pool = concurrent.futures.ThreadPoolExecutor(2)
    variants = {
        "minitf, inter_op_parallelism_threads=1": lambda: sessions[1].run(fetches, feed),
        "minitf, inter_op_parallelism_threads=2": lambda: sessions[2].run(fetches, feed),
        "NumPy, one after the other": lambda: [numpy_chain(*b) for b in values],
        "NumPy, ThreadPoolExecutor(2)": lambda: list(pool.map(lambda b: numpy_chain(*b),
                                                              values)),
    }
    for name, variant in variants.items():
        for _ in range(3):  # warm-up: executors built, kernel costs learnt
            got = variant()
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4, err_msg=name)
    seconds = {name: [] for name in variants}
    with _training.pinned_blas():
        for _ in range(rounds):
            for name, variant in variants.items():
                start = time.perf_counter()
                for _ in range(steps):
                    variant()
                seconds[name].append((time.perf_counter() - start) / steps)
    for sess in sessions.values():
        sess.close()
    pool.shutdown()
    best = {name: min(times) for name, times in seconds.items()}
    median = {name: sorted(times)[len(times) // 2] for name, times in seconds.items()}
    names = list(variants)
    minitf_speedup = best[names[0]] / best[names[1]]
    numpy_speedup = best[names[2]] / best[names[3]]
    rows = [[name, "%.1f" % (best[name] * 1e3), "%.1f" % (median[name] * 1e3)]
            for name in names]
    rows.append(["speed-up, minitf (2 threads / 1)", "%.2fx" % minitf_speedup,
                 "%.2fx" % (median[names[0]] / median[names[1]])])
    rows.append(["speed-up, NumPy (pool / sequential)", "%.2fx" % numpy_speedup,
                 "%.2fx" % (median[names[2]] / median[names[3]])])
    return BenchResult(
        "%d independent branches of two %dx%d products (best of %d rounds of %d steps)"
        % (BRANCHES, size, size, rounds, steps),
        ["variant", "best ms/step", "median ms/step"], rows,
        "two inter-op threads ≥ %.2fx faster than one" % TARGET_SPEEDUP,
        minitf_speedup >= TARGET_SPEEDUP, [_training.blas_note()])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of timed steps")
    parser.add_argument("--steps", type=int, default=3, help="steps per round")
    parser.add_argument("--size", type=int, default=1024, help="side of the matrices")
    args = parser.parse_args()
    report(run(args.rounds, args.steps, args.size))


if __name__ == "__main__":
    main()
