"""The OpDefs of the state ops: variables and the ops that change them.

`VariableV2` outputs a *reference* (`Ref(T)`) to a buffer that lives in its
device's resource manager; Assign, AssignAdd, the Scatter* updates and
CountUpTo take such a reference and change the buffer in place.

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/state_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/state_kernels.py`).

Mirrors `tensorflow/core/ops/state_ops.cc`.
"""

from minitf.framework.common_shapes import merge_shapes
from minitf.framework.op_def import register_op
from minitf.framework.op_defs.array import tensor_scatter_shape
from minitf.graph import tensor_shape

_NUMBER_TYPES = "{float16, float32, float64, int8, int16, int32, int64, uint8, uint16}"
_REAL_TYPES = "{float16, float32, float64, int32, int64}"  # those with an order: max, min


# =============================================================================
# Shape functions
# =============================================================================


def _variable_shape(op):
    return [op.get_attr("shape")]


def _assign_shape(op):
    """With validate_shape the value must fit the variable; otherwise it may reshape it."""
    ref_shape, value_shape = op.inputs[0].shape, op.inputs[1].shape
    if op.get_attr("validate_shape"):
        return [merge_shapes(ref_shape, value_shape)]
    return [value_shape]


def _assign_update_shape(op):
    return [merge_shapes(op.inputs[0].shape, op.inputs[1].shape)]


def _scatter_shape(op):
    """updates must be indices.shape + ref.shape[1:] (or a scalar); the output is the ref."""
    ref_shape, indices_shape, updates_shape = (t.shape for t in op.inputs)
    if ref_shape.ndims is not None and ref_shape.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank %d" % ref_shape.ndims)
    row_shape = (tensor_shape.unknown_shape() if ref_shape.ndims is None
                 else tensor_shape.TensorShape(ref_shape.dims[1:]))
    if updates_shape.ndims != 0:
        merge_shapes(updates_shape, indices_shape.concatenate(row_shape))
    return [ref_shape]


def _count_up_to_shape(op):
    if op.inputs[0].shape.ndims not in (None, 0):
        raise ValueError("Shape must be rank 0 but is rank %d" % op.inputs[0].shape.ndims)
    return [tensor_shape.scalar()]


# =============================================================================
# OpDefs
# =============================================================================

register_op("VariableV2").output("ref: Ref(dtype)").attr("shape: shape").attr(
    "dtype: type").attr("container: string = ''").attr(
    "shared_name: string = ''").set_is_stateful().set_shape_fn(_variable_shape)

register_op("IsVariableInitialized").input("ref: Ref(dtype)").output(
    "is_initialized: bool").attr("dtype: type").set_allows_uninitialized_input(
    ).set_shape_fn(lambda op: [tensor_shape.scalar()])

register_op("Assign").input("ref: Ref(T)").input("value: T").output(
    "output_ref: Ref(T)").attr("T: type").attr("validate_shape: bool = true").attr(
    "use_locking: bool = true").set_allows_uninitialized_input().set_shape_fn(_assign_shape)

for _op_type in ("AssignAdd", "AssignSub"):
    register_op(_op_type).input("ref: Ref(T)").input("value: T").output(
        "output_ref: Ref(T)").attr("T: %s" % _NUMBER_TYPES).attr(
        "use_locking: bool = false").set_shape_fn(_assign_update_shape)

for _op_type, _types, _locking in (("ScatterUpdate", "type", "true"),
                                   ("ScatterAdd", _NUMBER_TYPES, "false"),
                                   ("ScatterSub", _NUMBER_TYPES, "false"),
                                   ("ScatterMul", _NUMBER_TYPES, "false"),
                                   ("ScatterDiv", _NUMBER_TYPES, "false"),
                                   ("ScatterMax", _REAL_TYPES, "false"),
                                   ("ScatterMin", _REAL_TYPES, "false")):
    register_op(_op_type).input("ref: Ref(T)").input("indices: Tindices").input(
        "updates: T").output("output_ref: Ref(T)").attr("T: %s" % _types).attr(
        "Tindices: {int32, int64}").attr("use_locking: bool = %s" % _locking).set_shape_fn(
        _scatter_shape)

for _op_type, _locking in (("ScatterNdUpdate", "true"), ("ScatterNdAdd", "false"),
                          ("ScatterNdSub", "false")):
    register_op(_op_type).input("ref: Ref(T)").input("indices: Tindices").input(
        "updates: T").output("output_ref: Ref(T)").attr("T: type").attr(
        "Tindices: {int32, int64}").attr("use_locking: bool = %s" % _locking).set_shape_fn(
        tensor_scatter_shape)

register_op("CountUpTo").input("ref: Ref(T)").output("output: T").attr("limit: int").attr(
    "T: {int32, int64}").set_shape_fn(_count_up_to_shape)
