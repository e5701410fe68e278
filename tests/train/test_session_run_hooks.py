"""The hooks: their call order, what they add to a run, and each standard hook's behaviour.

Expected log lines and call orders were checked against TensorFlow 1.x
(`tf.compat.v1`, the reference installation): e.g. LoggingTensorHook logs
`loss = 1.0, step = 0` on the first step and sorts a dict's tags.
"""

import io
import logging
import math
import re

import numpy as np
import pytest

import minitf as tf


class RecordingHook(tf.train.SessionRunHook):
    """Writes down every callback, with what it received."""

    def __init__(self, fetches=None):
        self.calls = []
        self.results = []
        self._fetches = fetches

    def begin(self):
        self.calls.append("begin")
        self.graph_finalized_at_begin = tf.get_default_graph().finalized

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")
        self.graph_finalized_at_create = session.graph.finalized
        self.coord = coord

    def before_run(self, run_context):
        self.calls.append("before_run")
        self.original_args = run_context.original_args
        return tf.train.SessionRunArgs(self._fetches) if self._fetches is not None else None

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.results.append(run_values.results)

    def end(self, session):
        self.calls.append("end")


def _counter_model():
    """A global step and a train op that increments it."""
    step = tf.train.get_or_create_global_step()
    train_op = tf.assign_add(step, 1)
    return step, train_op


# --- the protocol -----------------------------------------------------------------------

def test_session_run_args_defaults_and_fields():
    args = tf.train.SessionRunArgs("x:0")
    assert args == ("x:0", None, None)
    assert args.fetches == "x:0" and args.feed_dict is None and args.options is None
    values = tf.train.SessionRunValues(results=3, options=None, run_metadata=None)
    assert values.results == 3


def test_run_context_records_a_stop_request():
    context = tf.train.SessionRunContext(original_args=tf.train.SessionRunArgs([1]),
                                         session="s")
    assert not context.stop_requested
    context.request_stop()
    assert context.stop_requested
    assert context.session == "s" and context.original_args.fetches == [1]


def test_base_hook_does_nothing():
    hook = tf.train.SessionRunHook()
    hook.begin()
    assert hook.before_run(None) is None


def test_hooks_are_called_in_tensorflow_order():
    a = tf.constant(2.0)
    first, second = RecordingHook(), RecordingHook()
    with tf.train.MonitoredSession(hooks=[first, second]) as sess:
        assert sess.run(a) == 2.0
        sess.run(a)
    expected = ["begin", "after_create_session", "before_run", "after_run", "before_run",
                "after_run", "end"]
    assert first.calls == expected and second.calls == expected
    assert not first.graph_finalized_at_begin  # a hook may still add ops in begin
    assert first.graph_finalized_at_create
    assert isinstance(first.coord, tf.train.Coordinator)


def test_hook_fetches_are_merged_into_the_run_and_returned_to_the_hook():
    a = tf.constant(1.0, name="a")
    b = tf.constant(5, name="b")
    hook = RecordingHook(fetches={"b": b, "both": [a, b]})
    x = tf.placeholder(tf.float32, name="x")
    x_plus = x + 1.0
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        result = sess.run({"x_plus": x_plus}, feed_dict={x: 2.0})
    assert result == {"x_plus": 3.0}  # the caller gets only what it asked for
    assert hook.results[0]["b"] == 5
    np.testing.assert_allclose(hook.results[0]["both"], [1.0, 5])
    assert hook.original_args.feed_dict == {x: 2.0}


def test_a_hook_that_asks_for_nothing_gets_none():
    a = tf.constant(1.0)
    hook = RecordingHook()
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(a)
    assert hook.results == [None]


def test_request_stop_ends_the_loop_after_that_run():
    class StopAfterTwo(tf.train.SessionRunHook):
        def __init__(self):
            self.runs = 0

        def after_run(self, run_context, run_values):
            self.runs += 1
            if self.runs == 2:
                run_context.request_stop()

    a = tf.constant(1.0)
    hook = StopAfterTwo()
    runs = 0
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        while not sess.should_stop():
            sess.run(a)
            runs += 1
        with pytest.raises(RuntimeError, match="Run called even after should_stop requested"):
            sess.run(a)
    assert runs == 2


def test_feeds_from_a_hook_and_from_the_caller_must_not_overlap():
    x = tf.placeholder(tf.float32)
    hook = tf.train.FeedFnHook(lambda: {x: 1.0})
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and user"):
            sess.run(x, feed_dict={x: 2.0})


def test_two_hooks_feeding_one_tensor_is_an_error():
    x = tf.placeholder(tf.float32)
    hooks = [tf.train.FeedFnHook(lambda: {x: 1.0}), tf.train.FeedFnHook(lambda: {x: 2.0})]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
            sess.run(x)


def test_hook_run_options_are_merged():
    class TraceHook(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs(
                None, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))

        def after_run(self, run_context, run_values):
            self.trace_level = run_values.options.trace_level
            self.step_stats = run_values.run_metadata.step_stats

    a = tf.constant(1.0) * 2.0
    hook = TraceHook()
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(a)
    assert hook.trace_level == tf.RunOptions.FULL_TRACE
    assert len(hook.step_stats.dev_stats) >= 1


# --- SecondOrStepTimer --------------------------------------------------------------------

def test_second_or_step_timer_by_steps():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)  # the first call always triggers
    assert timer.update_last_triggered_step(0) == (None, None)
    assert not timer.should_trigger_for_step(0)
    assert not timer.should_trigger_for_step(2)
    assert timer.should_trigger_for_step(3)
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(3)
    assert elapsed_steps == 3 and elapsed_secs >= 0
    assert timer.last_triggered_step() == 3


def test_second_or_step_timer_needs_exactly_one_period():
    with pytest.raises(ValueError, match="Either every_secs or every_steps should be provided"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        tf.train.SecondOrStepTimer(every_secs=1, every_steps=1)


# --- StopAtStepHook -----------------------------------------------------------------------

def test_stop_at_step_hook_with_num_steps_counts_from_the_starting_step():
    step, train_op = _counter_model()
    start_at_ten = tf.assign(step, 10)
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: sess.run(start_at_ten))
    runs = 0
    with tf.train.SingularMonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=5)],
                                           scaffold=scaffold) as sess:
        while not sess.should_stop():
            sess.run(train_op)
            runs += 1
        final_step = sess.raw_session().run(step)
    assert runs == 5 and final_step == 15


def test_stop_at_step_hook_with_last_step():
    _, train_op = _counter_model()
    runs = 0
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=7)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)
            runs += 1
    assert runs == 7


def test_stop_at_step_hook_arguments():
    with pytest.raises(ValueError, match="One of num_steps or last_step must be specified"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of num_steps or last_step can be specified"):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)


def test_stop_at_step_hook_needs_a_global_step():
    tf.constant(1.0)
    with pytest.raises(RuntimeError, match="Global step should be created to use StopAtStepHook"):
        tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])


# --- LoggingTensorHook --------------------------------------------------------------------

def test_logging_tensor_hook_logs_every_n_iter(caplog):
    step, train_op = _counter_model()
    loss = tf.constant(1.5, name="loss")
    hook = tf.train.LoggingTensorHook({"step": step, "loss": loss}, every_n_iter=2)
    with caplog.at_level(logging.INFO, logger="minitf"):
        with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train_op)
    lines = [r.getMessage() for r in caplog.records if "loss =" in r.getMessage()]
    # Iterations 0, 2 and 4 are logged, tags sorted; the first has no elapsed time.
    # (Whether the step is read before or after the same run's increment is not
    # ordered by the graph, as in TensorFlow: the first value is 0 or 1.)
    assert len(lines) == 3
    first = re.fullmatch(r"loss = 1\.5, step = (\d+)", lines[0])
    assert first and int(first.group(1)) in (0, 1)
    second = re.fullmatch(r"loss = 1\.5, step = (\d+) \([0-9.]+ sec\)", lines[1])
    assert second and int(second.group(1)) == int(first.group(1)) + 2


def test_logging_tensor_hook_accepts_names_and_logs_at_end(caplog):
    tf.constant([1.0, 2.0], name="v")
    hook = tf.train.LoggingTensorHook(["v"], at_end=True)
    with caplog.at_level(logging.INFO, logger="minitf"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run("v:0")
            assert not any("v =" in r.getMessage() for r in caplog.records)
    assert [r.getMessage() for r in caplog.records if "v =" in r.getMessage()] == ["v = [1. 2.]"]


def test_logging_tensor_hook_formatter(caplog):
    a = tf.constant(3)
    hook = tf.train.LoggingTensorHook({"a": a}, every_n_iter=1,
                                      formatter=lambda values: "a is %d" % values["a"])
    with caplog.at_level(logging.INFO, logger="minitf"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(a)
    assert "a is 3" in [r.getMessage() for r in caplog.records]


def test_logging_tensor_hook_arguments():
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook(["a"])
    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        tf.train.LoggingTensorHook(["a"], every_n_iter=0)


# --- StepCounterHook --------------------------------------------------------------------

def test_step_counter_hook_logs_steps_per_second(caplog, tmp_path):
    _, train_op = _counter_model()
    hook = tf.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path))
    with caplog.at_level(logging.INFO, logger="minitf"):
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(6):
                sess.run(train_op)
    rates = [r.getMessage() for r in caplog.records
             if r.getMessage().startswith("global_step/sec: ")]
    assert len(rates) >= 2
    assert all(float(line.split(": ")[1]) > 0 for line in rates)


def test_step_counter_hook_warns_when_the_step_does_not_move(caplog):
    tf.train.get_or_create_global_step()
    a = tf.constant(1.0)
    with caplog.at_level(logging.WARNING, logger="minitf"):
        with tf.train.MonitoredSession(hooks=[tf.train.StepCounterHook()]) as sess:
            for _ in range(3):
                sess.run(a)
    assert any("global step (tf.train.get_global_step) has not been increased" in
               r.getMessage() for r in caplog.records)


# --- NanTensorHook --------------------------------------------------------------------

def test_nan_tensor_hook_raises_on_nan_loss(caplog):
    x = tf.placeholder(tf.float32)
    loss = tf.sqrt(x)
    hook = tf.train.NanTensorHook(loss)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(loss, feed_dict={x: 4.0})
        with pytest.raises(tf.train.NanLossDuringTrainingError, match="NaN loss during training"):
            sess.run(loss, feed_dict={x: -1.0})
    assert "Model diverged with loss = NaN." in [r.getMessage() for r in caplog.records]


def test_nan_tensor_hook_can_stop_instead():
    x = tf.placeholder(tf.float32)
    loss = tf.sqrt(x)
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, False)]) as sess:
        sess.run(loss, feed_dict={x: 1.0})
        assert not sess.should_stop()
        assert math.isnan(sess.run(loss, feed_dict={x: -1.0}))
        assert sess.should_stop()


# --- FinalOpsHook, FeedFnHook, GlobalStepWaiterHook -----------------------------------------

def test_final_ops_hook_runs_its_ops_at_the_end():
    step, train_op = _counter_model()
    x = tf.placeholder(tf.int64)
    hook = tf.train.FinalOpsHook({"step": step, "scaled": step * x}, final_ops_feed_dict={x: 10})
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(3):
            sess.run(train_op)
        assert hook.final_ops_values is None
    assert hook.final_ops_values == {"step": 3, "scaled": 30}


def test_feed_fn_hook_feeds_every_run():
    x = tf.placeholder(tf.float32)
    values = iter([1.0, 2.0, 3.0])
    doubled = x * 2.0
    hook = tf.train.FeedFnHook(lambda: {x: next(values)})
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        seen = [sess.run(doubled) for _ in range(3)]
    assert seen == [2.0, 4.0, 6.0]


def test_global_step_waiter_hook_passes_once_the_step_is_reached():
    step, train_op = _counter_model()
    hook = tf.train.GlobalStepWaiterHook(wait_until_step=0)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(train_op)
        assert sess.run(step) == 1


# --- CheckpointSaverHook (with a saver that records its calls) --------------------------------

class RecordingSaver:
    """Stands in for tf.train.Saver: remembers (path, step) of every save."""

    def __init__(self):
        self.saves = []

    def build(self):
        pass

    def save(self, sess, save_path, global_step=None):
        self.saves.append((save_path, int(global_step)))
        return "%s-%d" % (save_path, global_step)


class RecordingListener(tf.train.CheckpointSaverListener):
    def __init__(self, stop_after_save_at=None):
        self.calls = []
        self._stop_at = stop_after_save_at

    def begin(self):
        self.calls.append("begin")

    def before_save(self, session, global_step_value):
        self.calls.append(("before_save", global_step_value))

    def after_save(self, session, global_step_value):
        self.calls.append(("after_save", global_step_value))
        return global_step_value == self._stop_at

    def end(self, session, global_step_value):
        self.calls.append(("end", global_step_value))


def test_checkpoint_saver_hook_saves_at_start_every_n_steps_and_at_end(tmp_path):
    _, train_op = _counter_model()
    saver = RecordingSaver()
    listener = RecordingListener()
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=3, saver=saver,
                                        listeners=[listener])
    scaffold = tf.train.Scaffold(saver=saver)
    with tf.train.SingularMonitoredSession(hooks=[hook], scaffold=scaffold) as sess:
        for _ in range(7):
            sess.run(train_op)
    path = str(tmp_path / "model.ckpt")
    assert saver.saves == [(path, 0), (path, 3), (path, 6), (path, 7)]
    assert listener.calls[0] == "begin" and listener.calls[-1] == ("end", 7)
    assert listener.calls[1:3] == [("before_save", 0), ("after_save", 0)]


def test_checkpoint_saver_hook_does_not_save_twice_at_the_end(tmp_path):
    _, train_op = _counter_model()
    saver = RecordingSaver()
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=saver)
    with tf.train.SingularMonitoredSession(hooks=[hook],
                                           scaffold=tf.train.Scaffold(saver=saver)) as sess:
        for _ in range(4):
            sess.run(train_op)
    assert [s for _, s in saver.saves] == [0, 2, 4]


def test_a_checkpoint_listener_can_stop_training(tmp_path):
    _, train_op = _counter_model()
    saver = RecordingSaver()
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=saver,
                                        listeners=[RecordingListener(stop_after_save_at=4)])
    runs = 0
    with tf.train.SingularMonitoredSession(hooks=[hook],
                                           scaffold=tf.train.Scaffold(saver=saver)) as sess:
        while not sess.should_stop():
            sess.run(train_op)
            runs += 1
    assert runs == 4


def test_checkpoint_saver_hook_arguments(tmp_path):
    with pytest.raises(ValueError, match="You cannot provide both saver and scaffold"):
        tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=RecordingSaver(),
                                     scaffold=tf.train.Scaffold())
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.CheckpointSaverHook(str(tmp_path))


# --- ProgressBarHook (text mode) -------------------------------------------------------------

def test_progress_bar_hook_text_mode_with_a_total():
    _, train_op = _counter_model()
    loss = tf.constant(0.123456, name="loss")
    stream = io.StringIO()
    hook = tf.train.ProgressBarHook(num_steps=4, tensors={"loss": loss}, every_n_iter=2,
                                    use_tqdm=False, stream=stream)
    with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(num_steps=4)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("train: 2/4 [##########----------]  50% ")
    assert lines[0].endswith("steps/s, loss = 0.1235")
    assert lines[1].startswith("train: 4/4 [####################] 100% ")


def test_progress_bar_hook_text_mode_without_a_total_writes_a_last_line():
    a = tf.constant(1.0, name="a")
    stream = io.StringIO()
    hook = tf.train.ProgressBarHook(tensors=[a], desc="eval", every_n_iter=2, use_tqdm=False,
                                    stream=stream)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(3):
            sess.run(a)
    lines = stream.getvalue().splitlines()
    assert [line.split(" steps ")[0] for line in lines] == ["eval: 2", "eval: 3"]
    assert lines[0].endswith("steps/s, a = 1")  # a list of tensors is tagged by op name


def test_progress_bar_hook_arguments():
    with pytest.raises(ValueError, match="num_steps must be positive"):
        tf.train.ProgressBarHook(num_steps=0)
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        tf.train.ProgressBarHook(every_n_iter=-1)
