"""Categorical columns of one feature: identity, vocabulary list/file, hash bucket, weighted.

A categorical column turns one raw feature (strings or integers, usually a
variable-length list per example) into sparse ids in `[0, _num_buckets)`:

* `categorical_column_with_identity`: the integers are the ids;
* `categorical_column_with_vocabulary_list` and `..._file`: a value's index
  in a vocabulary, through a lookup table;
* `categorical_column_with_hash_bucket`: `Fingerprint64(value) % size`;
* `weighted_categorical_column`: another categorical column's ids, each with
  a weight read from a second feature.

The identity, vocabulary and hash columns share `_SingleKeyCategoricalColumn`
(one `key`, no weights; TensorFlow repeats its three members in each class).
Each drops the feature's missing cells (`""`, -1) first, so a dense feature
gives the same ids as a sparse one. A model does not take the ids as they
are: `embedding_columns.py` makes them dense, `linear_model` sums weights by
them, `crossed_columns.py` crosses them.

Mirrors the categorical column constructors, their classes
(`_IdentityCategoricalColumn` ... `_WeightedCategoricalColumn`) and
`_to_sparse_input_and_drop_ignore_values` of
`tensorflow/python/feature_column/feature_column.py` (TF 1.15).
"""

import collections

import numpy as np

from minitf.feature_column import utils as fc_utils
from minitf.feature_column.base import _CategoricalColumn
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.sparse_tensor import convert_to_tensor_or_sparse_tensor
from minitf.ops import array_ops
from minitf.ops import lookup_ops
from minitf.ops import math_ops
from minitf.ops import parsing_config
from minitf.ops import string_ops

__all__ = ["categorical_column_with_identity", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "categorical_column_with_hash_bucket",
           "weighted_categorical_column"]


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer features used as their own ids, in `[0, num_buckets)`.

    Values out of range become `default_value` if it is given; otherwise
    negative values are dropped (as missing) and values >= num_buckets fail
    when looked up.
    """
    if num_buckets < 1:
        raise ValueError("num_buckets {} < 1, column_name {}".format(num_buckets, key))
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError("default_value {} not in range [0, {}), column_name {}".format(
            default_value, num_buckets, key))
    fc_utils.assert_key_is_string(key)
    return _IdentityCategoricalColumn(key=key, num_buckets=num_buckets,
                                      default_value=default_value)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """Ids from an in-memory vocabulary: a value's id is its index in `vocabulary_list`.

    Out-of-vocabulary values get `default_value` (-1: dropped), or, with
    `num_oov_buckets`, a hashed id in `[len(vocabulary_list), len + num_oov_buckets)`.
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError("vocabulary_list {} must be non-empty, column_name: {}".format(
            vocabulary_list, key))
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError("Duplicate keys in vocabulary_list {}, column_name: {}".format(
            vocabulary_list, key))
    vocabulary_dtype = _dtype_of_python_values(vocabulary_list)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError("Can't specify both num_oov_buckets and default_value in {}."
                             .format(key))
        if num_oov_buckets < 0:
            raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))
    fc_utils.assert_string_or_int(vocabulary_dtype,
                                  prefix="column_name: {} vocabulary".format(key))
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError("dtype {} and vocabulary dtype {} do not match, column_name: {}"
                             .format(dtype, vocabulary_dtype, key))
    fc_utils.assert_string_or_int(dtype, prefix="column_name: {}".format(key))
    fc_utils.assert_key_is_string(key)
    return _VocabularyListCategoricalColumn(
        key=key, vocabulary_list=tuple(vocabulary_list), dtype=dtype,
        default_value=default_value, num_oov_buckets=num_oov_buckets)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """Ids from a vocabulary file, one value per line: a value's id is its line number.

    `vocabulary_size=None` counts the file's lines (so the file must exist
    now); out-of-vocabulary values are handled as in
    `categorical_column_with_vocabulary_list`.
    """
    if not vocabulary_file:
        raise ValueError("Missing vocabulary_file in {}.".format(key))
    if vocabulary_size is None:
        try:
            with open(vocabulary_file) as f:
                vocabulary_size = sum(1 for _ in f)
        except (FileNotFoundError, IsADirectoryError):
            raise ValueError("vocabulary_file in {} does not exist.".format(key)) from None
    if vocabulary_size < 1:
        raise ValueError("Invalid vocabulary_size in {}.".format(key))
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError("Can't specify both num_oov_buckets and default_value in {}."
                             .format(key))
        if num_oov_buckets < 0:
            raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))
    dtype = dtypes.as_dtype(dtype)
    fc_utils.assert_string_or_int(dtype, prefix="column_name: {}".format(key))
    fc_utils.assert_key_is_string(key)
    return _VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by hashing: `Fingerprint64(value) % hash_bucket_size` (integers hashed as strings)."""
    if hash_bucket_size is None:
        raise ValueError("hash_bucket_size must be set. key: {}".format(key))
    if hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be at least 1. "
                         "hash_bucket_size: {}, key: {}".format(hash_bucket_size, key))
    fc_utils.assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    fc_utils.assert_string_or_int(dtype, prefix="column_name: {}".format(key))
    return _HashedCategoricalColumn(key, hash_bucket_size, dtype)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """A categorical column whose ids carry weights, read from the feature `weight_feature_key`.

    The weights must line up with the ids (same indices); an embedding then
    combines rows with these weights instead of 1.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype {} is not convertible to float.".format(dtype))
    return _WeightedCategoricalColumn(categorical_column=categorical_column,
                                      weight_feature_key=weight_feature_key, dtype=dtype)


def _dtype_of_python_values(values):
    """The dtype NumPy gives the vocabulary, as TensorFlow takes it: string, int64, float64."""
    array = np.array(list(values))
    if array.dtype.kind in "USO":
        return dtypes.string
    return dtypes.as_dtype(array.dtype)


class _SingleKeyCategoricalColumn(_CategoricalColumn):
    """A categorical column read from one feature, `key`, whose ids carry no weights."""

    @property
    def name(self):
        return self.key

    @property
    def _key_dtype(self):
        return self.dtype

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_config.VarLenFeature(self._key_dtype)}

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class _IdentityCategoricalColumn(_SingleKeyCategoricalColumn, collections.namedtuple(
        "_IdentityCategoricalColumn", ("key", "num_buckets", "default_value"))):
    """See `categorical_column_with_identity`."""

    @property
    def _key_dtype(self):
        return dtypes.int64

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not input_tensor.dtype.is_integer:
            raise ValueError("Invalid input, not integer. key: {} dtype: {}".format(
                self.key, input_tensor.dtype))
        values = input_tensor.values
        if values.dtype != dtypes.int64:
            values = math_ops.cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            num_buckets = math_ops.cast(self.num_buckets, dtypes.int64, name="num_buckets")
            zero = math_ops.cast(0, dtypes.int64, name="zero")
            out_of_range = math_ops.logical_or(values < zero, values >= num_buckets,
                                               name="out_of_range")
            default_values = array_ops.fill(
                dims=array_ops.shape(values),
                value=math_ops.cast(self.default_value, dtypes.int64), name="default_values")
            values = math_ops.where(out_of_range, default_values, values)
        return SparseTensor(indices=input_tensor.indices, values=values,
                            dense_shape=input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.num_buckets


class _VocabularyListCategoricalColumn(_SingleKeyCategoricalColumn, collections.namedtuple(
        "_VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """See `categorical_column_with_vocabulary_list`."""

    def _transform_feature(self, inputs):
        input_tensor, key_dtype = _vocabulary_keys(self, inputs)
        table = lookup_ops.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets, dtype=key_dtype,
            name="{}_lookup".format(self.key))
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets


class _VocabularyFileCategoricalColumn(_SingleKeyCategoricalColumn, collections.namedtuple(
        "_VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
         "default_value"))):
    """See `categorical_column_with_vocabulary_file`."""

    def _transform_feature(self, inputs):
        input_tensor, key_dtype = _vocabulary_keys(self, inputs)
        table = lookup_ops.index_table_from_file(
            vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size, default_value=self.default_value,
            key_dtype=key_dtype, name="{}_lookup".format(self.key))
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets


def _vocabulary_keys(column, inputs):
    """The column's feature as sparse keys for a vocabulary table, and the keys' dtype.

    Integer keys are looked up as int64, whatever their width in the feature.
    """
    input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(column.key))
    _check_categorical_input_dtype(column, input_tensor)
    if input_tensor.dtype.is_integer:
        return _cast_sparse(input_tensor, dtypes.int64), dtypes.int64
    return input_tensor, column.dtype


def _cast_sparse(sp_tensor, dtype):
    if sp_tensor.dtype == dtype:
        return sp_tensor
    return SparseTensor(sp_tensor.indices, math_ops.cast(sp_tensor.values, dtype),
                        sp_tensor.dense_shape)


class _HashedCategoricalColumn(_SingleKeyCategoricalColumn, collections.namedtuple(
        "_HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    """See `categorical_column_with_hash_bucket`."""

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        fc_utils.assert_string_or_int(input_tensor.dtype,
                                      prefix="column_name: {} input_tensor".format(self.key))
        if self.dtype.is_integer != input_tensor.dtype.is_integer:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                             "key: {}, column dtype: {}, tensor dtype: {}".format(
                                 self.key, self.dtype, input_tensor.dtype))
        if self.dtype == dtypes.string:
            sparse_values = input_tensor.values
        else:
            # Integers are hashed through their decimal string, as TensorFlow does.
            sparse_values = string_ops.as_string(input_tensor.values)
        sparse_id_values = string_ops.string_to_hash_bucket_fast(
            sparse_values, self.hash_bucket_size, name="lookup")
        return SparseTensor(input_tensor.indices, sparse_id_values, input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size


class _WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "_WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """See `weighted_categorical_column`."""

    @property
    def name(self):
        return "{}_weighted_by_{}".format(self.categorical_column.name,
                                          self.weight_feature_key)

    @property
    def _parse_example_spec(self):
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError("Parse config {} already exists for {}.".format(
                config[self.weight_feature_key], self.weight_feature_key))
        config[self.weight_feature_key] = parsing_config.VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weight_tensor = convert_to_tensor_or_sparse_tensor(inputs.get(self.weight_feature_key))
        if self.dtype != weight_tensor.dtype.base_dtype:
            raise ValueError("Bad dtype, expected {}, but got {}.".format(
                self.dtype, weight_tensor.dtype))
        if not isinstance(weight_tensor, SparseTensor):
            # A weight of 0 marks a missing id, so it is dropped like the id.
            weight_tensor = _to_sparse_input_and_drop_ignore_values(weight_tensor,
                                                                    ignore_value=0.0)
        if not weight_tensor.dtype.is_floating:
            weight_tensor = _cast_sparse(weight_tensor, dtypes.float32)
        return (inputs.get(self.categorical_column), weight_tensor)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable
        id_tensor, weight_tensor = inputs.get(self)
        return _CategoricalColumn.IdWeightPair(id_tensor, weight_tensor)


def _to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """A dense tensor as a SparseTensor without its "missing" entries ('' or -1).

    A SparseTensor is returned as it is. `ignore_value=None` means '' for
    strings, -1 for integers and 0 for floats.
    """
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with ops.name_scope(None, "to_sparse_input", (input_tensor, ignore_value)):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1  # -1 has a special meaning of missing feature
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore_value = math_ops.cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = math_ops.where(math_ops.not_equal(input_tensor, ignore_value),
                                 name="indices")
        return SparseTensor(
            indices=indices,
            values=array_ops.gather_nd(input_tensor, indices, name="values"),
            dense_shape=array_ops.shape(input_tensor, out_type=dtypes.int64,
                                        name="dense_shape"))


def _check_categorical_input_dtype(column, input_tensor):
    """ValueError (naming the column) unless the feature's dtype suits the column's."""
    if column.dtype.is_integer != input_tensor.dtype.is_integer:
        raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                         "key: {}, column dtype: {}, tensor dtype: {}".format(
                             column.key, column.dtype, input_tensor.dtype))
    fc_utils.assert_string_or_int(input_tensor.dtype,
                                  prefix="column_name: {} input_tensor".format(column.key))
