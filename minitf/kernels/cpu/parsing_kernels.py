"""Kernels of the parsing ops: serialized Examples into tensors, bytes into numbers, CSV.

**Examples.** Every serialized `tf.train.Example` of the batch is parsed
with the `protobuf` library (the message classes of
`minitf/proto/example.proto`, loaded when the first Example is parsed).
Then each requested feature is read by key:

- a *dense* feature (FixedLenFeature) must hold exactly as many values as
  its shape has elements; a missing one takes its default, or, with no
  default, is an error. A *var-length dense* feature (a
  FixedLenSequenceFeature with `allow_missing`) has an unknown first
  dimension: the batch is padded to its longest example with the default;
- a *sparse* feature (VarLenFeature) becomes the (indices, values,
  dense_shape) of a SparseTensor: example `b`'s `j`-th value sits at
  `[b, j]`, and the dense shape is `[batch, longest list]`.

A feature's list must be of its dtype's kind (float32: `float_list`, int64:
`int64_list`, string: `bytes_list`); an empty Feature fits any kind.
Errors name the example and the key in TensorFlow's words.

A SequenceExample adds *feature lists*: one Feature per step. A dense
feature list becomes `[batch, longest sequence, *shape]` (and the length of
each sequence), a sparse one a SparseTensor of rank 3.

Mirrors `tensorflow/core/kernels/example_parsing_ops.cc`,
`tensorflow/core/util/example_proto_fast_parsing.cc`,
`decode_raw_op.cc` and `decode_csv_op.cc`.
"""

import base64
import csv
import gzip
import itertools
import math
import operator
import zlib

import numpy as np

from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_proto
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text
from minitf.kernels.kernel_util import text
from minitf.kernels.kernel_util import tf_type_name

CPU_ONLY = ("CPU",)

# Which list of a Feature holds values of each dtype, and how TF names its kind.
_LIST_OF_DTYPE = {dtypes.float32: "float_list", dtypes.int64: "int64_list",
                  dtypes.string: "bytes_list"}
_KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_TYPE_NAMES = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}


def _example_classes():
    from minitf.proto import example_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    return example_pb2


# =============================================================================
# One feature of one example
# =============================================================================

class _FeatureSpec:
    """What to read for one key: its dtype, and for a dense feature its shape and default."""

    def __init__(self, key, dtype, shape=None, default=None):
        self.key = key
        self.dtype = dtypes.as_dtype(dtype)
        self.list_name = _LIST_OF_DTYPE.get(self.dtype)
        if self.list_name is None:
            raise invalid("Feature %s: unsupported dtype %s (float32, int64 or string)"
                          % (key, self.dtype.name))
        self.shape = None if shape is None else [None if d is None else int(d)
                                                 for d in shape.as_list()]
        self.default = default
        self.var_length = self.shape is not None and bool(self.shape) and self.shape[0] is None
        # Values per row: the whole shape when fixed, the trailing dims when var-length.
        dims = [] if self.shape is None else self.shape[1:] if self.var_length else self.shape
        self.row_size = int(np.prod(dims, dtype=np.int64))


def _values_of(feature, spec, name, sparse):
    """The values of a Feature as a list, checked against the spec's dtype."""
    kind = feature.WhichOneof("kind")
    if kind is None:
        return []
    if kind != spec.list_name:
        if sparse:
            raise invalid("Name: %s, Key: %s, Index: 0.  Data types don't match. Expected "
                          "type: %s, Actual type: %s" % (name, spec.key, _TYPE_NAMES[spec.dtype],
                                                         _KIND_NAMES[kind]))
        raise invalid("Name: %s, Key: %s, Index: 0.  Data types don't match. Data type: %s "
                      "but expected type: %s" % (name, spec.key, _KIND_NAMES[kind],
                                                 _TYPE_NAMES[spec.dtype]))
    return getattr(feature, kind).value


def _wrong_count(spec, name, count):
    return invalid("Name: %s, Key: %s, Index: 0.  Number of %s values != expected.  Values "
                   "size: %d but output shape: %s" % (name, spec.key, _KIND_NAMES[spec.list_name],
                                                      count, shape_text(spec.shape)))


def _dense_row(values, spec, name):
    """A fixed dense feature's values as an array of its shape (an error on a wrong count)."""
    if len(values) != spec.row_size:
        raise _wrong_count(spec, name, len(values))
    return np.asarray(list(values), dtype=spec.dtype.as_numpy_dtype).reshape(spec.shape)


def _required_missing(spec, name):
    return invalid("Name: %s, Feature: %s (data type: %s) is required but could not be found."
                   % (name, spec.key, _TYPE_NAMES[spec.dtype]))


# =============================================================================
# A batch of feature maps into tensors
# =============================================================================

def _rows_of_every_example(feature_maps, spec):
    """Each example's list of values for `spec`, or None if some example lacks the key.

    One list comprehension over the batch: the quick pass. A missing key
    (`get` gives None, which has no list) sends the batch to the checked
    loop, which knows about defaults. A list of another kind reads as
    empty here, so the caller must treat an empty list as suspect.
    """
    values_of = operator.attrgetter(spec.list_name + ".value")
    key = spec.key
    try:
        return [values_of(feature_map.get(key)) for feature_map in feature_maps]
    except AttributeError:
        return None


def _flat_array(rows, spec, count):
    """The values of all `rows`, one after the other, as one array of the spec's dtype."""
    return np.fromiter(itertools.chain.from_iterable(rows), dtype=spec.dtype.as_numpy_dtype,
                       count=count)


def _dense_output(feature_maps, spec, names):
    """One dense tensor for `spec` across the batch: [batch] + shape.

    The usual batch (every example holds the feature, with the right
    number of values) takes the quick pass: one comprehension for the
    lists, one `np.fromiter` for their values, a few C-level calls per
    example instead of a dozen Python steps. Anything else (a missing key,
    a wrong count, a wrong kind) goes through the checked loop, which
    fills in defaults and names the example at fault.
    """
    if spec.var_length:
        return _var_length_dense_output(feature_maps, spec, names)
    rows = _rows_of_every_example(feature_maps, spec)
    if rows is None or spec.row_size == 0 or set(map(len, rows)) != {spec.row_size}:
        return _checked_dense_output(feature_maps, spec, names)
    return _array_of_equal_rows(rows, spec).reshape([len(feature_maps)] + spec.shape)


def _array_of_equal_rows(rows, spec):
    """Rows of `spec.row_size` values each as one flat array.

    An itemgetter takes a row's values by index, in C: cheaper than
    iterating each row (a scalar feature's row is read as `row[0]`).
    """
    row_values = map(operator.itemgetter(*range(spec.row_size)), rows)
    if spec.row_size > 1:  # the itemgetter gave tuples
        row_values = itertools.chain.from_iterable(row_values)
    return np.fromiter(row_values, dtype=spec.dtype.as_numpy_dtype,
                       count=len(rows) * spec.row_size)


def _checked_dense_output(feature_maps, spec, names):
    """`_dense_output` example by example: defaults for missing keys, errors naming the example.

    The values of every example go into one flat list, made an array once.
    """
    values = []
    extend = values.extend
    key, list_name, row_size = spec.key, spec.list_name, spec.row_size
    default = None
    for i, feature_map in enumerate(feature_maps):
        feature = feature_map.get(key)
        if feature is None:
            if spec.default.size == 0:
                raise _required_missing(spec, names[i])
            if default is None:
                default = np.asarray(spec.default).reshape(-1).tolist()
            extend(default)
            continue
        row = getattr(feature, list_name).value  # empty when the feature holds another kind
        if not row:
            row = _values_of(feature, spec, names[i], False)  # empty, or the dtype error
        if len(row) != row_size:
            raise _wrong_count(spec, names[i], len(row))
        extend(row)
    dtype = spec.dtype.as_numpy_dtype
    return np.array(values, dtype=dtype).reshape([len(feature_maps)] + spec.shape)


def _var_length_dense_output(feature_maps, spec, names):
    """[batch, longest, *trailing]: every example's rows, padded with the default value."""
    trailing = spec.shape[1:]
    row_size = spec.row_size
    lists = []
    for feature_map, name in zip(feature_maps, names):
        feature = feature_map.get(spec.key)
        values = [] if feature is None else list(_values_of(feature, spec, name, False))
        if row_size and len(values) % row_size:
            raise invalid("Name: %s, Key: %s, Index: 0.  Number of %s values is not a multiple "
                          "of stride length. Saw %d values but output shape is: %s" % (
                              name, spec.key, _KIND_NAMES[spec.list_name], len(values),
                              shape_text(spec.shape)))
        lists.append(values)
    longest = max((len(v) // row_size for v in lists), default=0) if row_size else 0
    pad = np.asarray(spec.default).reshape(-1)
    out = np.empty([len(lists), longest] + trailing, dtype=spec.dtype.as_numpy_dtype)
    out[...] = pad[0] if pad.size else (b"" if spec.dtype == dtypes.string else 0)
    for b, values in enumerate(lists):
        rows = len(values) // row_size if row_size else 0
        if rows:
            out[b, :rows] = np.asarray(values, dtype=out.dtype).reshape([rows] + trailing)
    return out


def _sparse_output(feature_maps, spec, names):
    """(indices [n, 2], values [n], dense_shape [2]) of a VarLenFeature across the batch.

    A missing key is an empty list. An empty list is checked for its kind
    (a Feature holding another kind reads as empty), the others are right
    by construction; all the values are then made one array at once.
    """
    values_of = operator.attrgetter(spec.list_name + ".value")
    features = [feature_map.get(spec.key) for feature_map in feature_maps]
    rows = [() if feature is None else values_of(feature) for feature in features]
    counts = list(map(len, rows))
    if 0 in counts:
        for i in [i for i, count in enumerate(counts) if count == 0]:
            if features[i] is not None:
                _values_of(features[i], spec, names[i], True)  # the dtype error, if any
    total = sum(counts)
    counts = np.asarray(counts, np.int64)
    batch_index = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    position = np.arange(total, dtype=np.int64) - starts
    return (np.stack([batch_index, position], axis=1),
            _flat_array(rows, spec, total),
            np.asarray([len(feature_maps), counts.max(initial=0)], np.int64))


def _parse_all(serialized, message_class):
    """Every serialized message of the batch, parsed; InvalidArgumentError names a bad one."""
    from google.protobuf.message import DecodeError  # noqa: PLC0415 - only when used
    parse = message_class.FromString
    try:
        return [parse(data) for data in serialized]
    except (DecodeError, TypeError):
        pass  # find the one that failed, and say why
    parsed = []
    for data in serialized:
        try:
            parsed.append(parse(data if isinstance(data, bytes) else text(data).encode("utf-8")))
        except DecodeError:
            raise invalid("Could not parse example input, value: '%s'" % text(
                data, "replace")[:100]) from None
    return parsed


def _example_names(names, batch):
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size == 0:
        return ["<unknown>"] * batch
    if names.size != batch:
        raise invalid("Expected len(names) == len(serialized), but got: %d vs. %d"
                      % (names.size, batch))
    return [text(n, "replace") for n in names]


def _parse_features(feature_maps, names, sparse_specs, dense_specs):
    """The outputs of ParseExample: sparse indices, values, shapes, then dense values."""
    sparse = [_sparse_output(feature_maps, spec, names) for spec in sparse_specs]
    dense = [_dense_output(feature_maps, spec, names) for spec in dense_specs]
    return ([s[0] for s in sparse] + [s[1] for s in sparse] + [s[2] for s in sparse]
            + dense)


def _specs(sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults):
    sparse_specs = [_FeatureSpec(text(k), t) for k, t in zip(sparse_keys, sparse_types)]
    dense_specs = [_FeatureSpec(text(k), t, s, np.asarray(d))
                   for k, t, s, d in zip(dense_keys, dense_types, dense_shapes, dense_defaults)]
    for spec in dense_specs:
        if spec.default.size and not spec.var_length and spec.default.size != spec.row_size:
            raise invalid("Default value for %s has %d elements, expected shape %s"
                          % (spec.key, spec.default.size, shape_text(spec.shape)))
    return sparse_specs, dense_specs


@register_kernel("ParseExample", CPU_ONLY)
def parse_example(ctx, serialized, names, *keys_and_defaults, Nsparse, Ndense, sparse_types,
                  Tdense, dense_shapes):
    sparse_keys = keys_and_defaults[:Nsparse]
    dense_keys = keys_and_defaults[Nsparse:Nsparse + Ndense]
    dense_defaults = keys_and_defaults[Nsparse + Ndense:]
    sparse_specs, dense_specs = _specs(sparse_keys, sparse_types, dense_keys, Tdense,
                                       dense_shapes, dense_defaults)
    serialized = np.asarray(serialized, dtype=object).reshape(-1).tolist()
    examples = _parse_all(serialized, _example_classes().Example)
    feature_maps = [e.features.feature for e in examples]
    return tuple(_parse_features(feature_maps, _example_names(names, len(examples)),
                                 sparse_specs, dense_specs))


@register_kernel("ParseSingleExample", CPU_ONLY)
def parse_single_example(ctx, serialized, *dense_defaults, num_sparse, sparse_keys, dense_keys,
                         sparse_types, Tdense, dense_shapes):
    sparse_specs, dense_specs = _specs(sparse_keys, sparse_types, dense_keys, Tdense,
                                       dense_shapes, dense_defaults)
    examples = _parse_all([serialized.item()], _example_classes().Example)
    outputs = _parse_features([examples[0].features.feature], ["<unknown>"], sparse_specs,
                              dense_specs)
    n = len(sparse_specs)
    indices = [i[:, 1:] for i in outputs[:n]]  # one example: drop the batch column
    shapes = [s[1:] for s in outputs[2 * n:3 * n]]
    dense = [d[0] for d in outputs[3 * n:]]
    return tuple(indices + outputs[n:2 * n] + shapes + dense)


# =============================================================================
# SequenceExamples
# =============================================================================

def _feature_list_dense(lists, spec, names, assumed_empty):
    """[batch, longest, *shape] and the lengths, for one dense feature list."""
    steps, lengths = [], []
    for feature_lists, name in zip(lists, names):
        feature_list = feature_lists.get(spec.key)
        if feature_list is None:
            if spec.key not in assumed_empty:
                raise invalid("Name: %s, Feature list '%s' is required but could not be found.  "
                              "Did you mean to include it in "
                              "feature_list_dense_missing_assumed_empty or "
                              "feature_list_dense_defaults?" % (name, spec.key))
            rows = []
        else:
            rows = [_dense_row(_values_of(f, spec, name, False), spec, name)
                    for f in feature_list.feature]
        steps.append(rows)
        lengths.append(len(rows))
    longest = max(lengths, default=0)
    out = np.zeros([len(lists), longest] + spec.shape, dtype=spec.dtype.as_numpy_dtype)
    if spec.dtype == dtypes.string:
        out[...] = b""
    for b, rows in enumerate(steps):
        if rows:
            out[b, :len(rows)] = np.stack(rows)
    return out, np.asarray(lengths, np.int64)


def _feature_list_sparse(lists, spec, names):
    """A sparse feature list: value k of step t of example b sits at [b, t, k]."""
    values, index = [], []
    longest_steps, longest_values = 0, 0
    for b, (feature_lists, name) in enumerate(zip(lists, names)):
        feature_list = feature_lists.get(spec.key)
        features = [] if feature_list is None else feature_list.feature
        longest_steps = max(longest_steps, len(features))
        for t, feature in enumerate(features):
            row = _values_of(feature, spec, name, True)
            values.extend(row)
            index.extend((b, t, k) for k in range(len(row)))
            longest_values = max(longest_values, len(row))
    return (np.asarray(index, np.int64).reshape(-1, 3),
            np.asarray(values, dtype=spec.dtype.as_numpy_dtype).reshape(-1),
            np.asarray([len(lists), longest_steps, longest_values], np.int64))


@register_kernel("ParseSequenceExample", CPU_ONLY)
def parse_sequence_example(ctx, serialized, debug_name, *context_dense_defaults,
                           feature_list_dense_missing_assumed_empty, context_sparse_keys,
                           context_dense_keys, feature_list_sparse_keys, feature_list_dense_keys,
                           context_sparse_types, Tcontext_dense, feature_list_dense_types,
                           context_dense_shapes, feature_list_sparse_types,
                           feature_list_dense_shapes):
    sparse_specs, dense_specs = _specs(context_sparse_keys, context_sparse_types,
                                       context_dense_keys, Tcontext_dense, context_dense_shapes,
                                       context_dense_defaults)
    serialized = np.asarray(serialized, dtype=object).reshape(-1)
    examples = _parse_all(serialized, _example_classes().SequenceExample)
    names = _example_names(debug_name, len(examples))
    context = _parse_features([e.context.feature for e in examples], names, sparse_specs,
                              dense_specs)
    lists = [e.feature_lists.feature_list for e in examples]
    assumed_empty = {text(k) for k in feature_list_dense_missing_assumed_empty}
    list_sparse = [_feature_list_sparse(lists, _FeatureSpec(text(k), t), names)
                   for k, t in zip(feature_list_sparse_keys, feature_list_sparse_types)]
    list_dense = [_feature_list_dense(lists, _FeatureSpec(text(k), t, s), names, assumed_empty)
                  for k, t, s in zip(feature_list_dense_keys, feature_list_dense_types,
                                     feature_list_dense_shapes)]
    return tuple(context + [s[0] for s in list_sparse] + [s[1] for s in list_sparse]
                 + [s[2] for s in list_sparse] + [d[0] for d in list_dense]
                 + [d[1] for d in list_dense])


# =============================================================================
# DecodeRaw and DecodeCSV
# =============================================================================

@register_kernel("DecodeRaw", CPU_ONLY)
def decode_raw(ctx, data, *, out_type, little_endian):
    dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    flat = [text(v).encode("latin-1") if not isinstance(v, bytes) else v
            for v in np.asarray(data, dtype=object).reshape(-1)]
    if not flat:
        return np.zeros(tuple(data.shape) + (0,), dtype=out_type.as_numpy_dtype)
    size = len(flat[0])
    for v in flat:
        if len(v) != size:
            raise invalid("DecodeRaw requires input strings to all be the same size, but "
                          "element 0 has size %d != %d" % (size, len(v)))
    if size % dtype.itemsize:
        raise invalid("Input to DecodeRaw has length %d that is not a multiple of %d, the "
                      "size of %s" % (size, dtype.itemsize, out_type.name))
    values = np.frombuffer(b"".join(flat), dtype=dtype).astype(out_type.as_numpy_dtype)
    return values.reshape(tuple(data.shape) + (size // dtype.itemsize,))


_DECOMPRESSORS = {"": lambda data: data, "ZLIB": zlib.decompress, "GZIP": gzip.decompress}


@register_kernel("DecodeCompressed", CPU_ONLY)
def decode_compressed(ctx, data, *, compression_type):
    """Each string inflated from zlib or gzip (or left as it is for "")."""
    kind = text(compression_type)
    if kind not in _DECOMPRESSORS:
        raise invalid("Only ZLIB, GZIP or NONE are supported compressions, not %r" % kind)
    out = np.empty(np.shape(data), dtype=object)
    for index, value in np.ndenumerate(np.asarray(data, dtype=object)):
        try:
            out[index] = _DECOMPRESSORS[kind](value)
        except (zlib.error, OSError, EOFError) as e:
            raise errors.DataLossError(None, None, "Failed to inflate %s data at element "
                                       "%s: %s" % (kind, list(index), e)) from None
    return out


# =============================================================================
# SerializeTensor and ParseTensor: a tensor as a TensorProto's bytes
# =============================================================================

@register_kernel("SerializeTensor", CPU_ONLY)
def serialize_tensor(ctx, tensor, *, T):  # noqa: N803 - the attr's name
    return np.array(tensor_proto_bytes(tensor, T), dtype=object)


def tensor_proto_bytes(tensor, dtype):
    """TensorFlow's bytes: strings one by one in `string_val`, anything else as raw
    little-endian `tensor_content` (a scalar too, unlike a Const's TensorProto).

    SerializeSparse writes the parts of a SparseTensor so too
    (`serialize_sparse_kernels.py`).
    """
    proto = tensor_proto.new_tensor_proto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for size in np.shape(tensor):
        proto.tensor_shape.dim.add(size=size)
    if dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else text(v).encode("utf-8")
                                for v in np.asarray(tensor, dtype=object).reshape(-1))
    else:
        little_endian = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        proto.tensor_content = np.ascontiguousarray(tensor, dtype=little_endian).tobytes()
    return proto.SerializeToString(deterministic=True)


@register_kernel("ParseTensor", CPU_ONLY)
def parse_tensor(ctx, serialized, *, out_type):
    data = serialized.item() if isinstance(serialized, np.ndarray) else serialized
    value, parsed = tensor_from_proto_bytes(data)
    if parsed != out_type:
        raise invalid("Type mismatch between parsed tensor (%s) and dtype (%s)"
                      % (tf_type_name(parsed), tf_type_name(out_type)))
    return value


def tensor_from_proto_bytes(data):
    """(array, dtype) of a TensorProto's bytes; InvalidArgumentError when they are none."""
    proto = tensor_proto.new_tensor_proto()
    try:
        proto.ParseFromString(data)
        value = tensor_proto.make_ndarray(proto)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError, a dtype or size that does not fit
        raise invalid("Could not parse `serialized` as TensorProto, base64: %s"
                      % base64.urlsafe_b64encode(data).decode("ascii")) from None
    return value, dtypes.as_dtype(proto.dtype)


@register_kernel("DecodeJSONExample", CPU_ONLY)
def decode_json_example(ctx, json_examples):
    """Protobuf's JSON parser fills a tf.train.Example from each text; its bytes come out."""
    from google.protobuf import json_format  # noqa: PLC0415 - protobuf, loaded only when used

    from minitf.proto import example_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    texts_in = np.asarray(json_examples, dtype=object)
    out = np.empty(texts_in.shape, dtype=object)
    for index, value in np.ndenumerate(texts_in):
        example = example_pb2.Example()
        try:
            json_format.Parse(text(value, "replace"), example)
        except json_format.ParseError as e:
            raise invalid("Error while parsing JSON: %s" % e) from None
        out[index] = example.SerializeToString(deterministic=True)
    return out


def _split_csv(record, field_delim, use_quote_delim):
    if use_quote_delim:
        rows = list(csv.reader([record], delimiter=field_delim, quotechar='"', strict=True))
        return rows[0] if rows else [""]
    return record.split(field_delim)


def _csv_value(field, default, dtype, column, record_index, na_value):
    if field == "" or field == na_value:
        if default.size == 0:
            raise invalid("Field %d is required but missing in record %d!" % (column,
                                                                              record_index))
        return default.reshape(-1)[0]
    if dtype == dtypes.string:
        return field.encode("utf-8")
    try:
        if dtype.is_integer:
            value = int(field)
            np.array(value, dtype=dtype.as_numpy_dtype)  # overflow check
            return value
        value = float(field)
        if math.isnan(value) and field.strip().lower() not in ("nan", "-nan", "+nan"):
            raise ValueError(field)
        return value
    except (ValueError, OverflowError):
        raise invalid("Field %d in record %d is not a valid %s: %s" % (
            column, record_index, dtype.name, field)) from None


@register_kernel("DecodeCSV", CPU_ONLY)
def decode_csv(ctx, records, *record_defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
               select_cols):
    if len(field_delim) != 1:
        raise invalid("field_delim should be only 1 char")
    columns = list(select_cols) if select_cols else list(range(len(record_defaults)))
    if len(columns) != len(record_defaults):
        raise invalid("Expected %d record defaults, but got %d" % (len(columns),
                                                                  len(record_defaults)))
    flat = [text(r) for r in np.asarray(records, dtype=object).reshape(-1)]
    out = [np.empty(len(flat), dtype=t.as_numpy_dtype) for t in OUT_TYPE]
    for i, record in enumerate(flat):
        try:
            fields = _split_csv(record, field_delim, use_quote_delim)
        except csv.Error:
            raise invalid("Quoted field has to end with quote followed by delim or end, in "
                          "record %d" % i) from None
        if not select_cols and len(fields) != len(record_defaults):
            raise invalid("Expect %d fields but have %d in record %d" % (
                len(record_defaults), len(fields), i))
        for j, column in enumerate(columns):
            if column >= len(fields):
                raise invalid("Expect %d fields but have %d in record %d" % (
                    column + 1, len(fields), i))
            out[j][i] = _csv_value(fields[column], np.asarray(record_defaults[j]), OUT_TYPE[j],
                                   column, i, na_value)
    return tuple(o.reshape(records.shape) for o in out)
