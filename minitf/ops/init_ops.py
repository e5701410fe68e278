"""Initializers: objects that build the initial value of a variable of a given shape.

An initializer is configured once (`tf.random_normal_initializer(stddev=0.1)`)
and called later by `tf.get_variable` as `initializer(shape, dtype=dtype,
partition_info=None)`. The call builds ops (a constant, or a random op) that
compute the initial value; the variable's `Assign` initializer consumes them.
`get_variable` calls it inside the variable's `Initializer` name scope, so a
glorot-initialized `dense/kernel` gets nodes named
`dense/kernel/Initializer/random_uniform/...`.

The variance-scaling family (Glorot/Xavier and friends) picks the spread from
the weight's *fans*: for a `[fan_in, fan_out]` matrix (or a conv kernel
`[..., in_depth, out_depth]`, multiplied by its receptive field) the variance is
`scale / n` with `n` = fan_in, fan_out or their average.

Mirrors `tensorflow/python/ops/init_ops.py` (the TF1 classes).
"""

import math

import numpy as np

from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.ops import array_ops
from minitf.ops import linalg_ops
from minitf.ops import math_ops
from minitf.ops import random_ops

__all__ = ["zeros_initializer", "ones_initializer", "constant_initializer",
           "random_uniform_initializer", "random_normal_initializer",
           "truncated_normal_initializer", "uniform_unit_scaling_initializer",
           "variance_scaling_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer"]

# The standard deviation of a unit normal truncated to [-2, 2]
# (scipy.stats.truncnorm.std(a=-2, b=2, loc=0., scale=1.)): dividing by it makes
# a truncated normal have the intended standard deviation after truncation.
_TRUNCATED_NORMAL_STDDEV = .87962566103423978


class Initializer:
    """Base class: `initializer(shape, dtype=None, partition_info=None)` returns a Tensor."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        """The constructor arguments, as a dict (`cls.from_config(config)` rebuilds it)."""
        return {}

    @classmethod
    def from_config(cls, config):
        config.pop("dtype", None)
        return cls(**config)


class Zeros(Initializer):
    """Fills the variable with 0."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, self.dtype if dtype is None else dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Fills the variable with 1."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, self.dtype if dtype is None else dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Fills the variable with `value`: a scalar (repeated) or a value of the variable's size."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, list "
                            "or tuple of values, or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=self.dtype if dtype is None else dtype,
                                    shape=shape, verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Draws uniformly from `[minval, maxval)` (maxval defaults to 1 for floats)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval,
                                         self.dtype if dtype is None else dtype, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class _NormalInitializer(Initializer):
    """Draws from N(mean, stddev**2) with `_draw`, a function of random_ops."""

    _draw = None

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        return self._draw(shape, self.mean, self.stddev,
                          self.dtype if dtype is None else dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(_NormalInitializer):
    """Draws from a normal distribution N(mean, stddev**2)."""

    _draw = staticmethod(random_ops.random_normal)


class TruncatedNormal(_NormalInitializer):
    """Draws from N(mean, stddev**2), redrawing values more than 2 stddev from the mean."""

    _draw = staticmethod(random_ops.truncated_normal)


class UniformUnitScaling(Initializer):
    """Uniform in `[-sqrt(3/fan_in) * factor, sqrt(3/fan_in) * factor]` (deprecated in TF)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        input_size = 1.0
        for dim in list(scale_shape)[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -limit, limit,
                                         self.dtype if dtype is None else dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class VarianceScaling(Initializer):
    """Random values with variance `scale / n`, where n comes from the weight's fans.

    `mode` picks n: "fan_in", "fan_out" or "fan_avg". `distribution` picks the
    law: "truncated_normal" (alias "normal": the stddev is corrected for the
    truncation), "untruncated_normal", or "uniform" in `[-limit, limit]` with
    `limit = sqrt(3 * scale / n)`.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument: %s" % mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument: %s" % distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        variance = self.scale / max(1., self._fan(scale_shape))
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(variance) / _TRUNCATED_NORMAL_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(variance), dtype,
                                            seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def _fan(self, shape):
        fan_in, fan_out = _compute_fans(shape)
        if self.mode == "fan_in":
            return fan_in
        if self.mode == "fan_out":
            return fan_out
        return (fan_in + fan_out) / 2.

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Xavier uniform: `U[-limit, limit]` with `limit = sqrt(6 / (fan_in + fan_out))`.

    The default initializer of `tf.get_variable` for floating-point variables.
    """

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed,
                         dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Xavier normal: truncated normal with stddev `sqrt(2 / (fan_in + fan_out))`."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal",
                         seed=seed, dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """An orthogonal matrix (times `gain`), reshaped to the variable's shape.

    The shape is read as a matrix [product of all but the last dimension,
    last dimension]; the Q of the QR decomposition of a normal random matrix
    of that shape, its columns' signs fixed by R's diagonal so that it is
    uniform over the orthogonal matrices (Saxe et al. 2014).
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtypes.as_dtype(dtype)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = int(np.prod([int(d) for d in shape[:-1]]))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        q *= math_ops.sign(array_ops.diag_part(r))
        if num_rows < num_cols:
            q = linalg_ops.matrix_transpose(q)
        return self.gain * array_ops.reshape(q, shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """The identity matrix (times `gain`): for a 2-D variable only."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = shape if partition_info is None else partition_info.full_shape
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dtype = self.dtype if dtype is None else dtypes.as_dtype(dtype)
        initializer = linalg_ops.eye(*[int(d) for d in full_shape], dtype=dtype)
        return self.gain * initializer

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


# TF's lower-case names for the classes: `tf.zeros_initializer()` makes a Zeros.
# The named variance scalings of the literature (tf.initializers.he_normal, ...): LeCun et
# al. 1998 keep the variance of the activations, He et al. 2015 double it for ReLUs.

def lecun_normal(seed=None):
    """Truncated normal values with variance 1 / fan_in."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    """Uniform values in [-sqrt(3 / fan_in), sqrt(3 / fan_in)]."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    """Truncated normal values with variance 2 / fan_in."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    """Uniform values in [-sqrt(6 / fan_in), sqrt(6 / fan_in)]."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="uniform", seed=seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal


def _compute_fans(shape):
    """(fan_in, fan_out) of a weight shape; conv kernels count their receptive field."""
    shape = [int(d) for d in shape]
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field_size = 1
        for dim in shape[:-2]:
            receptive_field_size *= dim
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype
