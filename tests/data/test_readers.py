"""Datasets that read files: TFRecords (TensorFlow's own files), lines, fixed-length records."""

import gzip
import pathlib

import numpy as np
import pytest

import minitf as tf

DATA = pathlib.Path(__file__).parent / "data"
RECORDS = [b"", b"a", b"hello world", bytes(range(256)), b"x" * 1000]  # in *.tfrecord


def drain(dataset):
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(next_element))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("name,compression", [("plain", None), ("gzip", "GZIP")])
def test_tf_record_dataset_reads_tensorflows_files(name, compression):
    dataset = tf.data.TFRecordDataset(str(DATA / ("%s.tfrecord" % name)), compression)
    assert dataset.output_types == tf.string and dataset.output_shapes.as_list() == []
    assert drain(dataset) == RECORDS


def write_three_files(tmp_path):
    """Three TFRecord files of three records each, b"<file>-<record>"; their paths."""
    paths = []
    for i in range(3):
        paths.append(str(tmp_path / ("f%d" % i)))
        with tf.io.TFRecordWriter(paths[-1]) as writer:
            for j in range(3):
                writer.write(b"%d-%d" % (i, j))
    return paths


def test_several_files_in_order_and_interleaved(tmp_path):
    paths = write_three_files(tmp_path)
    assert drain(tf.data.TFRecordDataset(paths)) == [b"%d-%d" % (i, j) for i in range(3)
                                                     for j in range(3)]
    interleaved = drain(tf.data.TFRecordDataset(paths, num_parallel_reads=3))
    assert interleaved == [b"%d-%d" % (i, j) for j in range(3) for i in range(3)]


def test_filenames_fed_through_a_placeholder(tmp_path):
    filenames = tf.placeholder(tf.string, [None])
    iterator = tf.data.make_initializable_iterator(tf.data.TFRecordDataset(filenames))
    next_element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {filenames: [str(DATA / "plain.tfrecord")]})
        assert sess.run(next_element) == b""
        assert sess.run(next_element) == b"a"


def test_damaged_file_is_data_loss_after_the_good_records(tmp_path):
    data = bytearray((DATA / "plain.tfrecord").read_bytes())
    data[60 + 12 + 5] ^= 1  # inside record 3, which starts at offset 60
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(data))
    next_element = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(str(path))).get_next()
    with tf.Session() as sess:
        assert [sess.run(next_element) for _ in range(3)] == RECORDS[:3]
        with pytest.raises(tf.errors.DataLossError, match="corrupted record at 60 in .*bad"):
            sess.run(next_element)


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        drain(tf.data.TFRecordDataset(str(tmp_path / "nope")))


def test_records_parsed_in_a_map(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(5):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, 2 * i])),
                "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t"] * i))}))
            writer.write(example.SerializeToString())
    spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "tags": tf.io.VarLenFeature(tf.string)}
    batches = drain(tf.data.TFRecordDataset(path).batch(2).map(
        lambda s: tf.io.parse_example(s, spec)))
    np.testing.assert_array_equal(batches[1]["x"], [[2, 4], [3, 6]])
    np.testing.assert_array_equal(batches[1]["tags"].dense_shape, [2, 3])
    singles = drain(tf.data.TFRecordDataset(path).map(
        lambda s: tf.io.parse_single_example(s, spec)).batch(5))
    np.testing.assert_array_equal(singles[0]["x"][:, 1], [0, 2, 4, 6, 8])
    np.testing.assert_array_equal(singles[0]["tags"].dense_shape, [5, 4])


def test_text_line_dataset(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"first\nsecond\r\n\nlast")
    with gzip.open(tmp_path / "b.txt.gz", "wb") as f:
        f.write(b"zipped\n")
    assert drain(tf.data.TextLineDataset(str(tmp_path / "a.txt"))) == [b"first", b"second",
                                                                      b"", b"last"]
    assert drain(tf.data.TextLineDataset(str(tmp_path / "b.txt.gz"), "GZIP")) == [b"zipped"]
    columns = drain(tf.data.TextLineDataset(str(tmp_path / "a.txt")).take(1).map(
        lambda line: tf.io.decode_csv(line, [[""]])))
    assert columns == [(b"first",)]


def test_fixed_length_record_dataset(tmp_path):
    (tmp_path / "r.bin").write_bytes(b"HH" + bytes(range(12)) + b"F")
    records = drain(tf.data.FixedLengthRecordDataset(str(tmp_path / "r.bin"), 4, header_bytes=2,
                                                     footer_bytes=1))
    assert records == [bytes(range(0, 4)), bytes(range(4, 8)), bytes(range(8, 12))]
    numbers = drain(tf.data.FixedLengthRecordDataset(str(tmp_path / "r.bin"), 4, 2, 1).map(
        lambda r: tf.io.decode_raw(r, tf.uint8)))
    np.testing.assert_array_equal(numbers[2], [8, 9, 10, 11])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not an exact multiple"):
        drain(tf.data.FixedLengthRecordDataset(str(tmp_path / "r.bin"), 4))


def test_records_batched_across_files_and_a_damaged_one_in_a_batch(tmp_path):
    paths = write_three_files(tmp_path)
    batches = drain(tf.data.TFRecordDataset(paths).batch(4))
    assert [list(b) for b in batches] == [[b"0-0", b"0-1", b"0-2", b"1-0"],
                                          [b"1-1", b"1-2", b"2-0", b"2-1"], [b"2-2"]]
    assert batches[0].dtype == object and batches[0].shape == (4,)
    assert len(drain(tf.data.TFRecordDataset(paths).batch(4, drop_remainder=True))) == 2
    data = bytearray((DATA / "plain.tfrecord").read_bytes())
    data[60 + 12 + 5] ^= 1  # inside record 3, which starts at offset 60
    (tmp_path / "bad.tfrecord").write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 60 in .*bad"):
        drain(tf.data.TFRecordDataset(str(tmp_path / "bad.tfrecord")).batch(2))
