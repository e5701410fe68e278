"""The OpDef of Assert: a node that fails the step when its condition is false.

`Assert` takes a boolean scalar and a list of tensors of any types, which
its error message prints (each summarized to its first `summarize`
elements). It has no outputs: other ops run after it through control
dependencies. The constructor is in `minitf/ops/logging_ops.py`, the
kernel in `minitf/kernels/cpu/logging_kernels.py`.

Mirrors `tensorflow/core/ops/logging_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op

register_op("Assert").input("condition: bool").input("data: T").attr("T: list(type)").attr(
    "summarize: int = 3").set_is_stateful().set_shape_fn(common_shapes.no_outputs)

# CheckNumerics: its input unchanged, or the step fails when it holds a NaN or an infinity
# (`message` starts the error). Its constructor is in `minitf/ops/numerics.py`.
register_op("CheckNumerics").input("tensor: T").output("output: T").attr(
    "T: {float16, float32, float64}").attr("message: string").set_shape_fn(
    common_shapes.unchanged_shape)

# Print: its first input unchanged; as it passes, `message` and each of `data` are printed to
# stderr (the first `first_n` times, or always when -1). The constructor is tf.Print
# (`minitf/ops/logging_ops.py`).
register_op("Print").input("input: T").input("data: U").output("output: T").attr(
    "T: type").attr("U: list(type) >= 0").attr("message: string = ''").attr(
    "first_n: int = -1").attr("summarize: int = 3").set_is_stateful().set_shape_fn(
    common_shapes.unchanged_shape)
