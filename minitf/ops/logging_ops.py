"""`tf.Print`: its input, printing data to stderr as it passes; and `tf.print`, an op
that prints its arguments, formatted as one string, when it runs.

`tf.Assert`, which TensorFlow also files among its logging ops, is a
control-flow op here, as in TensorFlow's own Python (it is wrapped in a
`tf.cond`): see `minitf/ops/control_flow_ops.py`.

Mirrors `Print` and `print_v2` of `tensorflow/python/ops/logging_ops.py`.
"""

import logging
import sys

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import SparseTensor
from minitf.ops import string_ops

__all__ = ["Print", "timestamp"]


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """`input_` itself, printing `message` and the values of `data` to stderr each time it is
    computed (the first `first_n` times; `summarize` elements of each tensor, 3 by default).

    Only what is computed prints: use the result in place of `input_`.
    """
    return apply_op("Print", name=name, input=input_, data=data, message=message or "",
                    first_n=-1 if first_n is None else first_n,
                    summarize=3 if summarize is None else summarize)


_DEFAULT_STREAM = sys.stderr
_LOG_LEVEL_NAMES = {logging.INFO: "log(info)", logging.WARNING: "log(warning)",
                    logging.ERROR: "log(error)"}


def _stream_name(output_stream):
    """The name PrintV2 gives `output_stream`: sys.stderr and sys.stdout (as they are now, or
    were when Python started), or a logging level."""
    if output_stream in (sys.stderr, sys.__stderr__, _DEFAULT_STREAM):
        return "stderr"
    if output_stream in (sys.stdout, sys.__stdout__):
        return "stdout"
    if isinstance(output_stream, int) and output_stream in _LOG_LEVEL_NAMES:
        return _LOG_LEVEL_NAMES[output_stream]
    raise ValueError("Unsupported output stream or logging level %r. Supported streams are "
                     "sys.stdout, sys.stderr, tf.logging.INFO, tf.logging.WARNING and "
                     "tf.logging.ERROR." % (output_stream,))


def print_v2(*inputs, output_stream=_DEFAULT_STREAM, summarize=3, sep=" ", end="\n", name=None):
    """An op that prints `inputs` when it runs: tensors as TensorFlow summarizes them
    (`summarize` elements at each end of every dimension), anything else as `str()` does,
    separated by `sep` and followed by `end` (`tf.print`).

    In a graph it must be run (fetched, or made a control dependency) to print.
    """
    stream_name = _stream_name(output_stream)
    if (len(inputs) == 1 and isinstance(inputs[0], ops.Tensor)
            and inputs[0].dtype == dtypes.string and inputs[0].shape.ndims == 0):
        formatted = inputs[0]  # one string scalar: nothing to format
    else:
        formatted = _format(inputs, sep, summarize, None if name is None else name + "_format")
    return apply_op("PrintV2", name=name, input=formatted, output_stream=stream_name, end=end)


def _format(inputs, sep, summarize, name):
    """A StringFormat of `inputs`: a placeholder for each tensor, other values as text."""
    placeholder = "{}"
    pieces, tensors = [], []
    for value in inputs:
        if isinstance(value, SparseTensor):
            raise NotImplementedError("tf.print of a SparseTensor: print its indices, values "
                                      "and dense_shape")
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
            pieces.append(placeholder)
            tensors.append(value if isinstance(value, ops.Tensor) else value.value())
        else:
            pieces.append(str(value))
    return string_ops.string_format(sep.join(pieces), tensors, placeholder=placeholder,
                                    summarize=summarize, name=name)


def timestamp(name=None):
    """A float64 scalar: the time, in seconds since the epoch, at which the op runs."""
    return apply_op("Timestamp", name=name)
