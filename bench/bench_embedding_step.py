"""One sparse training step of a 100000 x 64 embedding: minitf against hand-written NumPy.

Each step looks up 512 ids in a float32 table of 100000 rows of 64
(`tf.nn.embedding_lookup`), takes the loss
`tf.reduce_sum(tf.square(rows) * weights)` for a fixed vector `weights` of
64, and applies one step of `tf.train.AdagradOptimizer(0.1)`. The gradient
reaches the optimizer as IndexedSlices, so only the looked-up rows of the
table and of its accumulator change: the step costs in proportion to 512
rows, not to the 100000 of the table.

The ids repeat, as real ones do: half are drawn from 32 popular rows, half
from the whole table. Hand-written NumPy does the same step: gather the
rows, their gradient `2 * rows * weights`, sum the gradients of repeated ids,
then Adagrad on the touched rows only (`accum += g * g; var -= lr * g /
sqrt(accum)`). The target compares with the faster of two ways of summing
repeats: sorting the ids and adding runs with `np.add.reduceat`; the
textbook scatter-add `np.add.at` is shown beside it, being several times
slower on 2-D rows. Both start from the same table, and the benchmark checks
that one step of each leaves the same table.

The arrays are small (512 x 64), so the step takes microseconds and minitf's
cost is mostly the executor's, per node of the graph (forward, gradient and
update ops).

Target: a minitf step takes at most 1.25x NumPy's time.
"""

import _training  # before NumPy: pins the BLAS thread count

import argparse
import contextlib
import functools

import numpy as np

from _common import BenchResult, report

import minitf as tf

TARGET_RATIO = 1.25
VOCABULARY, DIMENSION, IDS_PER_STEP = 100000, 64, 512
LEARNING_RATE, INITIAL_ACCUMULATOR = 0.1, 0.1


def initial_values(seed=0):
    """The table, the loss weights, and the ids of one step (half of them popular ones)."""
    rng = np.random.default_rng(seed)
    table = (rng.standard_normal((VOCABULARY, DIMENSION)) * 0.1).astype(np.float32)
    weights = rng.uniform(0.5, 1.5, DIMENSION).astype(np.float32)
    popular = rng.integers(0, VOCABULARY, 32)
    ids = np.concatenate([rng.choice(popular, IDS_PER_STEP // 2),
                          rng.integers(0, VOCABULARY, IDS_PER_STEP - IDS_PER_STEP // 2)])
    return table, weights, rng.permutation(ids).astype(np.int64)


def build_model(table, weights, num_ids=IDS_PER_STEP):
    graph = tf.Graph()
    with graph.as_default():
        ids = tf.placeholder(tf.int64, [num_ids], name="ids")
        embeddings = tf.Variable(table, name="embeddings")
        rows = tf.nn.embedding_lookup(embeddings, ids)
        loss = tf.reduce_sum(tf.square(rows) * weights)
        optimizer = tf.train.AdagradOptimizer(LEARNING_RATE,
                                              initial_accumulator_value=INITIAL_ACCUMULATOR)
        train_op = optimizer.minimize(loss)
        init = tf.global_variables_initializer()
    return graph, ids, embeddings, train_op, init


def sum_repeats_sorted(ids, row_grads):
    """(distinct ids, summed gradient rows): sort the ids, add each run of equal ones."""
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_ids[1:] != sorted_ids[:-1])))
    return sorted_ids[starts], np.add.reduceat(row_grads[order], starts, axis=0)


def sum_repeats_runs_only(ids, row_grads):
    """Sorting too, but only the runs of repeated ids go through `np.add.reduceat`.

    `reduceat` costs about half a microsecond per run, so the rows of ids
    that occur once are copied instead. minitf's UnsortedSegmentSum kernel
    sums this way; this row shows what the same trick gives by hand.
    """
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_ids[1:] != sorted_ids[:-1])))
    lengths = np.diff(starts, append=len(ids))
    grads = np.empty((len(starts), row_grads.shape[1]), row_grads.dtype)
    single = lengths == 1
    grads[single] = row_grads[order[starts[single]]]
    repeated = np.repeat(~single, lengths)
    repeated_ids = sorted_ids[repeated]
    run_starts = np.flatnonzero(np.concatenate(([True], repeated_ids[1:] != repeated_ids[:-1])))
    grads[~single] = np.add.reduceat(row_grads[order[repeated]], run_starts, axis=0)
    return sorted_ids[starts], grads


def sum_repeats_add_at(ids, row_grads):
    """The same with np.unique and the scatter-add np.add.at (NumPy's textbook way)."""
    touched, position = np.unique(ids, return_inverse=True)
    grads = np.zeros((len(touched), row_grads.shape[1]), row_grads.dtype)
    np.add.at(grads, position, row_grads)
    return touched, grads


class NumpyEmbedding:
    """The same table and Adagrad accumulator, trained by hand."""

    def __init__(self, table, weights, sum_repeats=sum_repeats_sorted):
        self.table = table.copy()
        self.accumulator = np.full_like(table, INITIAL_ACCUMULATOR)
        self.weights = weights
        self.sum_repeats = sum_repeats

    def step(self, ids):
        rows = self.table[ids]
        row_grads = 2.0 * rows * self.weights
        # Repeated ids: one gradient row per distinct id, the sum of its repeats.
        touched, grads = self.sum_repeats(ids, row_grads)
        accumulator = self.accumulator[touched] + grads * grads
        self.accumulator[touched] = accumulator
        self.table[touched] -= LEARNING_RATE * grads / np.sqrt(accumulator)


def check_same_step(table, weights, ids):
    graph, ids_placeholder, embeddings, train_op, init = build_model(table, weights)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        sess.run(train_op, {ids_placeholder: ids})
        after_minitf = sess.run(embeddings)
    for sum_repeats in (sum_repeats_sorted, sum_repeats_runs_only, sum_repeats_add_at):
        by_hand = NumpyEmbedding(table, weights, sum_repeats)
        by_hand.step(ids)
        np.testing.assert_allclose(after_minitf, by_hand.table, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(after_minitf, table)  # the step did change the table


MINITF = "minitf: `sess.run(train_op, feed)`"
NUMPY_SORTED = "hand-written NumPy (sort + `np.add.reduceat`)"


def run(rounds=20, steps_per_round=50):
    table, weights, ids = initial_values()
    check_same_step(table, weights, ids)
    sorted_by_hand = NumpyEmbedding(table, weights, sum_repeats_sorted)
    runs_only_by_hand = NumpyEmbedding(table, weights, sum_repeats_runs_only)
    add_at_by_hand = NumpyEmbedding(table, weights, sum_repeats_add_at)
    tiny_table, tiny_weights, tiny_ids = table[:16, :1], weights[:1], ids[:4] % 16
    with contextlib.ExitStack() as stack:
        steps = {}
        for label, model_args, step_ids in [
                (MINITF, (table, weights), ids),
                ("minitf, the same graph on a 16 x 1 table and 4 ids (its fixed cost)",
                 (tiny_table, tiny_weights, len(tiny_ids)), tiny_ids)]:
            graph, ids_placeholder, _, train_op, init = build_model(*model_args)
            sess = stack.enter_context(tf.Session(graph=graph))
            sess.run(init)
            sess.run(train_op, {ids_placeholder: step_ids})  # warm-up: builds the executor
            steps[label] = functools.partial(sess.run, train_op, {ids_placeholder: step_ids})
        steps[NUMPY_SORTED] = lambda: sorted_by_hand.step(ids)
        steps["hand-written NumPy (sort, `np.add.reduceat` on repeated ids only)"] = (
            lambda: runs_only_by_hand.step(ids))
        steps["hand-written NumPy (`np.unique` + `np.add.at`)"] = lambda: add_at_by_hand.step(ids)
        times = _training.per_step_seconds(steps, rounds, steps_per_round)
    np_best = times[NUMPY_SORTED][0]
    ratio = times[MINITF][0] / np_best
    rows = [[label, "%.0f" % (best * 1e6), "%.0f" % (median * 1e6), "%.2f" % (best / np_best)]
            for label, (best, median) in times.items()]
    return BenchResult(
        "One Adagrad step of a %d x %d embedding, %d ids (best of %d rounds of %d steps)"
        % (VOCABULARY, DIMENSION, IDS_PER_STEP, rounds, steps_per_round),
        ["step", "best µs", "median µs", "/ NumPy sort + reduceat (best)"], rows,
        "≤ %.2fx NumPy's time" % TARGET_RATIO, ratio <= TARGET_RATIO,
        ["Target checked on the best times of the first row against the sort + reduceat row. "
         "%d distinct ids among the %d of a step. %s."
         % (len(np.unique(ids)), IDS_PER_STEP, _training.blas_note())])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="take the best of this many")
    parser.add_argument("--steps", type=int, default=50, help="steps timed per round and side")
    args = parser.parse_args()
    report(run(args.rounds, args.steps))


if __name__ == "__main__":
    main()
