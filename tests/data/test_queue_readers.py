"""The queue-fed readers: tf.TFRecordReader, TextLineReader, WholeFileReader,
FixedLengthRecordReader, IdentityReader.

The keys and values are those the reference TensorFlow gives for the same files
(checked with `import tensorflow.compat.v1 as tf`).
"""

import gzip

import pytest

import minitf as tf


def _read_all(make_reader, files, up_to=None):
    """Every (key, value) a reader gives from a closed queue of `files`."""
    queue = tf.FIFOQueue(10, tf.string)
    enqueue, close = queue.enqueue_many([files]), queue.close()
    reader = make_reader()
    read = reader.read(queue) if up_to is None else reader.read_up_to(queue, up_to)
    out = []
    with tf.Session() as sess:
        sess.run(enqueue)
        sess.run(close)
        with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient"):
            while True:
                key, value = sess.run(read)
                out.append((key.tolist() if up_to else key, value.tolist() if up_to else value))
        counts = sess.run([reader.num_records_produced(), reader.num_work_units_completed()])
    return out, counts


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"h\nl1\nl2\n")
    (tmp_path / "b.txt").write_bytes(b"h\nm1\n")
    (tmp_path / "f.bin").write_bytes(b"abcdefghij")
    with tf.python_io.TFRecordWriter(str(tmp_path / "t.rec")) as writer:
        writer.write(b"one")
        writer.write(b"two!")
    return tmp_path


def test_tf_record_reader_keys_are_offsets(files):
    path = str(files / "t.rec")
    out, counts = _read_all(tf.TFRecordReader, [path])
    assert out == [((path + ":0").encode(), b"one"), ((path + ":19").encode(), b"two!")]
    assert counts == [2, 1]


def test_tf_record_reader_reads_compressed_files(tmp_path):
    path = str(tmp_path / "z.rec")
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    with tf.python_io.TFRecordWriter(path, options) as writer:
        writer.write(b"x")
    out, _ = _read_all(lambda: tf.TFRecordReader(options=options), [path])
    assert out == [((path + ":0").encode(), b"x")]


def test_text_line_reader_goes_from_file_to_file(files):
    a, b = str(files / "a.txt"), str(files / "b.txt")
    out, counts = _read_all(lambda: tf.TextLineReader(skip_header_lines=1), [a, b])
    assert out == [((a + ":2").encode(), b"l1"), ((a + ":3").encode(), b"l2"),
                   ((b + ":2").encode(), b"m1")]
    assert counts == [3, 2]


def test_read_up_to_stops_at_the_end_of_a_file(files):
    a, b = str(files / "a.txt"), str(files / "b.txt")
    out, _ = _read_all(tf.TextLineReader, [a, b], up_to=2)
    assert out == [([(a + ":1").encode(), (a + ":2").encode()], [b"h", b"l1"]),
                   ([(a + ":3").encode()], [b"l2"]),
                   ([(b + ":1").encode(), (b + ":2").encode()], [b"h", b"m1"])]


def test_fixed_length_record_reader(files, tmp_path):
    path = str(files / "f.bin")
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(3, header_bytes=1, footer_bytes=2),
                       [path])
    assert out == [((path + ":0").encode(), b"bcd"), ((path + ":1").encode(), b"efg")]
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(3, hop_bytes=2), [path])
    assert [value for _, value in out] == [b"abc", b"cde", b"efg", b"ghi"]
    zipped = tmp_path / "f.gz"
    zipped.write_bytes(gzip.compress(b"abcdef"))
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(2, encoding="GZIP"), [str(zipped)])
    assert [value for _, value in out] == [b"ab", b"cd", b"ef"]


def test_whole_file_and_identity_readers(files):
    path = str(files / "b.txt")
    out, counts = _read_all(tf.WholeFileReader, [path])
    assert out == [(path.encode(), b"h\nm1\n")] and counts == [1, 1]
    out, _ = _read_all(tf.IdentityReader, ["x", "y"])
    assert out == [(b"x", b"x"), (b"y", b"y")]


def test_readers_with_string_input_producer_and_reset(files):
    a = str(files / "a.txt")
    filenames = tf.train.string_input_producer([a], num_epochs=2, shuffle=False)
    reader = tf.TextLineReader()
    key, value = reader.read(filenames)
    reset = reader.reset()
    produced = reader.num_records_produced()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            values = [sess.run(value) for _ in range(6)]
            assert values == [b"h", b"l1", b"l2"] * 2
            sess.run(reset)
            assert sess.run(produced) == 0
        finally:
            coord.request_stop()
            coord.join(threads)
    assert key.op.type == "ReaderReadV2"


def test_reader_errors(files):
    queue = tf.FIFOQueue(3, tf.string)
    with tf.Session() as sess:
        sess.run(queue.enqueue([str(files / "missing.txt")]))
        with pytest.raises(tf.errors.NotFoundError):
            sess.run(tf.TextLineReader().read(queue))
        with pytest.raises(tf.errors.InvalidArgumentError, match="record_bytes must be > 0"):
            sess.run(tf.FixedLengthRecordReader(0).reader_ref)
        with pytest.raises(tf.errors.UnimplementedError, match="Reader SerializeState"):
            sess.run(tf.WholeFileReader().serialize_state())
    assert isinstance(tf.TextLineReader(), tf.ReaderBase)
