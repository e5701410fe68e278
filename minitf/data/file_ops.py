"""Whole files as tensors: `tf.io.read_file`, `write_file` and `matching_files`.

Three ops of the graph, run by the session like any other (their kernels
are in `minitf/kernels/cpu/io_kernels.py`, their OpDefs in
`minitf/framework/op_defs/io.py`):

    ReadFile(filename: string scalar) -> the file's bytes, a string scalar
    WriteFile(filename, contents: string scalars)  (no outputs; makes the
        missing directories, replaces the file in one rename)
    MatchingFiles(pattern: string scalar or vector) -> the matching paths

A missing file is a NotFoundError naming it. `tf.train.match_filenames_once`
(`minitf/train/input.py`) keeps the result of MatchingFiles in a local
variable, so that the files are listed once, when the variable is
initialized.

Mirrors `tensorflow/python/ops/io_ops.py` (read_file, write_file) and
`tensorflow/core/kernels/whole_file_read_ops.cc`, `matching_files_op.cc`.
"""

from minitf.autodiff.registry import NotDifferentiable
from minitf.graph.op_def_library import apply_op

__all__ = ["read_file", "write_file", "matching_files"]

# A file's bytes are data, not a function of anything trainable.
for _op_type in ("ReadFile", "WriteFile", "MatchingFiles"):
    NotDifferentiable(_op_type)
del _op_type


def read_file(filename, name=None):
    """The bytes of the file `filename`, a string scalar."""
    return apply_op("ReadFile", name=name, filename=filename)


def write_file(filename, contents, name=None):
    """The op that writes the string scalar `contents` to the file `filename`."""
    return apply_op("WriteFile", name=name, filename=filename, contents=contents)


def matching_files(pattern, name=None):
    """The paths of the files that match the glob `pattern` (a string, or a vector of them)."""
    return apply_op("MatchingFiles", name=name, pattern=pattern)
