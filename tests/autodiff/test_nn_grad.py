"""Gradients of the nn ops: numeric checks for every op, the cross entropies, the graph built.

`GRADIENT_CASES` maps each op type with a gradient function in
`minitf/autodiff/nn_grad.py` to the cases `test_gradient_matches_finite_differences`
runs: the Jacobian `tf.gradients` builds is compared with central finite
differences (`tf.test.compute_gradient_error`) in float64, at inputs kept
away from kinks (relu at 0 and 6, ties in max pooling).
`tests/autodiff/test_gradient_coverage.py` reads the dict to check that no
registered gradient goes untested.

The backward ops (ReluGrad, Conv2DBackpropInput, MaxPoolGrad, ...) have
gradients too, for second derivatives; their cases build them directly or
as the gradient of a gradient. Expected node names follow TF 1.15's
`nn_grad.py`, read off a reference TensorFlow building the same graphs.
"""

import warnings

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff import registry
from minitf.ops import nn_ops


class Case:
    """One numeric check: `build(*inputs)` differentiated w.r.t. every input, at `values`."""

    def __init__(self, label, build, *values, tolerance=1e-7, delta=1e-4, dtype=np.float64):
        self.label = label
        self.build = build
        self.values = [np.asarray(v, dtype=dtype) for v in values]
        self.tolerance = tolerance
        self.delta = delta

    def __repr__(self):
        return self.label


def uniform(shape, low=-1.0, high=1.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, size=shape)


def away_from(kinks, shape, low, high, seed=0, margin=0.2):
    """Uniform values in [low, high] at least `margin` away from every kink."""
    values = uniform(shape, low, high, seed)
    for kink in kinks:
        near = np.abs(values - kink) < margin
        values[near] = kink + np.where(values[near] < kink, -margin, margin) * 2
    return values


def distinct(shape, seed=0):
    """Values 0.1 apart from each other: max pooling without ties."""
    size = int(np.prod(shape))
    return (np.random.RandomState(seed).permutation(size) * 0.1 - size * 0.05).reshape(shape)


def distributions(shape, seed=0):
    """Rows that are probability distributions (labels of a softmax cross entropy)."""
    values = uniform(shape, 0.1, 1.0, seed)
    return values / values.sum(axis=-1, keepdims=True)


def first_gradient(build):
    """The gradient of sum(build(x)) w.r.t. x, as a function of x: for second derivatives."""
    def gradient(x, *rest):
        return tf.gradients(build(x, *rest), x)[0]
    return gradient


# --- the cases, per op type -------------------------------------------------------------

def activation_cases(activation, kinks):
    return [Case(label, activation, away_from(kinks, shape, -8.0, 8.0, seed=i))
            for i, (label, shape) in enumerate([("vector", [7]), ("matrix", [3, 4]),
                                                ("rank3", [2, 2, 3])])]


def grad_op_cases(grad_op, features):
    """A backward op built directly, w.r.t. both its inputs, and as a second derivative."""
    return [Case("matrix", grad_op, uniform([3, 4], seed=1), features([3, 4], 2)),
            Case("rank3", grad_op, uniform([2, 2, 3], seed=3), features([2, 2, 3], 4))]


def softmax_cases(softmax):
    return [Case("vector", softmax, uniform([5])),
            Case("matrix", softmax, uniform([3, 4], seed=1)),
            Case("rank3", softmax, uniform([2, 3, 4], seed=2)),
            Case("axis0", lambda x: softmax(x, axis=0), uniform([3, 2], seed=3))]


def conv_args(padding="SAME", strides=1, dilations=1):
    return dict(padding=padding, strides=strides, dilations=dilations)


CONV_CASES = [
    # (label, input shape, filter shape, conv2d keyword arguments)
    ("same_stride1", [1, 4, 4, 2], [3, 3, 2, 3], conv_args()),
    ("valid_stride2", [2, 5, 5, 1], [2, 2, 1, 2], conv_args("VALID", 2)),
    ("same_stride2_rect", [1, 5, 4, 3], [3, 2, 3, 2], conv_args("SAME", [2, 1])),
    ("explicit", [1, 3, 4, 2], [2, 2, 2, 2], conv_args([[0, 0], [1, 0], [2, 1], [0, 0]], 2)),
    ("dilated", [1, 5, 5, 1], [2, 2, 1, 2], conv_args("VALID", 1, 2)),
]


def conv2d_cases():
    def case(label, x_shape, w_shape, kwargs):
        return Case(label, lambda x, w: tf.nn.conv2d(x, w, **kwargs),
                    uniform(x_shape), uniform(w_shape, seed=1))
    return [case(*c) for c in CONV_CASES] + [
        Case("nchw", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME", data_format="NCHW"),
             uniform([1, 2, 5, 4]), uniform([3, 3, 2, 2], seed=1))]


def _conv_output_shape(x_shape, w_shape, kwargs):
    with tf.Graph().as_default():
        return tf.nn.conv2d(tf.placeholder(tf.float64, x_shape),
                            tf.placeholder(tf.float64, w_shape), **kwargs).shape.as_list()


def _four(value):
    """A strides/dilations argument as the 4 values the backprop functions take."""
    value = [value] * 2 if not isinstance(value, list) else value
    return [1] + value + [1]


def conv2d_backprop_input_cases():
    def case(label, x_shape, w_shape, kwargs):
        def build(w, dy):
            return tf.nn.conv2d_backprop_input(
                x_shape, w, dy, _four(kwargs["strides"]), kwargs["padding"],
                dilations=_four(kwargs["dilations"]))
        dy_shape = _conv_output_shape(x_shape, w_shape, kwargs)
        return Case(label, build, uniform(w_shape, seed=1), uniform(dy_shape, seed=2))
    return [case(*c) for c in CONV_CASES[:4]] + [
        Case("transpose", lambda w, x: tf.nn.conv2d_transpose(x, w, [1, 5, 5, 2], 2),
             uniform([3, 3, 2, 3]), uniform([1, 3, 3, 3], seed=1))]


def conv2d_backprop_filter_cases():
    def case(label, x_shape, w_shape, kwargs):
        def build(x, dy):
            return tf.nn.conv2d_backprop_filter(
                x, w_shape, dy, _four(kwargs["strides"]), kwargs["padding"],
                dilations=_four(kwargs["dilations"]))
        dy_shape = _conv_output_shape(x_shape, w_shape, kwargs)
        return Case(label, build, uniform(x_shape), uniform(dy_shape, seed=2))
    return [case(*c) for c in CONV_CASES[:4]] + [
        Case("second_derivative", lambda x, w: tf.gradients(
            tf.nn.conv2d(x, w, 1, "SAME") ** 2, w)[0],
            uniform([1, 3, 3, 2]), uniform([2, 2, 2, 1], seed=1))]


DEPTHWISE_CASES = [
    # (label, input shape, filter shape, strides, padding, dilations)
    ("same", [1, 4, 4, 2], [3, 3, 2, 2], [1, 1, 1, 1], "SAME", [1, 1, 1, 1]),
    ("valid_stride2", [2, 5, 4, 3], [2, 2, 3, 1], [1, 2, 2, 1], "VALID", [1, 1, 1, 1]),
    ("dilated", [1, 5, 5, 1], [2, 2, 1, 3], [1, 1, 1, 1], "VALID", [1, 2, 2, 1]),
]


def _depthwise_output_shape(x_shape, w_shape, strides, padding, dilations):
    with tf.Graph().as_default():
        return tf.nn.depthwise_conv2d_native(
            tf.placeholder(tf.float64, x_shape), tf.placeholder(tf.float64, w_shape), strides,
            padding, dilations=dilations).shape.as_list()


def depthwise_cases():
    def case(label, x_shape, w_shape, strides, padding, dilations):
        return Case(label, lambda x, w: tf.nn.depthwise_conv2d_native(
            x, w, strides, padding, dilations=dilations), uniform(x_shape),
            uniform(w_shape, seed=1))
    return [case(*c) for c in DEPTHWISE_CASES] + [
        Case("separable", lambda x, w, p: tf.nn.separable_conv2d(x, w, p, [1, 1, 1, 1], "SAME"),
             uniform([1, 3, 3, 2]), uniform([2, 2, 2, 2], seed=1), uniform([1, 1, 4, 3], seed=2))]


def depthwise_backprop_input_cases():
    def case(label, x_shape, w_shape, strides, padding, dilations):
        def build(w, dy):
            return tf.nn.depthwise_conv2d_native_backprop_input(x_shape, w, dy, strides, padding,
                                                                dilations=dilations)
        dy_shape = _depthwise_output_shape(x_shape, w_shape, strides, padding, dilations)
        return Case(label, build, uniform(w_shape, seed=1), uniform(dy_shape, seed=2))
    return [case(*c) for c in DEPTHWISE_CASES]


def depthwise_backprop_filter_cases():
    def case(label, x_shape, w_shape, strides, padding, dilations):
        def build(x, dy):
            return tf.nn.depthwise_conv2d_native_backprop_filter(x, w_shape, dy, strides,
                                                                 padding, dilations=dilations)
        dy_shape = _depthwise_output_shape(x_shape, w_shape, strides, padding, dilations)
        return Case(label, build, uniform(x_shape), uniform(dy_shape, seed=2))
    return [case(*c) for c in DEPTHWISE_CASES] + [
        Case("second_derivative", lambda x, w: tf.gradients(
            tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME") ** 2, w)[0],
            uniform([1, 3, 3, 2]), uniform([2, 2, 2, 1], seed=1))]


POOL_CASES = [
    # (label, input shape, ksize, strides, padding)
    ("valid_2x2", [1, 4, 4, 2], 2, 2, "VALID"),
    ("same_3x3_stride2", [1, 5, 5, 1], 3, 2, "SAME"),
    ("same_overlapping", [1, 4, 3, 2], [2, 3], 1, "SAME"),
]


def pool_cases(pool):
    return [Case(label, lambda x, k=k, s=s, p=p: pool(x, k, s, p), distinct(shape))
            for label, shape, k, s, p in POOL_CASES]


def max_pool_grad_cases(grad_op):
    """MaxPoolGrad / MaxPoolGradGrad w.r.t. all three inputs (orig_input without ties)."""
    cases = []
    for label, shape, k, s, p in POOL_CASES:
        ksize, strides = nn_ops._get_sequence(k, 2, 3, "ksize"), nn_ops._get_sequence(s, 2, 3, "s")
        with tf.Graph().as_default():
            orig_output_shape = tf.nn.max_pool(tf.zeros(shape), k, s, p).shape.as_list()
        grad_shape = shape if grad_op is nn_ops.max_pool_grad_grad else orig_output_shape

        def build(orig_input, orig_output, grad, ksize=ksize, strides=strides, p=p):
            return grad_op(orig_input, orig_output, grad, ksize, strides, p)
        cases.append(Case(label, build, distinct(shape), uniform(orig_output_shape, seed=1),
                          uniform(grad_shape, seed=2)))
    return cases


def avg_pool_grad_cases():
    cases = []
    for label, shape, k, s, p in POOL_CASES:
        ksize, strides = nn_ops._get_sequence(k, 2, 3, "ksize"), nn_ops._get_sequence(s, 2, 3, "s")
        with tf.Graph().as_default():
            grad_shape = tf.nn.avg_pool(tf.zeros(shape), k, s, p).shape.as_list()

        def build(grad, shape=shape, ksize=ksize, strides=strides, p=p):
            return nn_ops.avg_pool_grad(shape, grad, ksize, strides, p)
        cases.append(Case(label, build, uniform(grad_shape, seed=2)))
    return cases


# (label, input shape, filter shape, strides, padding, dilations), NDHWC
CONV3D_CASES = [
    ("same", [1, 3, 4, 3, 2], [2, 2, 3, 2, 2], [1, 1, 1, 1, 1], "SAME", [1, 1, 1, 1, 1]),
    ("valid_strided", [2, 4, 3, 4, 1], [2, 2, 2, 1, 2], [1, 2, 1, 2, 1], "VALID",
     [1, 1, 1, 1, 1]),
    ("dilated", [1, 4, 3, 3, 1], [2, 2, 1, 1, 2], [1, 1, 1, 1, 1], "VALID", [1, 2, 1, 1, 1]),
]


def _conv3d_output_shape(x_shape, w_shape, strides, padding, dilations):
    with tf.Graph().as_default():
        return tf.nn.conv3d(tf.placeholder(tf.float64, x_shape), tf.placeholder(
            tf.float64, w_shape), strides, padding, dilations=dilations).shape.as_list()


def conv3d_cases(wrt):
    """Conv3D and its two backward ops, differentiated w.r.t. their tensor inputs."""
    cases = []
    for label, x_shape, w_shape, strides, padding, dilations in CONV3D_CASES:
        dy_shape = _conv3d_output_shape(x_shape, w_shape, strides, padding, dilations)
        attrs = dict(strides=strides, padding=padding, dilations=dilations)
        if wrt == "forward":
            cases.append(Case(label, lambda x, w, a=attrs: tf.nn.conv3d(x, w, **a),
                              uniform(x_shape), uniform(w_shape, seed=1)))
        elif wrt == "input":
            cases.append(Case(label, lambda w, dy, s=x_shape, a=attrs:
                              nn_ops.conv3d_backprop_input_v2(s, w, dy, **a),
                              uniform(w_shape, seed=1), uniform(dy_shape, seed=2)))
        else:
            cases.append(Case(label, lambda x, dy, s=w_shape, a=attrs:
                              tf.nn.conv3d_backprop_filter(x, s, dy, **a),
                              uniform(x_shape), uniform(dy_shape, seed=2)))
    return cases


POOL3D_CASES = [
    # (label, input shape, ksize, strides, padding)
    ("valid", [1, 4, 4, 2, 2], [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
    ("same_overlapping", [1, 3, 4, 3, 1], [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME"),
]


def _pool3d_output_shape(shape, ksize, strides, padding):
    with tf.Graph().as_default():
        return tf.nn.avg_pool3d(tf.zeros(shape), ksize, strides, padding).shape.as_list()


def pool3d_cases(pool, **case_args):
    return [Case(label, lambda x, k=k, s=s, p=p: pool(x, k, s, p), distinct(shape), **case_args)
            for label, shape, k, s, p in POOL3D_CASES]


def max_pool3d_grad_cases(grad_op, **case_args):
    cases = []
    for label, shape, k, s, p in POOL3D_CASES:
        out_shape = _pool3d_output_shape(shape, k, s, p)
        grad_shape = shape if grad_op is nn_ops.max_pool3d_grad_grad else out_shape
        cases.append(Case(label, lambda x, y, g, k=k, s=s, p=p: grad_op(x, y, g, k, s, p),
                          distinct(shape), uniform(out_shape, seed=1),
                          uniform(grad_shape, seed=2), **case_args))
    return cases


def avg_pool3d_grad_cases():
    return [Case(label, lambda g, shape=shape, k=k, s=s, p=p: nn_ops.avg_pool3d_grad(
        shape, g, k, s, p), uniform(_pool3d_output_shape(shape, k, s, p), seed=2))
        for label, shape, k, s, p in POOL3D_CASES]


def _ctc_labels():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1, 1, 2], np.int32), [2, 2])


def xent_cases():
    def v2(labels, logits, axis=-1):
        return tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                          axis=axis)
    return [
        Case("matrix", lambda logits, labels: v2(labels, logits),
             uniform([3, 4], -3, 3), distributions([3, 4], seed=1)),
        Case("rank3", lambda logits, labels: v2(labels, logits),
             uniform([2, 2, 3], -3, 3), distributions([2, 2, 3], seed=1)),
        Case("axis0", lambda logits, labels: v2(labels, logits, axis=0),
             uniform([3, 2], -3, 3), distributions([2, 3], seed=1).T),
        # The gradient of the gradient flows back through the op's `backprop` output.
        # Only w.r.t. logits: as in TF, that path sends nothing to the labels.
        Case("second_derivative", first_gradient(
            lambda logits: v2(distributions([2, 4], seed=1), logits)), uniform([2, 4], -3, 3)),
    ]


def sparse_xent_cases():
    def sparse(labels):
        return lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits)
    return [
        Case("matrix", sparse([0, 3, 1]), uniform([3, 4], -3, 3)),
        Case("rank3", sparse([[2, 0], [1, 1]]), uniform([2, 2, 3], -3, 3)),
        Case("second_derivative", first_gradient(sparse([1, 0])), uniform([2, 3], -3, 3)),
    ]


def bias_add_cases():
    return [
        Case("matrix", tf.nn.bias_add, uniform([2, 3]), uniform([3], seed=1)),
        Case("rank4", tf.nn.bias_add, uniform([2, 2, 2, 3]), uniform([3], seed=1)),
        Case("nchw", lambda v, b: tf.nn.bias_add(v, b, data_format="NCHW"),
             uniform([2, 3, 2, 2]), uniform([3], seed=1)),
    ]


def bias_add_grad_cases():
    return [
        Case("matrix", nn_ops.bias_add_grad, uniform([2, 3])),
        Case("rank3", nn_ops.bias_add_grad, uniform([2, 2, 3])),
        Case("nchw", lambda g: nn_ops.bias_add_grad(g, data_format="NCHW"),
             uniform([2, 3, 2, 2])),
        Case("second_derivative", lambda v, b: tf.gradients(
            tf.nn.bias_add(v, b) ** 2, b)[0], uniform([2, 3]), uniform([3], seed=1)),
    ]


def top_k_cases():
    return [Case("vector", lambda x: tf.nn.top_k(x, 3).values, distinct([6])),
            Case("matrix", lambda x: tf.nn.top_k(x, 2).values * 2.0, distinct([3, 4])),
            Case("rank3", lambda x: tf.nn.top_k(x, 1).values, distinct([2, 2, 3]))]


# LRN and the fused batch norm ops take float16 and float32 only: their checks
# run in float32, with a tolerance to match.
FLOAT32 = dict(dtype=np.float32, tolerance=1e-3, delta=1e-2)


def lrn_cases():
    return [Case("defaults", tf.nn.lrn, uniform([1, 2, 2, 5]), **FLOAT32),
            Case("radius1", lambda x: tf.nn.lrn(x, 1, bias=2.0, alpha=0.5, beta=0.75),
                 uniform([2, 2, 1, 4]), **FLOAT32)]


def _fused_batch_norm(data_format="NHWC", is_training=True):
    """A fused batch norm of (x, scale, offset); in inference, of fixed statistics (which,
    as in TensorFlow, get no gradient)."""
    def build(x, scale, offset):
        mean, variance = (None, None) if is_training else (
            tf.constant(uniform([3], seed=3), x.dtype), tf.constant(uniform([3], 0.5, 1, 4),
                                                                    x.dtype))
        y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, mean, variance,
                                         data_format=data_format, is_training=is_training)
        return y * tf.constant(uniform(x.shape.as_list(), seed=9), x.dtype)
    return build


def fused_batch_norm_cases():
    scale, offset = uniform([3], 0.5, 1.5, seed=1), uniform([3], seed=2)
    return [Case("training", _fused_batch_norm(), uniform([2, 2, 2, 3]), scale, offset,
                 **FLOAT32),
            Case("training_nchw", _fused_batch_norm("NCHW"), uniform([2, 3, 2, 2]), scale,
                 offset, **FLOAT32),
            Case("inference", _fused_batch_norm(is_training=False), uniform([2, 2, 2, 3]),
                 scale, offset, **FLOAT32)]


def fused_batch_norm_grad_cases():
    def second(is_training):
        forward = _fused_batch_norm(is_training=is_training)

        def build(x, scale):
            y = forward(x, scale, tf.zeros([3]))
            return tf.gradients(tf.reduce_sum(y * y), [x, scale])[0]
        return build
    return [Case("training", second(True), uniform([2, 2, 2, 3]), uniform([3], 0.5, 1.5),
                 dtype=np.float32, tolerance=5e-3, delta=1e-2),
            Case("inference", second(False), uniform([2, 2, 2, 3]), uniform([3], 0.5, 1.5),
                 **FLOAT32)]


def _elu_outputs(shape, seed):
    """Values Elu can output (> -1), away from its kink at 0."""
    return away_from([0.0], shape, -0.9, 2.0, seed)


def _selu_outputs(shape, seed):
    """Values Selu can output (> -scale * alpha, about -1.76), away from its kink at 0."""
    return away_from([0.0], shape, -1.5, 2.0, seed)


GRADIENT_CASES = {
    "Relu": activation_cases(tf.nn.relu, [0.0]),
    "Relu6": activation_cases(tf.nn.relu6, [0.0, 6.0]),
    "Elu": activation_cases(tf.nn.elu, [0.0]),
    "Softplus": activation_cases(tf.nn.softplus, []),
    "ReluGrad": grad_op_cases(nn_ops.relu_grad,
                              lambda shape, seed: away_from([0.0], shape, -2, 2, seed)) + [
        Case("second_derivative", first_gradient(lambda x, w: tf.nn.relu(x) * w),
             away_from([0.0], [2, 3], -2, 2), uniform([2, 3], seed=1))],
    "Relu6Grad": grad_op_cases(nn_ops.relu6_grad,
                               lambda shape, seed: away_from([0.0, 6.0], shape, -2, 8, seed)),
    "EluGrad": grad_op_cases(nn_ops.elu_grad, _elu_outputs) + [
        Case("second_derivative", first_gradient(tf.nn.elu), away_from([0.0], [2, 3], -2, 2))],
    "SoftplusGrad": grad_op_cases(nn_ops.softplus_grad,
                                  lambda shape, seed: uniform(shape, -3, 3, seed)) + [
        Case("second_derivative", first_gradient(tf.nn.softplus), uniform([2, 3], -3, 3))],
    "Selu": activation_cases(tf.nn.selu, [0.0]),
    "SeluGrad": grad_op_cases(nn_ops.selu_grad, _selu_outputs) + [
        Case("second_derivative", first_gradient(tf.nn.selu), away_from([0.0], [2, 3], -2, 2))],
    "LeakyRelu": activation_cases(lambda x: tf.nn.leaky_relu(x, alpha=0.1), [0.0]),
    "LeakyReluGrad": grad_op_cases(lambda g, x: nn_ops.leaky_relu_grad(g, x, alpha=0.3),
                                   lambda shape, seed: away_from([0.0], shape, -2, 2, seed)) + [
        Case("second_derivative", first_gradient(lambda x: tf.nn.leaky_relu(x) * x),
             away_from([0.0], [2, 3], -2, 2))],
    "Softsign": activation_cases(tf.nn.softsign, []),
    "TopKV2": top_k_cases(),
    "LRN": lrn_cases(),
    "FusedBatchNormV3": fused_batch_norm_cases(),
    "FusedBatchNormGradV3": fused_batch_norm_grad_cases(),
    "Softmax": softmax_cases(tf.nn.softmax),
    "LogSoftmax": softmax_cases(tf.nn.log_softmax),
    "BiasAdd": bias_add_cases(),
    "BiasAddGrad": bias_add_grad_cases(),
    "L2Loss": [Case("vector", tf.nn.l2_loss, uniform([4])),
               Case("matrix", tf.nn.l2_loss, uniform([2, 3])),
               Case("rank3", tf.nn.l2_loss, uniform([2, 2, 2]))],
    "SoftmaxCrossEntropyWithLogits": xent_cases(),
    "SparseSoftmaxCrossEntropyWithLogits": sparse_xent_cases(),
    "Conv2D": conv2d_cases(),
    "Conv2DBackpropInput": conv2d_backprop_input_cases(),
    "Conv2DBackpropFilter": conv2d_backprop_filter_cases(),
    "DepthwiseConv2dNative": depthwise_cases(),
    # Sums of input and filter values: a continuous filter keeps them free of ties.
    "Dilation2D": [
        Case("valid", lambda x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
             distinct([1, 4, 4, 2]), uniform([2, 2, 2], seed=5)),
        Case("same_strided_rates", lambda x, f: tf.nn.dilation2d(x, f, [1, 2, 1, 1],
                                                                 [1, 1, 2, 1], "SAME"),
             distinct([1, 5, 4, 1]), uniform([2, 2, 1], seed=6)),
        Case("erosion", lambda x, f: tf.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
             distinct([1, 3, 3, 2]), uniform([2, 2, 2], seed=5))],
    "MaxPoolWithArgmax": [
        Case("same", lambda x: tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                           "SAME").output,
             distinct([1, 3, 4, 2])),
        Case("valid_batch_index", lambda x: tf.nn.max_pool_with_argmax(
            x, [1, 2, 3, 1], [1, 1, 1, 1], "VALID", include_batch_in_index=True)[0],
            distinct([2, 3, 3, 1]))],
    "DepthwiseConv2dNativeBackpropInput": depthwise_backprop_input_cases(),
    "DepthwiseConv2dNativeBackpropFilter": depthwise_backprop_filter_cases(),
    "MaxPool": pool_cases(tf.nn.max_pool),
    "MaxPoolGrad": max_pool_grad_cases(nn_ops.max_pool_grad),
    "MaxPoolGradGrad": max_pool_grad_cases(nn_ops.max_pool_grad_grad),
    "AvgPool": pool_cases(tf.nn.avg_pool),
    "AvgPoolGrad": avg_pool_grad_cases(),
    "Conv3D": conv3d_cases("forward"),
    "Conv3DBackpropInputV2": conv3d_cases("input"),
    "Conv3DBackpropFilterV2": conv3d_cases("filter"),
    # MaxPool3D and MaxPool3DGrad have no float64 kernel in TensorFlow: their family is
    # checked in float32.
    "MaxPool3D": pool3d_cases(tf.nn.max_pool3d, **FLOAT32),
    "MaxPool3DGrad": max_pool3d_grad_cases(nn_ops.max_pool3d_grad, **FLOAT32),
    "MaxPool3DGradGrad": max_pool3d_grad_cases(nn_ops.max_pool3d_grad_grad, **FLOAT32),
    "AvgPool3D": pool3d_cases(tf.nn.avg_pool3d),
    "AvgPool3DGrad": avg_pool3d_grad_cases(),
    # deterministic: the same regions at every evaluation of the finite differences.
    "FractionalMaxPool": [
        Case("overlapping=%s" % overlapping, lambda x, o=overlapping: tf.nn.fractional_max_pool(
            x, [1.0, 1.5, 1.4, 1.0], pseudo_random=o, overlapping=o, deterministic=True,
            seed=1, seed2=2)[0], distinct([1, 6, 5, 2])) for overlapping in (False, True)],
    "FractionalAvgPool": [
        Case("overlapping=%s" % overlapping, lambda x, o=overlapping: tf.nn.fractional_avg_pool(
            x, [1.0, 1.5, 1.4, 1.0], pseudo_random=o, overlapping=o, deterministic=True,
            seed=1, seed2=2)[0], uniform([2, 6, 5, 1])) for overlapping in (False, True)],
    "CTCLoss": [
        Case("merged", lambda x: tf.nn.ctc_loss(_ctc_labels(), x, [5, 3]) * [1.0, 2.0],
             uniform([5, 2, 4], -2, 2)),
        Case("unmerged_batch_major", lambda x: tf.nn.ctc_loss(
            _ctc_labels(), x, [4, 5], ctc_merge_repeated=False, time_major=False),
            uniform([2, 5, 4], -2, 2, seed=1))],
}

ALL_CASES = [(op_type, case) for op_type, cases in GRADIENT_CASES.items() for case in cases]


def _ops_feeding(tensor):
    """Every op `tensor` depends on, itself included."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(t.op for t in op.inputs)
    return seen


@pytest.mark.parametrize("op_type, case", ALL_CASES,
                         ids=["%s-%r" % (op_type, case) for op_type, case in ALL_CASES])
def test_gradient_matches_finite_differences(op_type, case):
    xs = [tf.constant(v) for v in case.values]
    y = case.build(*xs)
    assert op_type in {op.type for op in _ops_feeding(y)}, "the case must exercise the op"
    with tf.Session() as sess:
        y_shape = sess.run(y).shape
        error = tf.test.compute_gradient_error(xs, [v.shape for v in case.values], y, y_shape,
                                               x_init_value=case.values, delta=case.delta)
    assert error < case.tolerance


def test_every_registered_nn_gradient_has_cases():
    nn_grad_types = {op_type for op_type, fn in registry.registered_gradients().items()
                     if fn.__module__ == "minitf.autodiff.nn_grad"}
    assert nn_grad_types == set(GRADIENT_CASES)


# --- the cross entropies ------------------------------------------------------------------------

def _np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_cross_entropy_gradient_of_huge_logits_is_softmax_minus_labels():
    logits = np.array([[1000., -1000., 0.], [1000., 999., -5.], [-800., -800., -800.]])
    labels = np.array([[0., 1., 0.], [0.5, 0.5, 0.], [0.2, 0.3, 0.5]])
    logits_t = tf.constant(logits)
    labels_t = tf.constant(labels)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels_t, logits=logits_t)
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0, 2], logits=logits_t)
    grads = tf.gradients(loss, [logits_t, labels_t]) + tf.gradients(sparse, logits_t)
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error")
        d_logits, d_labels, d_sparse = tf.Session().run(grads)
    for value in (d_logits, d_labels, d_sparse):
        assert np.isfinite(value).all()
    np.testing.assert_allclose(d_logits, _np_softmax(logits) - labels, atol=1e-12)
    np.testing.assert_allclose(d_sparse, _np_softmax(logits) - np.eye(3)[[1, 0, 2]], atol=1e-12)
    log_softmax = logits - logits.max(-1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(-1, keepdims=True))
    np.testing.assert_allclose(d_labels, -log_softmax)


def test_cross_entropy_gradient_reuses_the_backprop_output():
    logits = tf.placeholder(tf.float32, [2, 3])
    labels = tf.placeholder(tf.float32, [2, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    xent_op = [op for op in tf.get_default_graph().get_operations()
               if op.type == "SoftmaxCrossEntropyWithLogits"][0]
    tf.gradients(loss, logits)
    grad_mul = tf.get_default_graph().get_operation_by_name(
        "gradients/%s_grad/mul" % xent_op.name)
    assert xent_op.outputs[1] in list(grad_mul.inputs)
    # No second-order term, so no softmax is computed again.
    assert not any(op.type == "Softmax" for op in tf.get_default_graph().get_operations())


def test_the_deprecated_cross_entropy_sends_no_gradient_to_labels():
    logits = tf.constant([[1., 2., 3.]])
    labels = tf.constant([[0.2, 0.3, 0.5]])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    d_logits, d_labels = tf.gradients(loss, [logits, labels])
    assert d_labels is None
    np.testing.assert_allclose(tf.Session().run(d_logits),
                               _np_softmax(np.array([[1., 2., 3.]])) - [[0.2, 0.3, 0.5]],
                               rtol=1e-6)


def test_sparse_cross_entropy_labels_get_no_gradient():
    labels = tf.constant([0, 2])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                          logits=tf.ones([2, 3]))
    assert tf.gradients(loss, labels) == [None]


# --- the graph the gradient functions build ---------------------------------------------------

def test_activation_gradients_use_their_backward_ops():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    cases = {tf.nn.relu(x): "ReluGrad", tf.nn.relu6(x): "Relu6Grad", tf.nn.elu(x): "EluGrad",
             tf.nn.softplus(x): "SoftplusGrad"}
    for y, grad_type in cases.items():
        grad = tf.gradients(y, x)[0]
        assert grad.op.type == grad_type
        assert grad.op.name.endswith("/%s_grad/%s" % (y.op.name, grad_type))
    # Relu's gradient reads Relu's output, as in TF (the input is not kept alive).
    relu = list(cases)[0]
    assert tf.gradients(relu, x)[0].op.inputs[1] is relu


def test_conv_and_pool_gradient_ops_and_names():
    x = tf.placeholder(tf.float32, [2, 6, 6, 3], name="x")
    w = tf.placeholder(tf.float32, [3, 3, 3, 4], name="w")
    y = tf.nn.conv2d(x, w, 2, "SAME")
    dx, dw = tf.gradients(y, [x, w])
    assert dx.name == "gradients/Conv2D_grad/Conv2DBackpropInput:0"
    assert dw.name == "gradients/Conv2D_grad/Conv2DBackpropFilter:0"
    assert dx.shape.as_list() == [2, 6, 6, 3] and dw.shape.as_list() == [3, 3, 3, 4]
    assert dx.op.get_attr("strides") == [1, 2, 2, 1] and dx.op.get_attr("padding") == "SAME"
    m = tf.nn.max_pool(x, 2, 2, "VALID")
    a = tf.nn.avg_pool(x, 2, 2, "VALID")
    assert tf.gradients(m, x)[0].name == "gradients_1/MaxPool_grad/MaxPoolGrad:0"
    assert tf.gradients(a, x)[0].name == "gradients_2/AvgPool_grad/AvgPoolGrad:0"
    bias = tf.placeholder(tf.float32, [4])
    db = tf.gradients(tf.nn.bias_add(y, bias), bias)[0]
    assert db.op.type == "BiasAddGrad" and db.shape.as_list() == [4]


def test_max_pool_second_derivative_is_max_pool_grad_grad():
    x = tf.constant(distinct([1, 4, 4, 1]))
    m = tf.nn.max_pool(x, 2, 2, "VALID")
    upstream = tf.placeholder_with_default(np.ones((1, 2, 2, 1)), [1, 2, 2, 1])
    grad = tf.gradients(m, x, grad_ys=upstream)[0]   # MaxPoolGrad(x, m, upstream)
    dy = np.arange(16.).reshape(1, 4, 4, 1)
    second = tf.gradients(grad, upstream, grad_ys=dy)[0]
    assert second.op.type == "MaxPoolGradGrad"
    # Each window picks dy at the position of its maximum.
    x_value, second_value = tf.Session().run([x, second])
    windows = x_value.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(2, 2, 4)
    dy_windows = dy.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(2, 2, 4)
    expected = np.take_along_axis(dy_windows, windows.argmax(-1)[..., None], -1)[..., 0]
    np.testing.assert_array_equal(second_value.reshape(2, 2), expected)


def test_random_ops_are_not_differentiable():
    for op_type in ("RandomStandardNormal", "RandomUniform", "RandomUniformInt",
                    "TruncatedNormal", "RandomShuffle"):
        assert registry.is_registered(op_type)
        assert op_type not in registry.registered_gradients()
    x = tf.constant([1.0, 2.0])
    noise = tf.random_normal([2])
    assert tf.gradients(noise * x, [x, noise])[0] is not None
    shuffled = tf.random_shuffle(x)
    assert tf.gradients(shuffled, x) == [None]
