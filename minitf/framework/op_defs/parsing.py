"""The OpDefs of the parsing ops: Examples, SequenceExamples, raw bytes and CSV.

`ParseExample` reads a batch of serialized `tf.train.Example`s into one
dense tensor per FixedLenFeature and one (indices, values, dense_shape)
triple per VarLenFeature; `ParseSingleExample` reads one. The sequence ops
add the feature lists of a `SequenceExample`. `DecodeCompressed` inflates zlib or gzip bytes; `SerializeTensor` and
`ParseTensor` turn a tensor into a TensorProto's bytes and back; `DecodeRaw` reinterprets
bytes as numbers, `DecodeCSV` splits lines of text into columns.

The front end reads these OpDefs to type a new Operation (the constructors
are in `minitf/ops/parsing_ops.py`); the runtime reads them to know what a
node gives (the kernels are in `minitf/kernels/cpu/parsing_kernels.py`).

Mirrors `tensorflow/core/ops/parsing_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import with_rank, with_rank_at_most
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

_SPARSE_TYPES = "list(type) >= 0"


def _dense_shape_with_batch(batch, shape):
    """[batch] + shape, where a var-length dense feature has an unknown first dim."""
    shape = tensor_shape.TensorShape(shape)
    return tensor_shape.TensorShape(batch).concatenate(shape)


def _sparse_outputs(count, rank):
    indices = [tensor_shape.TensorShape([None, rank]) for _ in range(count)]
    values = [tensor_shape.TensorShape([None]) for _ in range(count)]
    shapes = [tensor_shape.TensorShape([rank]) for _ in range(count)]
    return indices, values, shapes


def _parse_example_shape(op):
    serialized = with_rank(op.inputs[0].shape, 1, "'serialized'")
    batch = serialized.as_list()[:1]
    indices, values, shapes = _sparse_outputs(op.get_attr("Nsparse"), 2)
    dense = [_dense_shape_with_batch(batch, s) for s in op.get_attr("dense_shapes")]
    return indices + values + shapes + dense


def _parse_single_example_shape(op):
    with_rank(op.inputs[0].shape, 0, "'serialized'")
    indices, values, shapes = _sparse_outputs(op.get_attr("num_sparse"), 1)
    dense = [tensor_shape.TensorShape(s) for s in op.get_attr("dense_shapes")]
    return indices + values + shapes + dense


def _parse_sequence_example_shape(op):
    serialized = with_rank(op.inputs[0].shape, 1, "'serialized'")
    batch = serialized.as_list()[:1]
    c_indices, c_values, c_shapes = _sparse_outputs(op.get_attr("Ncontext_sparse"), 2)
    c_dense = [_dense_shape_with_batch(batch, s) for s in op.get_attr("context_dense_shapes")]
    f_indices, f_values, f_shapes = _sparse_outputs(op.get_attr("Nfeature_list_sparse"), 3)
    f_dense = [_dense_shape_with_batch(batch + [None], s)
               for s in op.get_attr("feature_list_dense_shapes")]
    lengths = [tensor_shape.TensorShape(batch) for _ in f_dense]
    return (c_indices + c_values + c_shapes + c_dense + f_indices + f_values + f_shapes
            + f_dense + lengths)


def _decode_raw_shape(op):
    return [op.inputs[0].shape.concatenate([None])]


def _decode_csv_shape(op):
    for default in op.inputs[1:]:
        with_rank_at_most(default.shape, 1)
    return [op.inputs[0].shape for _ in op.inputs[1:]]


register_op("ParseExample").input("serialized: string").input("names: string").input(
    "sparse_keys: Nsparse * string").input("dense_keys: Ndense * string").input(
    "dense_defaults: Tdense").output("sparse_indices: Nsparse * int64").output(
    "sparse_values: sparse_types").output("sparse_shapes: Nsparse * int64").output(
    "dense_values: Tdense").attr("Nsparse: int >= 0").attr("Ndense: int >= 0").attr(
    "sparse_types: " + _SPARSE_TYPES).attr("Tdense: list(type) >= 0").attr(
    "dense_shapes: list(shape) >= 0").set_shape_fn(_parse_example_shape)

register_op("ParseSingleExample").input("serialized: string").input(
    "dense_defaults: Tdense").output("sparse_indices: num_sparse * int64").output(
    "sparse_values: sparse_types").output("sparse_shapes: num_sparse * int64").output(
    "dense_values: Tdense").attr("num_sparse: int >= 0").attr(
    "sparse_keys: list(string) >= 0").attr("dense_keys: list(string) >= 0").attr(
    "sparse_types: " + _SPARSE_TYPES).attr("Tdense: list(type) >= 0").attr(
    "dense_shapes: list(shape) >= 0").set_shape_fn(_parse_single_example_shape)

register_op("ParseSequenceExample").input("serialized: string").input(
    "debug_name: string").input("context_dense_defaults: Tcontext_dense").output(
    "context_sparse_indices: Ncontext_sparse * int64").output(
    "context_sparse_values: context_sparse_types").output(
    "context_sparse_shapes: Ncontext_sparse * int64").output(
    "context_dense_values: Tcontext_dense").output(
    "feature_list_sparse_indices: Nfeature_list_sparse * int64").output(
    "feature_list_sparse_values: feature_list_sparse_types").output(
    "feature_list_sparse_shapes: Nfeature_list_sparse * int64").output(
    "feature_list_dense_values: feature_list_dense_types").output(
    "feature_list_dense_lengths: Nfeature_list_dense * int64").attr(
    "feature_list_dense_missing_assumed_empty: list(string) >= 0").attr(
    "context_sparse_keys: list(string) >= 0").attr("context_dense_keys: list(string) >= 0").attr(
    "feature_list_sparse_keys: list(string) >= 0").attr(
    "feature_list_dense_keys: list(string) >= 0").attr("Ncontext_sparse: int >= 0 = 0").attr(
    "Ncontext_dense: int >= 0 = 0").attr("Nfeature_list_sparse: int >= 0 = 0").attr(
    "Nfeature_list_dense: int >= 0 = 0").attr("context_sparse_types: list(type) >= 0 = []").attr(
    "Tcontext_dense: list(type) >= 0 = []").attr(
    "feature_list_dense_types: list(type) >= 0 = []").attr(
    "context_dense_shapes: list(shape) >= 0 = []").attr(
    "feature_list_sparse_types: list(type) >= 0 = []").attr(
    "feature_list_dense_shapes: list(shape) >= 0 = []").set_shape_fn(
    _parse_sequence_example_shape)

def _parse_tensor_shape(op):
    with_rank(op.inputs[0].shape, 0)
    return [tensor_shape.unknown_shape()]


register_op("DecodeRaw").input("bytes: string").output("output: out_type").attr(
    "out_type: {float16, float32, float64, int32, uint16, uint8, int16, int8, int64}").attr(
    "little_endian: bool = true").set_shape_fn(_decode_raw_shape)

register_op("DecodeCompressed").input("bytes: string").output("output: string").attr(
    "compression_type: string = ''").set_shape_fn(common_shapes.unchanged_shape)

# JSON Examples (protobuf's JSON mapping of tf.train.Example) to their binary form, elementwise.
register_op("DecodeJSONExample").input("json_examples: string").output(
    "binary_examples: string").set_shape_fn(common_shapes.unchanged_shape)

register_op("SerializeTensor").input("tensor: T").output("serialized: string").attr(
    "T: type").set_shape_fn(common_shapes.scalar_shape)

register_op("ParseTensor").input("serialized: string").output("output: out_type").attr(
    "out_type: type").set_shape_fn(_parse_tensor_shape)

register_op("DecodeCSV").input("records: string").input("record_defaults: OUT_TYPE").output(
    "output: OUT_TYPE").attr("OUT_TYPE: list(type)").attr(
    "field_delim: string = ','").attr("use_quote_delim: bool = true").attr(
    "na_value: string = ''").attr("select_cols: list(int) = []").set_shape_fn(
    _decode_csv_shape)
