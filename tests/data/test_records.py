"""TFRecord files: byte-identical to TensorFlow's, read back, and damage found where it is."""

import gzip
import os
import pathlib
import subprocess
import sys

import pytest

import minitf as tf
from minitf.framework import crc32c
from minitf.framework import record_io

DATA = pathlib.Path(__file__).parent / "data"
# The records of scripts/record_tf_records.py, which wrote plain.tfrecord and gzip.tfrecord.
RECORDS = [b"", b"a", b"hello world", bytes(range(256)), b"x" * 1000]


def _write(path, records, options=None):
    with tf.io.TFRecordWriter(str(path), options) as writer:
        for record in records:
            writer.write(record)


def test_masked_crc32c_of_known_values():
    assert crc32c.value(b"123456789") == 0xE3069283  # the standard CRC32C check value
    crc = crc32c.value(b"hello")
    assert record_io.masked_crc32c(b"hello") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) \
        & 0xFFFFFFFF


@pytest.mark.parametrize("name,options", [("plain", None), ("gzip", "GZIP"),
                                          ("gzip", tf.io.TFRecordOptions("GZIP")),
                                          ("gzip", tf.io.TFRecordCompressionType.GZIP)])
def test_files_are_byte_identical_to_tensorflows(tmp_path, name, options):
    path = tmp_path / "out.tfrecord"
    _write(path, RECORDS, options)
    assert path.read_bytes() == (DATA / ("%s.tfrecord" % name)).read_bytes()


@pytest.mark.parametrize("name,options", [("plain", None), ("gzip", "GZIP")])
def test_files_tensorflow_wrote_read_back(name, options):
    path = str(DATA / ("%s.tfrecord" % name))
    assert list(tf.io.tf_record_iterator(path, options)) == RECORDS
    assert list(tf.python_io.tf_record_iterator(path, options)) == RECORDS


def test_gzip_file_is_a_gzip_stream_of_the_plain_file(tmp_path):
    _write(tmp_path / "z", RECORDS, "GZIP")
    assert gzip.decompress((tmp_path / "z").read_bytes()) == (DATA / "plain.tfrecord").read_bytes()


def test_zlib_round_trip(tmp_path):
    _write(tmp_path / "z", RECORDS, "ZLIB")
    assert list(tf.io.tf_record_iterator(str(tmp_path / "z"), "ZLIB")) == RECORDS


def test_layout_of_one_record():
    framed = record_io.frame(b"abc")
    assert framed[:8] == (3).to_bytes(8, "little")
    assert framed[8:12] == record_io.masked_crc32c(framed[:8]).to_bytes(4, "little")
    assert framed[12:15] == b"abc"
    assert framed[15:] == record_io.masked_crc32c(b"abc").to_bytes(4, "little")


def _damaged(tmp_path, damage):
    path = tmp_path / "bad.tfrecord"
    data = bytearray((DATA / "plain.tfrecord").read_bytes())
    damage(data)
    path.write_bytes(bytes(data))
    return str(path)


def test_corrupted_record_is_data_loss_naming_file_and_offset_after_good_records(tmp_path):
    # Records 0, 1, 2 take 16, 17 and 27 bytes: record 3 starts at offset 60.
    path = _damaged(tmp_path, lambda d: d.__setitem__(60 + 12 + 5, d[60 + 12 + 5] ^ 1))
    it = tf.io.tf_record_iterator(path)
    assert [next(it) for _ in range(3)] == RECORDS[:3]
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 60 in .*bad.tfrecord"):
        next(it)


def test_corrupted_length_is_data_loss(tmp_path):
    path = _damaged(tmp_path, lambda d: d.__setitem__(16, 200))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 16"):
        list(tf.io.tf_record_iterator(path))


def test_truncated_file_is_data_loss_after_the_whole_records(tmp_path):
    path = _damaged(tmp_path, lambda d: d.__delitem__(slice(len(d) - 3, None)))
    got = []
    with pytest.raises(tf.errors.DataLossError, match="truncated record at .*bad.tfrecord"):
        for record in tf.io.tf_record_iterator(path):
            got.append(record)
    assert got == RECORDS[:4]


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.io.tf_record_iterator(str(tmp_path / "nope")))
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.TFRecordWriter(str(tmp_path / "no" / "dir"))


def test_unknown_compression_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported compression type"):
        tf.io.TFRecordOptions("LZ4")


def test_gfile_basics(tmp_path):
    gfile = tf.io.gfile
    d = str(tmp_path / "a" / "b")
    gfile.makedirs(d)
    assert gfile.isdir(d) and gfile.exists(d)
    with gfile.GFile(os.path.join(d, "x.txt"), "w") as f:
        f.write("line 1\nline 2\n")
    with gfile.GFile(os.path.join(d, "x.txt")) as f:
        assert list(f) == ["line 1\n", "line 2\n"]
    assert gfile.listdir(d) == ["x.txt"]
    assert gfile.glob(os.path.join(d, "*.txt")) == [os.path.join(d, "x.txt")]
    gfile.rename(os.path.join(d, "x.txt"), os.path.join(d, "y.txt"))
    with gfile.GFile(os.path.join(d, "z"), "wb") as f:
        f.write(b"\x00")
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.rename(os.path.join(d, "y.txt"), os.path.join(d, "z"))
    gfile.rename(os.path.join(d, "y.txt"), os.path.join(d, "z"), overwrite=True)
    gfile.remove(os.path.join(d, "z"))
    assert not tf.gfile.Exists(os.path.join(d, "z"))
    for call in (lambda: gfile.remove(os.path.join(d, "z")),
                 lambda: gfile.GFile(os.path.join(d, "z")).read(),
                 lambda: gfile.listdir(os.path.join(d, "none"))):
        with pytest.raises(tf.errors.NotFoundError):
            call()


def test_import_minitf_does_not_import_protobuf_or_crc32c():
    code = ("import sys, minitf; print([m for m in ('google.protobuf', 'google_crc32c') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    assert out.stdout.strip() == "[]"
