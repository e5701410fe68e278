"""`tf.nn.swish` (`silu`): an activation whose gradient is written out with tf.custom_gradient.

    swish(x) = x * sigmoid(beta * x)

Its gradient is built with `tf.custom_gradient` (custom_gradient.py), which
is why it lives here and not with the other composites of `tf.nn`
(minitf/ops/nn_impl.py): the builders stand below the Gradients chapter and
do not import it.

Mirrors `swish` of `tensorflow/python/ops/nn_impl.py`.
"""

from minitf.autodiff.custom_gradient import custom_gradient
from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import math_ops

__all__ = ["swish", "silu"]


def swish(features, beta=1.0):
    """features * sigmoid(beta * features) (SiLU for beta = 1), with its own gradient.

    The gradient is written out rather than derived through the sigmoid, so
    that backprop keeps no intermediate tensor but `features`.
    """
    features = convert_to_tensor(features, name="features")
    beta = math_ops.cast(convert_to_tensor(beta, name="beta"), features.dtype)

    @custom_gradient
    def swish_impl(features, beta):
        def grad(dy):
            with ops.control_dependencies([dy]):
                sigmoid_features = math_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (
                1.0 + (beta * features) * (1.0 - sigmoid_features))
            beta_grad = math_ops.reduce_sum(
                dy * math_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad
        return features * math_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


silu = swish
