"""The OpDefs of Assert, CheckNumerics, Print, PrintV2 and of the summary ops.

`Assert` takes a boolean scalar and a list of tensors of any types, which
its error message prints (each summarized to its first `summarize`
elements). It has no outputs: other ops run after it through control
dependencies. The constructor is in `minitf/ops/control_flow_ops.py`, the
kernel in `minitf/kernels/cpu/logging_kernels.py`.

A summary op turns a tag and a tensor into one string scalar: the bytes of a
`Summary` message (`minitf/proto/summary.proto`), which a FileWriter writes
to an event file. `MergeSummary` joins several such messages into one. The
constructors are in `minitf/summary/summary.py`, the kernels in
`minitf/kernels/cpu/summary_kernels.py`.

Mirrors `tensorflow/core/ops/logging_ops.cc`.
"""

import numpy as np

from minitf.framework import common_shapes
from minitf.framework.op_def import get_op_def, register_op

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
# PrintV2: writes one string scalar (tf.print formats it with StringFormat) and `end` to a
# stream: "stderr", "stdout", or a logging level "log(info)", "log(warning)", "log(error)".
# No outputs: it runs when fetched or as a control dependency. The constructor is tf.print.
register_op("PrintV2").input("input: string").attr("output_stream: string = 'stderr'").attr(
    "end: string = '\\n'").set_is_stateful().set_shape_fn(common_shapes.no_outputs)

# TensorFlow's `realnumbertype` (minitf has no bfloat16).
_REALS = "{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

register_op("ScalarSummary").input("tags: string").input("values: T").output(
    "summary: string").attr("T: %s" % _REALS).set_shape_fn(common_shapes.scalar_shape)

register_op("HistogramSummary").input("tag: string").input("values: T").output(
    "summary: string").attr("T: %s = float32" % _REALS).set_shape_fn(
    common_shapes.scalar_shape)

register_op("ImageSummary").input("tag: string").input("tensor: T").output(
    "summary: string").attr("max_images: int >= 1 = 3").attr(
    "T: {uint8, float32, float16, float64} = float32").attr("bad_color: tensor").set_shape_fn(
    common_shapes.scalar_shape)
# The colour of a pixel with a NaN or an infinity: opaque red.
get_op_def("ImageSummary").attrs["bad_color"].default = np.array([255, 0, 0, 255], np.uint8)

register_op("AudioSummaryV2").input("tag: string").input("tensor: float").input(
    "sample_rate: float").output("summary: string").attr("max_outputs: int >= 1 = 3").set_shape_fn(
    common_shapes.scalar_shape)

register_op("TensorSummaryV2").input("tag: string").input("tensor: T").input(
    "serialized_summary_metadata: string").output("summary: string").attr("T: type").set_shape_fn(
    common_shapes.scalar_shape)

register_op("MergeSummary").input("inputs: N * string").output("summary: string").attr(
    "N: int >= 1").set_shape_fn(common_shapes.scalar_shape)

# The time the node runs at, in seconds since the epoch (stateful: never folded to a constant).
register_op("Timestamp").output("ts: float64").set_is_stateful().set_shape_fn(
    common_shapes.scalar_shape)
