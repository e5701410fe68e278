"""The OpDefs of the random ops.

They are stateful: each keeps its generator between runs, so two runs give
two draws. Their output shape is the value of their `shape` input, as far
as it is known while the graph is built.

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/random_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/random_kernels.py`).

Mirrors `tensorflow/core/ops/random_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape, tensor_util


def _shape_from_shape_tensor(op):
    """The output shape is the value of the 1-D `shape` input, as far as it is known.

    A negative dimension counts as unknown here; the kernel rejects it.
    """
    shape_input = op.inputs[0]
    if shape_input.shape.ndims is not None and shape_input.shape.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % shape_input.shape.ndims)
    return [tensor_util.constant_value_as_shape(shape_input)]


def _register_random_float_op(op_type):
    register_op(op_type).input("shape: T").output("output: dtype").attr(
        "seed: int = 0").attr("seed2: int = 0").attr("dtype: {float16, float32, float64}").attr(
        "T: {int32, int64}").set_is_stateful().set_shape_fn(_shape_from_shape_tensor)


_register_random_float_op("RandomStandardNormal")
_register_random_float_op("RandomUniform")
_register_random_float_op("TruncatedNormal")

register_op("RandomUniformInt").input("shape: T").input("minval: Tout").input(
    "maxval: Tout").output("output: Tout").attr("seed: int = 0").attr("seed2: int = 0").attr(
    "Tout: {int32, int64}").attr("T: {int32, int64}").set_is_stateful().set_shape_fn(
    _shape_from_shape_tensor)

register_op("RandomShuffle").input("value: T").output("output: T").attr(
    "seed: int = 0").attr("seed2: int = 0").attr("T: type").set_is_stateful().set_shape_fn(
    lambda op: [op.inputs[0].shape])


# --- samples of distributions with parameters: Multinomial, RandomPoissonV2 -----------------

def _multinomial_shape(op):
    """[batch, num_samples] from logits [batch, classes] and a scalar num_samples."""
    logits = common_shapes.with_rank(op.inputs[0].shape, 2)
    common_shapes.with_rank(op.inputs[1].shape, 0)
    return [tensor_shape.TensorShape([logits[0], common_shapes.constant_int(op.inputs[1])])]


register_op("Multinomial").input("logits: T").input("num_samples: int32").output(
    "output: output_dtype").attr("seed: int = 0").attr("seed2: int = 0").attr(
    "T: {float16, float32, float64, int32, int64}").attr(
    "output_dtype: {int32, int64} = int64").set_is_stateful().set_shape_fn(
    _multinomial_shape)


def _shape_then_rate_shape(op):
    """The `shape` input's value followed by the shape of the rate: a draw per rate."""
    shape = _shape_from_shape_tensor(op)[0]
    return [shape.concatenate(op.inputs[1].shape)]


register_op("RandomPoissonV2").input("shape: S").input("rate: R").output("output: dtype").attr(
    "seed: int = 0").attr("seed2: int = 0").attr("S: {int32, int64}").attr(
    "R: {float16, float32, float64, int32, int64} = float64").attr(
    "dtype: {float16, float32, float64, int32, int64} = int64").set_is_stateful(
    ).set_shape_fn(_shape_then_rate_shape)


# --- stateless: the same seed input, the same numbers -------------------------------------

def _stateless_shape(op):
    """The `shape` input's value; the seed must be a vector of two ints."""
    seed = common_shapes.with_rank(op.inputs[1].shape, 1)
    common_shapes.merge_dim_in_shapes(seed[0], 2, 0, seed, tensor_shape.TensorShape([2]))
    return _shape_from_shape_tensor(op)


def _register_stateless_float_op(op_type):
    register_op(op_type).input("shape: T").input("seed: Tseed").output("output: dtype").attr(
        "dtype: {float16, float32, float64} = float32").attr("T: {int32, int64} = int32").attr(
        "Tseed: {int32, int64} = int64").set_shape_fn(_stateless_shape)


_register_stateless_float_op("StatelessRandomNormal")
_register_stateless_float_op("StatelessRandomUniform")
_register_stateless_float_op("StatelessTruncatedNormal")

register_op("StatelessRandomUniformInt").input("shape: T").input("seed: Tseed").input(
    "minval: dtype").input("maxval: dtype").output("output: dtype").attr(
    "dtype: {int32, int64}").attr("T: {int32, int64}").attr(
    "Tseed: {int32, int64} = int64").set_shape_fn(_stateless_shape)


def _stateless_multinomial_shape(op):
    seed = common_shapes.with_rank(op.inputs[2].shape, 1)
    common_shapes.merge_dim_in_shapes(seed[0], 2, 0, seed, tensor_shape.TensorShape([2]))
    return _multinomial_shape(op)


register_op("StatelessMultinomial").input("logits: T").input("num_samples: int32").input(
    "seed: Tseed").output("output: output_dtype").attr(
    "T: {float16, float32, float64, int32, int64}").attr("Tseed: {int32, int64} = int64").attr(
    "output_dtype: {int32, int64} = int64").set_shape_fn(_stateless_multinomial_shape)
