"""Records the elements TensorFlow's tf.data gives for a set of deterministic pipelines.

    /path/to/tf-venv/bin/python scripts/record_tf_datasets.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/data/data/datasets.json`, and never need TensorFlow. Each case is
the source of an expression building a dataset from `tf` and `np`; the
test evaluates the same source with minitf as `tf` and compares every
element (as `describe` writes it: dtype and nested lists).
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "data" / "datasets.json"

PIPELINES = [
    "tf.data.Dataset.from_tensor_slices((np.arange(10), np.arange(10) * 1.5))"
    ".map(lambda x, y: (x * 2, y)).batch(4)",
    "tf.data.Dataset.range(5).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None])",
    "tf.data.Dataset.range(4).map(lambda x: (tf.fill([x, 2], 1.5), x))"
    ".padded_batch(3, padded_shapes=([3, None], []), padding_values=(-1.0, np.int64(7)))",
    "tf.data.Dataset.range(3).interleave("
    "lambda x: tf.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2)",
    "tf.data.Dataset.range(7).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=3)",
    "tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20)))"
    ".concatenate(tf.data.Dataset.zip((tf.data.Dataset.range(100, 101), "
    "tf.data.Dataset.range(7, 8))))",
    "tf.data.Dataset.range(10).filter(lambda x: tf.equal(x % 3, 0))",
    "tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))",
    "tf.data.Dataset.from_tensor_slices({'a': np.arange(4), 'b': np.array([b'w', b'x', b'y', "
    "b'z'])}).skip(1).take(2).repeat(2)",
    "tf.data.Dataset.range(5).batch(3, drop_remainder=True)",
    "tf.data.Dataset.range(5).batch(2).unbatch()",
    "tf.data.Dataset.range(0, 10, 3)",
    "tf.data.Dataset.range(10, 0, -4)",
    "tf.data.Dataset.from_tensors([1, 2]).repeat(3).batch(2)",
    "tf.data.Dataset.range(6).batch(4).map(lambda x: tf.reduce_sum(x))",
    "tf.data.Dataset.range(3).repeat(2).take(-1).skip(-1).concatenate(tf.data.Dataset.range(2))",
    "tf.data.Dataset.range(5).cache().repeat(2).prefetch(3)",
    "tf.data.Dataset.range(8).map(lambda x: x * x, num_parallel_calls=3)",
    "tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).map(lambda r: (r[0], r[1]))"
    ".map(lambda a, b: {'sum': a + b, 'pair': (a, b)})",
    "tf.data.Dataset.from_generator(lambda: iter([(1, [1.0]), (2, [2.0, 3.0])]), "
    "(tf.int64, tf.float32), (tf.TensorShape([]), tf.TensorShape([None])))",
    "tf.data.Dataset.from_tensors(np.int64(5)).repeat(0)",
]


def describe(value):
    """A value as JSON: a structure of [dtype, nested list] leaves (bytes as text)."""
    if isinstance(value, dict):
        return {k: describe(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [describe(v) for v in value]
    array = np.asarray(value)
    if array.dtype.kind in "OS":
        return ["string", np.vectorize(lambda b: bytes(b).decode("latin-1"), otypes=[object])(
            array).tolist() if array.size else array.tolist()]
    return [array.dtype.name, array.tolist()]


def elements(code):
    graph = tf.Graph()
    with graph.as_default():
        dataset = eval(code, {"tf": tf, "np": np})  # noqa: S307 - our own source lines
        next_element = tf.data.make_one_shot_iterator(dataset).get_next()
        out = []
        with tf.Session() as sess:
            try:
                while True:
                    out.append(describe(sess.run(next_element)))
            except tf.errors.OutOfRangeError:
                pass
    return out


def main():
    tf.disable_eager_execution()
    cases = [{"code": code, "elements": elements(code)} for code in PIPELINES]
    OUT.write_text(json.dumps(cases, indent=None) + "\n")


if __name__ == "__main__":
    main()
