"""AdadeltaOptimizer: dense and sparse trajectories against NumPy.

The update graph and 5-step trajectories of a gather-based loss were also
checked against TensorFlow's `tf.compat.v1` with reference variables.
"""

import numpy as np
import pytest

import minitf as tf
from trajectories import as_float32, check_dense_trajectory, tolerance


class NumpyAdadelta:
    """TF's ApplyAdadelta kernel, on the rows given (all by default)."""

    def __init__(self, shape, learning_rate=0.001, rho=0.95, epsilon=1e-8):
        self.lr, self.rho, self.epsilon = (as_float32(v) for v in (learning_rate, rho, epsilon))
        self.accum = np.zeros(shape)
        self.accum_update = np.zeros(shape)

    def step(self, var, grad, rows=slice(None)):
        var = var.copy()
        self.accum[rows] = self.rho * self.accum[rows] + (1 - self.rho) * grad * grad
        update = (np.sqrt(self.accum_update[rows] + self.epsilon)
                  / np.sqrt(self.accum[rows] + self.epsilon) * grad)
        self.accum_update[rows] = (self.rho * self.accum_update[rows]
                                   + (1 - self.rho) * update * update)
        var[rows] -= self.lr * update
        return var


CONFIGS = [dict(), dict(learning_rate=1.0, rho=0.9, epsilon=1e-3)]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_trajectory_matches_numpy(dtype, config):
    check_dense_trajectory(tf.train.AdadeltaOptimizer(**config), NumpyAdadelta((3, 2), **config),
                           {"accum": "accum", "accum_update": "accum_update"}, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fed_indexed_slices_with_duplicates_match_numpy(dtype):
    rng = np.random.default_rng(1)
    w_np = rng.normal(size=(6, 3)).astype(dtype)
    w = tf.Variable(w_np, name="w")
    values = tf.placeholder(dtype, [None, 3])
    indices = tf.placeholder(tf.int64, [None])
    opt = tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-3)
    train_op = opt.apply_gradients([(tf.IndexedSlices(values, indices), w)])
    reference = NumpyAdadelta(w_np.shape, 1.0, rho=0.9, epsilon=1e-3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step_indices in ([0, 4, 0], [2], [4, 4, 5, 2]):
            step_values = rng.normal(size=(len(step_indices), 3)).astype(dtype)
            sess.run(train_op, {values: step_values, indices: step_indices})
            dense = np.zeros_like(w_np)
            np.add.at(dense, step_indices, step_values)
            rows = np.unique(step_indices)
            w_np = reference.step(w_np, dense[rows], rows)
            np.testing.assert_allclose(sess.run(w), w_np, **tolerance(dtype))
            np.testing.assert_allclose(sess.run(opt.get_slot(w, "accum")), reference.accum,
                                       **tolerance(dtype))
    assert np.all(reference.accum[[1, 3]] == 0.0)  # never touched


def test_sparse_trajectory_from_a_gather_matches_numpy():
    rng = np.random.default_rng(2)
    table_np = rng.normal(size=(5, 2)).astype(np.float32)
    ids = tf.constant([3, 0, 3, 3])
    targets = rng.normal(size=(4, 2)).astype(np.float32)
    table = tf.Variable(table_np, name="table")
    loss = 0.5 * tf.reduce_sum(tf.square(tf.gather(table, ids) - targets))
    opt = tf.train.AdadeltaOptimizer(1.0)
    train_op = opt.minimize(loss)
    assert "SparseApplyAdadelta" in [op.type for op in tf.get_default_graph().get_operations()]
    reference = NumpyAdadelta(table_np.shape, 1.0)
    table_ref = table_np.astype(np.float64)
    ids_np = np.array([3, 0, 3, 3])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(6):
            sess.run(train_op)
            grad = np.zeros_like(table_ref)
            np.add.at(grad, ids_np, table_ref[ids_np] - targets)
            rows = np.unique(ids_np)
            table_ref = reference.step(table_ref, grad[rows], rows)
        np.testing.assert_allclose(sess.run(table), table_ref, rtol=1e-5, atol=1e-6)


def test_slots_and_update_op():
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    opt = tf.train.AdadeltaOptimizer(use_locking=True)
    opt.apply_gradients([(tf.ones([3, 2]), w)])
    assert opt.get_slot_names() == ["accum", "accum_update"]
    assert opt.get_slot(w, "accum").name == "w/Adadelta:0"
    assert opt.get_slot(w, "accum_update").name == "w/Adadelta_1:0"
    assert opt.get_slot(w, "accum_update").shape.as_list() == [3, 2]
    update = tf.get_default_graph().get_operation_by_name("Adadelta/update_w/ApplyAdadelta")
    assert [t.name for t in update.inputs] == [
        "w:0", "w/Adadelta:0", "w/Adadelta_1:0", "Adadelta/lr:0", "Adadelta/rho:0",
        "Adadelta/epsilon:0", "ones:0"]
    assert update.get_attr("use_locking") is True
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "accum")), np.zeros((3, 2)))


def test_hyperparameters_may_be_callables():
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.AdadeltaOptimizer(learning_rate=lambda: 0.5, rho=lambda: 0.8)
    train_op = opt.apply_gradients([(tf.constant([0.5, -1.0]), w)])
    reference = NumpyAdadelta([2], 0.5, rho=0.8)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op)
        np.testing.assert_allclose(sess.run(w),
                                   reference.step(np.array([1.0, 2.0]), np.array([0.5, -1.0])),
                                   rtol=1e-6)
