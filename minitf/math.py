"""`tf.math`: the math ops under their `tf.math.*` names.

Most functions here are defined in `minitf/ops/math_ops.py` (the segment
reductions in `minitf/ops/sparse_ops.py`, the softmaxes and top_k in
`minitf/ops/nn_ops.py`); TF 1.15 exports
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

from minitf.ops.confusion_matrix import confusion_matrix  # noqa: F401
from minitf.ops.array_ops import invert_permutation  # noqa: F401
from minitf.ops.math_ops import (acos, acosh, asin, asinh, atan, atan2, atanh,  # noqa: F401
                                 cosh, expm1, is_finite, is_inf, is_nan, multiply_no_nan,
                                 nextafter, reciprocal_no_nan, rint, sinh, tan, xdivy, xlog1py,
                                 xlogy)
from minitf.ops.math_ops import (accumulate_n, bincount, is_non_decreasing,  # noqa: F401
                                 is_strictly_increasing, polyval, reduce_logsumexp, reduce_std,
                                 reduce_variance, unsorted_segment_mean, unsorted_segment_sqrt_n)
from minitf.ops.math_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,  # noqa: F401
                                 cumulative_logsumexp, digamma, erf, erfc, erfcinv, erfinv,
                                 lbeta, lgamma, ndtri, polygamma, reduce_euclidean_norm, zeta)
from minitf.ops.math_ops import betainc, igamma, igammac, log_sigmoid  # noqa: F401
# Neural-network functions that TensorFlow also files under tf.math.
from minitf.ops.nn_impl import zero_fraction  # noqa: F401
from minitf.ops.nn_ops import (in_top_k, l2_normalize, log_softmax, softmax,  # noqa: F401
                               softplus, softsign, top_k)
from minitf.ops.math_ops import div_no_nan as divide_no_nan  # noqa: F401
from minitf.ops.sparse_ops import (segment_max, segment_mean, segment_min,  # noqa: F401
                                   segment_prod, segment_sum, unsorted_segment_max,
                                   unsorted_segment_min, unsorted_segment_prod)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.math", __name__, name)
