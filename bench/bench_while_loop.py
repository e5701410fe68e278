"""A tf.while_loop of many iterations: what one iteration costs, beside TensorFlow.

The loop updates two scalars, `i, x = i + 1, x * 0.5 + 1.0`, while
`i < n`: twelve nodes per iteration (two Merges, the predicate `Less` and
its `LoopCond`, two Switches, two Identities, the three ops of the body,
two NextIterations), and nothing a kernel spends time on, so the time per
iteration is what the executor spends to run an iteration of a loop:
frames, iterations, dead tensors and the nodes' bookkeeping. Also timed:
the same loop with its gradient, `tf.gradients(x, a)` for `x = x * a +
1.0` (the forward loop, which saves `x` on a stack in each iteration, then
the gradient loop, which pops it), per forward iteration.

Each figure is the best of several runs of `sess.run` (one loop of `n`
iterations each), divided by `n`. With `--tensorflow PYTHON`, the same
programs also run under that interpreter's TensorFlow (`tf.compat.v1`,
graph mode, the v1 control flow of TensorFlow 1.15), in a process of their
own, and the table gives both and their ratio.

Target: at most 5x TensorFlow's time per iteration of the plain loop.
"""

import argparse
import json
import subprocess
import sys
import time

from _common import BenchResult, report

import minitf

TARGET_RATIO = 5.0

CASES = [("loop, default session", "loop", {}),
         ("loop, inter_op_parallelism_threads=1", "loop", {"inter_op_parallelism_threads": 1}),
         ("loop and its gradient loop (per forward iteration)", "gradient", {})]


def measure(tf, iterations, repeats):
    """{case key: best µs per iteration} of the cases, built and run with the module `tf`."""
    results = {}
    for label, kind, config in CASES:
        graph = tf.Graph()
        with graph.as_default():
            if kind == "loop":
                _, fetch = tf.while_loop(lambda i, x: i < iterations,
                                         lambda i, x: (i + 1, x * 0.5 + 1.0),
                                         [tf.constant(0), tf.constant(0.0)])
            else:
                a = tf.constant(0.5)
                _, x = tf.while_loop(lambda i, x: i < iterations,
                                     lambda i, x: (i + 1, x * a + 1.0),
                                     [tf.constant(0), tf.constant(0.0)])
                fetch = tf.gradients(x, a)[0]
        with tf.Session(graph=graph, config=tf.ConfigProto(**config)) as sess:
            sess.run(fetch)  # warm-up: builds the executors
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                sess.run(fetch)
                best = min(best, time.perf_counter() - start)
        results[label] = best / iterations * 1e6
    return results


def _tensorflow_child(iterations, repeats):
    import tensorflow.compat.v1 as tf  # noqa: PLC0415 - only the child has TensorFlow

    tf.disable_eager_execution()
    tf.disable_control_flow_v2()
    print(json.dumps(measure(tf, iterations, repeats)))


def _measure_tensorflow(python, iterations, repeats):
    done = subprocess.run([python, __file__, "--child-tensorflow", "--iterations",
                           str(iterations), "--repeats", str(repeats)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(iterations=10000, repeats=5, tensorflow=None):
    ours = measure(minitf, iterations, repeats)
    theirs = _measure_tensorflow(tensorflow, iterations, repeats) if tensorflow else None
    rows = []
    for label, _, _ in CASES:
        row = [label, "%.1f" % ours[label]]
        if theirs:
            row += ["%.2f" % theirs[label], "%.1fx" % (ours[label] / theirs[label])]
        rows.append(row)
    headers = ["loop of %d iterations" % iterations, "minitf µs/iteration"]
    notes = []
    if theirs:
        headers += ["TensorFlow µs/iteration", "minitf / TensorFlow"]
        plain = CASES[0][0]
        met = ours[plain] <= TARGET_RATIO * theirs[plain]
        notes.append("Target checked on the first row. TensorFlow: %s" % tensorflow)
    else:
        met = False
        notes.append("Run with `--tensorflow PYTHON` to compare (and check the target).")
    return BenchResult("A while_loop of %d iterations (best of %d runs)" % (iterations, repeats),
                       headers, rows, "≤ %.0fx TensorFlow's time per iteration" % TARGET_RATIO,
                       met, notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10000, help="iterations of the loop")
    parser.add_argument("--repeats", type=int, default=5, help="take the best of this many runs")
    parser.add_argument("--tensorflow", metavar="PYTHON",
                        help="an interpreter with TensorFlow installed, to compare")
    parser.add_argument("--child-tensorflow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_tensorflow:
        _tensorflow_child(args.iterations, args.repeats)
        return
    report(run(args.iterations, args.repeats, args.tensorflow))


if __name__ == "__main__":
    sys.exit(main())
