"""The trajectories the optimizer tests share: N steps of minitf beside a NumPy reference.

An optimizer's test module writes its update rule in NumPy as a class whose
`step(var, grad, rows=None)` returns the new variable (updating only
`rows` when given) and keeps its slots as attributes. These helpers run
the same steps through minitf and compare, step after step.
"""

import numpy as np

import minitf as tf

# The ids of three sparse steps: repeats (5, and 1 twice), rows looked up in one
# step only (0, 6, 2) and rows never looked up (3, 4).
LOOKUP_IDS = [np.array([5, 1, 5, 0]), np.array([1, 1, 6]), np.array([5, 2, 5, 5])]
NEVER_LOOKED_UP = [3, 4]


def as_float32(x):
    """A Python hyperparameter as the optimizer sees it: float32, then cast to the var's dtype."""
    return float(np.float32(x))


def tolerance(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


def check_dense_trajectory(optimizer, reference, slots, dtype, steps=8):
    """`steps` updates of a 3x2 variable by random dense gradients.

    After each, the variable and every slot of `slots` ({slot name:
    attribute of `reference`}) must equal the reference's. Returns the
    variable, for checks of the graph that the caller may add.
    """
    rng = np.random.default_rng(0)
    w_np = rng.normal(size=(3, 2)).astype(dtype)
    w = tf.Variable(w_np, name="w")
    grad = tf.placeholder(dtype, [3, 2])
    train_op = optimizer.apply_gradients([(grad, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            g = rng.normal(size=(3, 2)).astype(dtype)
            sess.run(train_op, {grad: g})
            w_np = reference.step(w_np, g)
            np.testing.assert_allclose(sess.run(w), w_np, **tolerance(dtype))
            for slot_name, attribute in slots.items():
                np.testing.assert_allclose(sess.run(optimizer.get_slot(w, slot_name)),
                                           getattr(reference, attribute), **tolerance(dtype))
    return w


def run_lookup_trajectory(optimizer, reference, slot_names=()):
    """Three sparse steps through `tf.nn.embedding_lookup` of a 7x2 table (`LOOKUP_IDS`).

    The gradient reaches the optimizer as IndexedSlices with repeated ids;
    the reference gets, for each looked-up row once, its summed gradient.
    After each step the table must equal the reference's. Returns the
    table's initial value and the final values of the table and of the
    slots named in `slot_names`, for the caller's checks of untouched rows.
    """
    rng = np.random.default_rng(1)
    table_np = rng.normal(size=(7, 2)).astype(np.float32)
    targets = rng.normal(size=(4, 2)).astype(np.float32)
    ids = tf.placeholder(tf.int32, [None])
    target = tf.placeholder(tf.float32, [None, 2])
    table = tf.Variable(table_np, name="table")
    loss = 0.5 * tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids) - target))
    grads_and_vars = optimizer.compute_gradients(loss)
    assert isinstance(grads_and_vars[0][0], tf.IndexedSlices)
    train_op = optimizer.apply_gradients(grads_and_vars)
    table_ref = table_np.astype(np.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step_ids in LOOKUP_IDS:
            step_targets = targets[:len(step_ids)]
            sess.run(train_op, {ids: step_ids, target: step_targets})
            grad = np.zeros_like(table_ref)
            np.add.at(grad, step_ids, table_ref[step_ids] - step_targets)
            rows = np.unique(step_ids)
            table_ref = reference.step(table_ref, grad[rows], rows)
            np.testing.assert_allclose(sess.run(table), table_ref, rtol=1e-5, atol=1e-5)
        final = sess.run({"table": table, **{name: optimizer.get_slot(table, name)
                                             for name in slot_names}})
    return table_np, final
