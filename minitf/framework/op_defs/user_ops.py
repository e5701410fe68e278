"""The OpDef of Fact, TensorFlow's example of a user op (`tf.user_ops.my_fact`).

A scalar string, computed by its kernel (`minitf/kernels/cpu/user_ops_kernels.py`).
Users add ops of their own with `tf.load_op_library` (`minitf/kernels/load_library.py`).

Mirrors `tensorflow/core/user_ops/fact.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op

register_op("Fact").output("fact: string").set_shape_fn(common_shapes.scalar_shape)
