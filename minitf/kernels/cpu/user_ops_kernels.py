"""The kernel of Fact, TensorFlow's example user op: always the string "0! == 1".

Mirrors `tensorflow/core/user_ops/fact.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import register_kernel


@register_kernel("Fact", ("CPU",), is_expensive=False)
def fact(ctx):
    return np.array(b"0! == 1", dtype=object)
