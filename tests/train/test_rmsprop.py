"""RMSPropOptimizer: plain and centered, dense and sparse trajectories against NumPy.

The update graph (node names and inputs) and 5-step trajectories of a
gather-based loss were also checked against TensorFlow's `tf.compat.v1`
with reference variables.
"""

import numpy as np
import pytest

import minitf as tf
from trajectories import (NEVER_LOOKED_UP, as_float32, check_dense_trajectory,
                          run_lookup_trajectory, tolerance)


class NumpyRMSProp:
    """TF's ApplyRMSProp / ApplyCenteredRMSProp kernels, on the rows given (all by default)."""

    def __init__(self, shape, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 centered=False):
        self.lr, self.decay, self.momentum, self.epsilon = (
            as_float32(v) for v in (learning_rate, decay, momentum, epsilon))
        self.centered = centered
        self.rms = np.ones(shape)
        self.mg = np.zeros(shape)
        self.mom = np.zeros(shape)

    def step(self, var, grad, rows=slice(None)):
        var = var.copy()
        self.rms[rows] += (grad * grad - self.rms[rows]) * (1 - self.decay)
        denominator = self.rms[rows] + self.epsilon
        if self.centered:
            self.mg[rows] += (grad - self.mg[rows]) * (1 - self.decay)
            denominator = denominator - self.mg[rows] ** 2
        self.mom[rows] = self.mom[rows] * self.momentum + self.lr * grad / np.sqrt(denominator)
        var[rows] -= self.mom[rows]
        return var


CONFIGS = [dict(learning_rate=0.05),
           dict(learning_rate=0.05, decay=0.8, momentum=0.5, epsilon=1e-4),
           dict(learning_rate=0.02, momentum=0.3, centered=True)]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_trajectory_matches_numpy(dtype, config):
    slots = {"rms": "rms", "momentum": "mom"}
    if config.get("centered"):
        slots["mg"] = "mg"
    check_dense_trajectory(tf.train.RMSPropOptimizer(**config), NumpyRMSProp((3, 2), **config),
                           slots, dtype)


@pytest.mark.parametrize("config", CONFIGS)
def test_sparse_trajectory_from_a_lookup_sums_duplicates_and_touches_only_those_rows(config):
    table_np, final = run_lookup_trajectory(tf.train.RMSPropOptimizer(**config),
                                            NumpyRMSProp((7, 2), **config), ["rms"])
    sparse_op = ("SparseApplyCenteredRMSProp" if config.get("centered")
                 else "SparseApplyRMSProp")
    assert sparse_op in [op.type for op in tf.get_default_graph().get_operations()]
    # Rows never looked up: untouched, their "rms" still one.
    np.testing.assert_array_equal(final["table"][NEVER_LOOKED_UP], table_np[NEVER_LOOKED_UP])
    np.testing.assert_array_equal(final["rms"][NEVER_LOOKED_UP], 1.0)


def test_slots_rms_starts_at_one():
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    opt = tf.train.RMSPropOptimizer(0.1)
    opt.apply_gradients([(tf.ones([3, 2]), w)])
    assert opt.get_slot_names() == ["momentum", "rms"]
    assert opt.get_slot(w, "rms").name == "w/RMSProp:0"
    assert opt.get_slot(w, "momentum").name == "w/RMSProp_1:0"
    assert opt.get_slot(w, "momentum").shape.as_list() == [3, 2]
    assert tf.trainable_variables() == [w]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "rms")), np.ones((3, 2)))
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "momentum")), np.zeros((3, 2)))


def test_centered_slots_are_rms_mg_momentum():
    w = tf.Variable(tf.zeros([4]), name="w")
    opt = tf.train.RMSPropOptimizer(0.1, centered=True)
    opt.apply_gradients([(tf.ones([4]), w)])
    assert opt.get_slot_names() == ["mg", "momentum", "rms"]
    assert [opt.get_slot(w, n).name for n in ("rms", "mg", "momentum")] == [
        "w/RMSProp:0", "w/RMSProp_1:0", "w/RMSProp_2:0"]
    update = tf.get_default_graph().get_operation_by_name(
        "RMSProp/update_w/ApplyCenteredRMSProp")
    assert [t.name for t in update.inputs[:4]] == [
        "w:0", "w/RMSProp_1:0", "w/RMSProp:0", "w/RMSProp_2:0"]  # var, mg, ms, mom


def test_update_op_inputs_and_hyperparameter_nodes():
    w = tf.Variable(tf.zeros([2]), name="w")
    tf.train.RMSPropOptimizer(0.1, use_locking=True).apply_gradients([(tf.ones([2]), w)])
    update = tf.get_default_graph().get_operation_by_name("RMSProp/update_w/ApplyRMSProp")
    assert [t.name for t in update.inputs] == [
        "w:0", "w/RMSProp:0", "w/RMSProp_1:0", "RMSProp/learning_rate:0", "RMSProp/decay:0",
        "RMSProp/momentum:0", "RMSProp/epsilon:0", "ones:0"]
    assert update.get_attr("use_locking") is True


def test_learning_rate_is_required_and_may_be_a_tensor():
    with pytest.raises(TypeError):
        tf.train.RMSPropOptimizer()
    w = tf.Variable([1.0, 2.0], name="w")
    lr = tf.placeholder(tf.float32, [])
    train_op = tf.train.RMSPropOptimizer(lr).apply_gradients([(tf.constant([0.5, -1.0]), w)])
    reference = NumpyRMSProp([2], learning_rate=0.25)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, {lr: 0.25})
        np.testing.assert_allclose(sess.run(w),
                                   reference.step(np.array([1.0, 2.0]), np.array([0.5, -1.0])),
                                   rtol=1e-6)
