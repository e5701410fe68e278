"""No gradients through text: the string ops, and the Unicode ops on code points.

A string has no derivative, nor does an integer code point or script code:
backprop stops at these ops, on purpose, so they are declared
NotDifferentiable (a missing declaration would be a LookupError). (The
hashing ops and AsString are declared with the lookup tables, in
`lookup_grad.py`.)

Mirrors the NotDifferentiable lines of `tensorflow/python/ops/string_ops.py`
and the ops TensorFlow leaves without a gradient among `gen_string_ops`.
"""

from minitf.autodiff.registry import NotDifferentiable

STRING_OPS = ("StringJoin", "StringSplit", "StringSplitV2", "Substr", "StringLength",
              "StringStrip", "StringLower", "StringUpper", "ReduceJoin", "UnsortedSegmentJoin",
              "StringToNumber", "StringToHashBucket", "RegexReplace", "StaticRegexReplace",
              "RegexFullMatch", "StaticRegexFullMatch", "StringFormat", "EncodeBase64",
              "DecodeBase64")

UNICODE_OPS = ("UnicodeTranscode", "UnicodeScript", "UnicodeDecode", "UnicodeDecodeWithOffsets",
               "UnicodeEncode", "StringNGrams")

for _op_type in STRING_OPS + UNICODE_OPS:
    NotDifferentiable(_op_type)
del _op_type
