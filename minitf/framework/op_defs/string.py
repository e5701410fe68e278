"""The OpDefs of the string ops.

First those the feature columns use: hashing strings into buckets
(StringToHashBucketFast, the keyed StringToHashBucketStrong), AsString, and
Bucketize (a math op in TensorFlow, kept here beside the other ops that
turn raw features into ids); every output has its input's shape. Then the
rest of `tf.strings`: joining, splitting and slicing strings, parsing
numbers, regular expressions, formatting tensors into text, base64, and
Unicode (transcoding, code points, scripts, n-grams).

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/string_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/lookup_kernels.py` for the first group,
`minitf/kernels/cpu/string_kernels.py` for the rest).

Mirrors `tensorflow/core/ops/string_ops.cc` and the Bucketize op of
`tensorflow/core/ops/math_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import (constant_int, constant_ints, merge_shapes, shape_text,
                                            with_rank)
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

# =============================================================================
# OpDefs (every output has its input's shape)
# =============================================================================

register_op("StringToHashBucketFast").input("input: string").output("output: int64").attr(
    "num_buckets: int >= 1").set_shape_fn(common_shapes.unchanged_shape)

register_op("StringToHashBucketStrong").input("input: string").output("output: int64").attr(
    "num_buckets: int >= 1").attr("key: list(int)").set_shape_fn(common_shapes.unchanged_shape)

register_op("AsString").input("input: T").output("output: string").attr(
    "T: {int8, int16, int32, int64, float32, float64, bool}").attr(
    "precision: int = -1").attr("scientific: bool = false").attr(
    "shortest: bool = false").attr("width: int = -1").attr(
    "fill: string = ''").set_shape_fn(common_shapes.unchanged_shape)

register_op("Bucketize").input("input: T").output("output: int32").attr(
    "T: {int32, int64, float32, float64}").attr("boundaries: list(float)").set_shape_fn(
    common_shapes.unchanged_shape)


# =============================================================================
# Joining, splitting and slicing strings
# =============================================================================

def _string_join_shape(op):
    """Scalars broadcast; every other input must have one shape, the output's."""
    shape = tensor_shape.scalar()
    for t in op.inputs:
        if t.shape.ndims == 0:
            continue
        shape = t.shape if shape.ndims == 0 else merge_shapes(shape, t.shape)
    return [shape]


register_op("StringJoin").input("inputs: N * string").output("output: string").attr(
    "N: int >= 1").attr("separator: string = ''").set_shape_fn(_string_join_shape)


def _string_split_shape(op):
    """(indices [?, 2], values [?], shape [2]): one row of tokens per input string."""
    with_rank(op.inputs[0].shape, 1)
    with_rank(op.inputs[1].shape, 0)
    return [tensor_shape.TensorShape([None, 2]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([2])]


# StringSplit splits at any one of the delimiter's bytes; StringSplitV2 at the whole
# separator, or at runs of whitespace when the separator is empty.
register_op("StringSplit").input("input: string").input("delimiter: string").output(
    "indices: int64").output("values: string").output("shape: int64").attr(
    "skip_empty: bool = true").set_shape_fn(_string_split_shape)
register_op("StringSplitV2").input("input: string").input("sep: string").output(
    "indices: int64").output("values: string").output("shape: int64").attr(
    "maxsplit: int = -1").set_shape_fn(_string_split_shape)


def _substr_shape(op):
    """pos and len have one shape, which broadcasts with the input's."""
    pos_shape, len_shape = op.inputs[1].shape, op.inputs[2].shape
    if pos_shape.ndims is not None and len_shape.ndims is not None:
        if pos_shape.ndims != len_shape.ndims or not pos_shape.is_compatible_with(len_shape):
            raise ValueError("pos and len shapes must match: %s vs. %s"
                             % (shape_text(pos_shape), shape_text(len_shape)))
    return [common_shapes.broadcast_shapes(op.inputs[0].shape, pos_shape)]


_UNIT = "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"

register_op("Substr").input("input: string").input("pos: T").input("len: T").output(
    "output: string").attr("T: {int32, int64}").attr(_UNIT).set_shape_fn(_substr_shape)
register_op("StringLength").input("input: string").output("output: int32").attr(
    _UNIT).set_shape_fn(common_shapes.unchanged_shape)
register_op("StringStrip").input("input: string").output("output: string").set_shape_fn(
    common_shapes.unchanged_shape)
register_op("StringLower").input("input: string").output("output: string").attr(
    "encoding: string = ''").set_shape_fn(common_shapes.unchanged_shape)
register_op("StringUpper").input("input: string").output("output: string").attr(
    "encoding: string = ''").set_shape_fn(common_shapes.unchanged_shape)


def _reduce_join_shape(op):
    """The input's shape without the reduced dims (or with them as 1s, keep_dims)."""
    in_shape = op.inputs[0].shape
    axes = constant_ints(op.inputs[1])
    if axes is None or in_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rank = in_shape.ndims
    reduced = set()
    for axis in axes:
        if not -rank <= axis < rank:
            raise ValueError("Invalid reduction dimension %d for input with %d dimensions."
                             % (axis, rank))
        if axis % rank in reduced:
            raise ValueError("Duplicate reduction dimension %d" % axis)
        reduced.add(axis % rank)
    keep_dims = op.get_attr("keep_dims")
    dims = [1 if i in reduced else d for i, d in enumerate(in_shape.as_list())
            if keep_dims or i not in reduced]
    return [tensor_shape.TensorShape(dims)]


register_op("ReduceJoin").input("inputs: string").input("reduction_indices: int32").output(
    "output: string").attr("keep_dims: bool = false").attr(
    "separator: string = ''").set_shape_fn(_reduce_join_shape)


def _unsorted_segment_join_shape(op):
    """[num_segments] + the input's dims after those that segment_ids covers."""
    in_shape, ids_shape = op.inputs[0].shape, op.inputs[1].shape
    num_segments = constant_int(op.inputs[2])
    if in_shape.ndims is None or ids_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    merge_shapes(in_shape[:ids_shape.ndims], ids_shape)
    return [tensor_shape.TensorShape([num_segments]).concatenate(in_shape[ids_shape.ndims:])]


register_op("UnsortedSegmentJoin").input("inputs: string").input(
    "segment_ids: Tindices").input("num_segments: Tnumsegments").output(
    "output: string").attr("separator: string = ''").attr("Tindices: {int32, int64}").attr(
    "Tnumsegments: {int32, int64} = int32").set_shape_fn(_unsorted_segment_join_shape)


# =============================================================================
# Numbers, hashes, regular expressions, formatting, base64
# =============================================================================

register_op("StringToNumber").input("string_tensor: string").output(
    "output: out_type").attr("out_type: {float32, float64, int32, int64} = float32").set_shape_fn(
    common_shapes.unchanged_shape)

# The oldest hash: TensorFlow's own Hash64, not a fingerprint (it may change between
# releases, which is why to_hash_bucket_fast replaced it).
register_op("StringToHashBucket").input("string_tensor: string").output(
    "output: int64").attr("num_buckets: int >= 1").set_shape_fn(common_shapes.unchanged_shape)


def _pattern_shape(op):
    for t in op.inputs[1:]:
        with_rank(t.shape, 0)
    return [op.inputs[0].shape]


register_op("RegexReplace").input("input: string").input("pattern: string").input(
    "rewrite: string").output("output: string").attr(
    "replace_global: bool = true").set_shape_fn(_pattern_shape)
register_op("StaticRegexReplace").input("input: string").output("output: string").attr(
    "pattern: string").attr("rewrite: string").attr(
    "replace_global: bool = true").set_shape_fn(common_shapes.unchanged_shape)
register_op("RegexFullMatch").input("input: string").input("pattern: string").output(
    "output: bool").set_shape_fn(_pattern_shape)
register_op("StaticRegexFullMatch").input("input: string").output("output: bool").attr(
    "pattern: string").set_shape_fn(common_shapes.unchanged_shape)


def _string_format_shape(op):
    template, placeholder = op.get_attr("template"), op.get_attr("placeholder")
    expected = template.count(placeholder) if placeholder else 0
    if expected != len(op.inputs):
        raise ValueError("num placeholders in template and num inputs must match: %d vs. %d"
                         % (expected, len(op.inputs)))
    return [tensor_shape.scalar()]


register_op("StringFormat").input("inputs: T").output("output: string").attr(
    "T: list(type) >= 0").attr("template: string = '%s'").attr(
    "placeholder: string = '%s'").attr("summarize: int = 3").set_shape_fn(_string_format_shape)

# Base64 with the web-safe alphabet (- and _ for + and /), as TensorFlow writes it.
register_op("EncodeBase64").input("input: string").output("output: string").attr(
    "pad: bool = false").set_shape_fn(common_shapes.unchanged_shape)
register_op("DecodeBase64").input("input: string").output("output: string").set_shape_fn(
    common_shapes.unchanged_shape)


# =============================================================================
# Unicode: transcoding, decoding to code points and back, scripts, n-grams
# =============================================================================

_ERRORS = "errors: {'strict', 'replace', 'ignore'} = 'replace'"
_SPLITS = "Tsplits: {int32, int64} = int64"

register_op("UnicodeTranscode").input("input: string").output("output: string").attr(
    "input_encoding: string").attr(
    "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}").attr(_ERRORS).attr(
    "replacement_char: int = 65533").attr("replace_control_characters: bool = false"
                                          ).set_shape_fn(common_shapes.unchanged_shape)
register_op("UnicodeScript").input("input: int32").output("output: int32").set_shape_fn(
    common_shapes.unchanged_shape)


def _unicode_decode_shape(op):
    """(row_splits [n+1], char_values [?], ...) for a vector of n strings."""
    in_shape = op.inputs[0].shape
    rows = in_shape.num_elements() if in_shape.is_fully_defined() else None
    splits = tensor_shape.TensorShape([None if rows is None else rows + 1])
    return [splits] + [tensor_shape.TensorShape([None])] * (len(op.outputs) - 1)


def _unicode_decode_op(name, with_offsets):
    builder = register_op(name).input("input: string").output("row_splits: Tsplits").output(
        "char_values: int32")
    if with_offsets:
        builder.output("char_to_byte_starts: int64")
    builder.attr("input_encoding: string").attr(_ERRORS).attr(
        "replacement_char: int = 65533").attr("replace_control_characters: bool = false").attr(
        _SPLITS).set_shape_fn(_unicode_decode_shape)


_unicode_decode_op("UnicodeDecode", with_offsets=False)
_unicode_decode_op("UnicodeDecodeWithOffsets", with_offsets=True)


def _unicode_encode_shape(op):
    """One string per row: one fewer than there are splits."""
    with_rank(op.inputs[0].shape, 1)
    splits = with_rank(op.inputs[1].shape, 1)
    rows = splits[0].value
    return [tensor_shape.TensorShape([None if rows is None else rows - 1])]


register_op("UnicodeEncode").input("input_values: int32").input(
    "input_splits: Tsplits").output("output: string").attr(_ERRORS).attr(
    "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}").attr(
    "replacement_char: int = 65533").attr(_SPLITS).set_shape_fn(_unicode_encode_shape)


def _string_ngrams_shape(op):
    with_rank(op.inputs[0].shape, 1)
    splits = with_rank(op.inputs[1].shape, 1)
    return [tensor_shape.TensorShape([None]), splits]


register_op("StringNGrams").input("data: string").input("data_splits: Tsplits").output(
    "ngrams: string").output("ngrams_splits: Tsplits").attr("separator: string").attr(
    "ngram_widths: list(int) >= 0").attr("left_pad: string").attr("right_pad: string").attr(
    "pad_width: int").attr("preserve_short_sequences: bool").attr(_SPLITS).set_shape_fn(
    _string_ngrams_shape)
