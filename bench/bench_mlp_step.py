"""One training step of a 784-512-512-10 ReLU MLP: minitf against hand-written NumPy.

A batch of 256 examples goes forward through two ReLU layers of 512 units
and a 10-way linear layer; the loss is
`tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(...))`, and one
step of `tf.train.GradientDescentOptimizer(0.01).minimize(loss)` updates
the six variables in place. The batch is fed through placeholders.

Hand-written NumPy does the same step: forward pass, the backward pass
written out (softmax minus labels, matrix products, ReLU masks), and the
update `w -= learning_rate * grad`. Both start from the same weights, and
the benchmark checks that one step of each leaves the same weights behind.

The step is dominated by its large matrix products (about 1 GFLOP), so
minitf should cost little more than NumPy: the executor's per-node overhead
and any copies it makes. One product more, though: `minimize` gates
gradients per op by default (GATE_OP), grouping both gradients of the first
MatMul, so the gradient with respect to the images (a 256x512 by 512x784
product nobody uses) is computed too. TensorFlow builds the same gate; its
graph optimizer, Grappler, then prunes the product. A second minitf
row uses `gate_gradients=GATE_NONE`, where that product is pruned, and a
third also runs the executor on one thread (by default it has one thread
per core, so two independent products can run at once, BLAS releasing the
GIL). BLAS runs at the same thread count for both (see `_training.py`).

Target: a minitf step takes at most 0.95x NumPy's time (at one BLAS thread, and at
most 1.0x at two: `OPENBLAS_NUM_THREADS=2`).
"""

import _training  # before NumPy: pins the BLAS thread count

import argparse
import contextlib
import functools

import numpy as np

from _common import BenchResult, report

import minitf as tf

TARGET_RATIO = 0.95 if _training.blas_threads() == 1 else 1.0
LAYER_SIZES = [784, 512, 512, 10]
BATCH = 256
LEARNING_RATE = 0.01


def initial_values(seed=0):
    """Weights (He-normal) and biases of each layer, and one batch with one-hot labels."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in))
                      .astype(np.float32))
        params.append(np.full(fan_out, 0.01, np.float32))
    images = rng.standard_normal((BATCH, LAYER_SIZES[0])).astype(np.float32)
    labels = np.eye(LAYER_SIZES[-1], dtype=np.float32)[rng.integers(0, LAYER_SIZES[-1], BATCH)]
    return params, images, labels


def build_model(params, gate_gradients=tf.train.Optimizer.GATE_OP):
    """The MLP, its loss and its training op, in a graph of its own."""
    graph = tf.Graph()
    with graph.as_default():
        images = tf.placeholder(tf.float32, [BATCH, LAYER_SIZES[0]], name="images")
        labels = tf.placeholder(tf.float32, [BATCH, LAYER_SIZES[-1]], name="labels")
        variables = [tf.Variable(value, name="w%d" % (i // 2) if i % 2 == 0 else "b%d" % (i // 2))
                     for i, value in enumerate(params)]
        activations = images
        for layer in range(len(LAYER_SIZES) - 1):
            weights, biases = variables[2 * layer], variables[2 * layer + 1]
            activations = tf.matmul(activations, weights) + biases
            if layer < len(LAYER_SIZES) - 2:
                activations = tf.nn.relu(activations)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=activations))
        train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
            loss, gate_gradients=gate_gradients)
        init = tf.global_variables_initializer()
    return graph, images, labels, variables, train_op, init


def numpy_step(params, images, labels, learning_rate=LEARNING_RATE):
    """One step of the same MLP by hand: forward, backward, update (in place)."""
    w1, b1, w2, b2, w3, b3 = params
    hidden1 = np.maximum(images @ w1 + b1, 0)
    hidden2 = np.maximum(hidden1 @ w2 + b2, 0)
    logits = hidden2 @ w3 + b3
    # d mean(softmax cross-entropy) / d logits = (softmax(logits) - labels) / batch
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    d_logits = (exp / exp.sum(axis=1, keepdims=True) - labels) / len(images)
    d_hidden2 = (d_logits @ w3.T) * (hidden2 > 0)
    d_hidden1 = (d_hidden2 @ w2.T) * (hidden1 > 0)
    grads = [images.T @ d_hidden1, d_hidden1.sum(axis=0), hidden1.T @ d_hidden2,
             d_hidden2.sum(axis=0), hidden2.T @ d_logits, d_logits.sum(axis=0)]
    for param, grad in zip(params, grads):
        param -= learning_rate * grad


def check_same_step(initial, images, labels):
    """One step of each from the same weights must leave the same weights."""
    graph, x, y, variables, train_op, init = build_model(initial)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        sess.run(train_op, {x: images, y: labels})
        after_minitf = sess.run(variables)
    after_numpy = [p.copy() for p in initial]
    numpy_step(after_numpy, images, labels)
    for got, expected in zip(after_minitf, after_numpy):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


# (row label, gate_gradients, inter-op threads: 0 = one per core, the default)
MINITF_RUNS = [("minitf: `minimize(loss)`", tf.train.Optimizer.GATE_OP, 0),
               ("minitf: `minimize(loss, gate_gradients=GATE_NONE)`",
                tf.train.Optimizer.GATE_NONE, 0),
               ("minitf: GATE_NONE, inter_op_parallelism_threads=1",
                tf.train.Optimizer.GATE_NONE, 1)]


def run(rounds=15, steps_per_round=3):
    initial, images, labels = initial_values()
    check_same_step(initial, images, labels)
    numpy_params = [p.copy() for p in initial]
    with contextlib.ExitStack() as stack:
        steps = {}
        for label, gate, threads in MINITF_RUNS:
            graph, x, y, _, train_op, init = build_model(initial, gate)
            config = tf.ConfigProto(inter_op_parallelism_threads=threads)
            sess = stack.enter_context(tf.Session(graph=graph, config=config))
            sess.run(init)
            sess.run(train_op, {x: images, y: labels})  # warm-up: builds and caches the executor
            steps[label] = functools.partial(sess.run, train_op, {x: images, y: labels})
        steps["hand-written NumPy"] = lambda: numpy_step(numpy_params, images, labels)
        times = _training.per_step_seconds(steps, rounds, steps_per_round)
    np_best = times["hand-written NumPy"][0]
    ratio = times[MINITF_RUNS[0][0]][0] / np_best
    rows = [[label, "%.2f" % (best * 1e3), "%.2f" % (median * 1e3), "%.3f" % (best / np_best)]
            for label, (best, median) in times.items()]
    return BenchResult(
        "One training step of a 784-512-512-10 MLP, batch %d (best of %d rounds of %d steps)"
        % (BATCH, rounds, steps_per_round),
        ["step", "best ms", "median ms", "/ NumPy (best)"], rows,
        "≤ %.2fx NumPy's time" % TARGET_RATIO, ratio <= TARGET_RATIO,
        ["Target checked on the best time of the first row (`minimize`'s defaults). "
         + _training.blas_note() + "."])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="take the best of this many")
    parser.add_argument("--steps", type=int, default=3, help="steps timed per round and side")
    args = parser.parse_args()
    report(run(args.rounds, args.steps))


if __name__ == "__main__":
    main()
