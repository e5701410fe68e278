"""The OpDefs of the bitwise ops: and, or, xor, invert and the shifts of integers.

Binary ones broadcast like arithmetic. The front end is
`minitf/ops/bitwise_ops.py` (tf.bitwise), the kernels
`minitf/kernels/cpu/bitwise_kernels.py`.

Mirrors `tensorflow/core/ops/bitwise_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op

_INTEGERS = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

for _op_type in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"):
    register_op(_op_type).input("x: T").input("y: T").output("z: T").attr(
        "T: %s" % _INTEGERS).set_shape_fn(common_shapes.broadcast_binary_shape)

register_op("Invert").input("x: T").output("y: T").attr("T: %s" % _INTEGERS).set_shape_fn(
    common_shapes.unchanged_shape)
