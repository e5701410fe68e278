"""`tf.bitwise`: and, or, xor, invert and shifts of integer tensors, elementwise.

No gradients: the ops work on integers (declared NotDifferentiable in
`minitf/autodiff/math_grad.py`, as TF declares them).

Mirrors `tensorflow/python/ops/bitwise_ops.py`.
"""

from minitf.graph.op_def_library import apply_op

__all__ = []


def bitwise_and(x, y, name=None):
    """x & y, elementwise (broadcasting)."""
    return apply_op("BitwiseAnd", name=name, x=x, y=y)


def bitwise_or(x, y, name=None):
    """x | y, elementwise (broadcasting)."""
    return apply_op("BitwiseOr", name=name, x=x, y=y)


def bitwise_xor(x, y, name=None):
    """x ^ y, elementwise (broadcasting)."""
    return apply_op("BitwiseXor", name=name, x=x, y=y)


def invert(x, name=None):
    """~x: every bit flipped."""
    return apply_op("Invert", name=name, x=x)


def left_shift(x, y, name=None):
    """x << y (y clamped into [0, bits - 1])."""
    return apply_op("LeftShift", name=name, x=x, y=y)


def right_shift(x, y, name=None):
    """x >> y, arithmetic for signed types (y clamped into [0, bits - 1])."""
    return apply_op("RightShift", name=name, x=x, y=y)
