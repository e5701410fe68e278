"""Kernels of the string ops: join, split, slice, parse, match, format, transcode.

A string tensor is a NumPy object array of `bytes`, the UTF-8 text of each
element, as a TF string tensor holds bytes. The kernels work element by
element in Python (there is nothing for `ctx.xp` to vectorize in text), so
they are registered for the CPU only, as TensorFlow registers its string
kernels; the placer puts them there.

Where TensorFlow calls a C++ library, minitf calls Python's:

- regular expressions are RE2's in TensorFlow, Python's `re` here. The two
  agree on the common syntax (classes, groups, repetition, `\\1` in a
  rewrite); RE2 has no look-around or backreferences in patterns, `re` does.
  Patterns see the text as Unicode (`.` is one character, not one byte), as
  RE2's UTF-8 mode does.
- Unicode is ICU's in TensorFlow, Python's codecs here: a malformed sequence
  is replaced, dropped or refused one maximal ill-formed subsequence at a
  time in both. Lower- and upper-casing of UTF-8 text uses Python's case
  tables, and a script is looked up in ICU's table as TensorFlow recorded it
  (`data/unicode_scripts.json`, written by scripts/record_unicode_scripts.py).

Mirrors `tensorflow/core/kernels/string_join_op.cc`, `string_split_op.cc`,
`substr_op.cc`, `string_length_op.cc`, `string_strip_op.cc`,
`string_lower_op.cc`, `string_upper_op.cc`, `reduce_join_op.cc`,
`unsorted_segment_join_op.cc`, `string_to_number_op.cc`,
`string_to_hash_bucket_op.cc` (with `core/lib/hash/hash.cc`),
`regex_replace_op.cc`, `regex_full_match_op.cc`, `string_format_op.cc` (with
`Tensor::SummarizeValue`), `base64_ops.cc`, `unicode_ops.cc`,
`unicode_script_op.cc` and `string_ngrams_op.cc`.
"""

import base64
import binascii
import bisect
import codecs
import functools
import json
import pathlib
import re

import numpy as np

from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.kernel_util import host_array, invalid, shape_text


def _strings(ctx, value):
    """A string tensor as a host object array of bytes (str elements encoded as UTF-8)."""
    array = np.asarray(host_array(ctx, value), dtype=object)
    return _map(lambda s: s.encode("utf-8") if isinstance(s, str) else bytes(s), array)


def _map(fn, array, dtype=object):
    """`fn` applied to every element of `array`, in an array of the same shape."""
    out = np.empty(array.shape, dtype=dtype)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, item in enumerate(flat_in):
        flat_out[i] = fn(item)
    return out


def _host_ints(ctx, value):
    return np.asarray(host_array(ctx, value)).astype(np.int64)


def _sparse_tokens(rows):
    """(indices, values, shape) of a SparseTensor holding row i's tokens at [i, 0..]."""
    indices = [(i, j) for i, tokens in enumerate(rows) for j in range(len(tokens))]
    values = [token for tokens in rows for token in tokens]
    width = max((len(tokens) for tokens in rows), default=0)
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), _object_vector(values),
            np.array([len(rows), width], dtype=np.int64))


def _object_vector(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


# =============================================================================
# Joining, splitting, slicing
# =============================================================================

@register_kernel("StringJoin", ("CPU",))
def string_join(ctx, *inputs, separator):
    inputs = [_strings(ctx, v) for v in inputs]
    shape = None
    for value in inputs:
        if value.ndim == 0:
            continue
        if shape is not None and value.shape != shape:
            raise invalid("Input shapes do not match: %s vs. %s"
                          % (shape_text(shape), shape_text(value.shape)))
        shape = value.shape
    shape = () if shape is None else shape
    columns = [np.broadcast_to(v, shape).reshape(-1) for v in inputs]
    joined = [separator.encode("utf-8").join(parts) for parts in zip(*columns)]
    return _object_vector(joined).reshape(shape)


def _check_split_inputs(strings, separator, what):
    if strings.ndim != 1:
        raise invalid("input must be a vector, got shape: %s" % shape_text(strings.shape))
    if separator.ndim != 0:
        raise invalid("%s must be a scalar, got shape: %s" % (what, shape_text(separator.shape)))


@register_kernel("StringSplit", ("CPU",))
def string_split(ctx, strings, delimiter, *, skip_empty):
    """Splits at any one byte of `delimiter`; an empty delimiter splits into bytes."""
    strings, delimiter = _strings(ctx, strings), _strings(ctx, delimiter)
    _check_split_inputs(strings, delimiter, "delimiter")
    delimiter = delimiter[()]
    rows = []
    for s in strings:
        if not delimiter:
            tokens = [s[i:i + 1] for i in range(len(s))]
        else:
            tokens = re.split(b"[" + re.escape(delimiter) + b"]", s)
        rows.append([t for t in tokens if t or not skip_empty])
    return _sparse_tokens(rows)


@register_kernel("StringSplitV2", ("CPU",))
def string_split_v2(ctx, strings, sep, *, maxsplit):
    """Splits at `sep`, or at runs of whitespace (ends ignored) when it is empty."""
    strings, sep = _strings(ctx, strings), _strings(ctx, sep)
    _check_split_inputs(strings, sep, "sep")
    sep = sep[()] or None
    return _sparse_tokens([s.split(sep, maxsplit) for s in strings])


def _utf8_char_starts(s):
    """The byte offset of every character of UTF-8 bytes `s` (a byte not 10xxxxxx starts one)."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80]


@register_kernel("Substr", ("CPU",))
def substr(ctx, strings, pos, length, *, unit):
    strings, pos, length = _strings(ctx, strings), _host_ints(ctx, pos), _host_ints(ctx, length)
    if pos.shape != length.shape:
        raise invalid("pos and len should have the same shape, got: %s vs. %s"
                      % (shape_text(pos.shape), shape_text(length.shape)))
    try:
        shape = np.broadcast_shapes(strings.shape, pos.shape)
    except ValueError:
        raise invalid("Incompatible shapes: %s vs. %s" % (shape_text(strings.shape),
                                                          shape_text(pos.shape))) from None
    flat = [np.broadcast_to(v, shape).reshape(-1) for v in (strings, pos, length)]
    out = np.empty(len(flat[0]), dtype=object)
    for i, (s, p, n) in enumerate(zip(*flat)):
        out[i] = _substring(s, int(p), int(n), unit, i)
    return out.reshape(shape)


def _substring(s, pos, length, unit, index):
    starts = _utf8_char_starts(s) if unit == "UTF8_CHAR" else range(len(s))
    size = len(starts)
    if not -size <= pos <= size:
        raise invalid("pos %d out of range for string b'%s' at index %d"
                      % (pos, s.decode("utf-8", "replace"), index))
    if pos < 0:
        pos += size
    end = min(pos + max(length, 0), size)
    begin_byte = starts[pos] if pos < size else len(s)
    end_byte = starts[end] if end < size else len(s)
    return s[begin_byte:end_byte]


@register_kernel("StringLength", ("CPU",))
def string_length(ctx, strings, *, unit):
    strings = _strings(ctx, strings)
    measure = len if unit == "BYTE" else (lambda s: len(_utf8_char_starts(s)))
    return _map(measure, strings, dtype=np.int32)


@register_kernel("StringStrip", ("CPU",))
def string_strip(ctx, strings):
    """Leading and trailing ASCII whitespace removed."""
    return _map(lambda s: s.strip(b" \t\n\v\f\r"), _strings(ctx, strings))


def _case_kernel(op_type, ascii_case, text_case):
    @register_kernel(op_type, ("CPU",))
    def kernel(ctx, strings, *, encoding):
        """ASCII letters only; with encoding "utf-8", every letter of the decoded text."""
        if encoding.lower() not in ("", "utf-8"):
            raise invalid("encoding must be '' or 'utf-8', got '%s'" % encoding)
        if encoding:
            change = lambda s: text_case(s.decode("utf-8", "surrogateescape")).encode(  # noqa: E731
                "utf-8", "surrogateescape")
        else:
            change = ascii_case
        return _map(change, _strings(ctx, strings))
    return kernel


_case_kernel("StringLower", bytes.lower, str.lower)
_case_kernel("StringUpper", bytes.upper, str.upper)


@register_kernel("ReduceJoin", ("CPU",))
def reduce_join(ctx, strings, reduction_indices, *, keep_dims, separator):
    """Joins along each reduced dimension in turn, the first one listed innermost."""
    strings = _strings(ctx, strings)
    rank = strings.ndim
    reduced = []
    for axis in _host_ints(ctx, reduction_indices).reshape(-1).tolist():
        if not -rank <= axis < rank:
            raise errors.OutOfRangeError(None, None, "Invalid reduction dimension %d for input "
                                         "with %d dimension(s)" % (axis, rank))
        if axis % rank in reduced:
            raise invalid("Duplicate reduction dimension %d" % axis)
        reduced.append(axis % rank)
    for axis in reduced:
        strings = _join_along(strings, axis, separator.encode("utf-8"))
    if not keep_dims:
        strings = strings.reshape([d for i, d in enumerate(strings.shape) if i not in reduced])
    return strings


def _join_along(strings, axis, sep):
    """`strings` with the elements along `axis` joined into one (that dimension becomes 1)."""
    moved = np.moveaxis(strings, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    joined = _object_vector([sep.join(row) for row in rows]).reshape(moved.shape[:-1] + (1,))
    return np.moveaxis(joined, -1, axis)


@register_kernel("UnsortedSegmentJoin", ("CPU",))
def unsorted_segment_join(ctx, strings, segment_ids, num_segments, *, separator):
    """output[i] = the slices of `strings` whose segment id is i, joined in order."""
    strings, ids = _strings(ctx, strings), _host_ints(ctx, segment_ids)
    count = int(_host_ints(ctx, num_segments).reshape(-1)[0])
    if strings.shape[:ids.ndim] != ids.shape:
        raise invalid("segment_ids.shape = %s does not prefix data.shape = %s"
                      % (shape_text(ids.shape), shape_text(strings.shape)))
    if ids.size and (ids.min() < 0 or ids.max() >= count):
        raise invalid("segment_ids are not allowed to exceed num_segments or to have negative "
                      "values.")
    row_shape = strings.shape[ids.ndim:]
    rows = strings.reshape(ids.size, -1)
    sep = separator.encode("utf-8")
    out = np.full((count, rows.shape[1]), b"", dtype=object)
    for segment in range(count):
        members = rows[ids.reshape(-1) == segment]
        for column in range(rows.shape[1]):
            out[segment, column] = sep.join(members[:, column])
    return out.reshape((count,) + row_shape)


# =============================================================================
# Numbers and hashes
# =============================================================================

_INT_TEXT = re.compile(rb"\s*[+-]?\d+\s*\Z")
_HEX_FLOAT_TEXT = re.compile(rb"\s*[+-]?0[xX]")


def _parse_number(text, np_type):
    """The number C's strtod/strtol read in `text` (spaces around allowed); None if none."""
    if np.issubdtype(np_type, np.integer):
        if not _INT_TEXT.match(text):
            return None
        value = int(text)
        info = np.iinfo(np_type)
        return value if info.min <= value <= info.max else None
    if b"_" in text or not text.strip():
        return None
    try:
        if _HEX_FLOAT_TEXT.match(text):
            return float.fromhex(text.decode("ascii").strip())
        return float(text)
    except (ValueError, UnicodeDecodeError):
        return None


@register_kernel("StringToNumber", ("CPU",))
def string_to_number(ctx, strings, *, out_type):
    strings = _strings(ctx, strings)
    np_type = out_type.as_numpy_dtype
    out = np.empty(strings.shape, dtype=np_type)
    flat = out.reshape(-1)
    with np.errstate(over="ignore"):
        for i, text in enumerate(strings.reshape(-1)):
            value = _parse_number(text, np_type)
            if value is None:
                raise invalid("StringToNumberOp could not correctly convert string: %s"
                              % text.decode("utf-8", "replace"))
            flat[i] = value
    return out


_MASK64 = (1 << 64) - 1
_HASH64_MUL = 0xc6a4a7935bd1e995
_HASH64_SEED = 0xDECAFCAFFE


def hash64(data, seed=_HASH64_SEED):
    """TensorFlow's Hash64 (`core/lib/hash/hash.cc`), a MurmurHash2 of 64 bits, of bytes `data`."""
    h = (seed ^ (len(data) * _HASH64_MUL)) & _MASK64
    whole = len(data) - len(data) % 8
    for i in range(0, whole, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * _HASH64_MUL) & _MASK64
        k ^= k >> 47
        k = (k * _HASH64_MUL) & _MASK64
        h = ((h ^ k) * _HASH64_MUL) & _MASK64
    tail = data[whole:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * _HASH64_MUL) & _MASK64
    h ^= h >> 47
    h = (h * _HASH64_MUL) & _MASK64
    return h ^ (h >> 47)


@register_kernel("StringToHashBucket", ("CPU",))
def string_to_hash_bucket(ctx, strings, *, num_buckets):
    return _map(lambda s: hash64(s) % num_buckets, _strings(ctx, strings), dtype=np.int64)


# =============================================================================
# Regular expressions
# =============================================================================

@functools.lru_cache(maxsize=256)
def _compile(pattern):
    """`pattern` (UTF-8 bytes) compiled as a Unicode regular expression."""
    text = pattern.decode("utf-8", "surrogateescape")
    try:
        return re.compile(text)
    except re.error as e:
        raise invalid("Invalid pattern: %s, error: %s" % (text, e)) from None


def _as_text(s):
    return s.decode("utf-8", "surrogateescape")


def _as_bytes(text):
    return text.encode("utf-8", "surrogateescape")


def _replace_all(strings, pattern, rewrite, replace_global):
    regex = _compile(pattern)
    pieces, complete = _re2_rewrite(_as_text(rewrite), regex.groups)
    if pieces is None or not (complete or replace_global):
        return _map(lambda s: s, strings)  # RE2 refuses the rewrite: nothing is replaced
    count = 0 if replace_global else 1

    def replacement(match):
        return "".join(piece if isinstance(piece, str) else (match.group(piece) or "")
                       for piece in pieces)

    return _map(lambda s: _as_bytes(regex.sub(replacement, _as_text(s), count=count)), strings)


def _re2_rewrite(rewrite, group_count):
    """RE2's rewrite string as (pieces, complete): literal text, or the number of a group.

    `\\0`..`\\9` stand for the groups (a group that took no part is empty),
    `\\\\` for a backslash. RE2 signals a bad rewrite with no error TensorFlow
    passes on: a group the pattern lacks leaves every string as it is
    (pieces None); another escape, such as `\\n`, ends the rewrite there
    (complete False), which a global replace still applies and a first-
    match replace does not.
    """
    pieces = []
    position = 0
    while position < len(rewrite):
        backslash = rewrite.find("\\", position)
        if backslash < 0:
            pieces.append(rewrite[position:])
            break
        pieces.append(rewrite[position:backslash])
        escaped = rewrite[backslash + 1:backslash + 2]
        if escaped.isdigit() and escaped.isascii():
            pieces.append(int(escaped))
        elif escaped == "\\":
            pieces.append("\\")
        else:
            return _unless_a_group_is_missing(pieces, rewrite, group_count), False
        position = backslash + 2
    return _unless_a_group_is_missing(pieces, rewrite, group_count), True


def _unless_a_group_is_missing(pieces, rewrite, group_count):
    asked = [int(d) for d in re.findall(r"\\([0-9])", rewrite.replace("\\\\", ""))]
    return None if asked and max(asked) > group_count else pieces


def _full_match(strings, pattern):
    regex = _compile(pattern)
    return _map(lambda s: regex.fullmatch(_as_text(s)) is not None, strings, dtype=np.bool_)


def _scalar_string(ctx, value, what):
    value = _strings(ctx, value)
    if value.ndim != 0:
        raise invalid("%s must be scalar, but received %s" % (what, shape_text(value.shape)))
    return value[()]


@register_kernel("RegexReplace", ("CPU",))
def regex_replace(ctx, strings, pattern, rewrite, *, replace_global):
    return _replace_all(_strings(ctx, strings), _scalar_string(ctx, pattern, "Pattern"),
                        _scalar_string(ctx, rewrite, "Rewrite"), replace_global)


@register_kernel("StaticRegexReplace", ("CPU",))
def static_regex_replace(ctx, strings, *, pattern, rewrite, replace_global):
    return _replace_all(_strings(ctx, strings), pattern.encode("utf-8"), rewrite.encode("utf-8"),
                        replace_global)


@register_kernel("RegexFullMatch", ("CPU",))
def regex_full_match(ctx, strings, pattern):
    return _full_match(_strings(ctx, strings), _scalar_string(ctx, pattern, "Pattern"))


@register_kernel("StaticRegexFullMatch", ("CPU",))
def static_regex_full_match(ctx, strings, *, pattern):
    return _full_match(_strings(ctx, strings), pattern.encode("utf-8"))


# =============================================================================
# Formatting tensors into text (Tensor::SummarizeValue, print_v2)
# =============================================================================

@register_kernel("StringFormat", ("CPU",))
def string_format(ctx, *inputs, template, placeholder, summarize):
    pieces = template.split(placeholder) if placeholder else [template]
    if len(pieces) - 1 != len(inputs):
        raise invalid("num placeholders in template and num inputs must match: %d vs. %d"
                      % (len(pieces) - 1, len(inputs)))
    texts = [format_tensor(np.asarray(host_array(ctx, v)), summarize) for v in inputs]
    out = pieces[0]
    for text, piece in zip(texts, pieces[1:]):
        out += text + piece
    return np.array(out.encode("utf-8"), dtype=object)


def format_tensor(value, summarize):
    """`value` as tf.print shows it: nested brackets, `summarize` elements at each end of
    every dimension with `...` between (all of them when `summarize` is negative)."""
    if value.size == 0:
        return "[]"
    if value.ndim == 0:
        return _format_element(value[()], value.dtype)
    at_ends = value.size if summarize < 0 else summarize
    return _format_dim(value, 0, at_ends)


def _format_dim(value, depth, at_ends):
    """The sub-tensor `value` at nesting `depth`, and recursively those under it.

    Elements of the innermost dimension are separated by a space; rows of
    the dimension above by a newline, blocks above that by a blank line,
    each indented to sit under its opening bracket.
    """
    if value.ndim == 0:
        return _format_element(value[()], value.dtype)
    count = value.shape[0]
    head = range(min(at_ends, count))
    tail = range(max(at_ends, count - at_ends), count)
    spacing = " " if value.ndim == 1 else "\n" * (value.ndim - 1) + " " * (depth + 1)
    parts = [_format_dim(value[i], depth + 1, at_ends) for i in head]
    if count > 2 * at_ends:
        parts.append("...")
    parts.extend(_format_dim(value[i], depth + 1, at_ends) for i in tail)
    return "[" + spacing.join(parts) + "]"


_C_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
              ord("'"): "\\'", ord("\\"): "\\\\"}


def _utf8_safe_c_escape(data):
    """C escapes for quotes, backslashes and control bytes; UTF-8 text passes as it is."""
    out = bytearray()
    for byte in data:
        if byte in _C_ESCAPES:
            out += _C_ESCAPES[byte].encode("ascii")
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return out.decode("utf-8", "replace")


def _format_element(value, dtype):
    if dtype == object:
        return '"%s"' % _utf8_safe_c_escape(value if isinstance(value, bytes)
                                            else str(value).encode("utf-8"))
    if dtype == np.bool_:
        return "1" if value else "0"
    if np.issubdtype(dtype, np.floating):
        # float16 prints as the float32 it converts to; then the shorter of %.6g and %.9g
        # (%.15g and %.17g for float64) that reads back as the same number.
        as_type = np.float64 if dtype == np.float64 else np.float32
        value = as_type(value)
        digits, more = (15, 17) if as_type == np.float64 else (6, 9)
        text = "%.*g" % (digits, value)
        if np.isnan(value) or as_type(text) == value:
            return text
        return "%.*g" % (more, value)
    return str(value)


# =============================================================================
# Base64, web-safe alphabet
# =============================================================================

_BASE64_TEXT = re.compile(rb"[A-Za-z0-9_-]*={0,2}\Z")


@register_kernel("EncodeBase64", ("CPU",))
def encode_base64(ctx, strings, *, pad):
    def encode(s):
        text = base64.urlsafe_b64encode(s)
        return text if pad else text.rstrip(b"=")
    return _map(encode, _strings(ctx, strings))


def _decode_base64(text):
    if not _BASE64_TEXT.match(text):
        raise invalid("Invalid character found in base64.")
    data = text.rstrip(b"=")
    if len(data) % 4 == 1:
        raise invalid("Base64 string length cannot be 1 modulo 4.")
    try:
        return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))
    except binascii.Error as e:
        raise invalid("Invalid base64: %s" % e) from None


@register_kernel("DecodeBase64", ("CPU",))
def decode_base64(ctx, strings):
    return _map(_decode_base64, _strings(ctx, strings))


# =============================================================================
# Unicode
# =============================================================================

_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be",
           "ISO-8859-1": "latin-1", "US-ASCII": "ascii"}
_ERROR_MARK = "\ud800"  # a lone surrogate: no well-formed input decodes to it


def _mark_errors(error):
    return _ERROR_MARK, error.end


codecs.register_error("minitf.mark", _mark_errors)


def _codec(encoding):
    try:
        return _CODECS[encoding.upper()]
    except KeyError:
        raise invalid("Could not create converter for input encoding: %s" % encoding) from None


def _decode(s, codec, errors_mode, replacement_char, replace_control_characters):
    """The code points of bytes `s`, and the byte offset each one starts at.

    A malformed sequence is refused (strict), dropped (ignore) or becomes
    `replacement_char` (replace); so do C0 control characters when asked.
    """
    try:
        text = s.decode(codec, "strict" if errors_mode == "strict" else "minitf.mark")
    except UnicodeDecodeError:
        raise invalid("Invalid formatting on input string") from None
    code_points, starts = [], []
    position = 0
    for char in text:
        start = position
        if char == _ERROR_MARK:
            position += _malformed_length(s, position, codec)
            if errors_mode == "ignore":
                continue
            code = replacement_char
        else:
            position += len(char.encode(codec))
            code = ord(char)
            if replace_control_characters and code < 0x20:
                code = replacement_char
        code_points.append(code)
        starts.append(start)
    return code_points, starts


def _malformed_length(s, position, codec):
    """How many bytes from `position` the codec refused as one malformed sequence."""
    try:
        s[position:].decode(codec)
    except UnicodeDecodeError as e:
        return e.end - e.start
    return len(s) - position


def _encode(code_points, codec, errors_mode, replacement_char):
    chars = []
    for code in code_points:
        if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            chars.append(chr(code))
        elif errors_mode == "strict":
            raise invalid("Invalid code point: %d" % code)
        elif errors_mode == "replace":
            chars.append(chr(replacement_char))
    return "".join(chars).encode(codec)


@register_kernel("UnicodeTranscode", ("CPU",))
def unicode_transcode(ctx, strings, *, input_encoding, output_encoding, errors,
                      replacement_char, replace_control_characters):
    source, target = _codec(input_encoding), _codec(output_encoding)

    def transcode(s):
        code_points, _ = _decode(s, source, errors, replacement_char, replace_control_characters)
        return _encode(code_points, target, errors, replacement_char)
    return _map(transcode, _strings(ctx, strings))


def _unicode_decode(ctx, strings, input_encoding, errors, replacement_char,
                    replace_control_characters, Tsplits):  # noqa: N803 - the attr's name
    """(row_splits, code points, byte offsets) of every string, in row-major order."""
    codec = _codec(input_encoding)
    splits, values, starts = [0], [], []
    for s in _strings(ctx, strings).reshape(-1):
        code_points, offsets = _decode(s, codec, errors, replacement_char,
                                       replace_control_characters)
        values.extend(code_points)
        starts.extend(offsets)
        splits.append(len(values))
    return (np.array(splits, dtype=Tsplits.as_numpy_dtype), np.array(values, dtype=np.int32),
            np.array(starts, dtype=np.int64))


@register_kernel("UnicodeDecode", ("CPU",))
def unicode_decode(ctx, strings, **attrs):
    return _unicode_decode(ctx, strings, **attrs)[:2]


@register_kernel("UnicodeDecodeWithOffsets", ("CPU",))
def unicode_decode_with_offsets(ctx, strings, **attrs):
    return _unicode_decode(ctx, strings, **attrs)


@register_kernel("UnicodeEncode", ("CPU",))
def unicode_encode(ctx, values, splits, *, errors, output_encoding, replacement_char):
    """One string per row of code points values[splits[i]:splits[i + 1]]."""
    values, splits = _host_ints(ctx, values), _host_ints(ctx, splits)
    if splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0) or (
            splits[-1] != values.size):
        raise invalid("Invalid splits: they must start at 0, never decrease, and end at the "
                      "number of values (%d); got %s" % (values.size, splits.tolist()))
    codec = _codec(output_encoding)
    rows = [_encode(values[a:b].tolist(), codec, errors, replacement_char)
            for a, b in zip(splits[:-1], splits[1:])]
    return _object_vector(rows)


@functools.lru_cache(maxsize=1)
def _script_runs():
    """(first code points, script codes) of ICU's script table, as TensorFlow recorded it."""
    path = pathlib.Path(__file__).with_name("data") / "unicode_scripts.json"
    runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
    return [start for start, _ in runs], [code for _, code in runs]


@register_kernel("UnicodeScript", ("CPU",))
def unicode_script(ctx, code_points):
    starts, codes = _script_runs()

    def script(code):
        if not 0 <= code <= 0x10FFFF:
            return -1  # USCRIPT_INVALID_CODE
        return codes[bisect.bisect_right(starts, code) - 1]
    return _map(script, _host_ints(ctx, code_points), dtype=np.int32)


# =============================================================================
# N-grams
# =============================================================================

@register_kernel("StringNGrams", ("CPU",))
def string_ngrams(ctx, data, data_splits, *, separator, ngram_widths, left_pad, right_pad,
                  pad_width, preserve_short_sequences, Tsplits):  # noqa: N803 - the attr's name
    data, splits = _strings(ctx, data), _host_ints(ctx, data_splits)
    if splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0) or (
            splits[-1] != data.size):
        raise invalid("Invalid split value: the splits must start at 0, never decrease and "
                      "end at the number of data items (%d); got %s"
                      % (data.size, splits.tolist()))
    grams = _NGrams(separator.encode("utf-8"), left_pad.encode("utf-8"),
                    right_pad.encode("utf-8"), pad_width)
    output, output_splits = [], [0]
    for start, end in zip(splits[:-1], splits[1:]):
        row = list(data[start:end])
        before = len(output)
        for width in ngram_widths:
            output.extend(grams.make(row, width, grams.count(len(row), width)))
        if preserve_short_sequences and len(output) == before and row:
            # Too short for any n-gram: the whole sequence, padded, is the one n-gram.
            output.extend(grams.make(row, len(row) + 2 * pad_width, 1))
        output_splits.append(len(output))
    return _object_vector(output), np.array(output_splits, dtype=Tsplits.as_numpy_dtype)


class _NGrams:
    """TensorFlow's n-gram maker: each n-gram joins `width` items, padding at both ends."""

    def __init__(self, separator, left_pad, right_pad, pad_width):
        self.separator, self.left_pad, self.right_pad = separator, left_pad, right_pad
        self.pad_width = pad_width

    def padding(self, width):
        """Pads at each end: pad_width, or width - 1 when it is negative; never more than that."""
        return min(width - 1 if self.pad_width < 0 else self.pad_width, width - 1)

    def count(self, length, width):
        return max(0, length + 2 * self.padding(width) - width + 1)

    def make(self, row, width, count):
        pad = self.padding(width)
        grams = []
        for index in range(count):
            left = max(0, pad - index)
            right = max(0, pad - (count - (index + 1)))
            tokens = width - left - right
            first = 0 if left > 0 else index - pad
            items = [self.left_pad] * left + row[first:first + tokens] + [self.right_pad] * right
            grams.append(self.separator.join(items))
        return grams
