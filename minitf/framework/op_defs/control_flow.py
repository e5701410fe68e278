"""The OpDefs of the control-flow ops: NoOp, and the dataflow of conds and loops.

NoOp does nothing: `tf.group` and control dependencies use it as a node
that stands for "all of these have run".

The others let a dataflow graph branch and loop (the constructors that
combine them into `tf.cond` and `tf.while_loop` are in
`minitf/ops/control_flow_ops.py`):

- `Switch(data, pred)` forwards `data` to `output_true` or `output_false`;
  the other output is *dead*, and so is every node that consumes it;
- `Merge(inputs)` forwards its first live input, and its index;
- `Enter(data)` makes `data` available in a child *frame* (a loop), named
  by `frame_name`; `is_constant` marks a loop invariant, one value for
  every iteration;
- `NextIteration(data)` carries a value into the next iteration of its frame;
- `LoopCond(input)` is the predicate of a loop, the Switches' `pred`;
- `Exit(data)` makes a loop's result available in the parent frame;
- `ControlTrigger` is a NoOp that is never dead.

Each has a `Ref` twin for reference (variable) inputs. Their kernels are in
`minitf/kernels/cpu/control_flow_kernels.py`; the executor gives them their
meaning (`minitf/executor/executor.py`).

Mirrors `tensorflow/core/ops/no_op.cc` and `control_flow_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

register_op("NoOp").set_shape_fn(common_shapes.no_outputs)
register_op("ControlTrigger").set_shape_fn(common_shapes.no_outputs)


# =============================================================================
# Shape functions
# =============================================================================

def _switch_shape(op):
    """Both outputs have the shape of `data`; `pred` is a scalar."""
    common_shapes.with_rank(op.inputs[1].shape, 0)
    return [op.inputs[0].shape, op.inputs[0].shape]


def _merge_shape(op):
    """The inputs' common shape: dims on which they disagree are unknown."""
    shape = op.inputs[0].shape
    if shape.ndims is not None:
        dims = shape.as_list()
        for other in op.inputs[1:]:
            if other.shape.ndims != len(dims):
                dims = None
                break
            dims = [d if d == e else None for d, e in zip(dims, other.shape.as_list())]
        shape = tensor_shape.TensorShape(dims)
    return [shape, tensor_shape.scalar()]


def _enter_shape(op):
    """Unknown: a loop variable may change shape. A loop invariant keeps its input's."""
    if op.get_attr("is_constant"):
        return [op.inputs[0].shape]
    return [tensor_shape.unknown_shape()]


def _loop_cond_shape(op):
    return [common_shapes.with_rank(op.inputs[0].shape, 0)]


# =============================================================================
# The ops
# =============================================================================

register_op("Switch").input("data: T").input("pred: bool").output("output_false: T").output(
    "output_true: T").attr("T: type").set_shape_fn(_switch_shape)
register_op("RefSwitch").input("data: Ref(T)").input("pred: bool").output(
    "output_false: Ref(T)").output("output_true: Ref(T)").attr("T: type").set_shape_fn(
    _switch_shape).set_allows_uninitialized_input()

register_op("Merge").input("inputs: N * T").output("output: T").output(
    "value_index: int32").attr("T: type").attr("N: int >= 1").set_shape_fn(_merge_shape)
register_op("RefMerge").input("inputs: N * Ref(T)").output("output: Ref(T)").output(
    "value_index: int32").attr("T: type").attr("N: int >= 1").set_shape_fn(
    _merge_shape).set_allows_uninitialized_input()

for _name, _data in (("Enter", "T"), ("RefEnter", "Ref(T)")):
    register_op(_name).input("data: %s" % _data).output("output: %s" % _data).attr(
        "T: type").attr("frame_name: string").attr("is_constant: bool = false").attr(
        "parallel_iterations: int = 10").set_shape_fn(_enter_shape)

for _name, _data in (("Exit", "T"), ("RefExit", "Ref(T)"), ("NextIteration", "T"),
                     ("RefNextIteration", "Ref(T)")):
    register_op(_name).input("data: %s" % _data).output("output: %s" % _data).attr(
        "T: type").set_shape_fn(common_shapes.unchanged_shape)

register_op("LoopCond").input("input: bool").output("output: bool").set_shape_fn(
    _loop_cond_shape)
