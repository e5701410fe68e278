"""Loops run flat (minitf/executor/flat_frames.py): the general loop's values, and its rules.

A loop that qualifies runs its iterations one after another as a flat walk
down a fixed order; a traced step (`FULL_TRACE`) runs the same loop as
dataflow, iteration by iteration in the general executor, so the two can be
compared on the same session (random programs of conds and loops are, in
test_random_programs.py). Here: the cases where a loop leaves the flat run,
or never takes it (a loop in a branch not taken, NextIterations alive and
dead in one iteration, a loop whose kernels are long enough for two
iterations at once), a failing kernel, and a deadline.
"""

import collections
import time

import numpy as np
import pytest

import minitf as tf
from minitf.executor import flat_frames
from minitf.executor.scheduling import KernelCosts
from minitf.ops import control_flow_ops

TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


@pytest.fixture
def flat_runs(monkeypatch):
    """Counts how the loops' flat runs end: 'finished', 'resumed', 'failed' or 'replayed'."""
    counts = collections.Counter()
    run, replay = flat_frames.FlatFrameRun.run, flat_frames.FlatFrameRun.replay

    def counting_run(self, ready):
        outcome = run(self, ready)
        counts[outcome] += 1
        return outcome

    def counting_replay(self, ready):
        counts["replayed"] += 1
        return replay(self, ready)

    monkeypatch.setattr(flat_frames.FlatFrameRun, "run", counting_run)
    monkeypatch.setattr(flat_frames.FlatFrameRun, "replay", counting_replay)
    return counts


def _power_loop(n):
    return tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * 0.5 + 1.0),
                         [tf.constant(0), tf.constant(0.0)])


def test_a_loop_runs_flat_and_gives_what_the_traced_dataflow_run_gives(flat_runs):
    i, x = _power_loop(20)
    with tf.Session() as sess:
        flat = sess.run([i, x])
        assert flat_runs == {"finished": 1}
        traced = sess.run([i, x], options=TRACED, run_metadata=tf.RunMetadata())
        assert flat_runs == {"finished": 1}  # a traced step runs the loop as dataflow
    expected = 0.0
    for _ in range(20):
        expected = np.float32(expected * np.float32(0.5) + np.float32(1.0))
    assert flat == traced == [20, expected]


def test_a_traced_step_shows_every_iteration():
    i, _ = _power_loop(5)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(i, options=TRACED, run_metadata=metadata) == 5
    iterations = {node.iter_id for device in metadata.step_stats.dev_stats
                  for node in device.node_stats if node.node_name == "while/add"}
    assert iterations == set(range(5))


def test_nested_loops_run_the_inner_loop_flat_once_per_outer_iteration(flat_runs):
    outer = tf.while_loop(
        lambda k, total: k < 4,
        lambda k, total: (k + 1, total + tf.while_loop(lambda j: j < k, lambda j: j + 2, [0])),
        [0, 0])
    with tf.Session() as sess:
        assert sess.run(outer) == (4, 0 + 2 + 2 + 4)  # the first even number >= k
    # The outer loop holds an Enter of the inner one: it runs as dataflow. The inner loop
    # runs flat in each outer iteration; after the last test its Enters are dead.
    assert flat_runs == {"finished": 4, "replayed": 1}


def test_a_loop_in_the_branch_not_taken_replays_its_dead_enters(flat_runs):
    p = tf.placeholder(tf.bool, [])
    result = tf.cond(p, lambda: _power_loop(10)[0], lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert sess.run(result, {p: False}) == -1
        assert flat_runs == {"replayed": 1}
        assert sess.run(result, {p: True}) == 10
        assert flat_runs == {"replayed": 1, "finished": 1}


def _loop_with_two_predicates():
    """A loop frame built from its ops, whose two variables each stop on a test of their own:
    `i` counts to 3 under the loop's predicate, `a` to 10 under one of its own.

    tf.while_loop never builds this (every variable stops on the one
    predicate), but it is dataflow all the same: in iteration 3 the counter's
    NextIteration is dead and `a`'s alive, and iterations 4 to 10 run `a`'s
    nodes only. Returns the two Exits.
    """
    def enter(value, is_constant=False):
        return control_flow_ops._enter(tf.constant(value), "two_predicates",
                                       is_constant=is_constant)

    i_merge, _ = control_flow_ops.merge([enter(0)] * 2)
    a_merge, _ = control_flow_ops.merge([enter(0.0)] * 2)
    i_out, i_in = control_flow_ops.switch(
        i_merge, control_flow_ops.loop_cond(i_merge < enter(3, is_constant=True)))
    a_out, a_in = control_flow_ops.switch(a_merge, a_merge < enter(10.0, is_constant=True))
    i_merge.op._update_input(1, control_flow_ops._next_iteration(
        i_in + enter(1, is_constant=True)))
    a_merge.op._update_input(1, control_flow_ops._next_iteration(
        a_in + enter(1.0, is_constant=True)))
    return control_flow_ops.exit(i_out), control_flow_ops.exit(a_out)


def test_next_iterations_alive_and_dead_in_one_iteration_hand_the_loop_back(flat_runs):
    i, a = _loop_with_two_predicates()
    with tf.Session() as sess:
        assert sess.run([i, a]) == [3, 10.0]
        assert flat_runs == {"resumed": 1}  # at the end of iteration 3
        assert sess.run([i, a], options=TRACED, run_metadata=tf.RunMetadata()) == [3, 10.0]


def test_variables_read_and_assigned_in_the_body_run_flat(flat_runs):
    v = tf.Variable(0.0)

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, tf.cast(i, tf.float32))]):
            return i + 1

    loop = tf.while_loop(lambda i: i < 5, body, [0], parallel_iterations=1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(loop) == 5
        assert sess.run(v) == 0 + 1 + 2 + 3 + 4
    assert flat_runs["finished"] == 1


def test_a_loop_with_a_gradient_runs_both_loops_flat(flat_runs):
    a = tf.constant(0.5)
    _, x = tf.while_loop(lambda i, x: i < 6, lambda i, x: (i + 1, x * a + 1.0), [0, 1.0])
    grad = tf.gradients(x, a)[0]
    with tf.Session() as sess:
        flat = sess.run(grad)
        traced = sess.run(grad, options=TRACED, run_metadata=tf.RunMetadata())
    assert flat == pytest.approx(traced)
    # x6 = a^6 + a^5 + ... + 1, whose derivative is 6a^5 + 5a^4 + ... + 1.
    assert flat == pytest.approx(sum(k * 0.5 ** (k - 1) for k in range(1, 7)))
    assert flat_runs == {"finished": 2}


def test_a_failing_kernel_in_an_iteration_names_its_node(flat_runs):
    def body(i, total):
        return i + 1, total + tf.math.floordiv(10, 3 - i, name="divide")

    loop = tf.while_loop(lambda i, total: i < 5, body, [0, 0])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"
                           ) as caught:
            sess.run(loop)
        assert "while/divide" in str(caught.value)
        assert flat_runs == {"failed": 1}
        assert sess.run(tf.constant(1) + 1) == 2  # the session goes on


def test_a_deadline_stops_a_loop_that_never_ends(flat_runs):
    endless = tf.while_loop(lambda i: i >= 0, lambda i: (i + 1) % 1000, [0])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(endless, options=tf.RunOptions(timeout_in_ms=300))
    # The caller has its error at the deadline; the loop, on the step's own thread, stops
    # at the end of the iteration it is in.
    give_up = time.monotonic() + 10
    while not flat_runs and time.monotonic() < give_up:
        time.sleep(0.01)
    assert flat_runs == {"failed": 1}


def test_a_loop_whose_kernels_are_long_runs_as_dataflow_on_a_pool(flat_runs, monkeypatch):
    monkeypatch.setattr(KernelCosts, "is_long", lambda self, node_id: True)
    i, x = _power_loop(4)
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=2)) as sess:
        assert sess.run(i) == 4
    assert not flat_runs  # two iterations at once might pay: the general loop
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=1)) as sess:
        assert sess.run(i) == 4
    assert flat_runs == {"finished": 1}  # without a pool, nothing runs beside it anyway


def test_the_plan_says_why_a_loop_cannot_run_flat():
    outer = tf.while_loop(lambda k: k < 2,
                          lambda k: k + tf.while_loop(lambda j: j < 1, lambda j: j + 1, [0]),
                          [0])
    reasons = []
    plan_for = flat_frames.plan_for

    def recording_plan_for(nodes, info):
        plan = plan_for(nodes, info)
        reasons.append(plan.reason)
        return plan

    flat_frames.plan_for = recording_plan_for
    try:
        with tf.Session() as sess:
            assert sess.run(outer) == 2
    finally:
        flat_frames.plan_for = plan_for
    assert any(r and "enters a loop inside the loop" in r for r in reasons)
    assert None in reasons  # the inner loop
