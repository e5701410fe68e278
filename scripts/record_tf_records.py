"""Records TFRecord files, serialized Examples and parse results as TensorFlow makes them.

    /path/to/tf-venv/bin/python scripts/record_tf_records.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded files were made
with 2.21) and is run by hand; the tests read what it wrote, under
`tests/data/data/`, and never need TensorFlow:

- `plain.tfrecord` and `gzip.tfrecord`: the records of RECORDS, written by
  `tf.io.TFRecordWriter` without compression and with GZIP;
- `examples.json`: for each case of EXAMPLES, the Example's serialized bytes
  (hex) and what `tf.io.parse_example` gives for a batch of them;
- `tf_dataset_graph.pb`: the GraphDef of a tf.data pipeline with a map and
  a filter function and a one-shot iterator (its functions in the
  GraphDef's library), whose `IteratorGetNext:0` gives [0, 6], then [12];
  its default-valued attrs are stripped, as for an older reader (TensorFlow
  2's dataset ops carry attrs, such as `metadata`, that TF 1.15 and minitf
  do not know).
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.framework import meta_graph

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "data"

RECORDS = [b"", b"a", b"hello world", bytes(range(256)), b"x" * 1000]


def _feature(value):
    if isinstance(value[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
    if isinstance(value[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=value))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=value))


EXAMPLES = [
    {"price": [1.5], "ids": [3, 7], "name": [b"apple"]},
    {"price": [2.25], "ids": [], "name": [b"pear", b"fig"]},
    {"price": [-0.5], "ids": [9], "name": []},
]


def write_records():
    for name, options in (("plain", None), ("gzip", tf.io.TFRecordOptions("GZIP"))):
        with tf.io.TFRecordWriter(str(OUT / ("%s.tfrecord" % name)), options) as writer:
            for record in RECORDS:
                writer.write(record)


def serialized_examples():
    result = []
    for features in EXAMPLES:
        example = tf.train.Example(features=tf.train.Features(feature={
            k: _feature(v) if v else tf.train.Feature() for k, v in features.items()}))
        result.append(example.SerializeToString())
    return result


def parse(serialized):
    graph = tf.Graph()
    with graph.as_default():
        parsed = tf.io.parse_example(serialized, {
            "price": tf.io.FixedLenFeature([1], tf.float32),
            "ids": tf.io.VarLenFeature(tf.int64),
            "name": tf.io.VarLenFeature(tf.string),
            "missing": tf.io.FixedLenFeature([2], tf.int64, default_value=[5, 6]),
        })
        with tf.Session() as sess:
            values = sess.run(parsed)
    out = {}
    for key, value in values.items():
        if isinstance(value, tf.SparseTensorValue):
            out[key] = {"indices": value.indices.tolist(),
                        "values": [v.decode() if isinstance(v, bytes) else v.item()
                                   for v in value.values],
                        "dense_shape": value.dense_shape.tolist()}
        else:
            out[key] = np.asarray(value).tolist()
    return out


def write_dataset_graph():
    graph = tf.Graph()
    with graph.as_default():
        dataset = tf.data.Dataset.range(6).map(lambda x: x * 3).filter(
            lambda x: tf.equal(x % 2, 0)).batch(2)
        tf.data.make_one_shot_iterator(dataset).get_next()
    meta = tf.MetaGraphDef()
    meta.graph_def.CopyFrom(graph.as_graph_def())
    meta_graph.strip_graph_default_valued_attrs(meta)
    (OUT / "tf_dataset_graph.pb").write_bytes(
        meta.graph_def.SerializeToString(deterministic=True))


def main():
    tf.disable_eager_execution()
    OUT.mkdir(parents=True, exist_ok=True)
    write_records()
    write_dataset_graph()
    serialized = serialized_examples()
    data = {"examples": [s.hex() for s in serialized], "parsed": parse(serialized)}
    (OUT / "examples.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
