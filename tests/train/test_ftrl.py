"""FtrlOptimizer: dense and sparse trajectories against NumPy, regularization, slots.

5-step trajectories of a gather-based loss (plain, with L1/L2 and another
learning_rate_power, and with L2 shrinkage) were also checked against
TensorFlow's `tf.compat.v1` with reference variables.
"""

import numpy as np
import pytest

import minitf as tf
from trajectories import (NEVER_LOOKED_UP, as_float32, check_dense_trajectory,
                          run_lookup_trajectory, tolerance)


class NumpyFtrl:
    """TF's ApplyFtrl(V2) kernels, on the rows given (all by default).

    The hyperparameters reach the kernel as float32 tensors; the initial
    accumulator is a constant of the variable's `dtype`.
    """

    def __init__(self, shape, dtype, learning_rate, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0):
        self.lr, self.lr_power, self.l1, self.l2, self.l2_shrinkage = (
            as_float32(v) for v in (learning_rate, learning_rate_power,
                                     l1_regularization_strength, l2_regularization_strength,
                                     l2_shrinkage_regularization_strength))
        self.accum = np.full(shape, float(dtype(initial_accumulator_value)))
        self.linear = np.zeros(shape)

    def step(self, var, grad, rows=slice(None)):
        var = var.copy()
        accum, w = self.accum[rows], var[rows]
        new_accum = accum + grad * grad
        shrunk_grad = grad + 2 * self.l2_shrinkage * w
        self.linear[rows] += (shrunk_grad - (new_accum ** -self.lr_power
                                             - accum ** -self.lr_power) / self.lr * w)
        linear = self.linear[rows]
        quadratic = new_accum ** -self.lr_power / self.lr + 2 * self.l2
        var[rows] = np.where(np.abs(linear) > self.l1,
                             (np.sign(linear) * self.l1 - linear) / quadratic, 0.0)
        self.accum[rows] = new_accum
        return var


CONFIGS = [
    dict(learning_rate=0.2),
    dict(learning_rate=0.2, learning_rate_power=-0.7, initial_accumulator_value=0.3,
         l1_regularization_strength=0.05, l2_regularization_strength=0.1),
    dict(learning_rate=0.2, l1_regularization_strength=0.01, l2_regularization_strength=0.1,
         l2_shrinkage_regularization_strength=0.2),
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_trajectory_matches_numpy(dtype, config):
    opt = tf.train.FtrlOptimizer(**config)
    check_dense_trajectory(opt, NumpyFtrl((3, 2), dtype, **config),
                           {"accum": "accum", "linear": "linear"}, dtype)
    op_type = "ApplyFtrlV2" if "l2_shrinkage_regularization_strength" in config else "ApplyFtrl"
    assert tf.get_default_graph().get_operation_by_name("Ftrl/update_w/" + op_type)


@pytest.mark.parametrize("config", CONFIGS)
def test_sparse_trajectory_from_a_lookup_matches_numpy(config):
    table_np, final = run_lookup_trajectory(
        tf.train.FtrlOptimizer(**config), NumpyFtrl((7, 2), np.float32, **config), ["accum"])
    # Rows never looked up keep their values and their initial accumulator.
    np.testing.assert_array_equal(final["table"][NEVER_LOOKED_UP], table_np[NEVER_LOOKED_UP])
    np.testing.assert_allclose(final["accum"][NEVER_LOOKED_UP],
                               config.get("initial_accumulator_value", 0.1))


def test_strong_l1_sets_weights_to_exactly_zero():
    w = tf.Variable([0.5, -2.0, 1.0], name="w")
    train_op = tf.train.FtrlOptimizer(0.1, l1_regularization_strength=10.0).apply_gradients(
        [(tf.constant([0.1, 0.2, -0.3]), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op)
        np.testing.assert_array_equal(sess.run(w), [0.0, 0.0, 0.0])


def test_slots_names_and_initial_values():
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    v = tf.Variable(tf.zeros([2]), name="v")
    opt = tf.train.FtrlOptimizer(0.1, initial_accumulator_value=0.25)
    opt.apply_gradients([(tf.ones([3, 2]), w)])
    assert opt.get_slot_names() == ["accum", "linear"]
    assert opt.get_slot(w, "accum").name == "w/Ftrl:0"
    assert opt.get_slot(w, "linear").name == "w/Ftrl_1:0"
    named = tf.train.FtrlOptimizer(0.1, accum_name="acc", linear_name="lin")
    named.apply_gradients([(tf.ones([2]), v)])
    assert named.get_slot(v, "accum").name == "v/acc:0"
    assert named.get_slot(v, "linear").name == "v/lin:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(opt.get_slot(w, "accum")), np.full((3, 2), 0.25))
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "linear")), np.zeros((3, 2)))


@pytest.mark.parametrize("kwargs, message", [
    (dict(initial_accumulator_value=-0.1),
     "initial_accumulator_value -0.100000 needs to be positive or zero"),
    (dict(learning_rate_power=0.5), "learning_rate_power 0.500000 needs to be negative or zero"),
    (dict(l1_regularization_strength=-1.0),
     "l1_regularization_strength -1.000000 needs to be positive or zero"),
    (dict(l2_regularization_strength=-1.0),
     "l2_regularization_strength -1.000000 needs to be positive or zero"),
    (dict(l2_shrinkage_regularization_strength=-1.0),
     "l2_shrinkage_regularization_strength -1.000000 needs to be positive or zero"),
])
def test_invalid_hyperparameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.train.FtrlOptimizer(0.1, **kwargs)


def test_tensor_learning_rate():
    w = tf.Variable([1.0, 2.0], name="w")
    lr = tf.placeholder(tf.float32, [])
    train_op = tf.train.FtrlOptimizer(lr).apply_gradients([(tf.constant([0.5, -1.0]), w)])
    reference = NumpyFtrl([2], np.float32, 0.3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, {lr: 0.3})
        np.testing.assert_allclose(sess.run(w),
                                   reference.step(np.array([1.0, 2.0]), np.array([0.5, -1.0])),
                                   rtol=1e-6)
