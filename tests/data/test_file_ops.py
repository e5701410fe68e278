"""Whole files as tensors: tf.io.read_file, write_file, matching_files, match_filenames_once.

What TF 2.21 (tensorflow.compat.v1, graph mode) gives for the same graphs:
node names ReadFile / WriteFile / MatchingFiles and `matching_filenames`,
shapes [] and [None], a NotFoundError "<path>; No such file or directory",
and a ValueError at build time for a filename that is not a scalar or a
pattern of rank 2.
"""

import os

import pytest

import minitf as tf
from minitf.autodiff import registry


def test_written_bytes_are_read_back_and_directories_are_made(tmp_path):
    path = str(tmp_path / "a" / "b" / "x.bin")
    write = tf.io.write_file(path, tf.constant(b"\x00minitf\xff"))
    read = tf.io.read_file(path)
    assert (write.name, write.type, read.name, read.shape.as_list()) == (
        "WriteFile", "WriteFile", "ReadFile:0", [])
    with tf.Session() as sess:
        sess.run(write)
        assert sess.run(read) == b"\x00minitf\xff"
    assert sorted(os.listdir(tmp_path / "a" / "b")) == ["x.bin"]  # no temporary file left


def test_matching_files_takes_a_pattern_or_a_vector_of_them(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    one = tf.io.matching_files(str(tmp_path / "*.txt"))
    many = tf.matching_files([str(tmp_path / "*.csv"), str(tmp_path / "a*")])
    none = tf.io.matching_files(str(tmp_path / "z*"))
    assert one.shape.as_list() == [None] and one.name == "MatchingFiles:0"
    with tf.Session() as sess:
        assert sess.run(one).tolist() == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
        assert sess.run(many).tolist() == [str(tmp_path / n).encode() for n in ("c.csv", "a.txt")]
        assert sess.run(none).shape == (0,)


def test_match_filenames_once_is_a_local_variable_filled_at_initialization(tmp_path):
    (tmp_path / "one").write_text("1")
    files = tf.train.match_filenames_once(str(tmp_path / "*"))
    assert tf.io.match_filenames_once is tf.train.match_filenames_once
    assert files.name == "matching_filenames:0"
    assert files in tf.local_variables() and files not in tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        (tmp_path / "two").write_text("2")  # after the listing: not in it
        assert sess.run(files).tolist() == [str(tmp_path / "one").encode()]


def test_a_missing_file_is_not_found_naming_it(tmp_path):
    path = str(tmp_path / "nope")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
            sess.run(tf.io.read_file(path))
        with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
            sess.run(tf.read_file(str(tmp_path / "nope" / "x")))


def test_writing_where_a_directory_is_fails_and_leaves_nothing(tmp_path):
    (tmp_path / "d").mkdir()
    with tf.Session() as sess, pytest.raises(tf.errors.OpError):
        sess.run(tf.io.write_file(str(tmp_path / "d"), "y"))
    assert sorted(os.listdir(tmp_path)) == ["d"]


def test_ranks_are_checked_when_the_graph_is_built():
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.io.read_file(["a"])
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.io.write_file(["a"], "b")
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.io.matching_files([["a"]])


def test_the_file_ops_have_no_gradient_and_their_names_are_the_same_objects():
    assert {"ReadFile", "WriteFile", "MatchingFiles"} <= set(registry.not_differentiable_ops())
    assert tf.read_file is tf.io.read_file and tf.write_file is tf.io.write_file
    assert tf.matching_files is tf.io.matching_files
