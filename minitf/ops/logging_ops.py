"""`tf.Print`: its input, printing data to stderr as it passes.

`tf.Assert`, which TensorFlow also files among its logging ops, is a
control-flow op here, as in TensorFlow's own Python (it is wrapped in a
`tf.cond`): see `minitf/ops/control_flow_ops.py`.

Mirrors `Print` of `tensorflow/python/ops/logging_ops.py`.
"""

from minitf.graph.op_def_library import apply_op

__all__ = ["Print"]


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """`input_` itself, printing `message` and the values of `data` to stderr each time it is
    computed (the first `first_n` times; `summarize` elements of each tensor, 3 by default).

    Only what is computed prints: use the result in place of `input_`.
    """
    return apply_op("Print", name=name, input=input_, data=data, message=message or "",
                    first_n=-1 if first_n is None else first_n,
                    summarize=3 if summarize is None else summarize)
