"""The OpDef of Assert: a node that fails the step when its condition is false.

`Assert` takes a boolean scalar and a list of tensors of any types, which
its error message prints (each summarized to its first `summarize`
elements). It has no outputs: other ops run after it through control
dependencies. The constructor is in `minitf/ops/control_flow_ops.py`, the
kernel in `minitf/kernels/cpu/logging_kernels.py`.

Mirrors `tensorflow/core/ops/logging_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op

register_op("Assert").input("condition: bool").input("data: T").attr("T: list(type)").attr(
    "summarize: int = 3").set_is_stateful().set_shape_fn(common_shapes.no_outputs)
