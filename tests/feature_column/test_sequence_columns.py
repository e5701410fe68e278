"""Sequence columns: parse specs, padded dense sequences with their lengths, 3-D ids.

The expected values are those of the reference TensorFlow (tf.feature_column.sequence_*
over a FeatureTransformationCache of the same SparseTensors).
"""

import numpy as np
import pytest

import minitf as tf
from minitf.feature_column import base as fc_lib

fc = tf.feature_column


def _features():
    return {
        "p": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                             [1., 2., 3., 4., 5., 6.], [3, 4]),
        "w": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "c", "z"], [3, 2]),
        "n": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 4, 2], tf.int64), [2, 2]),
    }


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        return sess.run(fetches)


def test_sequence_columns_parse_as_var_len_features():
    columns = [fc.sequence_numeric_column("p", shape=(2,)),
               fc.sequence_categorical_column_with_vocabulary_list("w", ["a", "b", "c"]),
               fc.sequence_categorical_column_with_identity("n", 5)]
    assert fc.make_parse_example_spec(columns) == {
        "p": tf.VarLenFeature(tf.float32), "w": tf.VarLenFeature(tf.string),
        "n": tf.VarLenFeature(tf.int64)}


def test_sequence_numeric_column_pads_the_steps_and_counts_them():
    column = fc.sequence_numeric_column("p", shape=(2,))
    builder = fc_lib._LazyBuilder(_features())
    dense, length = _run(column._get_sequence_dense_tensor(builder))
    np.testing.assert_array_equal(dense, [[[1., 2.], [3., 4.]], [[5., 6.], [0., 0.]],
                                          [[0., 0.], [0., 0.]]])
    np.testing.assert_array_equal(length, [2, 1, 0])
    assert column._variable_shape.as_list() == [2]


def test_sequence_numeric_column_normalizes_and_pads_with_its_default():
    def times_ten(sp):  # the normalizer gets the SparseTensor of the raw values
        return tf.SparseTensor(sp.indices, sp.values * 10., sp.dense_shape)

    column = fc.sequence_numeric_column("p", default_value=-1., normalizer_fn=times_ten)
    values = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [1., 2., 3.], [2, 2])
    dense, length = _run(column._get_sequence_dense_tensor(fc_lib._LazyBuilder({"p": values})))
    np.testing.assert_array_equal(dense, [[[10.], [-1.]], [[20.], [30.]]])
    np.testing.assert_array_equal(length, [1, 2])


@pytest.mark.parametrize("column, values", [
    (fc.sequence_categorical_column_with_vocabulary_list("w", ["a", "b", "c"]), [0, 2, -1]),
    (fc.sequence_categorical_column_with_hash_bucket("w", 10), [9, 2, 7]),
])
def test_sequence_categorical_columns_give_ids_per_step(column, values):
    ids = _run(column._get_sparse_tensors(fc_lib._LazyBuilder(_features())).id_tensor)
    assert ids.indices.tolist() == [[0, 0, 0], [0, 1, 0], [1, 0, 0]]
    assert ids.values.tolist() == values
    assert ids.dense_shape.tolist() == [3, 2, 1]


def test_sequence_identity_and_vocabulary_file_columns(tmp_path):
    identity = fc.sequence_categorical_column_with_identity("n", 5)
    ids = _run(identity._get_sparse_tensors(fc_lib._LazyBuilder(_features())).id_tensor)
    assert ids.indices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
    assert ids.values.tolist() == [1, 4, 2] and identity._num_buckets == 5
    vocabulary = tmp_path / "words.txt"
    vocabulary.write_text("a\nb\nc\n")
    words = fc.sequence_categorical_column_with_vocabulary_file("w", str(vocabulary),
                                                                num_oov_buckets=1)
    ids = _run(words._get_sparse_tensors(fc_lib._LazyBuilder(_features())).id_tensor)
    assert ids.values.tolist() == [0, 2, 3] and words._num_buckets == 4
    assert words.name == "w"


def test_sequence_columns_argument_errors_and_input_layer_refuses_them():
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.sequence_numeric_column("p", dtype=tf.string)
    with pytest.raises(TypeError, match="normalizer_fn must be a callable"):
        fc.sequence_numeric_column("p", normalizer_fn=3)
    with pytest.raises(ValueError):
        fc.input_layer(_features(), [fc.sequence_numeric_column("p")])
