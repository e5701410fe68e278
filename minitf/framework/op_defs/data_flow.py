"""The OpDefs of the data-flow ops: DynamicPartition, ParallelDynamicStitch, stacks,
TensorArrays and queues.

DynamicPartition and ParallelDynamicStitch split a tensor's rows into N
outputs by a partition index, and stitch rows back together by index; the
partitioned embedding lookup is built from them (constructors in
`minitf/ops/embedding_ops.py`, kernels in `minitf/kernels/cpu/nn_kernels.py`).

A queue is a resource: `FIFOQueueV2` (and its random-shuffle, padding and
priority kinds) outputs the handle of a queue in its device's resource
manager; the `Queue*V2` ops enqueue into it, dequeue from it, close it and
ask its size (constructors in `minitf/ops/data_flow_ops.py`, kernels in
`minitf/kernels/cpu/queue_kernels.py`).

Stacks (`StackV2`, `StackPushV2`, `StackPopV2`) and TensorArrays
(`TensorArrayV3` and the ops on it) are resources of one step: a loop's
gradient saves each iteration's forward values on a stack, and a loop
writes or reads one element of a TensorArray per iteration (constructors in
`minitf/ops/data_flow_ops.py` and `tensor_array_ops.py`, kernels in
`minitf/kernels/cpu/data_flow_kernels.py`).

Mirrors `tensorflow/core/ops/data_flow_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape


def _dynamic_partition_shape(op):
    """Each output is a vector of unknown length of rows shaped like data's trailing dims."""
    data, partitions = op.inputs[0].shape, op.inputs[1].shape
    if data.ndims is None or partitions.ndims is None:
        return [tensor_shape.unknown_shape() for _ in op.outputs]
    data_prefix = data[:partitions.ndims]
    if not data_prefix.is_compatible_with(partitions):
        raise ValueError("Shapes %s and %s are incompatible" % (data_prefix, partitions))
    row = data[partitions.ndims:]
    return [tensor_shape.TensorShape([None]).concatenate(row) for _ in op.outputs]


register_op("DynamicPartition").input("data: T").input("partitions: int32").output(
    "outputs: num_partitions * T").attr("num_partitions: int >= 1").attr(
    "T: type").set_shape_fn(_dynamic_partition_shape)

register_op("ParallelDynamicStitch").input("indices: N * int32").input(
    "data: N * T").output("merged: T").attr("N: int >= 1").attr("T: type").set_shape_fn(
    common_shapes.unknown_shape)


# --- stacks: where a loop's gradient saves the forward values of each iteration ----

def _stack_push_shape(op):
    return [op.inputs[1].shape]


register_op("StackV2").input("max_size: int32").output("handle: resource").attr(
    "elem_type: type").attr("stack_name: string = ''").set_is_stateful().set_shape_fn(
    common_shapes.scalar_shape)
register_op("StackPushV2").input("handle: resource").input("elem: T").output("output: T").attr(
    "T: type").attr("swap_memory: bool = false").set_is_stateful().set_shape_fn(
    _stack_push_shape)
register_op("StackPopV2").input("handle: resource").output("elem: elem_type").attr(
    "elem_type: type").set_is_stateful().set_shape_fn(common_shapes.unknown_shape)
register_op("StackCloseV2").input("handle: resource").set_is_stateful().set_shape_fn(
    common_shapes.no_outputs)


# --- TensorArrays: a list of tensors a loop writes and reads, one per iteration -----
# Every op takes the array's handle and a *flow* scalar and (if it writes) gives a
# new flow: the flow is a data edge that orders the ops on one array.

def _tensor_array_shape(op):
    common_shapes.with_rank(op.inputs[0].shape, 0)
    return [tensor_shape.scalar(), tensor_shape.scalar()]


def _flow_out_shape(op):
    return [tensor_shape.scalar()]


def _tensor_array_read_shape(op):
    common_shapes.with_rank(op.inputs[1].shape, 0)
    return [tensor_shape.unknown_shape()]


def _tensor_array_gather_shape(op):
    indices = common_shapes.with_rank(op.inputs[1].shape, 1)
    element_shape = op.get_attr("element_shape")
    return [tensor_shape.TensorShape([indices.dims[0]]).concatenate(element_shape)]


def _tensor_array_concat_shape(op):
    element_shape = op.get_attr("element_shape_except0")
    if element_shape.ndims is None:
        value = tensor_shape.unknown_shape()
    else:
        value = tensor_shape.TensorShape([None]).concatenate(element_shape)
    return [value, tensor_shape.TensorShape([None])]


register_op("TensorArrayV3").input("size: int32").output("handle: resource").output(
    "flow: float").attr("dtype: type").attr("element_shape: shape = None").attr(
    "dynamic_size: bool = false").attr("clear_after_read: bool = true").attr(
    "identical_element_shapes: bool = false").attr("tensor_array_name: string = ''").set_is_stateful(
    ).set_shape_fn(_tensor_array_shape)
register_op("TensorArrayGradV3").input("handle: resource").input("flow_in: float").output(
    "grad_handle: resource").output("flow_out: float").attr("source: string").set_is_stateful(
    ).set_shape_fn(lambda op: [tensor_shape.scalar(), tensor_shape.scalar()])
register_op("TensorArrayWriteV3").input("handle: resource").input("index: int32").input(
    "value: T").input("flow_in: float").output("flow_out: float").attr("T: type").set_is_stateful(
    ).set_shape_fn(_flow_out_shape)
register_op("TensorArrayReadV3").input("handle: resource").input("index: int32").input(
    "flow_in: float").output("value: dtype").attr("dtype: type").set_is_stateful().set_shape_fn(
    _tensor_array_read_shape)
register_op("TensorArrayGatherV3").input("handle: resource").input("indices: int32").input(
    "flow_in: float").output("value: dtype").attr("dtype: type").attr(
    "element_shape: shape = None").set_is_stateful().set_shape_fn(_tensor_array_gather_shape)
register_op("TensorArrayScatterV3").input("handle: resource").input("indices: int32").input(
    "value: T").input("flow_in: float").output("flow_out: float").attr("T: type").set_is_stateful(
    ).set_shape_fn(_flow_out_shape)
register_op("TensorArrayConcatV3").input("handle: resource").input("flow_in: float").output(
    "value: dtype").output("lengths: int64").attr("dtype: type").attr(
    "element_shape_except0: shape = None").set_is_stateful().set_shape_fn(
    _tensor_array_concat_shape)
register_op("TensorArraySplitV3").input("handle: resource").input("value: T").input(
    "lengths: int64").input("flow_in: float").output("flow_out: float").attr(
    "T: type").set_is_stateful().set_shape_fn(_flow_out_shape)
register_op("TensorArraySizeV3").input("handle: resource").input("flow_in: float").output(
    "size: int32").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)
register_op("TensorArrayCloseV3").input("handle: resource").set_is_stateful().set_shape_fn(
    common_shapes.no_outputs)
# --- queues ----------------------------------------------------------------------------

def _queue(name, extra_attrs=()):
    builder = register_op(name).output("handle: resource")
    types = "component_types: list(type) >= 0 = []" if name == "PriorityQueueV2" else \
        "component_types: list(type) >= 1"
    builder.attr(types).attr("shapes: list(shape) >= 0 = []")
    for spec in extra_attrs:
        builder.attr(spec)
    builder.attr("capacity: int = -1").attr("container: string = ''").attr(
        "shared_name: string = ''").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)


_queue("FIFOQueueV2")
_queue("PaddingFIFOQueueV2")
_queue("RandomShuffleQueueV2", ["min_after_dequeue: int = 0", "seed: int = 0", "seed2: int = 0"])
_queue("PriorityQueueV2")


register_op("QueueEnqueueV2").input("handle: resource").input("components: Tcomponents").attr(
    "Tcomponents: list(type) >= 1").attr("timeout_ms: int = -1").set_is_stateful().set_shape_fn(
    common_shapes.no_outputs)
register_op("QueueEnqueueManyV2").input("handle: resource").input(
    "components: Tcomponents").attr("Tcomponents: list(type) >= 1").attr(
    "timeout_ms: int = -1").set_is_stateful().set_shape_fn(common_shapes.no_outputs)
register_op("QueueDequeueV2").input("handle: resource").output(
    "components: component_types").attr("component_types: list(type) >= 1").attr(
    "timeout_ms: int = -1").set_is_stateful().set_shape_fn(common_shapes.unknown_shape)
register_op("QueueDequeueManyV2").input("handle: resource").input("n: int32").output(
    "components: component_types").attr("component_types: list(type) >= 1").attr(
    "timeout_ms: int = -1").set_is_stateful().set_shape_fn(common_shapes.unknown_shape)
register_op("QueueDequeueUpToV2").input("handle: resource").input("n: int32").output(
    "components: component_types").attr("component_types: list(type) >= 1").attr(
    "timeout_ms: int = -1").set_is_stateful().set_shape_fn(common_shapes.unknown_shape)
register_op("QueueCloseV2").input("handle: resource").attr(
    "cancel_pending_enqueues: bool = false").set_is_stateful().set_shape_fn(
    common_shapes.no_outputs)
register_op("QueueSizeV2").input("handle: resource").output("size: int32").set_is_stateful(
    ).set_shape_fn(common_shapes.scalar_shape)
register_op("QueueIsClosedV2").input("handle: resource").output("is_closed: bool").set_is_stateful(
    ).set_shape_fn(common_shapes.scalar_shape)
