"""The OpDefs of the conditional accumulators: gradients gathered from many workers.

An accumulator resource sums the gradients applied to it (dropping those
computed at a step older than its global step) until `take` asks for them:
the take waits until `num_required` have arrived, then gives their mean (or
sum) and starts again at the next step. SyncReplicasOptimizer is built on
them. The dense ones are TF 1.15's resource ops; the sparse one keeps
IndexedSlices-like gradients. Front end: `minitf/ops/data_flow_ops.py`;
kernels: `minitf/kernels/cpu/accumulator_kernels.py`.

Mirrors the accumulator ops of `tensorflow/core/ops/data_flow_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

_NUMBERS = ("{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, complex64, complex128}")


def _accumulator(op_type):
    register_op(op_type).output("handle: resource").attr("dtype: %s" % _NUMBERS).attr(
        "shape: shape").attr("container: string = ''").attr("shared_name: string = ''").attr(
        "reduction_type: {'MEAN', 'SUM'} = 'MEAN'").set_is_stateful().set_shape_fn(
        common_shapes.scalar_shape)


_accumulator("ResourceConditionalAccumulator")
_accumulator("SparseConditionalAccumulator")

for _prefix in ("ResourceAccumulator", "Accumulator"):
    register_op(_prefix + "NumAccumulated").input("handle: resource").output(
        "num_accumulated: int32").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)
    register_op(_prefix + "SetGlobalStep").input("handle: resource").input(
        "new_global_step: int64").set_is_stateful().set_shape_fn(common_shapes.no_outputs)

register_op("ResourceAccumulatorApplyGradient").input("handle: resource").input(
    "local_step: int64").input("gradient: dtype").attr("dtype: %s" % _NUMBERS).set_is_stateful(
    ).set_shape_fn(common_shapes.no_outputs)


def _take_shape(op):
    return [tensor_shape.unknown_shape()]


register_op("ResourceAccumulatorTakeGradient").input("handle: resource").input(
    "num_required: int32").output("average: dtype").attr("dtype: %s" % _NUMBERS).set_is_stateful(
    ).set_shape_fn(_take_shape)

register_op("SparseAccumulatorApplyGradient").input("handle: resource").input(
    "local_step: int64").input("gradient_indices: int64").input("gradient_values: dtype").input(
    "gradient_shape: int64").attr("dtype: %s" % _NUMBERS).attr(
    "has_known_shape: bool").set_is_stateful().set_shape_fn(common_shapes.no_outputs)


def _sparse_take_shape(op):
    return [tensor_shape.TensorShape([None]), tensor_shape.unknown_shape(),
            tensor_shape.TensorShape([None])]


register_op("SparseAccumulatorTakeGradient").input("handle: resource").input(
    "num_required: int32").output("indices: int64").output("values: dtype").output(
    "shape: int64").attr("dtype: %s" % _NUMBERS).set_is_stateful().set_shape_fn(
    _sparse_take_shape)
