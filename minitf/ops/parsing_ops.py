"""Parsing ops: serialized Examples into dicts of tensors; raw bytes and CSV into numbers.

`tf.parse_example(serialized, features)` takes a vector of serialized
`tf.train.Example`s and a parse spec (a dict of the feature descriptions of
`minitf/ops/parsing_config.py`, which `feature_column.make_parse_example_spec`
makes from columns) and returns a dict with one entry per key: a dense
tensor for a FixedLenFeature, a SparseTensor for a VarLenFeature or a
SparseFeature. It adds one `ParseExample` op; the spec becomes its attrs
(the keys, sorted, split into sparse and dense ones, with their dtypes,
shapes and defaults).

`parse_single_example` reads one scalar Example, `parse_sequence_example`
and `parse_single_sequence_example` SequenceExamples (context features, and
feature lists of one Feature per step). `decode_raw` reads the bytes of a
string as numbers, `decode_csv` splits lines of CSV into typed columns.

The OpDefs are in `minitf/framework/op_defs/parsing.py`, the kernels in
`minitf/kernels/cpu/parsing_kernels.py`.

Mirrors `tensorflow/python/ops/parsing_ops.py` (TF 1.15).
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import sparse_ops
from minitf.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature, SparseFeature,
                                       VarLenFeature)

__all__ = ["parse_example", "parse_single_example", "parse_sequence_example",
           "parse_single_sequence_example", "decode_raw", "decode_compressed", "decode_csv",
           "serialize_tensor", "parse_tensor"]

_PARSEABLE_DTYPES = (dtypes.float32, dtypes.int64, dtypes.string)


# =============================================================================
# A parse spec as the op's attrs
# =============================================================================

class _RawParams:
    """A parse spec split the way the op takes it: sparse keys, then dense keys, each sorted."""

    def __init__(self, features, allowed):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes, self.dense_defaults = [], [], [], []
        self.assumed_empty = []
        for key in sorted(features):
            feature = features[key]
            if not isinstance(feature, allowed):
                raise ValueError("Unsupported %s %s." % (type(feature).__name__, feature))
            if isinstance(feature, VarLenFeature):
                self._add_sparse(key, feature.dtype)
            elif isinstance(feature, SparseFeature):
                self._add_sparse(feature.index_key, dtypes.int64)
                self._add_sparse(feature.value_key, feature.dtype)
            elif isinstance(feature, FixedLenFeature):
                self._add_dense(key, feature.dtype, feature.shape, feature.default_value)
            else:
                self._add_sequence(key, feature)

    def _add_sparse(self, key, dtype):
        dtype = _check_dtype(key, dtype)
        if key in self.sparse_keys:
            index = self.sparse_keys.index(key)
            if self.sparse_types[index] != dtype:
                raise ValueError("Conflicting type %s vs %s for feature %s."
                                 % (self.sparse_types[index], dtype, key))
            return
        self.sparse_keys.append(key)
        self.sparse_types.append(dtype)

    def _add_dense(self, key, dtype, shape, default):
        dtype = _check_dtype(key, dtype)
        if not key:
            raise ValueError("Missing key for feature %s." % key)
        shape = tensor_shape.as_shape(shape)
        if not shape.is_fully_defined():
            raise ValueError("Missing shape for feature %s." % key)
        self.dense_keys.append(key)
        self.dense_types.append(dtype)
        self.dense_shapes.append(shape)
        self.dense_defaults.append(default)

    def _add_sequence(self, key, feature):
        dtype = _check_dtype(key, feature.dtype)
        if not feature.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to "
                             "be True.")
        shape = tensor_shape.as_shape(feature.shape)
        self.dense_keys.append(key)
        self.dense_types.append(dtype)
        self.dense_shapes.append(tensor_shape.TensorShape([None]).concatenate(shape))
        self.dense_defaults.append(feature.default_value)

    def default_tensors(self):
        """One tensor per dense key: its default (a scalar pad for var-length), or empty."""
        tensors = []
        for key, dtype, shape, default in zip(self.dense_keys, self.dense_types,
                                              self.dense_shapes, self.dense_defaults):
            if default is None:
                if shape.dims and shape.dims[0].value is None:
                    default = b"" if dtype == dtypes.string else 0
                else:
                    tensors.append(constant([], dtype=dtype, name="key_%s" % key))
                    continue
            value = convert_to_tensor(default, dtype=dtype, name="key_%s" % key)
            if shape.dims and shape.dims[0].value is None:
                tensors.append(array_ops.reshape(value, []))
            else:
                tensors.append(array_ops.reshape(value, shape.as_list()))
        return tensors


def _check_dtype(key, dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _PARSEABLE_DTYPES:
        raise ValueError("Unsupported dtype %s for feature %s: an Example holds float32, "
                         "int64 or string values." % (dtype.name, key))
    return dtype


def _outputs_as_dict(params, outputs, sparse_rank_note=None):
    """The op's outputs as {key: SparseTensor or Tensor}."""
    n = len(params.sparse_keys)
    indices, values, shapes = outputs[:n], outputs[n:2 * n], outputs[2 * n:3 * n]
    result = {k: sparse_tensor.SparseTensor(i, v, s)
              for k, i, v, s in zip(params.sparse_keys, indices, values, shapes)}
    result.update(zip(params.dense_keys, outputs[3 * n:]))
    return result


def _sparse_features_combined(features, parsed):
    """Each SparseFeature built from its index and value features, which then leave the dict.

    The result is `[batch, size]` (or `[size]` for one example); its entries
    are sorted by index unless the spec says they already are.
    """
    sparse_features = {k: f for k, f in features.items() if isinstance(f, SparseFeature)}
    if not sparse_features:
        return parsed
    result = dict(parsed)
    for key, feature in sorted(sparse_features.items()):
        index, value = parsed[feature.index_key], parsed[feature.value_key]
        with ops.name_scope("SparseFeature_%s" % key):
            leading = index.indices[:, :-1]
            positions = array_ops.expand_dims(index.values, 1)
            new_indices = array_ops.concat([leading, positions], 1)
            dense_shape = array_ops.concat(
                [index.dense_shape[:-1], constant([feature.size], dtypes.int64)], 0)
            combined = sparse_tensor.SparseTensor(new_indices, value.values, dense_shape)
            if not feature.already_sorted:
                combined = sparse_ops.sparse_reorder(combined)
        result[key] = combined
    for feature in sparse_features.values():
        for raw_key in (feature.index_key, feature.value_key):
            if raw_key not in features:
                result.pop(raw_key, None)
    return result


# =============================================================================
# Examples
# =============================================================================

def parse_example(serialized, features, name=None, example_names=None):
    """Parses a vector of serialized Examples into {key: Tensor or SparseTensor}.

    `features` maps keys to FixedLenFeature (a dense `[batch] + shape`
    tensor), VarLenFeature (a SparseTensor `[batch, longest]`), SparseFeature
    or FixedLenSequenceFeature with `allow_missing=True` (dense, padded).
    """
    if not features:
        raise ValueError("Missing: features was %s." % features)
    params = _RawParams(features, (VarLenFeature, SparseFeature, FixedLenFeature,
                                   FixedLenSequenceFeature))
    with ops.name_scope(name, "ParseExample", [serialized, example_names]):
        names = [] if example_names is None else example_names
        outputs = apply_op(
            "ParseExample", serialized=serialized,
            names=convert_to_tensor(names, dtype=dtypes.string),
            sparse_keys=[constant(k, dtypes.string) for k in params.sparse_keys],
            dense_keys=[constant(k, dtypes.string) for k in params.dense_keys],
            dense_defaults=params.default_tensors(), sparse_types=params.sparse_types,
            dense_shapes=params.dense_shapes)
    return _sparse_features_combined(features, _outputs_as_dict(params, _as_list(outputs)))


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one scalar serialized Example: like parse_example, without the batch dimension."""
    if not features:
        raise ValueError("Missing features.")
    params = _RawParams(features, (VarLenFeature, SparseFeature, FixedLenFeature,
                                   FixedLenSequenceFeature))
    with ops.name_scope(name, "ParseSingleExample", [serialized, example_names]):
        outputs = apply_op(
            "ParseSingleExample", serialized=serialized,
            dense_defaults=params.default_tensors(), num_sparse=len(params.sparse_keys),
            sparse_keys=params.sparse_keys, dense_keys=params.dense_keys,
            sparse_types=params.sparse_types, dense_shapes=params.dense_shapes)
    return _sparse_features_combined(features, _outputs_as_dict(params, _as_list(outputs)))


def _as_list(outputs):
    if isinstance(outputs, ops.Operation):
        return []
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


# =============================================================================
# SequenceExamples
# =============================================================================

def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a vector of SequenceExamples: (context dict, feature-list dict, lengths dict).

    Context features are read like an Example's. A sequence feature is a
    FixedLenSequenceFeature (dense: `[batch, longest sequence] + shape`, and
    its lengths) or a VarLenFeature (a SparseTensor `[batch, steps, values]`).
    """
    context_features = context_features or {}
    sequence_features = sequence_features or {}
    if not (context_features or sequence_features):
        raise ValueError("Missing features.")
    context = _RawParams(context_features, (VarLenFeature, FixedLenFeature))
    list_sparse = sorted(k for k, f in sequence_features.items() if isinstance(f, VarLenFeature))
    list_dense = sorted(k for k, f in sequence_features.items()
                        if isinstance(f, FixedLenSequenceFeature))
    unsupported = set(sequence_features) - set(list_sparse) - set(list_dense)
    if unsupported:
        raise ValueError("Unsupported sequence features: %s (VarLenFeature or "
                         "FixedLenSequenceFeature)" % sorted(unsupported))
    with ops.name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        names = [] if example_names is None else example_names
        outputs = apply_op(
            "ParseSequenceExample", serialized=serialized,
            debug_name=convert_to_tensor(names, dtype=dtypes.string),
            context_dense_defaults=context.default_tensors(),
            feature_list_dense_missing_assumed_empty=[
                k for k in list_dense if sequence_features[k].allow_missing],
            context_sparse_keys=context.sparse_keys, context_dense_keys=context.dense_keys,
            feature_list_sparse_keys=list_sparse, feature_list_dense_keys=list_dense,
            Ncontext_sparse=len(context.sparse_keys), Ncontext_dense=len(context.dense_keys),
            Nfeature_list_sparse=len(list_sparse), Nfeature_list_dense=len(list_dense),
            context_sparse_types=context.sparse_types,
            feature_list_dense_types=[_check_dtype(k, sequence_features[k].dtype)
                                      for k in list_dense],
            context_dense_shapes=context.dense_shapes,
            feature_list_sparse_types=[_check_dtype(k, sequence_features[k].dtype)
                                       for k in list_sparse],
            feature_list_dense_shapes=[tensor_shape.as_shape(sequence_features[k].shape)
                                       for k in list_dense])
    outputs = _as_list(outputs)
    n_context = 3 * len(context.sparse_keys) + len(context.dense_keys)
    context_out = _outputs_as_dict(context, outputs[:n_context])
    rest = outputs[n_context:]
    n = len(list_sparse)
    feature_lists = {k: sparse_tensor.SparseTensor(i, v, s) for k, i, v, s in zip(
        list_sparse, rest[:n], rest[n:2 * n], rest[2 * n:3 * n])}
    dense = rest[3 * n:]
    feature_lists.update(zip(list_dense, dense[:len(list_dense)]))
    lengths = dict(zip(list_dense, dense[len(list_dense):]))
    return context_out, feature_lists, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one scalar SequenceExample: (context dict, feature-list dict), no batch dimension."""
    with ops.name_scope(name, "ParseSingleSequenceExample", [serialized]):
        batch = array_ops.reshape(serialized, [1])
        names = None if example_name is None else array_ops.reshape(example_name, [1])
        context, feature_lists, _ = parse_sequence_example(
            batch, context_features, sequence_features, names)
        return ({k: _drop_batch(v) for k, v in context.items()},
                {k: _drop_batch(v) for k, v in feature_lists.items()})


def _drop_batch(value):
    if isinstance(value, sparse_tensor.SparseTensor):
        return sparse_tensor.SparseTensor(value.indices[:, 1:], value.values,
                                          value.dense_shape[1:])
    return array_ops.squeeze(value, [0])


# =============================================================================
# Raw bytes and CSV
# =============================================================================

def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None,
               bytes=None):  # noqa: A002 - TF's argument name
    """Reads each string's bytes as numbers of `out_type`: shape `input.shape + [n]`."""
    if input_bytes is None:
        input_bytes = bytes
    if input_bytes is None or out_type is None:
        raise ValueError("decode_raw needs input_bytes and out_type")
    return apply_op("DecodeRaw", name=name, bytes=input_bytes, out_type=out_type,
                    little_endian=little_endian)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TF's argument name
    """Each string inflated: `compression_type` is "ZLIB", "GZIP" or "" (none)."""
    return apply_op("DecodeCompressed", name=name, bytes=bytes,
                    compression_type=compression_type)


def serialize_tensor(tensor, name=None):
    """`tensor` as the bytes of a TensorProto (a string scalar), as TensorFlow writes them."""
    return apply_op("SerializeTensor", name=name, tensor=tensor)


def decode_json_example(json_examples, name=None):
    """Each JSON text of a `tf.train.Example` (protobuf's JSON mapping) as the Example's
    bytes, which parse_example reads."""
    return apply_op("DecodeJSONExample", name=name, json_examples=json_examples)


def parse_tensor(serialized, out_type, name=None):
    """The tensor of dtype `out_type` whose TensorProto's bytes are `serialized`."""
    return apply_op("ParseTensor", name=name, serialized=serialized, out_type=out_type)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Splits each CSV line into columns typed by `record_defaults` (0- or 1-element lists).

    An empty default makes its column required.
    """
    if select_cols is not None and any(a >= b for a, b in zip(select_cols, select_cols[1:])):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = [d if isinstance(d, ops.Tensor) else convert_to_tensor(d) for d in record_defaults]
    return apply_op("DecodeCSV", name=name, records=records, record_defaults=defaults,
                    field_delim=field_delim, use_quote_delim=use_quote_delim,
                    na_value=na_value, select_cols=list(select_cols or []))
