"""The OpDefs of the logging ops: Assert.

`Assert(condition, data)` fails the step with InvalidArgumentError, printing
a summary of each tensor of `data`, when `condition` is false; it has no
outputs, so something must run it or depend on it. It is stateful: no
graph pass may fold it away.

The front end reads these OpDefs to type and check a new Operation (the
constructor users call, `tf.Assert`, is in `minitf/ops/control_flow_ops.py`);
the runtime reads them to know what a node takes and gives (the kernel is in
`minitf/kernels/cpu/logging_kernels.py`).

Mirrors `tensorflow/core/ops/logging_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op

register_op("Assert").input("condition: bool").input("data: T").attr("T: list(type)").attr(
    "summarize: int = 3").set_is_stateful().set_shape_fn(common_shapes.no_outputs)
