"""`tf.strings`: the string ops under their `tf.strings.*` names.

Every function here is defined in `minitf/ops/string_ops.py`; TF 1.15
exports several of them twice, as `tf.strings.join` and `tf.string_join`,
`tf.strings.to_number` and `tf.string_to_number`.

Mirrors the `tf.strings` namespace of TF 1.15
(`tensorflow/python/ops/string_ops.py`, `ragged/ragged_string_ops.py`).

A name of TF 1.15's `tf.strings` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.string_ops import (as_string, bytes_split, lower, ngrams,  # noqa: F401
                                   reduce_join, regex_full_match, regex_replace, split,
                                   substr, unicode_decode, unicode_decode_with_offsets,
                                   unicode_encode, unicode_script, unicode_split,
                                   unicode_split_with_offsets, unicode_transcode,
                                   unsorted_segment_join, upper)
from minitf.ops.string_ops import string_format as format  # noqa: F401,A004
from minitf.ops.string_ops import string_join as join  # noqa: F401
from minitf.ops.string_ops import string_length as length  # noqa: F401
from minitf.ops.string_ops import string_strip as strip  # noqa: F401
from minitf.ops.string_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from minitf.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401
from minitf.ops.string_ops import (  # noqa: F401
    string_to_hash_bucket_strong as to_hash_bucket_strong)
from minitf.ops.string_ops import string_to_number as to_number  # noqa: F401


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.strings", __name__, name)
