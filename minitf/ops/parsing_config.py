"""The features `tf.parse_example` can read: FixedLen, VarLen, Sparse and FixedLenSequence.

A parse spec is a dict from feature key to one of these descriptions
(named tuples, equal when their fields are equal, as in TensorFlow):

- `FixedLenFeature(shape, dtype, default_value=None)`: a dense feature of a
  fixed shape; without a default, an example that lacks it is an error;
- `VarLenFeature(dtype)`: a list of any length, read as a SparseTensor;
- `SparseFeature(index_key, value_key, dtype, size)`: a SparseTensor whose
  indices and values are stored as two features of the example;
- `FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)`:
  a dense feature of an unknown number of rows of `shape` (the steps of a
  SequenceExample's feature list, or a padded dense feature of an Example).

Feature columns describe their raw features with these
(`make_parse_example_spec`); `minitf/ops/parsing_ops.py` reads them.

Mirrors the feature classes of `tensorflow/python/ops/parsing_ops.py` (TF 1.15).
"""

import collections

__all__ = ["FixedLenFeature", "VarLenFeature", "SparseFeature", "FixedLenSequenceFeature"]


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A dense feature of `shape` and `dtype`; `default_value` fills a missing one.

    With `default_value=None`, an example without this feature is an error
    when parsed.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
VarLenFeature.__doc__ = """A variable-length feature of `dtype`, parsed as a SparseTensor."""


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A SparseTensor of dense shape [size] whose indices and values are two features."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Rows of `shape`, as many as the example has; parsed as a dense tensor, padded."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)
