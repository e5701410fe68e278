"""Numeric columns: `numeric_column` and `bucketized_column`.

The columns of a dense number feature. `numeric_column("price")` reads the
raw feature, applies the optional `normalizer_fn` and casts it to float32: a
dense column of shape `[batch] + shape`. `bucketized_column` cuts a numeric
column at sorted `boundaries`; it is both dense (one-hot per element) and
categorical (the bucket numbers are its ids), so it goes into `input_layer`,
`linear_model`, `crossed_column` or `embedding_column` as it is.

Both read their input through the `_LazyBuilder` (`base.py`): the numeric
column the raw feature, the bucketized column the numeric column's
transformed tensor, so the normalization is built once.

Mirrors `numeric_column`, `bucketized_column`, `_NumericColumn` and
`_BucketizedColumn` of `tensorflow/python/feature_column/feature_column.py`
(TF 1.15).
"""

import collections

from minitf.feature_column import utils as fc_utils
from minitf.feature_column.base import _CategoricalColumn
from minitf.feature_column.base import _DenseColumn
from minitf.graph import dtypes
from minitf.graph import tensor_shape
from minitf.graph.sparse_tensor import SparseTensor
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import parsing_config
from minitf.ops import string_ops

__all__ = ["numeric_column", "bucketized_column"]


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A dense column: the feature `key` as float32, shaped `[batch] + shape`.

    `normalizer_fn`, if given, is applied to the raw tensor first (e.g.
    `lambda x: (x - 3.0) / 4.2`). `default_value` is only used for parsing.
    """
    shape = fc_utils.check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype must be convertible to float. "
                         "dtype: {}, key: {}".format(dtype, key))
    default_value = fc_utils.check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: {}".format(normalizer_fn))
    fc_utils.assert_key_is_string(key)
    return _NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                          normalizer_fn=normalizer_fn)


def bucketized_column(source_column, boundaries):
    """A numeric column cut into buckets: `boundaries=[0., 1.]` makes (-inf, 0), [0, 1), [1, inf).

    As a dense column it is one-hot (per element of the source); as a
    categorical column its ids are the bucket numbers, offset by
    `len(boundaries) + 1` for each further element of the source.
    """
    if not isinstance(source_column, _NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         "Given: {}".format(source_column))
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. "
                         "Given: {}".format(source_column))
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(boundaries))


class _NumericColumn(_DenseColumn, collections.namedtuple(
        "_NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """See `numeric_column`."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_config.FixedLenFeature(self.shape, self.dtype,
                                                         self.default_value)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if isinstance(input_tensor, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             "SparseTensor is not supported. key: {}".format(self.key))
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        if not (input_tensor.dtype.is_integer or input_tensor.dtype.is_floating):
            raise ValueError("The corresponding Tensor of numerical column must be numeric. "
                             "key: {}, dtype: {}".format(self.key, input_tensor.dtype))
        return math_ops.cast(input_tensor, dtypes.float32)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable  # no variables
        return inputs.get(self)


class _BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "_BucketizedColumn", ["source_column", "boundaries"])):
    """See `bucketized_column`."""

    @property
    def name(self):
        return "{}_bucketized".format(self.source_column.name)

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        source_tensor = inputs.get(self.source_column)
        return string_ops.bucketize(source_tensor, boundaries=list(self.boundaries))

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(tuple(self.source_column.shape) +
                                        (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable
        input_tensor = inputs.get(self)
        return array_ops.one_hot(indices=math_ops.cast(input_tensor, dtypes.int64),
                                 depth=len(self.boundaries) + 1, on_value=1., off_value=0.)

    @property
    def _num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """The bucket of element j of an example is the id `bucket + j * (len(boundaries) + 1)`."""
        input_tensor = inputs.get(self)
        batch_size = array_ops.shape(input_tensor)[0]
        source_dimension = self.source_column.shape[0]
        i1 = array_ops.reshape(
            array_ops.tile(array_ops.expand_dims(math_ops.range(0, batch_size), 1),
                           [1, source_dimension]), (-1,))
        i2 = array_ops.tile(math_ops.range(0, source_dimension), [batch_size])
        bucket_indices = (array_ops.reshape(input_tensor, (-1,)) +
                          (len(self.boundaries) + 1) * i2)
        indices = math_ops.cast(array_ops.transpose(array_ops.stack((i1, i2))), dtypes.int64)
        dense_shape = math_ops.cast(array_ops.stack([batch_size, source_dimension]),
                                    dtypes.int64)
        sparse_tensor = SparseTensor(indices=indices, values=bucket_indices,
                                     dense_shape=dense_shape)
        return _CategoricalColumn.IdWeightPair(sparse_tensor, None)
