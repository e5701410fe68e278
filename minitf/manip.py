"""`tf.manip`: TF 1.15's module of array manipulations.

Its eight functions are `tf.*`'s own (`tf.manip.roll is tf.roll`): TF 1.15
exports them under both names.

Mirrors the `tf.manip` namespace of TF 1.15 (`tensorflow/python/ops/manip_ops.py`
and `array_ops.py`).
"""

from minitf.ops.array_ops import (batch_to_space_nd, gather_nd, reshape, reverse,  # noqa: F401
                                  roll, scatter_nd, space_to_batch_nd, tile)
