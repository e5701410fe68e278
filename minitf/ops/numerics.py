"""`tf.check_numerics` and its kin: stop the step at the first NaN or infinity.

A NaN spreads silently: one bad value in a layer makes the loss NaN a few
ops later, and the weights after the next update. `check_numerics(x, msg)`
is `x` itself, unless `x` holds a NaN or an infinity: then the step fails
with an InvalidArgumentError that starts with `msg` (`"logits : Tensor had
NaN values"`). Its gradient checks the gradient the same way.
`verify_tensor_all_finite(x, msg)` (`tf.debugging.assert_all_finite`) gives
`x` with the check as a control dependency, and `add_check_numerics_ops()`
puts a check on every float tensor of the graph, chained so that they
report in the order the ops were built.

The OpDef is in `minitf/framework/op_defs/logging.py`, the kernel in
`minitf/kernels/cpu/logging_kernels.py`.

Mirrors `tensorflow/python/ops/numerics.py` and `gen_array_ops.check_numerics`.
"""

from minitf.graph import dtypes, ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import control_flow_ops

__all__ = ["check_numerics", "verify_tensor_all_finite", "add_check_numerics_ops"]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def check_numerics(tensor, message, name=None):
    """`tensor`, or, when it holds a NaN or an infinity, an InvalidArgumentError that starts
    with `message`."""
    return apply_op("CheckNumerics", name=name, tensor=tensor, message=message)


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """`t` with a CheckNumerics of it as a control dependency (TF 2's arguments: x, message)."""
    x = t if x is None else x
    message = msg if message is None else message
    with ops.name_scope(name, "VerifyFinite", [x]):
        x = convert_to_tensor(x, name="x")
        with ops.colocate_with(x):
            verify_input = check_numerics(x, message=message)
            return control_flow_ops.with_dependencies([verify_input], x)


def add_check_numerics_ops():
    """A group of CheckNumerics ops, one for every float tensor of the default graph.

    Each check runs after the one before it (a chain of control
    dependencies), so the first bad tensor in the order the ops were built is
    the one reported; the message names it ("layer/MatMul:0").
    """
    check_op = []
    for op in ops.get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype in _FLOATS:
                message = "%s:%d" % (op.name, output.value_index)
                with ops.control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return control_flow_ops.group(*check_op)
