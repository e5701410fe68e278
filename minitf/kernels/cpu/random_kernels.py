"""Kernels of the random ops: NumPy generators that live as long as the session.

Each random node owns one NumPy `Generator`, created the first time the node
runs and kept in `ctx.state`, so successive runs continue one sequence (and
give different numbers), as TensorFlow's kernels do with their PhiloxRandom.

* seed = seed2 = 0: no seed was set anywhere; the generator starts from fresh
  OS entropy, so every session draws different numbers.
* otherwise the generator is a Philox counter-based generator keyed by
  (seed, seed2): the same seeds give the same numbers in every session and
  every process (the numbers differ from TensorFlow's own; the behaviour is
  the same).

Numbers are always drawn on the host and copied to the kernel's device, so
one kernel serves CPU and GPU, and a seeded graph gives the same numbers on both.

Mirrors `tensorflow/core/kernels/random_op.cc` and `random_shuffle_op.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import on_device
from minitf.kernels.kernel_util import shape_text

_UINT64_MASK = 2**64 - 1


# --- the per-node generator -------------------------------------------------------------

def _new_generator(seed, seed2):
    if seed == 0 and seed2 == 0:
        return np.random.default_rng()
    # Philox takes a 128-bit key: seed in the high 64 bits, seed2 in the low 64 bits.
    key = ((seed & _UINT64_MASK) << 64) | (seed2 & _UINT64_MASK)
    return np.random.Generator(np.random.Philox(key=key))


def _generator(ctx, seed, seed2):
    """This node's generator, created on its first run."""
    generator = ctx.state.get("generator")
    if generator is None:
        # setdefault: if two steps race to create it, both use the one stored first.
        generator = ctx.state.setdefault("generator", _new_generator(seed, seed2))
    return generator


def _shape_from(ctx, shape):
    """The host tuple of ints held by a 1-D shape input."""
    host = host_array(ctx, shape)
    if host.ndim != 1:
        raise invalid("shape must be a vector of {int32,int64}, got shape %s"
                      % shape_text(host.shape))
    dims = tuple(int(d) for d in host)
    for d in dims:
        if d < 0:
            raise invalid("Dimension %d must be >= 0" % d)
    return dims


# --- floats ------------------------------------------------------------------------------

def _standard_normal(generator, shape, dtype):
    """NumPy draws float32 and float64 directly; float16 goes through float32."""
    if dtype in (np.float32, np.float64):
        return generator.standard_normal(shape, dtype=dtype)
    return generator.standard_normal(shape, dtype=np.float32).astype(dtype)


@register_kernel("RandomStandardNormal", ALL_DEVICE_TYPES)
def random_standard_normal(ctx, shape, *, dtype, seed, seed2):
    generator = _generator(ctx, seed, seed2)
    return on_device(ctx, _standard_normal(generator, _shape_from(ctx, shape),
                                           dtype.as_numpy_dtype))


@register_kernel("TruncatedNormal", ALL_DEVICE_TYPES)
def truncated_normal(ctx, shape, *, dtype, seed, seed2):
    """Standard normal values, each one beyond 2 redrawn until it falls within [-2, 2]."""
    generator = _generator(ctx, seed, seed2)
    return on_device(ctx, _truncated(generator, _shape_from(ctx, shape), dtype.as_numpy_dtype))


def _truncated(generator, shape, np_dtype):
    values = _standard_normal(generator, shape, np_dtype)
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = _standard_normal(generator, int(outside.sum()), np_dtype)
        outside = np.abs(values) > 2
    return values


@register_kernel("RandomUniform", ALL_DEVICE_TYPES)
def random_uniform(ctx, shape, *, dtype, seed, seed2):
    """Values in [0, 1)."""
    generator = _generator(ctx, seed, seed2)
    return on_device(ctx, _uniform(generator, _shape_from(ctx, shape), dtype.as_numpy_dtype))


def _uniform(generator, shape, np_dtype):
    if np_dtype in (np.float32, np.float64):
        return generator.random(shape, dtype=np_dtype)
    # Rounding a float32 draw to float16 may give 1.0: keep it below 1.
    values = generator.random(shape, dtype=np.float32).astype(np_dtype)
    largest_below_one = np.nextafter(np_dtype(1), np_dtype(0))
    return np.minimum(values, largest_below_one)


# --- integers and shuffles ------------------------------------------------------------------

@register_kernel("RandomUniformInt", ALL_DEVICE_TYPES)
def random_uniform_int(ctx, shape, minval, maxval, *, Tout, seed, seed2):
    """Integers drawn uniformly from [minval, maxval)."""
    return on_device(ctx, _uniform_ints(ctx, lambda: _generator(ctx, seed, seed2),
                                        _shape_from(ctx, shape), minval, maxval,
                                        Tout.as_numpy_dtype))


def _uniform_ints(ctx, make_generator, shape, minval, maxval, np_dtype):
    """Integers of `shape` from [minval, maxval), the bounds checked first (the generator is
    made only then, by `make_generator()`)."""
    minval, maxval = ctx.device.copy_to_host(minval), ctx.device.copy_to_host(maxval)
    for name, bound in (("minval", minval), ("maxval", maxval)):
        if np.ndim(bound) != 0:
            raise invalid("%s must be 0-D, got shape %s" % (name, shape_text(np.shape(bound))))
    low, high = int(minval), int(maxval)
    if low >= high and int(np.prod(shape)) > 0:
        raise invalid("Need minval < maxval, got %d >= %d" % (low, high))
    if int(np.prod(shape)) == 0:
        return np.zeros(shape, dtype=np_dtype)
    return make_generator().integers(low, high, size=shape, dtype=np_dtype)


@register_kernel("RandomShuffle", ALL_DEVICE_TYPES)
def random_shuffle(ctx, value, *, seed, seed2):
    """`value` with its first dimension permuted; scalars and length-1 come back as they are."""
    generator = _generator(ctx, seed, seed2)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    permutation = on_device(ctx, generator.permutation(value.shape[0]))
    return ctx.xp.take(value, permutation, axis=0)


# --- samples of distributions with parameters ----------------------------------------------

def _check_logits(logits, num_samples):
    """The logits (a matrix of at least one class) and num_samples (>= 0) as TF checks them."""
    if logits.ndim != 2:
        raise invalid("logits should be a matrix, got shape %s" % shape_text(logits.shape))
    if np.ndim(num_samples) != 0:
        raise invalid("num_samples should be a scalar, got shape %s"
                      % shape_text(np.shape(num_samples)))
    num_samples = int(num_samples)
    if num_samples < 0:
        raise invalid("num_samples should be nonnegative, got %d" % num_samples)
    if logits.shape[1] == 0 and logits.shape[0] > 0:
        raise invalid("num_classes should be positive, got 0")
    return num_samples


def _categorical_draws(generator, logits, num_samples, np_dtype):
    """`num_samples` class indices per row, class j of a row drawn with probability
    softmax(row)[j] (a logit of -inf is a class never drawn)."""
    logits = logits.astype(np.float64)
    out = np.zeros((logits.shape[0], num_samples), dtype=np_dtype)
    for row, row_logits in enumerate(logits):
        weights = np.exp(row_logits - np.max(row_logits))
        cdf = np.cumsum(weights)
        draws = generator.random(num_samples) * cdf[-1]
        # The first class whose cumulative weight exceeds the draw; never past the last.
        out[row] = np.minimum(np.searchsorted(cdf, draws, side="right"), len(cdf) - 1)
    return out


@register_kernel("Multinomial", ALL_DEVICE_TYPES)
def multinomial(ctx, logits, num_samples, *, T, output_dtype, seed, seed2):  # noqa: N803
    del T
    logits, num_samples = host_array(ctx, logits), host_array(ctx, num_samples)
    num_samples = _check_logits(logits, num_samples)
    generator = _generator(ctx, seed, seed2)
    return on_device(ctx, _categorical_draws(generator, logits, num_samples,
                                             output_dtype.as_numpy_dtype))


@register_kernel("RandomPoissonV2", ALL_DEVICE_TYPES)
def random_poisson_v2(ctx, shape, rate, *, S, R, dtype, seed, seed2):  # noqa: N803
    """For each rate, `shape` draws of a Poisson distribution with that rate."""
    del S, R
    shape, rate = _shape_from(ctx, shape), host_array(ctx, rate)
    if np.any(rate < 0):
        raise invalid("rate must be non-negative, got %s" % rate[rate < 0].reshape(-1)[0])
    generator = _generator(ctx, seed, seed2)
    draws = generator.poisson(np.asarray(rate, dtype=np.float64), size=shape + rate.shape)
    return on_device(ctx, draws.astype(dtype.as_numpy_dtype))


# --- stateless: a new generator from the seed input at every run ----------------------------

def _stateless_generator(ctx, seed):
    """A Philox generator keyed by the two ints of the `seed` input."""
    seed = host_array(ctx, seed)
    if seed.shape != (2,):
        raise invalid("seed must have shape [2], not %s" % shape_text(seed.shape))
    return np.random.Generator(np.random.Philox(
        key=((int(seed[0]) & _UINT64_MASK) << 64) | (int(seed[1]) & _UINT64_MASK)))


@register_kernel("StatelessRandomNormal", ALL_DEVICE_TYPES)
def stateless_random_normal(ctx, shape, seed, *, dtype, T, Tseed):  # noqa: N803
    del T, Tseed
    generator = _stateless_generator(ctx, seed)
    return on_device(ctx, _standard_normal(generator, _shape_from(ctx, shape),
                                           dtype.as_numpy_dtype))


@register_kernel("StatelessTruncatedNormal", ALL_DEVICE_TYPES)
def stateless_truncated_normal(ctx, shape, seed, *, dtype, T, Tseed):  # noqa: N803
    del T, Tseed
    generator = _stateless_generator(ctx, seed)
    return on_device(ctx, _truncated(generator, _shape_from(ctx, shape), dtype.as_numpy_dtype))


@register_kernel("StatelessRandomUniform", ALL_DEVICE_TYPES)
def stateless_random_uniform(ctx, shape, seed, *, dtype, T, Tseed):  # noqa: N803
    del T, Tseed
    generator = _stateless_generator(ctx, seed)
    return on_device(ctx, _uniform(generator, _shape_from(ctx, shape), dtype.as_numpy_dtype))


@register_kernel("StatelessRandomUniformInt", ALL_DEVICE_TYPES)
def stateless_random_uniform_int(ctx, shape, seed, minval, maxval, *, dtype, T,  # noqa: N803
                                 Tseed):
    del T, Tseed
    return on_device(ctx, _uniform_ints(ctx, lambda: _stateless_generator(ctx, seed),
                                        _shape_from(ctx, shape), minval, maxval,
                                        dtype.as_numpy_dtype))


@register_kernel("StatelessMultinomial", ALL_DEVICE_TYPES)
def stateless_multinomial(ctx, logits, num_samples, seed, *, T, Tseed,  # noqa: N803
                          output_dtype):
    del T, Tseed
    logits, num_samples = host_array(ctx, logits), host_array(ctx, num_samples)
    num_samples = _check_logits(logits, num_samples)
    generator = _stateless_generator(ctx, seed)
    return on_device(ctx, _categorical_draws(generator, logits, num_samples,
                                             output_dtype.as_numpy_dtype))
