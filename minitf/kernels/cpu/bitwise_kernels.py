"""Kernels of the bitwise ops, written against `ctx.xp`.

A shift by a negative amount or by the width of the type or more is
undefined in C++; TensorFlow's kernels clamp the amount into
[0, bits - 1], and so do these: `int8(1) << 9` is `1 << 7`, and an
arithmetic right shift by 40 of an int32 keeps only the sign.

Mirrors `tensorflow/core/kernels/cwise_op_{bitwise_and,...,left_shift,right_shift}.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES, register_kernel

_BINARY = {
    "BitwiseAnd": lambda xp, x, y: xp.bitwise_and(x, y),
    "BitwiseOr": lambda xp, x, y: xp.bitwise_or(x, y),
    "BitwiseXor": lambda xp, x, y: xp.bitwise_xor(x, y),
    "LeftShift": lambda xp, x, y: xp.left_shift(x, _clamped_shift(xp, x, y)),
    "RightShift": lambda xp, x, y: xp.right_shift(x, _clamped_shift(xp, x, y)),
}


def _clamped_shift(xp, x, y):
    """The shift amounts, clamped into [0, bits - 1] as TensorFlow's kernels clamp them."""
    bits = np.dtype(x.dtype).itemsize * 8
    return xp.clip(y, 0, bits - 1).astype(x.dtype)


def _binary_kernel(function):
    def kernel(ctx, x, y, *, T):  # noqa: N803 - the attr's name
        del T
        return function(ctx.xp, x, y).astype(x.dtype, copy=False)
    return kernel


for _op_type, _function in _BINARY.items():
    register_kernel(_op_type, ALL_DEVICE_TYPES)(_binary_kernel(_function))


@register_kernel("Invert", ALL_DEVICE_TYPES)
def invert(ctx, x, *, T):  # noqa: N803 - the attr's name
    del T
    return ctx.xp.invert(x)
