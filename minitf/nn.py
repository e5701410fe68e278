"""`tf.nn`: the neural-network namespace.

Only names: the ops are defined in minitf/ops/nn_ops.py (activations, softmax,
losses, dropout, moments, convolution and pooling), minitf/ops/embedding_ops.py
(embedding_lookup) and minitf/ops/math_ops.py (sigmoid, tanh, which TensorFlow also files here).

Mirrors `tensorflow/python/ops/nn.py`.

A name of TF 1.15's `tf.nn` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.embedding_ops import (embedding_lookup, embedding_lookup_sparse,  # noqa: F401
                                      safe_embedding_lookup_sparse)
from minitf.ops.math_ops import sigmoid, tanh  # noqa: F401
from minitf.ops.nn_ops import (avg_pool, bias_add, conv2d,  # noqa: F401
                               conv2d_backprop_filter, conv2d_backprop_input,
                               conv2d_transpose, dropout, elu, l2_loss, l2_normalize,
                               log_softmax, max_pool, moments, relu, relu6,
                               sigmoid_cross_entropy_with_logits, softmax,
                               softmax_cross_entropy_with_logits,
                               softmax_cross_entropy_with_logits_v2, softplus,
                               sparse_softmax_cross_entropy_with_logits)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.nn", __name__, name)
