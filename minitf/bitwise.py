"""`tf.bitwise`: the bitwise ops of integers, under the names TensorFlow gives them.

The ops are in `minitf/ops/bitwise_ops.py`.
"""

from minitf.ops.bitwise_ops import (bitwise_and, bitwise_or, bitwise_xor, invert,  # noqa: F401
                                    left_shift, right_shift)
