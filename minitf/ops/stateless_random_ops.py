"""Stateless random ops: the same `seed` input gives the same numbers, every run.

A stateful random op (`random_ops.py`) keeps its generator in its kernel
and draws new numbers each time it runs. A stateless one takes its seed as
an input, a tensor of two integers, and starts a new generator from it at
every run: `tf.random.stateless_normal([3], seed=[1, 2])` is the same three
numbers in every run, session and process, and another seed gives others.
Nothing is kept between runs, so the ops are pure functions of their inputs,
and none of them has a gradient.

The numbers differ from TensorFlow's (TF's kernels run Philox in their own
way); minitf keys NumPy's Philox generator with the two seeds.

The OpDefs are in `minitf/framework/op_defs/random.py`, the kernels in
`minitf/kernels/cpu/random_kernels.py`.

Mirrors `tensorflow/python/ops/stateless_random_ops.py` of TF 1.15.
"""

from minitf.graph import dtypes, ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import math_ops
from minitf.ops.random_ops import _scaled_and_shifted, _shape_tensor, _uniform_dtype_and_maxval

__all__ = ["stateless_random_normal", "stateless_truncated_normal", "stateless_random_uniform",
           "stateless_multinomial", "stateless_categorical"]


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                            name=None):
    """Values from a normal distribution, the same for the same `seed` (a vector of 2 ints)."""
    return _scaled_and_shifted("StatelessRandomNormal", shape, mean, stddev,
                               dtypes.as_dtype(dtype), name, "stateless_random_normal", seed=seed)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None):
    """Like stateless_random_normal, values beyond 2 stddev from the mean drawn again."""
    return _scaled_and_shifted("StatelessTruncatedNormal", shape, mean, stddev,
                               dtypes.as_dtype(dtype), name, "stateless_truncated_normal",
                               seed=seed)


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32,
                             name=None):
    """Values drawn uniformly from [minval, maxval) (floats: [0, 1) by default), the same for
    the same `seed`."""
    dtype, maxval = _uniform_dtype_and_maxval(dtype, maxval)
    with ops.name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape_tensor = _shape_tensor(shape)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return apply_op("StatelessRandomUniformInt", name=scope, shape=shape_tensor,
                            seed=seed, minval=minval, maxval=maxval)
        rnd = apply_op("StatelessRandomUniform", shape=shape_tensor, seed=seed, dtype=dtype)
        return math_ops.add(rnd * (maxval - minval), minval, name=scope)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """`tf.multinomial`, the same draws for the same `seed`."""
    return _stateless_multinomial(logits, num_samples, seed, output_dtype, name,
                                  "stateless_multinomial")


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """`stateless_multinomial` under its TF 2 name, with `dtype` for `output_dtype`."""
    return _stateless_multinomial(logits, num_samples, seed, dtype, name,
                                  "stateless_categorical")


def _stateless_multinomial(logits, num_samples, seed, output_dtype, name, default_name):
    with ops.name_scope(name, default_name, [logits, seed]):
        logits = convert_to_tensor(logits, name="logits")
        return apply_op("StatelessMultinomial", logits=logits, num_samples=num_samples,
                        seed=seed, output_dtype=output_dtype)
