"""Batch normalization: normalize with the batch's statistics, keep moving averages for later.

While training, each feature is normalized with the mean and variance of
the current batch (`tf.nn.moments`), then scaled by `gamma` and shifted by
`beta`:

    outputs = gamma * (inputs - mean) / sqrt(variance + epsilon) + beta

At inference there is no batch to trust, so the layer uses `moving_mean`
and `moving_variance`, two non-trainable variables that training keeps up to
date: `moving = moving - (moving - batch_value) * (1 - momentum)`. Those
updates are `AssignSub` ops that nothing in the output depends on; the layer
puts them in the UPDATE_OPS collection, and the TF1 training loop runs them
with the train op:

    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)

Mirrors `tensorflow/python/layers/normalization.py` and the Keras layer it
wraps (`tensorflow/python/keras/layers/normalization.py`, its non-fused
path), with `tf.nn.batch_normalization` from `tensorflow/python/ops/nn_impl.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.layers import base
from minitf.layers import utils
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import init_ops
from minitf.ops import math_ops
from minitf.ops import nn_ops
from minitf.ops import state_ops

__all__ = ["BatchNormalization", "batch_normalization"]


class BatchNormalization(base.Layer):
    """Normalizes over every axis but `axis` (by default the last, the features).

    `call(inputs, training=False)`: `training=True` normalizes with the
    batch's moments and adds the moving-average updates; `False` uses the
    moving averages; a bool tensor decides per run.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(),
                 gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(),
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("axis must be int or list, type given: %s" % type(axis))
        for feature, value in [("renorm", renorm), ("virtual_batch_size", virtual_batch_size),
                               ("adjustment", adjustment)]:
            if value:
                raise NotImplementedError("minitf's BatchNormalization has no %s." % feature)
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused  # accepted; minitf always computes the non-fused way

    def build(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank: %s" % (input_shape,))
        ndims = input_shape.ndims
        self.axis = self._resolve_axes(ndims)
        axis_to_dim = {x: tensor_shape.dimension_value(input_shape[x]) for x in self.axis}
        if any(dim is None for dim in axis_to_dim.values()):
            raise ValueError("Input has undefined `axis` dimension. Input shape: %s"
                             % (input_shape,))
        self.input_spec = base.InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(axis_to_dim) == 1:
            param_shape = list(axis_to_dim.values())
        else:
            # One parameter per position along the axes, broadcast along the others.
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
        param_dtype = self._param_dtype()

        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape=param_shape, dtype=param_dtype,
                initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint, trainable=True)
        if self.center:
            self.beta = self.add_weight(
                "beta", shape=param_shape, dtype=param_dtype,
                initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                constraint=self.beta_constraint, trainable=True)
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param_shape, dtype=param_dtype,
            initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param_shape, dtype=param_dtype,
            initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _resolve_axes(self, ndims):
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axes = [x + ndims if x < 0 else x for x in axes]
        for x in axes:
            if x < 0 or x >= ndims:
                raise ValueError("Invalid axis: %d" % x)
        if len(axes) != len(set(axes)):
            raise ValueError("Duplicate axis: %s" % axes)
        return axes

    def _param_dtype(self):
        # float16 statistics would lose too much: they are kept in float32.
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        return dtypes.float32 if dtype == dtypes.float16 else dtype

    def call(self, inputs, training=False):
        training = utils.training_value(training)
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast = _broadcaster(ndims, self.axis, reduction_axes, input_shape)
        scale, offset = broadcast(self.gamma), broadcast(self.beta)

        if training is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            mean, variance = nn_ops.moments(math_ops.cast(inputs, self._param_dtype()),
                                            reduction_axes, keep_dims=len(self.axis) > 1)
            # With a flag known only at run time, each is a tf.cond: the batch's
            # statistics and the updates while training, the moving averages otherwise.
            mean = control_flow_ops.smart_cond(
                training, lambda: mean, lambda: convert_to_tensor(self.moving_mean))
            variance = control_flow_ops.smart_cond(
                training, lambda: variance, lambda: convert_to_tensor(self.moving_variance))
            new_mean, new_variance = mean, variance

            def mean_update():
                return control_flow_ops.smart_cond(
                    training, lambda: self._assign_moving_average(self.moving_mean, new_mean),
                    lambda: self.moving_mean)

            def variance_update():
                return control_flow_ops.smart_cond(
                    training,
                    lambda: self._assign_moving_average(self.moving_variance, new_variance),
                    lambda: self.moving_variance)

            self.add_update(mean_update)
            self.add_update(variance_update)

        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = math_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = math_ops.cast(scale, inputs.dtype)
        outputs = batch_normalization_op(inputs, broadcast(mean), broadcast(variance), offset,
                                         scale, self.epsilon)
        outputs.set_shape(input_shape)
        return outputs

    def _assign_moving_average(self, variable, value):
        """`variable -= (variable - value) * (1 - momentum)`, an AssignSub named AssignMovingAvg."""
        with ops.name_scope(None, "AssignMovingAvg", [variable, value]) as scope:
            with ops.colocate_with(variable):
                decay = convert_to_tensor(1.0 - self.momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = math_ops.cast(decay, variable.dtype.base_dtype)
                update_delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
                return state_ops.assign_sub(variable, update_delta, name=scope)

    def compute_output_shape(self, input_shape):
        return tensor_shape.TensorShape(input_shape)


def _broadcaster(ndims, axis, reduction_axes, input_shape):
    """Reshapes a parameter [C] to [1, C, 1, 1] when the single axis is not the last.

    (With the last axis, or with several axes whose parameters already have
    the input's rank, ordinary broadcasting does it.)
    """
    broadcast_shape = [1] * ndims
    broadcast_shape[axis[0]] = tensor_shape.dimension_value(input_shape[axis[0]])

    def broadcast(v):
        if (v is not None and len(v.shape) != ndims
                and reduction_axes != list(range(ndims - 1))):
            return array_ops.reshape(v, broadcast_shape)
        return v
    return broadcast


def batch_normalization_op(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """`scale * (x - mean) / sqrt(variance + epsilon) + offset`, as `tf.nn.batch_normalization`.

    Computed as `x * inv + (offset - mean * inv)` with
    `inv = scale / sqrt(variance + epsilon)`, so that only one op touches
    the full-size `x` twice.
    """
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(),
                        gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(),
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """The functional form of `BatchNormalization`.

    Remember the updates: with `training=True` the moving averages change
    only when the ops in `tf.GraphKeys.UPDATE_OPS` run.
    """
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)
