"""One SGD step of a small convolutional network, beside TensorFlow.

The network of TensorFlow's "Deep MNIST" tutorial: 28x28x1 images, a 5x5
convolution to 32 channels with a bias and a ReLU, 2x2 max pooling, a 5x5
convolution to 64 channels, bias, ReLU, pooling, a dense layer of 1024
ReLUs and a 10-way linear layer; the loss is the mean of
`softmax_cross_entropy_with_logits_v2`, and one step of
`GradientDescentOptimizer(0.01).minimize` updates the eight variables. A
batch of 128 is fed through placeholders. Written once against a `tf`
module, so that the very same program runs under minitf and, with
`--tensorflow PYTHON`, under that interpreter's TensorFlow (`tf.compat.v1`,
graph mode), in a process of its own.

The step is convolutions and their two gradients (about 5 GFLOP in all),
so what counts is how a CPU convolves: minitf's Conv2D and its gradients are
each one matrix product over im2col patches, its pooling windows are
strided views, and the remapper fuses each convolution with its bias and
ReLU.

Target: at most 1.5x TensorFlow's time per step (BLAS and TensorFlow's
intra-op pool at one thread).
"""

import _training  # before NumPy: pins the BLAS thread count

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from _common import BenchResult, report

import minitf

TARGET_RATIO = 1.5
BATCH = 128


def build(tf, seed=0):
    """The network, its loss and its training op, in a graph of its own."""
    rng = np.random.default_rng(seed)

    def weights(shape):
        fan_in = int(np.prod(shape[:-1]))
        return tf.Variable((rng.standard_normal(shape) * np.sqrt(2.0 / fan_in))
                           .astype(np.float32))

    def biases(size):
        return tf.Variable(np.full(size, 0.1, np.float32))

    graph = tf.Graph()
    with graph.as_default():
        images = tf.placeholder(tf.float32, [BATCH, 28, 28, 1], name="images")
        labels = tf.placeholder(tf.float32, [BATCH, 10], name="labels")
        x = images
        for in_channels, out_channels in [(1, 32), (32, 64)]:
            conv = tf.nn.conv2d(x, weights([5, 5, in_channels, out_channels]), [1, 1, 1, 1],
                                "SAME")
            x = tf.nn.relu(tf.nn.bias_add(conv, biases(out_channels)))
            x = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        x = tf.reshape(x, [BATCH, 7 * 7 * 64])
        x = tf.nn.relu(tf.matmul(x, weights([7 * 7 * 64, 1024])) + biases(1024))
        logits = tf.matmul(x, weights([1024, 10])) + biases(10)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                         logits=logits))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    feed = {images: rng.standard_normal((BATCH, 28, 28, 1)).astype(np.float32),
            labels: np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]}
    return graph, train_op, loss, init, feed


def measure(tf, rounds, steps):
    """(best, median) ms per step over `rounds` rounds of `steps` steps each."""
    graph, train_op, loss, init, feed = build(tf)
    config = tf.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
    with tf.Session(graph=graph, config=config) as sess:
        sess.run(init)
        first_loss = sess.run(loss, feed)
        sess.run(train_op, feed)  # warm-up: builds the executors
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(steps):
                sess.run(train_op, feed)
            times.append((time.perf_counter() - start) / steps * 1e3)
        last_loss = sess.run(loss, feed)
    times.sort()
    return {"best": times[0], "median": times[len(times) // 2], "first_loss": float(first_loss),
            "last_loss": float(last_loss)}


def _tensorflow_child(rounds, steps):
    import tensorflow.compat.v1 as tf  # noqa: PLC0415 - only the child has TensorFlow

    tf.disable_eager_execution()
    print(json.dumps(measure(tf, rounds, steps)))


def _measure_tensorflow(python, rounds, steps):
    done = subprocess.run([python, __file__, "--child-tensorflow", "--rounds", str(rounds),
                           "--steps", str(steps)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(rounds=5, steps=3, tensorflow=None):
    ours = measure(minitf, rounds, steps)
    theirs = _measure_tensorflow(tensorflow, rounds, steps) if tensorflow else None
    rows = [["minitf", "%.1f" % ours["best"], "%.1f" % ours["median"],
             "%.4f → %.4f" % (ours["first_loss"], ours["last_loss"])]]
    notes = [_training.blas_note()]
    met = False
    if theirs:
        rows.append(["TensorFlow", "%.1f" % theirs["best"], "%.1f" % theirs["median"],
                     "%.4f → %.4f" % (theirs["first_loss"], theirs["last_loss"])])
        ratio = ours["best"] / theirs["best"]
        rows.append(["minitf / TensorFlow", "%.2fx" % ratio,
                     "%.2fx" % (ours["median"] / theirs["median"]), ""])
        met = ratio <= TARGET_RATIO
        notes.append("Target checked on the best rounds. TensorFlow: %s" % tensorflow)
    else:
        notes.append("Run with `--tensorflow PYTHON` to compare (and check the target).")
    return BenchResult("A CNN SGD step, batch %d (%d rounds of %d steps)" % (BATCH, rounds, steps),
                       ["", "best ms/step", "median ms/step", "loss before → after"], rows,
                       "≤ %.1fx TensorFlow's time per step" % TARGET_RATIO, met, notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of timed steps")
    parser.add_argument("--steps", type=int, default=3, help="steps per round")
    parser.add_argument("--tensorflow", metavar="PYTHON",
                        help="an interpreter with TensorFlow installed, to compare")
    parser.add_argument("--child-tensorflow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_tensorflow:
        _tensorflow_child(args.rounds, args.steps)
        return
    report(run(args.rounds, args.steps, args.tensorflow))


if __name__ == "__main__":
    sys.exit(main())
