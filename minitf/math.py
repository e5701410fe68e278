"""`tf.math`: the math ops under their `tf.math.*` names.

Every function here is defined in `minitf/ops/math_ops.py`; TF 1.15 exports
most math functions twice, as `tf.add` and `tf.math.add`, and a few
(`tf.math.floormod`) only here or under a second name.

Mirrors the `tf.math` namespace of `tensorflow/python/ops/math_ops.py`.

A name of TF 1.15's `tf.math` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.math_ops import (abs, add, add_n, angle, argmax, argmin, ceil,  # noqa: F401,A004
                                 conj, cos, count_nonzero, cumprod, cumsum, divide, equal, exp,
                                 floor, imag, real,
                                 floordiv, floormod, greater, greater_equal, less, less_equal,
                                 log, log1p, logical_and, logical_not, logical_or, logical_xor,
                                 maximum, minimum, mod, multiply, negative, not_equal, pow,
                                 realdiv, reciprocal, reduce_all, reduce_any, reduce_max,
                                 reduce_mean, reduce_min, reduce_prod, reduce_sum, round, rsqrt,
                                 scalar_mul, sigmoid, sign, sin, sqrt, square,
                                 squared_difference, subtract, tanh, truediv,
                                 unsorted_segment_sum)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.math", __name__, name)
