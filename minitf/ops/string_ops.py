"""String ops: hashing strings into buckets, and the rest of `tf.strings`.

A string tensor holds bytes, the UTF-8 text of each element. The first ops
here are the small ones that turn raw features into ids, the step before an
embedding lookup:

- `string_to_hash_bucket_fast(s, n)` maps each string to `Fingerprint64(s) % n`
  (FarmHash, `minitf/graph/farmhash.py`): the same string always lands in the
  same bucket, on every machine, in every release. Feature columns'
  `categorical_column_with_hash_bucket` and the out-of-vocabulary buckets of
  lookup tables are built on it.
- `string_to_hash_bucket_strong(s, n, key)` does the same with SipHash-2-4
  under a secret key, for inputs an adversary may choose.
- `as_string(x)` formats numbers like C's printf (`tf.as_string(3)` is
  `b"3"`); integer vocabularies hash their keys through it.
- `bucketize(x, boundaries)` gives each value the index of the first boundary
  that is greater than it (intervals closed on the left, open on the right),
  what `bucketized_column` does to a numeric feature. TF keeps it private
  (`math_ops._bucketize`, op `Bucketize`); so does minitf: it is not exported
  as `tf.bucketize`.

Then the rest of `tf.strings`, each a thin constructor over one op (the
kernels are in `minitf/kernels/cpu/string_kernels.py`): joining
(`join`, `reduce_join`, `unsorted_segment_join`), splitting (`split` and
TF1's `tf.string_split`, both into a SparseTensor), slicing and measuring
(`substr`, `length`, `strip`, `lower`, `upper`), parsing numbers
(`to_number`), regular expressions (`regex_replace`, `regex_full_match`),
formatting tensors as tf.print shows them (`format`), base64, Unicode
(`unicode_transcode`, `unicode_decode`, `unicode_encode`, `unicode_split`,
`unicode_script`) and n-grams. Where TensorFlow would answer with a
RaggedTensor (decoding a vector of strings into rows of code points of
different lengths), minitf, which has none, takes one string at a time.

The kernels of the first group live in `minitf/kernels/cpu/lookup_kernels.py`,
next to the lookup tables that use them. The OpDefs are in
`minitf/framework/op_defs/string.py`.

Mirrors `tensorflow/python/ops/string_ops.py` and the string functions of
`tensorflow/python/ops/ragged/ragged_string_ops.py`.
"""

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops

__all__ = ["string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "as_string"]


# =============================================================================
# Python constructors
# =============================================================================

def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF's name
    """Hashes each string into one of `num_buckets` buckets: `Fingerprint64(s) % num_buckets`.

    Returns an int64 tensor of the input's shape. The hash is FarmHash's
    fingerprint, bit for bit TensorFlow's, so buckets agree with models
    trained by TensorFlow.
    """
    return apply_op("StringToHashBucketFast", name=name, input=input, num_buckets=num_buckets)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Hashes each string with SipHash-2-4 under `key` (two unsigned ints) into a bucket.

    Slower than the fast hash; use it when the strings may be chosen to
    collide on purpose.
    """
    return apply_op("StringToHashBucketStrong", name=name, input=input,
                    num_buckets=num_buckets, key=key)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Formats each number as a string, like C's printf.

    Integers print as `%d`; floats as `%f` (`scientific`: `%e`, `shortest`:
    `%g`) with `precision` digits after the point; `width` pads to a minimum
    width with spaces, or with `fill` when it is "0" (other `fill` flags:
    "-" pads on the right, " " and "+" mark the sign). Bools print as
    `true` / `false`.
    """
    return apply_op("AsString", name=name, input=input, precision=precision,
                    scientific=scientific, shortest=shortest, width=width, fill=fill)


def bucketize(input, boundaries, name=None):  # noqa: A002 - TF's name
    """The bucket of each value: how many `boundaries` are less than or equal to it.

    With boundaries `[0, 10, 100]`: values below 0 go to bucket 0, [0, 10) to
    1, [10, 100) to 2, 100 and above to 3. Boundaries must be sorted; they
    are float32 attrs, so values are compared against float32 boundaries.
    This is TF's private `math_ops._bucketize`; feature columns call it.
    """
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError("Expected list for 'boundaries' argument to 'bucketize' Op, not %r."
                        % (boundaries,))
    return apply_op("Bucketize", name=name, input=input, boundaries=list(boundaries))


_bucketize = bucketize  # TF's spelling: math_ops._bucketize


# =============================================================================
# tf.strings: joining, splitting, slicing
# =============================================================================

def string_join(inputs, separator="", name=None):
    """The elements of the tensors in `inputs` joined with `separator`, position by position.

    The inputs are string tensors of one shape; a scalar stands for every
    position. `tf.strings.join(["a", ["b", "c"]], "-")` is `["a-b", "a-c"]`.
    """
    return apply_op("StringJoin", name=name, inputs=inputs, separator=separator)


def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None):
    """TF1's `tf.string_split`: each string of the vector `source` cut at any byte of `sep`.

    Returns a SparseTensor whose row i holds the tokens of source[i]
    (dense_shape [len(source), most tokens]). `sep` is a set of one-byte
    delimiters, " " by default (`delimiter` is its old name); an empty `sep`
    cuts into single bytes. Empty tokens are dropped unless `skip_empty` is False.
    """
    sep = array_ops._deprecated_argument_lookup("sep", sep, "delimiter", delimiter)
    _check_sparse_result(result_type)
    with ops.name_scope(name, "StringSplit", [source]):
        delimiter = convert_to_tensor(" " if sep is None else sep, dtype=dtypes.string)
        source = convert_to_tensor(source, dtype=dtypes.string)
        indices, values, shape = apply_op("StringSplit", input=source, delimiter=delimiter,
                                          skip_empty=skip_empty)
        return SparseTensor(indices, values, shape)


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None,  # noqa: A002
          name=None):
    """`tf.strings.split`: each string cut at `sep`, as Python's `str.split` cuts.

    With `sep` None (or empty) the cuts are at runs of whitespace and the
    ends are ignored; otherwise at every occurrence of the whole `sep`
    (`"a,,b"` gives `a`, ``, `b`). At most `maxsplit` cuts per string (-1:
    no limit). Returns a SparseTensor one rank above `input`: the tokens of
    the string at position p are at [p, 0], [p, 1], ...
    """
    input = array_ops._deprecated_argument_lookup("input", input, "source", source)  # noqa: A001
    _check_sparse_result(result_type)
    with ops.name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        rank = input.shape.ndims
        if rank == 0:
            input = array_ops.expand_dims(input, 0)  # noqa: A001
        if rank in (0, 1, None):
            return _string_split_v2(input, sep, maxsplit)
        return _split_each_string(input, sep, maxsplit)


def _string_split_v2(strings, sep, maxsplit):
    sep = convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
    indices, values, shape = apply_op("StringSplitV2", input=strings, sep=sep,
                                      maxsplit=maxsplit)
    return SparseTensor(indices, values, shape)


def _split_each_string(strings, sep, maxsplit):
    """The split of a tensor of rank >= 2: split its strings as a vector, then put each
    token's row index back into the tensor's coordinates."""
    strings_shape = array_ops.shape(strings, out_type=dtypes.int64)
    flat = _string_split_v2(array_ops.reshape(strings, [-1]), sep, maxsplit)
    rows, columns = array_ops.unstack(flat.indices, num=2, axis=1)
    coordinates = array_ops.transpose(array_ops.unravel_index(rows, strings_shape))
    indices = array_ops.concat([coordinates, array_ops.expand_dims(columns, 1)], 1)
    dense_shape = array_ops.concat([strings_shape, flat.dense_shape[1:]], 0)
    return SparseTensor(indices, flat.values, dense_shape)


def _check_sparse_result(result_type):
    if result_type == "RaggedTensor":
        raise NotImplementedError("minitf has no RaggedTensor: split strings come back as a "
                                  "SparseTensor (result_type='SparseTensor')")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF's argument names
    """The `len` bytes (unit "UTF8_CHAR": characters) of each string from position `pos`.

    A negative `pos` counts from the end; a `len` past the end stops there;
    a `pos` outside [-length, length] is an InvalidArgumentError. `pos` and
    `len` have one shape, which broadcasts against `input`'s.
    """
    return apply_op("Substr", name=name, input=input, pos=pos, len=len, unit=unit)


def string_length(input, name=None, unit="BYTE"):  # noqa: A002 - TF's argument name
    """The length of each string in bytes, or in UTF-8 characters (unit "UTF8_CHAR")."""
    return apply_op("StringLength", name=name, input=input, unit=unit)


def string_strip(input, name=None):  # noqa: A002 - TF's argument name
    """Each string without its leading and trailing whitespace."""
    return apply_op("StringStrip", name=name, input=input)


def lower(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Each string in lower case: ASCII letters only, or all letters with encoding "utf-8"."""
    return apply_op("StringLower", name=name, input=input, encoding=encoding)


def upper(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Each string in upper case: ASCII letters only, or all letters with encoding "utf-8"."""
    return apply_op("StringUpper", name=name, input=input, encoding=encoding)


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """The strings of `inputs` joined along the dimensions `axis` (all of them by default).

    Along several axes, the first one listed varies fastest in the result:
    reduce_join([["a", "b"], ["c", "d"]], [0, 1]) is "acbd".
    """
    axis = array_ops._deprecated_argument_lookup("axis", axis, "reduction_indices",
                                                 reduction_indices)
    keepdims = array_ops._deprecated_argument_lookup("keepdims", keepdims, "keep_dims",
                                                     keep_dims)
    with ops.name_scope(name, "ReduceJoin", [inputs, axis]):
        inputs = convert_to_tensor(inputs)
        if axis is None:
            axis = _all_dimensions_last_first(inputs)
        return apply_op("ReduceJoin", inputs=inputs, reduction_indices=axis,
                        keep_dims=bool(keepdims), separator=separator)


def _all_dimensions_last_first(x):
    if x.shape.ndims is not None:
        return constant(np.arange(x.shape.ndims - 1, -1, -1), dtype=dtypes.int32)
    return math_ops.range(array_ops.rank(x) - 1, -1, -1)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """output[i] = the strings whose segment id is i, joined with `separator` in their order.

    A segment no id names is the empty string.
    """
    return apply_op("UnsortedSegmentJoin", name=name, inputs=inputs, segment_ids=segment_ids,
                    num_segments=num_segments, separator=separator)


# =============================================================================
# tf.strings: numbers, hashes, regular expressions, formatting
# =============================================================================

def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    """The number each string spells, as `out_type`; InvalidArgumentError if one spells none.

    Floats read as C's strtod reads them (`"1e3"`, `" 7 "`, `"inf"`,
    `"0x10"`); integers are decimal and must fit `out_type`.
    """
    return apply_op("StringToNumber", name=name, string_tensor=string_tensor,
                    out_type=out_type)


def string_to_hash_bucket(string_tensor, num_buckets, name=None):
    """Each string hashed into one of `num_buckets` with TensorFlow's Hash64.

    The oldest of the three hashing ops; Hash64 is not promised to stay the
    same across releases, which is why `to_hash_bucket_fast` exists.
    """
    return apply_op("StringToHashBucket", name=name, string_tensor=string_tensor,
                    num_buckets=num_buckets)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Every match of `pattern` (the first only, `replace_global=False`) replaced by `rewrite`.

    `rewrite` may name groups of the match as `\\1`, `\\2`, ... With a Python
    string pattern and rewrite the op is StaticRegexReplace, which compiles
    the pattern once; with tensors it is RegexReplace.
    """
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", name=name, input=input, pattern=pattern,
                        rewrite=rewrite, replace_global=replace_global)
    return apply_op("RegexReplace", name=name, input=input, pattern=pattern, rewrite=rewrite,
                    replace_global=replace_global)


def regex_full_match(input, pattern, name=None):  # noqa: A002 - TF's argument name
    """True where the whole string matches `pattern` (StaticRegexFullMatch for a Python string)."""
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", name=name, input=input, pattern=pattern)
    return apply_op("RegexFullMatch", name=name, input=input, pattern=pattern)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """`template` with each `placeholder` replaced by the next tensor of `inputs`, as tf.print
    shows it: `summarize` elements at each end of every dimension, `...` between."""
    if isinstance(inputs, ops.Tensor):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError("The template expects %d tensors, but the inputs only has %d. Please "
                         "ensure the number of placeholders in template matches inputs length."
                         % (template.count(placeholder), len(inputs)))
    return apply_op("StringFormat", name=name, inputs=inputs, template=template,
                    placeholder=placeholder, summarize=summarize)


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's argument name
    """Each string in web-safe base64 (`-` and `_` for `+` and `/`), `=` padding if `pad`."""
    return apply_op("EncodeBase64", name=name, input=input, pad=pad)


def decode_base64(input, name=None):  # noqa: A002 - TF's argument name
    """Each web-safe base64 string decoded (with or without its `=` padding)."""
    return apply_op("DecodeBase64", name=name, input=input)


# =============================================================================
# tf.strings: Unicode
# =============================================================================

def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Each string re-encoded from `input_encoding` to `output_encoding`.

    Encodings: UTF-8, UTF-16-BE, UTF-32-BE (and ISO-8859-1 or US-ASCII to
    read). A malformed sequence is an InvalidArgumentError (`errors="strict"`),
    dropped ("ignore") or `replacement_char` ("replace").
    """
    return apply_op("UnicodeTranscode", name=name, input=input, input_encoding=input_encoding,
                    output_encoding=output_encoding, errors=errors,
                    replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters)


def unicode_script(input, name=None):  # noqa: A002 - TF's argument name
    """The ICU script code of each int32 code point (0 Common, 25 Latin, 17 Han; -1 if none)."""
    return apply_op("UnicodeScript", name=name, input=input)


def _scalar_only(tensor, function):
    """A string tensor, which must be a scalar: on a tensor of strings TensorFlow answers with
    a RaggedTensor (one row per string), which minitf does not have."""
    if tensor.shape.ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if tensor.shape.ndims != 0:
        raise NotImplementedError(
            "tf.strings.%s of a tensor of rank %d gives a RaggedTensor in TensorFlow, which "
            "minitf does not have; call it on one string (a scalar) at a time"
            % (function, tensor.shape.ndims))


def _decode_scalar(input, input_encoding, errors, replacement_char,  # noqa: A002
                   replace_control_characters, name, default_name, function, with_offsets):
    with ops.name_scope(name, default_name, [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        _scalar_only(input, function)
        flat = array_ops.reshape(input, [-1])
        outputs = apply_op("UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode",
                           input=flat, input_encoding=input_encoding, errors=errors,
                           replacement_char=replacement_char,
                           replace_control_characters=replace_control_characters)
        return outputs[1:] if with_offsets else outputs[1]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The code points (int32) of the string `input`, decoded from `input_encoding`."""
    return _decode_scalar(input, input_encoding, errors, replacement_char,
                          replace_control_characters, name, "UnicodeDecode", "unicode_decode",
                          with_offsets=False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=0xFFFD, replace_control_characters=False,
                                name=None):
    """(code points, the byte offset where each one starts) of the string `input`."""
    return tuple(_decode_scalar(input, input_encoding, errors, replacement_char,
                                replace_control_characters, name, "UnicodeDecodeWithOffsets",
                                "unicode_decode_with_offsets", with_offsets=True))


def _split_scalar(input, input_encoding, errors, replacement_char, name,  # noqa: A002
                  default_name, function, with_offsets):
    """The characters of one string, each re-encoded alone: decode, then encode one per row."""
    with ops.name_scope(name, default_name, [input]):
        decoded = _decode_scalar(input, input_encoding, errors, replacement_char, False, None,
                                 "UnicodeDecode", function, with_offsets)
        code_points = decoded[0] if with_offsets else decoded
        one_per_row = math_ops.range(array_ops.size(code_points, out_type=dtypes.int64) + 1)
        chars = apply_op("UnicodeEncode", input_values=code_points, input_splits=one_per_row,
                         output_encoding=input_encoding, errors=errors,
                         replacement_char=replacement_char)
        return (chars, decoded[1]) if with_offsets else chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
    """The characters of the string `input`, each a string in `input_encoding`."""
    return _split_scalar(input, input_encoding, errors, replacement_char, name, "UnicodeSplit",
                         "unicode_split", with_offsets=False)


def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533, name=None):
    """(the characters of the string `input`, the byte offset where each one starts)."""
    return _split_scalar(input, input_encoding, errors, replacement_char, name, "UnicodeSplit",
                         "unicode_split_with_offsets", with_offsets=True)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   name=None):
    """The code points along the last axis of `input` (int32) encoded as one string each.

    A vector of code points gives one string (a scalar); a [n, k] tensor n strings.
    """
    with ops.name_scope(name, "UnicodeEncode", [input]):
        input = convert_to_tensor(input, dtype=dtypes.int32)  # noqa: A001
        if input.shape.ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if input.shape.ndims == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        input_shape, splits = _rows_of_last_axis(input)
        strings = apply_op("UnicodeEncode", input_values=array_ops.reshape(input, [-1]),
                           input_splits=splits, output_encoding=output_encoding, errors=errors,
                           replacement_char=replacement_char)
        return array_ops.reshape(strings, input_shape[:-1])


def _rows_of_last_axis(x):
    """(x's shape, the row splits [0, k, 2k, ...] of its rows along the last axis, of k)."""
    shape = array_ops.shape(x, out_type=dtypes.int64)
    rows = math_ops.reduce_prod(shape[:-1])
    return shape, math_ops.range(rows + 1) * shape[-1]


def bytes_split(input, name=None):  # noqa: A002 - TF's argument name
    """The bytes of the string `input`, each a string of length 1."""
    with ops.name_scope(name, "StringsByteSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        _scalar_only(input, "bytes_split")
        _, values, _ = apply_op("StringSplit", input=array_ops.expand_dims(input, 0),
                                delimiter="", skip_empty=False)
        return values


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of the last axis of `data`: its runs of `ngram_width` strings, joined.

    With `pad_values` (a string, or a (left, right) pair) each sequence is
    first padded at both ends, by `padding_width` pads or, by default,
    ngram_width - 1. `ngram_width` may be a list: the n-grams of each width
    follow each other. `preserve_short_sequences` makes a sequence too short
    for any n-gram give one n-gram of all of it.
    """
    left_pad, right_pad = _ngram_pads(pad_values)
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for width in widths:
        if width < 1:
            raise ValueError("All ngram_widths must be greater than 0. Got %s" % ngram_width)
    if pad_values is None:
        padding_width = 0
    elif padding_width is None:
        padding_width = -1
    with ops.name_scope(name, "StringNGrams", [data]):
        data = convert_to_tensor(data, dtype=dtypes.string, name="data")
        if data.shape.ndims is None:
            raise ValueError("Rank of data must be known.")
        if data.shape.ndims == 0:
            raise ValueError("Data must have rank>0")
        data_shape, splits = _rows_of_last_axis(data)
        grams, _ = apply_op("StringNGrams", data=array_ops.reshape(data, [-1]),
                            data_splits=splits, separator=separator, ngram_widths=widths,
                            left_pad=left_pad, right_pad=right_pad, pad_width=padding_width,
                            preserve_short_sequences=preserve_short_sequences)
        return array_ops.reshape(grams, array_ops.concat([data_shape[:-1], [-1]], 0))


def _ngram_pads(pad_values):
    if pad_values is None:
        return "", ""
    if isinstance(pad_values, (list, tuple)):
        if not all(isinstance(v, (str, bytes)) for v in pad_values[:2]):
            raise ValueError("pad_values must be a string, tuple of strings, or None.")
        return pad_values[0], pad_values[1]
    if not isinstance(pad_values, (str, bytes)):
        raise ValueError("pad_values must be a string, tuple of strings, or None.")
    return pad_values, pad_values
