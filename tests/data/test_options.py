"""tf.data.Options and ThreadingOptions, set on a dataset with with_options.

TF 2.21 (tensorflow.compat.v1) gives for the same calls: every setting None
until set, `Cannot set the property foo on Options.` for an unknown one, a
TypeError for a value of the wrong type, and merged options that keep the
settings of both.
"""

import pytest

import minitf as tf


def test_settings_start_unset_and_reject_unknown_names_and_wrong_types():
    options = tf.data.Options()
    assert options.experimental_deterministic is None
    assert options.experimental_threading.private_threadpool_size is None
    assert options.threading is options.experimental_threading
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options."):
        options.foo = 1
    with pytest.raises(TypeError, match='"private_threadpool_size" must be of type'):
        tf.data.ThreadingOptions().private_threadpool_size = "a"


def test_with_options_merges_and_transformations_keep_them():
    first = tf.data.Options()
    first.experimental_deterministic = False
    second = tf.data.Options()
    second.experimental_threading.private_threadpool_size = 4
    dataset = tf.data.Dataset.range(5).with_options(first).with_options(second)
    options = dataset.map(lambda x: x * 2).batch(2).options()
    assert options.experimental_deterministic is False
    assert options.experimental_threading.private_threadpool_size == 4
    assert tf.data.Dataset.range(1).options() == tf.data.Options()
    with pytest.raises(TypeError, match="expects an Options"):
        first.merge(4)


def test_options_change_no_element():
    options = tf.data.Options()
    options.experimental_threading.max_intra_op_parallelism = 1
    dataset = tf.data.Dataset.range(4).with_options(options).map(lambda x: x + 1)
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        assert [sess.run(next_element) for _ in range(4)] == [1, 2, 3, 4]
