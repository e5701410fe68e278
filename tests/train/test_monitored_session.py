"""MonitoredSession, Scaffold, the session creators, and MonitoredTrainingSession with checkpoints.

The checkpoint schedule was checked against TensorFlow 1.x (`tf.compat.v1`,
the reference installation): with `save_checkpoint_steps=3` and
`StopAtStepHook(num_steps=7)` it saves at steps 0, 3, 6 and 7; a second
MonitoredTrainingSession on the same directory restores step 7 and stops at 14.
"""

import os
import threading

import numpy as np
import pytest

import minitf as tf


class CountingHook(tf.train.SessionRunHook):
    def __init__(self):
        self.created = 0
        self.ended = 0
        self.after_runs = 0

    def after_create_session(self, session, coord):
        self.created += 1

    def after_run(self, run_context, run_values):
        self.after_runs += 1

    def end(self, session):
        self.ended += 1


def _linear_model():
    """w starts at 1.0; each step of gradient descent on w**2 multiplies it by 0.8."""
    w = tf.Variable(1.0, name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.square(w)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return w, step, train_op


# --- Scaffold ----------------------------------------------------------------------------

def test_scaffold_makes_the_default_pieces_and_finalizes_the_graph():
    tf.Variable(1.0, name="w")
    tf.Variable(2.0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    scaffold = tf.train.Scaffold().finalize()
    graph = tf.get_default_graph()
    assert graph.finalized
    # TF names: the group of initializers is "group_deps", the local one "group_deps_1".
    assert scaffold.init_op.name == "group_deps"
    assert scaffold.local_init_op.name == "group_deps_1"
    assert tf.get_collection(tf.GraphKeys.INIT_OP) == [scaffold.init_op]
    assert tf.get_collection(tf.GraphKeys.READY_OP) == [scaffold.ready_op]
    assert tf.get_collection(tf.GraphKeys.SAVERS) == [scaffold.saver]
    assert scaffold.summary_op is None
    with tf.Session() as sess:
        names = sess.run(scaffold.ready_op)
        assert sorted(names.tolist()) == [b"counter", b"w"]
        sess.run(scaffold.init_op)
        assert sess.run(scaffold.ready_for_local_init_op).tolist() == []
        assert sess.run(scaffold.ready_op).tolist() == [b"counter"]
        sess.run(scaffold.local_init_op)
        assert sess.run(scaffold.ready_op).size == 0
    graph._unsafe_unfinalize()


def test_scaffold_takes_pieces_from_the_collections():
    tf.Variable(1.0, name="w")
    init = tf.global_variables_initializer()
    tf.add_to_collection(tf.GraphKeys.INIT_OP, init)
    assert tf.train.Scaffold().finalize().init_op is init


def test_scaffold_rejects_two_items_in_a_collection():
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    with pytest.raises(RuntimeError, match='More than one item in the collection "init_op"'):
        tf.train.Scaffold().finalize()


def test_scaffold_copy_from_scaffold():
    op = tf.no_op(name="my_init")
    copy = tf.train.Scaffold(copy_from_scaffold=tf.train.Scaffold(init_op=op))
    assert copy.init_op is op
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold instance"):
        tf.train.Scaffold(copy_from_scaffold=object())


# --- MonitoredSession ----------------------------------------------------------------------

def test_monitored_session_initializes_and_finalizes_the_graph_while_open():
    w = tf.Variable([1.0, 2.0], name="w")
    doubled = w * 2.0
    with tf.train.MonitoredSession() as sess:
        assert tf.get_default_graph().finalized
        with pytest.raises(RuntimeError, match="Graph is finalized"):
            tf.constant(1.0)
        np.testing.assert_allclose(sess.run(doubled), [2.0, 4.0])
        assert sess.graph is tf.get_default_graph()
    assert not tf.get_default_graph().finalized  # as before the session
    assert sess.should_stop() and sess.graph is None


def test_out_of_range_error_ends_the_with_block_quietly_and_hooks_end():
    a = tf.constant(1.0)
    hook = CountingHook()
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(a)
        raise tf.errors.OutOfRangeError(None, None, "End of sequence")
    assert hook.ended == 1


def test_other_errors_escape_and_skip_hook_end():
    a = tf.constant(1.0)
    hook = CountingHook()
    with pytest.raises(ValueError, match="boom"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(a)
            raise ValueError("boom")
    assert hook.ended == 0
    assert not tf.get_default_graph().finalized


def test_closing_twice_is_an_error():
    tf.constant(1.0)
    sess = tf.train.MonitoredSession()
    sess.close()
    with pytest.raises(RuntimeError, match="Session is already closed"):
        sess.close()


def test_monitored_session_recovers_from_an_aborted_run():
    class AbortOnce(tf.train.SessionRunHook):
        def __init__(self):
            self.aborted = False

        def after_run(self, run_context, run_values):
            if not self.aborted:
                self.aborted = True
                raise tf.errors.AbortedError(None, None, "a parameter server restarted")

    a = tf.constant(3.0)
    counting = CountingHook()
    with tf.train.MonitoredSession(hooks=[AbortOnce(), counting]) as sess:
        assert sess.run(a) == 3.0  # the first try aborted; a new session ran it again
    assert counting.created == 2


def test_singular_monitored_session_exposes_the_raw_session_and_does_not_recover():
    w = tf.Variable(5.0, name="w")
    hook = CountingHook()

    class Abort(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            raise tf.errors.AbortedError(None, None, "aborted")

    with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
        assert isinstance(sess.raw_session(), tf.Session)
        assert sess.raw_session().run(w) == 5.0
        assert hook.after_runs == 0  # the raw session runs no hooks
        assert sess.run(w) == 5.0 and hook.after_runs == 1
    tf.reset_default_graph()
    tf.constant(1.0, name="c")
    with pytest.raises(tf.errors.AbortedError):
        with tf.train.SingularMonitoredSession(hooks=[Abort()]) as sess:
            sess.run("c:0")


def test_run_step_fn_runs_with_and_without_hooks_and_can_stop():
    x = tf.placeholder(tf.float32)
    y = x + 4.0
    hook = CountingHook()
    raw_values, hooked_values = [], []

    def step_fn(step_context):
        raw_values.append(step_context.session.run(y, feed_dict={x: 1.0}))
        hooked_values.append(step_context.run_with_hooks(y, feed_dict={x: 2.0}))
        if len(raw_values) == 2:
            step_context.request_stop()
        return "done"

    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        assert sess.run_step_fn(step_fn) == "done"
        sess.run_step_fn(step_fn)  # raises StopIteration, which the with block swallows
    assert raw_values == [5.0, 5.0] and hooked_values == [6.0, 6.0]
    assert hook.after_runs == 2 and hook.ended == 1


def test_run_step_fn_checks_its_argument():
    tf.constant(1.0)
    with tf.train.MonitoredSession() as sess:
        with pytest.raises(ValueError, match="`step_fn` may either have one `step_context`"):
            sess.run_step_fn(lambda ctx: None)


# --- session creators -----------------------------------------------------------------------

def test_chief_session_creator_reports_what_init_left_uninitialized():
    tf.Variable(1.0, name="w")
    scaffold = tf.train.Scaffold(init_op=tf.no_op())
    with pytest.raises(RuntimeError, match="Init operations did not make model ready.*"
                                           "Variables not initialized: w"):
        tf.train.MonitoredSession(
            session_creator=tf.train.ChiefSessionCreator(scaffold=scaffold))
    tf.get_default_graph()._unsafe_unfinalize()


def test_worker_session_creator_times_out_when_the_model_never_becomes_ready():
    tf.Variable(1.0, name="w")
    creator = tf.train.WorkerSessionCreator(max_wait_secs=0)
    with pytest.raises(tf.errors.DeadlineExceededError, match="not ready after waiting 0 secs"):
        creator.create_session()
    tf.get_default_graph()._unsafe_unfinalize()


def test_a_custom_session_creator():
    a = tf.constant(7.0)

    class PlainCreator(tf.train.SessionCreator):
        def create_session(self):
            return tf.Session()

    with tf.train.MonitoredSession(session_creator=PlainCreator()) as sess:
        assert sess.run(a) == 7.0
    with pytest.raises(TypeError):
        tf.train.SessionCreator()


# --- Coordinator ---------------------------------------------------------------------------

def test_coordinator_reraises_a_thread_error_in_join():
    coord = tf.train.Coordinator()

    def worker():
        with coord.stop_on_exception():
            raise ValueError("input pipeline broke")

    thread = threading.Thread(target=worker)
    coord.register_thread(thread)
    thread.start()
    assert coord.wait_for_stop(5.0)
    with pytest.raises(ValueError, match="input pipeline broke"):
        coord.join()
    assert coord.joined


def test_coordinator_treats_out_of_range_as_a_clean_stop():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    assert coord.should_stop()
    coord.raise_requested_exception()  # nothing to raise
    coord.clear_stop()
    assert not coord.should_stop()


def test_a_thread_error_stops_the_monitored_session():
    a = tf.constant(1.0)

    class GetCoord(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            self.coord = coord

    hook = GetCoord()
    with pytest.raises(ValueError, match="reader failed"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(a)
            hook.coord.request_stop(ValueError("reader failed"))
            assert sess.should_stop()  # the error is raised when the session closes


# --- MonitoredTrainingSession with checkpoints ---------------------------------------------

def _train_until_stop(checkpoint_dir, num_steps, **kwargs):
    """Builds the model in a fresh graph and trains it; returns (w, global step, steps run)."""
    tf.reset_default_graph()
    w, step, train_op = _linear_model()
    final = tf.train.FinalOpsHook([w, step])
    hooks = [tf.train.StopAtStepHook(num_steps=num_steps), final]
    runs = 0
    with tf.train.MonitoredTrainingSession(checkpoint_dir=checkpoint_dir, hooks=hooks,
                                           **kwargs) as sess:
        assert tf.get_default_graph().finalized
        while not sess.should_stop():
            sess.run(train_op)
            runs += 1
    final_w, final_step = final.final_ops_values
    return final_w, final_step, runs


def test_monitored_training_session_checkpoints_and_a_second_one_continues(tmp_path):
    ckpt_dir = str(tmp_path)
    w, step, runs = _train_until_stop(ckpt_dir, 7, save_checkpoint_steps=3)
    assert (step, runs) == (7, 7)
    np.testing.assert_allclose(w, 0.8 ** 7, rtol=1e-5)
    saved = sorted(int(name.split("-")[1].split(".")[0]) for name in os.listdir(ckpt_dir)
                   if name.startswith("model.ckpt-") and name.endswith(".index"))
    assert saved == [0, 3, 6, 7]  # at the start, every 3 steps, and at close
    assert tf.train.latest_checkpoint(ckpt_dir) == os.path.join(ckpt_dir, "model.ckpt-7")

    # A second session on the same directory restores step 7 and w, and goes on.
    w, step, runs = _train_until_stop(ckpt_dir, 7, save_checkpoint_steps=3)
    assert (step, runs) == (14, 7)
    np.testing.assert_allclose(w, 0.8 ** 14, rtol=1e-5)
    assert tf.train.latest_checkpoint(ckpt_dir) == os.path.join(ckpt_dir, "model.ckpt-14")


def test_monitored_training_session_saves_on_close_by_default(tmp_path):
    # The default is every 600 seconds: in a short run, only the first and the final save.
    w, step, runs = _train_until_stop(str(tmp_path), 2)
    assert step == 2
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-2")


def test_monitored_training_session_without_checkpoints(tmp_path):
    w, step, runs = _train_until_stop(None, 3)
    assert (step, runs) == (3, 3)
    w, step, runs = _train_until_stop(str(tmp_path), 3, save_checkpoint_secs=None)
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_monitored_training_session_hook_order(tmp_path):
    _linear_model()
    chief_hook, hook = CountingHook(), CountingHook()
    sess = tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=[hook],
                                             chief_only_hooks=[chief_hook])
    kinds = [type(h).__name__ for h in sess._hooks]
    sess.close()
    assert kinds == ["CountingHook", "StepCounterHook", "SummarySaverHook", "CheckpointSaverHook",
                     "CountingHook"]
    assert sess._hooks[0] is chief_hook and sess._hooks[-1] is hook


def test_monitored_training_session_rejects_both_checkpoint_periods(tmp_path):
    _linear_model()
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                          save_checkpoint_steps=3, save_checkpoint_secs=5)
