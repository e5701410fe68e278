"""`tf.losses`: weighted, reduced losses that add themselves to the LOSSES collection.

Only names: the losses are in losses_impl.py, the collection helpers in util.py.

Mirrors `tensorflow/python/ops/losses/losses.py`.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.losses.losses_impl import (Reduction, absolute_difference,  # noqa: F401
                                       compute_weighted_loss, cosine_distance, hinge_loss,
                                       huber_loss, log_loss, mean_pairwise_squared_error,
                                       mean_squared_error, sigmoid_cross_entropy,
                                       softmax_cross_entropy, sparse_softmax_cross_entropy)
from minitf.losses.util import (add_loss, get_losses, get_regularization_loss,  # noqa: F401
                                get_regularization_losses, get_total_loss)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.losses", __name__, name)
