"""`tf.compat.as_bytes`, `as_text` and friends: one string type in, the other out.

TensorFlow's strings are bytes (a `tf.string` tensor holds `bytes`), while
Python's text is `str`. These helpers convert between the two, so that code
can take either: a file name, a feature key, a fetched string. The type
tuples say what counts as a number, for code that checks a Python value
before it becomes a tensor.

Mirrors `tensorflow/python/util/compat.py`.
"""

import codecs
import numbers

import numpy as np

__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "bytes_or_text_types",
           "integral_types", "real_types", "complex_types"]

bytes_or_text_types = (bytes, str)
# NumPy's scalars are not all registered with `numbers`, so they are named too.
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes` for `bytes`, `bytearray` or `str` (encoded with `encoding`); TypeError otherwise."""
    encoding = codecs.lookup(encoding).name  # a LookupError for an unknown encoding
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """`str` for `str` or `bytes` (decoded with `encoding`); TypeError otherwise."""
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % bytes_or_text)


as_str = as_text  # Python 3's str is text


def as_str_any(value, encoding="utf-8"):
    """`str(value)`, except that bytes are decoded rather than shown as `b'...'`."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """A `pathlib.Path` (any `os.PathLike`) as `str`; anything else as it is."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path
