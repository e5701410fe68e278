"""Random ops: tensors of random numbers, drawn anew each time the op runs.

A random op is *stateful*: its kernel keeps a generator that advances with
every run, so two `sess.run` calls give different numbers. Its attrs `seed`
and `seed2` come from `random_seed.get_seed`, which combines the graph seed
(`tf.set_random_seed`) with the op's own `seed` argument: with either set, the
sequence is the same in every new session and every process; with neither
(seed = seed2 = 0) it is different every time.

As in TensorFlow, `random_normal` is a small subgraph: a standard-normal op,
then `* stddev` and `+ mean`:

    random_normal/RandomStandardNormal -> random_normal/mul -> random_normal

The OpDefs are in `minitf/framework/op_defs/random.py`.

Mirrors `tensorflow/python/ops/random_ops.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import random_seed
from minitf.graph import tensor_shape
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops

__all__ = ["random_normal", "random_uniform", "truncated_normal", "random_shuffle", "multinomial",
           "random_poisson"]


# --- helpers ------------------------------------------------------------------------------

def _shape_tensor(shape):
    """`shape` (a list, a TensorShape or a tensor) as an int tensor named "shape"."""
    dtype = None
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes.int32
        else:
            shape = [tensor_shape.dimension_value(d) for d in shape]
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def _seed_attrs(seed):
    """The (seed, seed2) attrs; (0, 0) asks the kernel for fresh entropy."""
    seed1, seed2 = random_seed.get_seed(seed)
    return seed1 or 0, seed2 or 0


def _scaled_and_shifted(op_type, shape, mean, stddev, dtype, name, default_name, **seeds):
    """`op_type`(shape, **seeds) * stddev + mean, the subgraph of random_normal and
    truncated_normal (and of their stateless kin, whose seed is an input)."""
    with ops.name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape_tensor = _shape_tensor(shape)
        mean_tensor = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op(op_type, shape=shape_tensor, dtype=dtype, **seeds)
        mul = rnd * stddev_tensor
        return math_ops.add(mul, mean_tensor, name=scope)


def _seeded_and_scaled(op_type, shape, mean, stddev, dtype, seed, name, default_name):
    seed1, seed2 = _seed_attrs(seed)
    return _scaled_and_shifted(op_type, shape, mean, stddev, dtypes.as_dtype(dtype), name,
                               default_name, seed=seed1, seed2=seed2)


# --- the public constructors ----------------------------------------------------------------

def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution with this `mean` and `stddev`."""
    return _seeded_and_scaled("RandomStandardNormal", shape, mean, stddev, dtype, seed, name,
                              "random_normal")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Like random_normal, but values more than 2 stddev from the mean are drawn again."""
    return _seeded_and_scaled("TruncatedNormal", shape, mean, stddev, dtype, seed, name,
                              "truncated_normal")


_UNIFORM_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _uniform_dtype_and_maxval(dtype, maxval):
    """The dtype of a uniform draw, checked, and its upper bound (1 for floats by default)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError("Invalid dtype %r" % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    return dtype, maxval


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Values drawn uniformly from [minval, maxval).

    Floats default to [0, 1). Integers need `maxval` and come from their own
    op, RandomUniformInt, which draws exact integers (no float rounding bias).
    """
    dtype, maxval = _uniform_dtype_and_maxval(dtype, maxval)
    with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_tensor = _shape_tensor(shape)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seed1, seed2 = _seed_attrs(seed)
        if dtype.is_integer:
            result = apply_op("RandomUniformInt", name=scope, shape=shape_tensor, minval=minval,
                              maxval=maxval, seed=seed1, seed2=seed2)
        else:
            rnd = apply_op("RandomUniform", shape=shape_tensor, dtype=dtype, seed=seed1,
                           seed2=seed2)
            result = math_ops.add(rnd * (maxval - minval), minval, name=scope)
        return result


def random_shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    seed1, seed2 = _seed_attrs(seed)
    return apply_op("RandomShuffle", name=name, value=value, seed=seed1, seed2=seed2)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """`num_samples` class indices for each row of `logits` [batch, classes], class j drawn
    with probability softmax(row)[j]: [batch, num_samples] of `output_dtype` (int64)."""
    return _multinomial(logits, num_samples, output_dtype, seed, name, "multinomial")


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`multinomial` under its TF 2 name, with `dtype` for `output_dtype`."""
    return _multinomial(logits, num_samples, dtype, seed, name, "categorical")


def _multinomial(logits, num_samples, output_dtype, seed, name, default_name):
    with ops.name_scope(name, default_name, [logits]):
        logits = convert_to_tensor(logits, name="logits")
        seed1, seed2 = _seed_attrs(seed)
        return apply_op("Multinomial", logits=logits, num_samples=num_samples, seed=seed1,
                        seed2=seed2, output_dtype=output_dtype or dtypes.int64)


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """For each rate in `lam`, values of `shape` from a Poisson distribution with that rate:
    a tensor of shape `shape + lam.shape`."""
    with ops.name_scope(name, "random_poisson", [lam, shape]):
        shape_tensor = _shape_tensor(shape)
        seed1, seed2 = _seed_attrs(seed)
        return apply_op("RandomPoissonV2", shape=shape_tensor, rate=lam, seed=seed1,
                        seed2=seed2, dtype=dtypes.as_dtype(dtype))


# The TF 2 style names TF 1.15 also has, under `tf.random`.
normal = random_normal
uniform = random_uniform
shuffle = random_shuffle
poisson = random_poisson


def random_crop(value, size, seed=None, name=None):
    """A slice of `value` of shape `size` at a random offset (size <= value's shape, checked
    when the op runs)."""
    with ops.name_scope(name, "random_crop", [value, size]) as name:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = control_flow_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape, size)),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_uniform(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                seed=seed) % limit
        return array_ops.slice(value, offset, size, name=name)
