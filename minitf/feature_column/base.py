"""The common ground of feature columns: the column interfaces and the `_LazyBuilder`.

A *feature column* is a small, immutable description (a named tuple) of how
one raw feature becomes numbers a model can use. Nothing is computed when a
column is made; the work happens when a model function
(`model_functions.py`) is given the features:

```
input_layer(features, [price, keywords_embedded])
  builder = _LazyBuilder(features)                 # caches every transformation
  for column in sorted(columns, key=name):         # "keywords_embedding", "price"
    with variable_scope(column name):
      column._get_dense_tensor(builder)            # dense columns
        -> builder.get(column)                     # transformed once, then cached
             -> column._transform_feature(builder) # builder.get("price") gives the raw tensor
      reshape to [batch, n]
  concat(axis=1)
```

Two families of columns, one interface each:

* *dense* columns (`_DenseColumn`) give a `[batch] + _variable_shape` float
  tensor: numeric, bucketized (one-hot), indicator (multi-hot) and embedding
  columns;
* *categorical* columns (`_CategoricalColumn`) give sparse ids in
  `[0, _num_buckets)` as an `IdWeightPair` of SparseTensors: identity,
  vocabulary list/file, hash bucket, crossed, weighted and bucketized
  columns. A model uses them through an `embedding_column`, whose
  `_get_dense_tensor` asks its categorical column for the sparse ids and looks
  them up in an `embedding_weights` variable, or an `indicator_column`.

The columns themselves are in `numeric_columns.py`, `categorical_columns.py`,
`crossed_columns.py` and `embedding_columns.py`. Besides the interfaces and
the builder, this module has the two functions over a list of columns that
are not model functions: `make_parse_example_spec` (what to parse) and
`_transform_features` (each column's transformed tensor).

Mirrors the column interfaces (`_FeatureColumn`, `_DenseColumn`,
`_CategoricalColumn`), `_LazyBuilder`, `_transform_features` and
`make_parse_example_spec` of the v1 API in
`tensorflow/python/feature_column/feature_column.py` (TF 1.15).
"""

import abc
import collections

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.sparse_tensor import convert_to_tensor_or_sparse_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops
from minitf.ops import sparse_ops

__all__ = ["make_parse_example_spec"]


# =============================================================================================
# The column interfaces
# =============================================================================================

class _FeatureColumn(metaclass=abc.ABCMeta):
    """How one feature family ("country", "price") is digested for a model.

    A column is configuration only: its fields are its arguments (every
    column class is also a named tuple), so two columns made alike are equal.
    """

    @property
    @abc.abstractmethod
    def name(self):
        """Used for naming: the variable scope and the sort order in model functions."""

    def __lt__(self, other):
        # Columns may be sorted together with strings, as in Python 2.
        return str(self) < str(other)

    def __gt__(self, other):
        return str(self) > str(other)

    @property
    def _var_scope_name(self):
        """The variable scope in input_layer/linear_model; the column's name by default."""
        return self.name

    @abc.abstractmethod
    def _transform_feature(self, inputs):
        """The column's intermediate tensor, built from `inputs` (a `_LazyBuilder`).

        `inputs.get("raw")` gives a raw feature, `inputs.get(other_column)`
        another column's transformed tensor.
        """

    @property
    @abc.abstractmethod
    def _parse_example_spec(self):
        """{feature key: FixedLenFeature/VarLenFeature} of the raw features it reads."""


class _DenseColumn(_FeatureColumn):
    """A column that becomes a dense `[batch] + _variable_shape` tensor."""

    @property
    @abc.abstractmethod
    def _variable_shape(self):
        """TensorShape of `_get_dense_tensor`, without the batch dimension."""

    @abc.abstractmethod
    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """The dense tensor; may create variables (added to `weight_collections`)."""


class _CategoricalColumn(_FeatureColumn):
    """A column of sparse ids in `[0, _num_buckets)`."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])

    @property
    @abc.abstractmethod
    def _num_buckets(self):
        """How many distinct ids there can be."""

    @abc.abstractmethod
    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """An IdWeightPair: an int64 SparseTensor of ids, and weights alike or None (all 1)."""


# =============================================================================================
# _LazyBuilder: raw features in, each transformation made once
# =============================================================================================

class _LazyBuilder:
    """Caches the transformed features while a model function builds its graph.

    A feature can be used by several columns: a bucketized age by itself and
    inside a cross. `get(column)` transforms a column the first time it is
    asked for and returns the cached tensor afterwards, so that the
    bucketization ops are built once, not once per user.
    """

    def __init__(self, features):
        self._features = features.copy()
        self._feature_tensors = {}
        self._columns_being_transformed = []

    def get(self, key):
        """The tensor for `key`: a raw feature (a string key) or a column's transformed tensor.

        A raw feature is converted to a Tensor or SparseTensor and a rank-1 one
        made `[batch, 1]`. ValueError when the key is not in the features.
        """
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            feature_tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = feature_tensor
            return feature_tensor
        if isinstance(key, str):
            raise ValueError("Feature {} is not in features dictionary.{}".format(
                key, self._needed_by()))
        if not isinstance(key, _FeatureColumn):
            raise TypeError('"key" must be either a "str" or "_FeatureColumn". '
                            "Provided: {}".format(key))
        column = key
        self._columns_being_transformed.append(column)
        try:
            transformed = column._transform_feature(self)
        finally:
            self._columns_being_transformed.pop()
        if transformed is None:
            raise ValueError("Column {} is not supported.".format(column.name))
        self._feature_tensors[column] = transformed
        return transformed

    def _needed_by(self):
        """" Column <name> needs it." for the column being transformed, if any."""
        if not self._columns_being_transformed:
            return ""
        return " Column {} needs it.".format(self._columns_being_transformed[-1].name)

    def _get_raw_feature_as_tensor(self, key):
        """The raw feature as a Tensor or SparseTensor, rank 1 expanded to `[batch, 1]`."""
        raw_feature = self._features[key]
        try:
            feature_tensor = convert_to_tensor_or_sparse_tensor(raw_feature)
        except (TypeError, ValueError) as e:
            raise ValueError("Feature {} cannot be converted to a tensor: {}{}".format(
                key, e, self._needed_by())) from None
        rank = feature_tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError("Feature (key: {}) cannot have rank 0. Given: {}".format(
                    key, feature_tensor))
            return feature_tensor if rank != 1 else _expand_to_batch_by_one(feature_tensor)
        # Dynamic rank: an Assert rejects rank 0, a cond expands rank 1.
        with ops.control_dependencies([_assert_positive(
                array_ops.rank(feature_tensor),
                "Feature (key: {}) cannot have rank 0. Given: {}".format(key, feature_tensor))]):
            return control_flow_ops.cond(
                math_ops.equal(1, array_ops.rank(feature_tensor)),
                lambda: _expand_to_batch_by_one(feature_tensor), lambda: feature_tensor)


def _assert_positive(x, message):
    """TF's `check_ops.assert_positive` of a scalar: an Assert that `0 < x`."""
    with ops.name_scope(None, "assert_positive", [x]):
        zero = constant(0, dtype=x.dtype)
        with ops.name_scope(None, "assert_less", [zero, x]):
            condition = math_ops.reduce_all(math_ops.less(zero, x))
            return control_flow_ops.Assert(condition, [
                message, "Condition x > 0 did not hold element-wise:",
                "x ({}) = ".format(x.name), x])


def _expand_to_batch_by_one(tensor):
    """A `[batch]` Tensor or SparseTensor as `[batch, 1]`."""
    if isinstance(tensor, SparseTensor):
        new_shape = array_ops.stack([tensor.dense_shape[0], constant(1, dtype=dtypes.int64)])
        return sparse_ops.sparse_reshape(tensor, new_shape)
    return array_ops.expand_dims(tensor, -1)


# =============================================================================================
# Functions over a list of columns
# =============================================================================================

def _normalize_feature_columns(feature_columns):
    """`feature_columns` as a non-empty list of columns with distinct names."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError("Items of feature_columns must be a _FeatureColumn. "
                             "Given (type {}): {}.".format(type(column), column))
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    name_to_column = {}
    for column in feature_columns:
        if column.name in name_to_column:
            raise ValueError(
                "Duplicate feature column name found for columns: {} and {}. This usually "
                "means that these columns refer to same base feature. Either one must be "
                "discarded or a duplicated but renamed item must be inserted in features "
                "dict.".format(column, name_to_column[column.name]))
        name_to_column[column.name] = column
    return feature_columns


def _transform_features(features, feature_columns):
    """{column: its transformed Tensor or SparseTensor}, sharing one `_LazyBuilder`."""
    feature_columns = _normalize_feature_columns(feature_columns)
    outputs = {}
    with ops.name_scope(None, default_name="transform_features",
                        values=list(features.values())):
        builder = _LazyBuilder(features)
        for column in sorted(feature_columns, key=lambda x: x.name):
            with ops.name_scope(None, default_name=column.name):
                outputs[column] = builder.get(column)
    return outputs


def make_parse_example_spec(feature_columns):
    """{feature key: FixedLenFeature or VarLenFeature}: what `tf.parse_example` should read.

    A column over other columns (bucketized, crossed, embedding, ...) asks for
    the raw features underneath; two columns asking different specs for one
    key is a ValueError.
    """
    result = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError("All feature_columns must be _FeatureColumn instances. "
                             "Given: {}".format(column))
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError("feature_columns contain different parse_spec for key "
                                 "{}. Given {} and {}".format(key, value, result[key]))
        result.update(config)
    return result
