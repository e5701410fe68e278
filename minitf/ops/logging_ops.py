"""`tf.Assert`: a node that fails the step, printing `data`, when `condition` is false.
(And `tf.Print`, at the end: its input, printing data as it passes.)

The op has no outputs; what must wait for the check gets it as a control
dependency (`tf.control_dependencies([assert_op])`), which is how the
`tf.assert_*` functions of `check_ops.py` guard the values they check.

Mirrors `Assert` of `tensorflow/python/ops/control_flow_ops.py` (which
TensorFlow wraps in a `tf.cond` that skips the op when the condition holds,
an optimization: the outcome is the same) and `gen_logging_ops.assert`.
"""

from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor

__all__ = ["Assert", "Print"]


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's public name
    """An op that raises InvalidArgumentError, printing `data`, when `condition` is false.

    Args:
      condition: a scalar boolean tensor.
      data: the tensors to print when the condition is false.
      summarize: how many elements of each tensor to print (default 3).
      name: a name for the op.
    """
    with ops.name_scope(name, "Assert", [condition, data]) as name:
        condition = convert_to_tensor(condition, name="Condition")
        data = [convert_to_tensor(datum) for datum in data]
        return apply_op("Assert", name="Assert", condition=condition, data=data,
                        summarize=3 if summarize is None else summarize)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """`input_` itself, printing `message` and the values of `data` to stderr each time it is
    computed (the first `first_n` times; `summarize` elements of each tensor, 3 by default).

    Only what is computed prints: use the result in place of `input_`.
    """
    return apply_op("Print", name=name, input=input_, data=data, message=message or "",
                    first_n=-1 if first_n is None else first_n,
                    summarize=3 if summarize is None else summarize)
