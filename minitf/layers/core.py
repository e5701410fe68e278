"""The core layers: Dense, Dropout, Flatten, and their functional forms.

`tf.layers.dense(x, 3)` is `Dense(3).apply(x)`: the class owns the
variables, the function is a one-off use of it. `Dense` is the layer seed
000 reads: `build` makes `kernel` [input_dim, units] and `bias` [units] with
`add_weight`, `call` is `activation(matmul(inputs, kernel) + bias)`.

Mirrors `tensorflow/python/layers/core.py` and the Keras layers it wraps
(`tensorflow/python/keras/layers/core.py`).
"""

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.layers import base
from minitf.layers import utils
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import init_ops
from minitf.ops import math_ops
from minitf.ops import nn_ops

__all__ = ["Dense", "dense", "Dropout", "dropout", "Flatten", "flatten"]


# =============================================================================
# Dense
# =============================================================================

class Dense(base.Layer):
    """`outputs = activation(inputs · kernel + bias)`.

    Inputs of rank > 2 are multiplied along their last axis (a `Tensordot`:
    [batch, time, in] -> [batch, time, units]).
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = base.InputSpec(min_ndim=2)

    def build(self, input_shape):
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError("Unable to build `Dense` layer with non-floating point dtype %s"
                            % (dtype,))
        input_shape = tensor_shape.TensorShape(input_shape)
        last_dim = tensor_shape.dimension_value(input_shape[-1])
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        self.input_spec = base.InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel", shape=[last_dim, self.units], initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.units], initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                dtype=self.dtype, trainable=True)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        rank = len(inputs.shape)
        if rank > 2:
            outputs = _tensordot_last_axis(inputs, self.kernel)
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        else:
            inputs = math_ops.cast(inputs, self.dtype)
            outputs = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape).with_rank_at_least(2)
        return input_shape[:-1].concatenate([self.units])


def _tensordot_last_axis(inputs, kernel):
    """[..., in] · [in, units] -> [..., units]: one MatMul between two reshapes.

    This is what `tf.tensordot(inputs, kernel, [[rank - 1], [0]])` builds:
    fold the leading axes into one, multiply, unfold them again.
    """
    with ops.name_scope(None, "Tensordot", [inputs, kernel]) as name:
        in_dim, units = kernel.shape.as_list()
        flat = array_ops.reshape(inputs, [-1, in_dim])
        product = math_ops.matmul(flat, kernel)
        leading = inputs.shape[:-1]
        if leading.is_fully_defined():
            output_shape = leading.as_list() + [units]
        else:
            output_shape = array_ops.concat([array_ops.shape(inputs)[:-1], [units]], 0)
        return array_ops.reshape(product, output_shape, name=name)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
          bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    """The functional form of `Dense`: `name` is the variable scope, `reuse` shares it."""
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


# =============================================================================
# Dropout
# =============================================================================

class Dropout(base.Layer):
    """`tf.nn.dropout` while training, the identity otherwise.

    `call(inputs, training=False)`: `training` is a Python bool, or a bool
    tensor to decide per run.
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _get_noise_shape(self, inputs):
        """`noise_shape` with each None replaced by the input's size along that axis."""
        if self.noise_shape is None:
            return None
        symbolic_shape = array_ops.shape(inputs)
        return [symbolic_shape[axis] if size is None else size
                for axis, size in enumerate(self.noise_shape)]

    def call(self, inputs, training=False):
        def dropped_inputs():
            return nn_ops.dropout(inputs, noise_shape=self._get_noise_shape(inputs),
                                  seed=self.seed, rate=self.rate)

        # A flag known only at run time builds a tf.cond: the mask is drawn only when training.
        return control_flow_ops.smart_cond(utils.training_value(training), dropped_inputs,
                                           lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return tensor_shape.TensorShape(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """The functional form of `Dropout`; by default (`training=False`) it does nothing."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


# =============================================================================
# Flatten
# =============================================================================

class Flatten(base.Layer):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...], keeping the batch dimension."""

    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(**kwargs)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = base.InputSpec(min_ndim=2)

    def call(self, inputs):
        ndims = inputs.shape.ndims
        if self.data_format == "channels_first" and ndims is not None and ndims > 2:
            # Flatten in channels_last order, so the result matches a channels_last model.
            inputs = array_ops.transpose(inputs, perm=[0] + list(range(2, ndims)) + [1])
        input_shape = inputs.shape
        if ndims is not None and input_shape[1:].is_fully_defined():
            flat_size = int(np.prod(input_shape[1:].as_list(), dtype=np.int64))
            outputs = array_ops.reshape(inputs, [-1, flat_size])
        else:
            batch_size = tensor_shape.dimension_value(input_shape[0]) if ndims else None
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            outputs = array_ops.reshape(inputs, array_ops.stack([batch_size, -1]))
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        if input_shape.ndims is None:
            return tensor_shape.TensorShape([None, None])
        rest = input_shape[1:]
        flat = rest.num_elements() if rest.is_fully_defined() else None
        return tensor_shape.TensorShape([input_shape[0], flat])


def flatten(inputs, name=None, data_format="channels_last"):
    """The functional form of `Flatten`."""
    layer = Flatten(name=name, data_format=data_format)
    return layer.apply(inputs)
