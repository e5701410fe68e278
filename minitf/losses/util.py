"""The losses collection: where every `tf.losses` loss goes, and what adds them up.

Each loss function of losses_impl.py adds its result to the graph
collection `GraphKeys.LOSSES`; regularizers (a layer's `kernel_regularizer`)
add theirs to `GraphKeys.REGULARIZATION_LOSSES`. A training script then asks
for `get_total_loss()`, the sum of both, without keeping the tensors itself.

Mirrors `tensorflow/python/ops/losses/util.py`.
"""

from minitf.graph import constant_op
from minitf.graph import ops
from minitf.ops import math_ops


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (nothing when the collection is None or empty)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    """The losses of `loss_collection`, those whose name starts with `scope` if given."""
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The regularization losses (`GraphKeys.REGULARIZATION_LOSSES`), within `scope` if given."""
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses and (by default) of the regularization losses.

    Raises ValueError when there is nothing to add, as add_n of no tensors does.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)
