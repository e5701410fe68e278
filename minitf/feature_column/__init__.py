"""The Feature columns chapter: `tf.feature_column`.

Columns describe how raw features become model inputs; `input_layer` and
`linear_model` turn a dict of features into tensors through them. Only names
live here; the modules follow the kinds of column:

* `base.py`: the column interfaces, the `_LazyBuilder` that transforms each
  column once, and `make_parse_example_spec`;
* `numeric_columns.py`: `numeric_column` and `bucketized_column`;
* `categorical_columns.py`: identity, vocabulary list and file, hash bucket
  and weighted categorical columns;
* `crossed_columns.py`: `crossed_column`, hashed by the SparseCross op;
* `embedding_columns.py`: `embedding_column`, `shared_embedding_columns` and
  `indicator_column`, the dense views of categorical columns;
* `model_functions.py`: `input_layer` and `linear_model`;
* `sequence_columns.py`: `sequence_numeric_column` and the
  `sequence_categorical_column_with_*` columns, for sequence models.

`utils.py` holds the argument checks the constructors share.
`FixedLenFeature` and `VarLenFeature` (`minitf/ops/parsing_config.py`) are the parse
specs `make_parse_example_spec` returns; they are also `tf.FixedLenFeature`
and `tf.VarLenFeature`.

TensorFlow keeps all of the columns in one file,
`tensorflow/python/feature_column/feature_column.py`.
"""

from minitf.feature_column.base import make_parse_example_spec
from minitf.feature_column.categorical_columns import (categorical_column_with_hash_bucket,
                                                       categorical_column_with_identity,
                                                       categorical_column_with_vocabulary_file,
                                                       categorical_column_with_vocabulary_list,
                                                       weighted_categorical_column)
from minitf.feature_column.crossed_columns import crossed_column
from minitf.feature_column.embedding_columns import (embedding_column, indicator_column,
                                                     shared_embedding_columns)
from minitf.feature_column.model_functions import input_layer, linear_model
from minitf.feature_column.numeric_columns import bucketized_column, numeric_column
from minitf.feature_column.sequence_columns import (
    sequence_categorical_column_with_hash_bucket, sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list, sequence_numeric_column)
from minitf.ops.parsing_config import FixedLenFeature  # noqa: F401
from minitf.ops.parsing_config import VarLenFeature  # noqa: F401

# FixedLenFeature/VarLenFeature are not tf.feature_column.* names in TF; minitf.__init__
# exports them at the top level as tf.FixedLenFeature and tf.VarLenFeature.
__all__ = [
    "input_layer", "linear_model", "make_parse_example_spec",
    "numeric_column", "bucketized_column",
    "categorical_column_with_identity", "categorical_column_with_vocabulary_list",
    "categorical_column_with_vocabulary_file", "categorical_column_with_hash_bucket",
    "crossed_column", "weighted_categorical_column",
    "indicator_column", "embedding_column", "shared_embedding_columns",
    "sequence_numeric_column", "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_vocabulary_list",
    "sequence_categorical_column_with_vocabulary_file",
]
