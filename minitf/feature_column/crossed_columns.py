"""Crossed columns: `crossed_column`, ids for combinations of feature values.

`crossed_column(["country", "language"], hash_bucket_size=1000)` gives each
example one id per combination of its country and language values: the
values' fingerprints (FarmHash for strings, an id as it is) folded together,
modulo the bucket count. A key is a raw string feature or a categorical
column, whose ids are crossed; a crossed key is expanded into its own keys.

The column is categorical (`_CategoricalColumn`, `base.py`): a model uses it
through `linear_model` (the "wide" part of a wide-and-deep model) or an
embedding or indicator column. The hashing itself is the SparseCross op
(`sparse_cross_hashed` in `minitf/ops/sparse_ops.py`, its kernel in
`minitf/kernels/cpu/sparse_cross_kernels.py`).

Mirrors `crossed_column`, `_CrossedColumn` and `_collect_leaf_level_keys` of
`tensorflow/python/feature_column/feature_column.py` (TF 1.15).
"""

import collections

from minitf.feature_column.base import _CategoricalColumn
from minitf.feature_column.base import _FeatureColumn
from minitf.feature_column.categorical_columns import _HashedCategoricalColumn
from minitf.graph import dtypes
from minitf.ops import parsing_config
from minitf.ops import sparse_ops

__all__ = ["crossed_column"]


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Ids of feature combinations: `Hash(cartesian product of the keys' values) % size`.

    Each key is a string (a raw string feature) or a categorical column (not
    a hash-bucket column: hash the raw string instead). See
    `minitf/kernels/cpu/sparse_cross_kernels.py` for the hashing.
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be > 1. "
                         "hash_bucket_size: {}".format(hash_bucket_size))
    if not keys or len(keys) < 2:
        raise ValueError("keys must be a list with length > 1. Given: {}".format(keys))
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or "
                             "categorical column except _HashedCategoricalColumn. "
                             "Given: {}".format(key))
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                "feature name as a string. Given: {}".format(key))
    return _CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size,
                          hash_key=hash_key)


class _CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "_CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    """See `crossed_column`."""

    @property
    def name(self):
        feature_names = []
        for key in _collect_leaf_level_keys(self):
            feature_names.append(key.name if isinstance(key, _FeatureColumn) else key)
        return "_X_".join(sorted(feature_names))

    @property
    def _parse_example_spec(self):
        config = {}
        for key in self.keys:
            if isinstance(key, _FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config.update({key: parsing_config.VarLenFeature(dtypes.string)})
        return config

    def _transform_feature(self, inputs):
        feature_tensors = []
        for key in _collect_leaf_level_keys(self):
            if isinstance(key, str):
                feature_tensors.append(inputs.get(key))
            elif isinstance(key, _CategoricalColumn):
                ids_and_weights = key._get_sparse_tensors(inputs)
                if ids_and_weights.weight_tensor is not None:
                    raise ValueError("crossed_column does not support weight_tensor, but the "
                                     "given column populates weight_tensor. "
                                     "Given column: {}".format(key.name))
                feature_tensors.append(ids_and_weights.id_tensor)
            else:
                raise ValueError("Unsupported column type. Given: {}".format(key))
        return sparse_ops.sparse_cross_hashed(feature_tensors,
                                              num_buckets=self.hash_bucket_size,
                                              hash_key=self.hash_key)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


def _collect_leaf_level_keys(cross):
    """The keys of `cross`, with nested crosses expanded into their own keys."""
    leaf_level_keys = []
    for k in cross.keys:
        if isinstance(k, _CrossedColumn):
            leaf_level_keys.extend(_collect_leaf_level_keys(k))
        else:
            leaf_level_keys.append(k)
    return leaf_level_keys
