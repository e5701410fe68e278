"""The summary ops: names, tags, collections, and the bytes TensorFlow's ops output.

The reference (`data/summary_reference.json`) was recorded with TensorFlow by
`scripts/record_summary_reference.py` from the cases of `summary_cases.py`.
"""

import json
import pathlib
import struct
import zlib

import numpy as np
import pytest

import minitf as tf
from minitf.framework import histogram, png, wav
from minitf.proto import summary_pb2

import summary_cases

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "summary_reference.json")
                       .read_text())
CASES = summary_cases.run_cases(tf)


@pytest.mark.parametrize("case", sorted(REFERENCE["cases"]))
def test_summary_bytes_names_and_types_are_tensorflows(case):
    assert CASES[case] == REFERENCE["cases"][case]


def _summary(hex_text):
    return summary_pb2.Summary.FromString(bytes.fromhex(hex_text))


def test_tags_follow_scopes_families_and_clean_names():
    tags = {case: [v.tag for v in _summary(CASES[case]["summary"]).value] for case in CASES}
    assert tags["scalar"] == ["loss"]
    assert tags["scalar_again"] == ["loss_1"]
    assert tags["scalar_family"] == ["train/train/loss"]
    assert tags["scalar_scoped"] == ["layer/bad_name_"]
    assert tags["image_uint8"] == ["pictures/image/0", "pictures/image/1"]
    assert tags["image_rgba"] == ["rgba/image"]
    assert tags["audio"] == ["stereo/audio/0", "stereo/audio/1"]
    assert tags["merge"] == ["loss", "ids"]
    assert len(tags["merge_all"]) == sum(len(tags[c]) for c in CASES if c not in
                                         ("merge", "merge_all"))


def test_merge_all_merges_the_summaries_collection_or_returns_none():
    assert tf.summary.merge_all() is None
    a = tf.summary.scalar("a", 1.0)
    b = tf.summary.scalar("b", 2.0, collections=["mine"])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a]
    merged = tf.summary.merge_all("mine", name="merged")
    assert merged.op.name == "merged/merged" and [t.name for t in merged.op.inputs] == [b.name]
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a]   # merge adds to no collection


def test_the_histogram_of_known_values():
    values = [0.5, 0.5, -2.0, 0.0]
    with tf.Session() as sess:
        proto = _summary(sess.run(tf.summary.histogram("h", tf.constant(values))).hex())
    histo = proto.value[0].histo
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (
        -2.0, 0.5, 4.0, -1.0, 4.5)
    limits = histogram.default_bucket_limits()
    assert len(limits) == 1551 and limits[775] == 0.0 and limits[776] == 1e-12
    counts = dict(zip(histo.bucket_limit, histo.bucket))
    above_half = limits[np.searchsorted(limits, 0.5, side="right")]
    assert counts[above_half] == 2.0 and counts[1e-12] == 1.0     # 0 falls in [0, 1e-12)
    assert sum(histo.bucket) == 4.0 and histo.bucket_limit[-1] == histogram.DBL_MAX


def test_a_nan_in_a_histogram_fails_the_step_as_in_tensorflow():
    assert summary_cases.histogram_nan_message(tf) == REFERENCE["histogram_nan_message"]


def test_a_duplicate_tag_in_a_merge_fails_the_step_as_in_tensorflow():
    assert summary_cases.duplicate_tag_message(tf) == REFERENCE["duplicate_tag_message"]


def test_scalar_summary_checks_tags_against_values():
    summary = tf.summary.scalar("x", tf.constant([1.0, 2.0]))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match=r"tags and values not the same shape: "
                                                   r"\[\] != \[2\] \(tag 'x'\)"):
        sess.run(summary)


def test_image_summary_wants_four_dimensions_and_1_3_or_4_channels():
    summary = tf.summary.image("img", tf.zeros([1, 2, 2, 2]))
    with tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"Tensor must be 4-D with last dim 1, 3, or 4, not \[1,2,2,2\]"):
        sess.run(summary)


def test_text_needs_strings():
    with pytest.raises(ValueError, match="Expected tensor Const:0 to have dtype string"):
        tf.summary.text("t", tf.constant(1.0))


def _png_chunks(data):
    """{type: the data of its chunks joined}, each chunk's CRC checked."""
    chunks, offset = {}, 8
    while offset < len(data):
        (length,), kind = struct.unpack(">I", data[offset:offset + 4]), data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        assert struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])[0] == \
            zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        offset += 12 + length
    return chunks


def _unfilter(raw, bpp):
    """The rows of a PNG's pixels, each filter undone (the PNG specification's definitions)."""
    rows, previous = [], np.zeros(raw.shape[1] - 1, np.int64)
    for line in raw.astype(np.int64):
        kind, row = line[0], line[1:].copy()
        for i in range(len(row)):
            a = row[i - bpp] if i >= bpp else 0
            b, c = previous[i], previous[i - bpp] if i >= bpp else 0
            p = a + b - c
            paeth = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (
                b if abs(p - b) <= abs(p - c) else c)
            row[i] = (row[i] + [0, a, b, (a + b) // 2, paeth][kind]) & 0xFF
        rows.append(row)
        previous = row
    return np.array(rows, np.uint8)


def test_png_reads_back_pixel_for_pixel():
    image = np.random.RandomState(0).randint(0, 256, (9, 11, 3)).astype(np.uint8)
    image[:, :5] = np.arange(5 * 3).reshape(5, 3)     # smooth parts, for the other filters
    data = png.encode_png(image)
    assert data[:8] == png.SIGNATURE
    chunks = _png_chunks(data)
    assert struct.unpack(">IIBBBBB", chunks[b"IHDR"]) == (11, 9, 8, 2, 0, 0, 0)
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(9, 1 + 11 * 3)
    assert np.array_equal(_unfilter(raw, 3), image.reshape(9, -1))
    assert chunks[b"IEND"] == b""


def test_wav_header_and_samples():
    data = wav.encode_wav(np.array([[0.0, 1.0], [-1.0, 0.5]], np.float32), 8000)
    assert data[:4] == b"RIFF" and data[8:16] == b"WAVEfmt " and len(data) == 44 + 8
    channels, rate = struct.unpack("<HI", data[22:28])
    assert (channels, rate) == (2, 8000)
    assert list(np.frombuffer(data[44:], "<i2")) == [0, 32767, -32768, 16384]
