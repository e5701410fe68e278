"""Looking inside checkpoints (readers, list/load) and init_from_checkpoint."""

import threading

import numpy as np
import pytest

import minitf as tf


def _save_model(directory):
    """Saves old/a = [1, 2], old/b = 3.0, c = 4 (int32), s = b"text" to directory/model."""
    with tf.variable_scope("old"):
        tf.get_variable("a", initializer=[1.0, 2.0])
        tf.get_variable("b", initializer=3.0)
    tf.get_variable("c", initializer=4)
    tf.Variable(b"text", name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(directory / "model"), write_meta_graph=False)
    tf.reset_default_graph()
    return path


def test_new_checkpoint_reader(tmp_path):
    path = _save_model(tmp_path)
    reader = tf.train.NewCheckpointReader(path)
    assert reader.has_tensor("old/a") and not reader.has_tensor("old")
    assert reader.get_variable_to_shape_map() == {"old/a": [2], "old/b": [], "c": [], "s": []}
    assert reader.get_variable_to_dtype_map() == {"old/a": tf.float32, "old/b": tf.float32,
                                                  "c": tf.int32, "s": tf.string}
    a = reader.get_tensor("old/a")
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.tolist() == [1.0, 2.0]
    # As in TF: a 0-d tensor comes back as a NumPy scalar, a 0-d string as bytes.
    c = reader.get_tensor("c")
    assert isinstance(c, np.int32) and c == 4
    assert reader.get_tensor("s") == b"text"
    assert b"old/a (float32) [2]\n" in reader.debug_string()
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for"):
        tf.train.NewCheckpointReader(str(tmp_path / "missing"))


def test_list_and_load_variables_from_a_prefix_or_a_directory(tmp_path):
    path = _save_model(tmp_path)
    expected = [("c", []), ("old/a", [2]), ("old/b", []), ("s", [])]
    assert tf.train.list_variables(path) == expected
    assert tf.train.list_variables(str(tmp_path)) == expected  # the latest checkpoint
    assert tf.train.load_variable(str(tmp_path), "old/b") == 3.0
    assert tf.train.load_variable(path, "old/a:0").tolist() == [1.0, 2.0]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in "
                                         "given directory .*empty"):
        tf.train.list_variables(str(empty))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.load_variable(str(tmp_path / "no-such-model"), "c")


def test_init_from_checkpoint_replaces_initializers(tmp_path):
    _save_model(tmp_path)
    with tf.variable_scope("new"):
        a = tf.get_variable("a", shape=[2])
        b = tf.get_variable("b", shape=[])
    c = tf.get_variable("c", shape=[], dtype=tf.int32)
    untouched = tf.get_variable("untouched", initializer=9.0)
    tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "c": c})
    # Node names as the reference TensorFlow gives them: a RestoreV2
    # "checkpoint_initializer[_n]" and an Assign per variable.
    assert a.initializer.type == "Assign"
    assert [t.name for t in a.initializer.inputs] == ["new/a:0", "checkpoint_initializer_1:0"]
    assert a.initial_value.op.type == "RestoreV2" and a.initial_value.shape.as_list() == [2]
    assert a.initial_value.device == "/device:CPU:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])
        assert sess.run(b) == 3.0 and sess.run(c) == 4 and sess.run(untouched) == 9.0


def test_init_from_checkpoint_by_name_and_from_the_root(tmp_path):
    path = _save_model(tmp_path)
    with tf.variable_scope("x"):
        renamed = tf.get_variable("renamed", shape=[])
    with tf.variable_scope("y"):
        with tf.variable_scope("old"):
            a = tf.get_variable("a", shape=[2])
    tf.train.init_from_checkpoint(path, {"old/b": "x/renamed"})
    tf.train.init_from_checkpoint(path, {"/": "y/"})  # y/old/a <- old/a
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(renamed) == 3.0
        np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])


def test_init_from_checkpoint_errors(tmp_path):
    path = _save_model(tmp_path)
    with tf.variable_scope("new"):
        tf.get_variable("a", shape=[2])
        tf.get_variable("b", shape=[])
    # Messages as the reference TensorFlow gives them for the same maps.
    with pytest.raises(ValueError, match="Tensor old/x is not found in .* checkpoint"):
        tf.train.init_from_checkpoint(path, {"old/x": "new/a"})
    with pytest.raises(ValueError, match=r"Shape of variable new/b:0 \(\(\)\) doesn't match with "
                                         r"shape of tensor old/a \(\[2\]\)"):
        tf.train.init_from_checkpoint(path, {"old/a": "new/b"})
    with pytest.raises(ValueError, match=r"Tensor zz/a \(a in zz/\) is not found in"):
        tf.train.init_from_checkpoint(path, {"zz/": "new/"})
    with pytest.raises(ValueError, match="Assignment map with scope only name new should map to "
                                         "scope only old/a"):
        tf.train.init_from_checkpoint(path, {"old/a": "new/"})


def test_init_from_checkpoint_fails_at_run_time_for_a_wrong_dtype(tmp_path):
    path = _save_model(tmp_path)
    c = tf.get_variable("c", shape=[], dtype=tf.float32)
    tf.train.init_from_checkpoint(path, {"c": c})
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="tensor_name = c; expected dtype float32 does not equal "
                                 "original dtype int32"):
            sess.run(c.initializer)


def test_checkpoints_iterator_yields_each_new_checkpoint_then_times_out(tmp_path):
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "model"), global_step=1)
        timer = threading.Timer(0.2, saver.save, (sess, str(tmp_path / "model")),
                                {"global_step": 2})
        timer.start()
        try:
            seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=3))
        finally:
            timer.join()
    assert seen == [first, str(tmp_path / "model-2")]
    assert v.name == "v:0"


def test_checkpoints_iterator_asks_timeout_fn_before_it_ends(tmp_path):
    asked = []
    assert list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.1,
                                              timeout_fn=lambda: asked.append(1) or
                                              len(asked) == 2)) == []
    assert asked == [1, 1]
