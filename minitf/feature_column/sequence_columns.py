"""Sequence columns: a feature that is a list per example (the words of a sentence, the
prices of a session), kept as a sequence rather than summed into one vector.

`sequence_numeric_column("price")` parses as a VarLenFeature (each example
has its own number of steps) and gives, through `_get_sequence_dense_tensor`,
a dense `[batch, max steps] + shape` tensor padded with `default_value`, and
the number of steps of each example. The `sequence_categorical_column_with_*`
columns wrap the categorical columns (`categorical_columns.py`): the same ids,
but `_get_sparse_tensors` gives them as a 3-D `[batch, step, id]`
SparseTensor, so that an embedding of them is looked up per step instead of
combined over the example.

They feed sequence models (TF 1.15's `tf.contrib.feature_column.
sequence_input_layer`, which minitf leaves out with `tf.contrib`), not
`input_layer` or `linear_model`: neither is a `_DenseColumn`, and
`input_layer` refuses them.

Mirrors `tensorflow/python/feature_column/sequence_feature_column.py`
(SequenceNumericColumn) and `SequenceCategoricalColumn` of
`feature_column_v2.py` (TF 1.15), written against the TF 1 column interface.
"""

import collections

from minitf.feature_column import utils as fc_utils
from minitf.feature_column.base import _CategoricalColumn
from minitf.feature_column.base import _FeatureColumn
from minitf.feature_column.categorical_columns import (categorical_column_with_hash_bucket,
                                                       categorical_column_with_identity,
                                                       categorical_column_with_vocabulary_file,
                                                       categorical_column_with_vocabulary_list)
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import parsing_config
from minitf.ops import sparse_ops

__all__ = ["sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column"]


# --- the categorical ones: a categorical column, its ids kept per step -------------------------

def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """A sequence of integer ids in [0, num_buckets)."""
    return SequenceCategoricalColumn(categorical_column_with_identity(
        key=key, num_buckets=num_buckets, default_value=default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """A sequence of strings (or integers), each hashed into one of hash_bucket_size ids."""
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(
        key=key, hash_bucket_size=hash_bucket_size, dtype=dtype))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                                     num_oov_buckets=0, default_value=None,
                                                     dtype=dtypes.string):
    """A sequence of words, each its line number in vocabulary_file."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=num_oov_buckets, default_value=default_value, dtype=dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    """A sequence of words, each its position in vocabulary_list."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key=key, vocabulary_list=vocabulary_list, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))


class SequenceCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column whose ids stay apart per step: `[batch, step, id]`."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """The wrapped column's ids (and weights), reshaped to 3-D: one id list per step."""
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs, weight_collections,
                                                                     trainable)
        id_tensor, weight_tensor = sparse_tensors.id_tensor, sparse_tensors.weight_tensor
        shape = array_ops.shape(id_tensor)
        # The third dimension computed, not -1, which fails for an empty sequence.
        target_shape = [shape[0], shape[1], math_ops.reduce_prod(shape[2:])]
        id_tensor = sparse_ops.sparse_reshape(id_tensor, target_shape)
        if weight_tensor is not None:
            weight_tensor = sparse_ops.sparse_reshape(weight_tensor, target_shape)
        return _CategoricalColumn.IdWeightPair(id_tensor, weight_tensor)


# --- the numeric one ----------------------------------------------------------------------------

def sequence_numeric_column(key, shape=(1,), default_value=0., dtype=dtypes.float32,
                            normalizer_fn=None):
    """A sequence of numbers (or of `shape`-shaped blocks of them), padded with default_value."""
    shape = fc_utils.check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype must be convertible to float. dtype: {}, key: {}".format(
            dtype, key))
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: {}".format(normalizer_fn))
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)


TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair",
                                                  ("dense_tensor", "sequence_length"))


class SequenceNumericColumn(_FeatureColumn, collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """See `sequence_numeric_column`."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_config.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return input_tensor

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """([batch, steps] + shape values padded with default_value, the steps of each
        example)."""
        del weight_collections, trainable  # no variables
        sp_tensor = inputs.get(self)
        dense_tensor = sparse_ops.sparse_tensor_to_dense(sp_tensor,
                                                         default_value=self.default_value)
        dense_shape = array_ops.concat(
            [array_ops.shape(dense_tensor)[:1], [-1], self._variable_shape.as_list()], axis=0)
        dense_tensor = array_ops.reshape(dense_tensor, shape=dense_shape)
        # A 2-D input holds the blocks of `shape` flattened into its steps; a 3-D one has them
        # in its third dimension and the steps in its second.
        num_elements = self._variable_shape.num_elements() if sp_tensor.shape.ndims == 2 else 1
        seq_length = sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements)
        return TensorSequenceLengthPair(dense_tensor=dense_tensor, sequence_length=seq_length)


def sequence_length_from_sparse_tensor(sp_tensor, num_elements=1):
    """The steps of each row: its last column index + 1, over num_elements, rounded up (0 for a
    row with no values)."""
    with ops.name_scope(None, "sequence_length") as name_scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += array_ops.ones_like(column_ids)
        seq_length = sparse_ops.segment_max(column_ids, segment_ids=row_ids)
        seq_length = math_ops.cast(math_ops.ceil(seq_length / num_elements), dtypes.int64)
        # Rows at the end with no values have no segment: pad them with zeros.
        n_pad = array_ops.shape(sp_tensor)[:1] - array_ops.shape(seq_length)[:1]
        padding = array_ops.zeros(n_pad, dtype=seq_length.dtype)
        return array_ops.concat([seq_length, padding], axis=0, name=name_scope)
