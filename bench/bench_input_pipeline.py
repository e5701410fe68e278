"""Input pipelines: tf.data's rate through `get_next`, and reading + parsing Examples.

Two pipelines, each drained through `sess.run(iterator.get_next())`:

* `from_tensor_slices(np.arange(1_000_000, dtype=np.int64)).map(lambda x: x * 2).batch(256)`:
  milliseconds per batch (every batch of one pass, best of several passes);
* a TFRecord file of 100 000 small Examples (a float feature of 4 values, an
  int64 label, a string tag), read with `TFRecordDataset(path).batch(256)`
  and parsed with `map(lambda s: tf.io.parse_example(s, spec))`: examples
  per second.

The same script runs TensorFlow's tf.data (`--framework tensorflow`, run
with a Python that has TensorFlow; never a dependency of minitf): the file
is written by the framework that reads it, and both files are
byte-identical anyway. Targets: the first pipeline at least as fast as
TensorFlow's, the second at least half TensorFlow's rate.
"""

import argparse
import os
import tempfile
import time

import numpy as np

from _common import BenchResult, report

# TensorFlow 2.21 (compat.v1) on this machine, from `--framework tensorflow` (docs/performance.md).
TENSORFLOW_MS_PER_BATCH = 6.7
TENSORFLOW_EXAMPLES_PER_S = 400_000


def load(framework):
    if framework == "tensorflow":
        import tensorflow.compat.v1 as tf  # noqa: PLC0415 - only when asked for
        tf.disable_eager_execution()
        return tf
    import minitf as tf  # noqa: PLC0415 - the framework under test
    return tf


def drain(tf, dataset):
    """Seconds to read every element once, and how many elements (batches) there were."""
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    count = 0
    with tf.Session() as sess:
        sess.run(next_element)  # warm-up: builds the executors, starts the iterator
        count += 1
        start = time.perf_counter()
        try:
            while True:
                sess.run(next_element)
                count += 1
        except tf.errors.OutOfRangeError:
            pass
        return time.perf_counter() - start, count - 1


def map_batch_ms(tf, rows, repeats):
    best = float("inf")
    for _ in range(repeats):
        graph = tf.Graph()
        with graph.as_default():
            dataset = tf.data.Dataset.from_tensor_slices(
                np.arange(rows, dtype=np.int64)).map(lambda x: x * 2).batch(256)
            seconds, batches = drain(tf, dataset)
        best = min(best, seconds / batches * 1e3)
    return best


def write_examples(tf, path, count):
    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(count):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(
                    value=rng.normal(size=4).tolist())),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                "tag": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"tag%d" % (i % 7)])),
            }))
            writer.write(example.SerializeToString())


def parse_rate(tf, path, repeats):
    spec = {"x": tf.io.FixedLenFeature([4], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64),
            "tag": tf.io.VarLenFeature(tf.string)}
    best = float("inf")
    for _ in range(repeats):
        graph = tf.Graph()
        with graph.as_default():
            dataset = tf.data.TFRecordDataset(path).batch(256).map(
                lambda s: tf.io.parse_example(s, spec))
            seconds, batches = drain(tf, dataset)
        best = min(best, seconds / batches)
    return 256 / best


def run(framework="minitf", rows=1_000_000, examples=100_000, repeats=3):
    tf = load(framework)
    ms = map_batch_ms(tf, rows, repeats)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "examples.tfrecord")
        write_examples(tf, path, examples)
        rate = parse_rate(tf, path, repeats)
    rows_out = [["`from_tensor_slices(%d int64).map(x*2).batch(256)`" % rows,
                 "%.2f ms per batch" % ms],
                ["TFRecord of %d small Examples, `batch(256).map(parse_example)`" % examples,
                 "%.0f examples/s" % rate]]
    met = ms <= TENSORFLOW_MS_PER_BATCH and rate >= TENSORFLOW_EXAMPLES_PER_S / 2
    return BenchResult("Input pipelines (%s; best of %d passes)" % (framework, repeats),
                       ["pipeline", framework], rows_out,
                       "map+batch at least TensorFlow's rate (%.1f ms per batch here); parsing "
                       "at least half of TensorFlow's %d examples/s" % (
                           TENSORFLOW_MS_PER_BATCH, TENSORFLOW_EXAMPLES_PER_S), met,
                       ["TensorFlow's figures: run this script with `--framework tensorflow` "
                        "by a Python that has TensorFlow."])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--framework", choices=["minitf", "tensorflow"], default="minitf")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    report(run(args.framework, args.rows, args.examples, args.repeats))


if __name__ == "__main__":
    main()
