"""The standard hooks: stop, checkpoint, count, log, watch for NaN, run final ops, feed.

Each hook is one chore of a training loop, written against the five
callbacks of `SessionRunHook` (see session_run_hook.py):

- `StopAtStepHook`: request a stop when the global step reaches a limit;
- `CheckpointSaverHook`: `saver.save(...)` every N seconds or steps, and at the end;
- `StepCounterHook`: log global steps per second, and write them as a summary;
- `SummarySaverHook`: run the summary op every N steps or seconds and write
  what it returns to an event file;
- `LoggingTensorHook`: log the values of some tensors every N steps or seconds;
- `NanTensorHook`: raise (or stop) when the loss becomes NaN;
- `FinalOpsHook`: run some ops once, at the end, and keep their values;
- `FeedFnHook`: feed each run from a function;
- `GlobalStepWaiterHook`: wait until the global step reaches a value;
- `ProgressBarHook`: minitf's own, a progress bar (tqdm if installed, else text).

`SecondOrStepTimer` decides "is it time yet?" for the periodic ones.

Several hooks fetch the global step along with the caller's fetches. That
value may be read before or after the train op increments it in the same
run (a *stale* step), so a hook that is about to act reads it once more
with its own `session.run`, exactly as TensorFlow does.

The hooks that write (`CheckpointSaverHook`, `StepCounterHook`,
`SummarySaverHook`) share one FileWriter per directory
(`tf.summary.FileWriterCache`), so a training loop makes one event file:
the graph, a CHECKPOINT session log for each checkpoint, the steps per
second and the summaries, each at its global step.

Logging goes to the Python logger "minitf" in TensorFlow's wording
(`loss = 0.26, step = 3 (0.027 sec)`, `global_step/sec: 148.8`); to see
it, `logging.basicConfig(level=logging.INFO)`.

Mirrors `tensorflow/python/training/basic_session_run_hooks.py`.
"""

import logging
import os
import sys
import time

import numpy as np

from minitf.graph import errors
from minitf.graph import ops
from minitf.saver import meta_graph
from minitf.summary import proto_class
from minitf.summary.writer_cache import FileWriterCache
from minitf.train import training_util
from minitf.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["SecondOrStepTimer", "LoggingTensorHook", "StopAtStepHook",
           "CheckpointSaverListener", "CheckpointSaverHook", "StepCounterHook", "SummarySaverHook",
           "NanLossDuringTrainingError", "NanTensorHook", "GlobalStepWaiterHook",
           "FinalOpsHook", "FeedFnHook", "ProgressBarHook"]

_logger = logging.getLogger("minitf")


# =============================================================================
# Timers: "is it time to act at this step?"
# =============================================================================

class _HookTimer:
    """The interface of the timers of periodic hooks."""

    def reset(self):
        pass

    def should_trigger_for_step(self, step):
        raise NotImplementedError

    def update_last_triggered_step(self, step):
        """Records a trigger at `step`; returns (seconds, steps) since the last one, or Nones."""
        raise NotImplementedError

    def last_triggered_step(self):
        raise NotImplementedError


class SecondOrStepTimer(_HookTimer):
    """Triggers at most once every `every_secs` seconds or once every `every_steps` steps.

    The first call always triggers; the same step never triggers twice.
    """

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None:
            if time.time() >= self._last_triggered_time + self._every_secs:
                return True
        if self._every_steps is not None:
            if step >= self._last_triggered_step + self._every_steps:
                return True
        return False

    def update_last_triggered_step(self, step):
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    """A timer for hooks that act only at the end."""

    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return None, None

    def last_triggered_step(self):
        return None


def _global_step_or_raise(hook_name):
    """The graph's global step; RuntimeError when there is none (the hook needs it)."""
    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use %s." % hook_name)
    return step


# =============================================================================
# Stopping
# =============================================================================

class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches `last_step` (or `num_steps` from the start).

    `num_steps` counts from the global step found when the session is
    created, so a restored model trains `num_steps` more; `last_step` is an
    absolute step.
    """

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_or_raise("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # The fetched step may be stale; only when it says "almost there" is it read again.
        if run_values.results + 1 >= self._last_step:
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


# =============================================================================
# Checkpoints
# =============================================================================

class CheckpointSaverListener:
    """Callbacks around each save of a `CheckpointSaverHook`.

    `after_save` may return True to ask the training loop to stop (after
    an evaluation decided the model is good enough, say).
    """

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every N seconds or steps, and at the end.

    The saver is `saver`, else `scaffold.saver`, else the only Saver in the
    graph's SAVERS collection. Files are `<checkpoint_dir>/model.ckpt-<step>`.
    The event file of `checkpoint_dir` gets the graph when the session
    starts and a CHECKPOINT session log for each checkpoint.
    """

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        _logger.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1

    def begin(self):
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_or_raise("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        # The graph is written now, not in begin: other hooks may add to it until it is final.
        global_step = int(session.run(self._global_step_tensor))
        graph = ops.get_default_graph()
        saver_def = getattr(self._get_saver(), "saver_def", None)  # a stand-in saver has none
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta_graph.export_meta_graph(
            graph_def=graph.as_graph_def(add_shapes=True), saver_def=saver_def, graph=graph))
        # The first checkpoint holds the state the training starts from.
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Writes the checkpoint of `step`; True when a listener asks to stop."""
        _logger.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _logger.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step)
        session_log = proto_class("SessionLog")
        self._summary_writer.add_session_log(
            session_log(status=session_log.CHECKPOINT, checkpoint_path=self._save_path), step)
        _logger.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _logger.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops.get_collection(ops.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                "No items in collection %s. Please add a saver to the collection or provide a "
                "saver or scaffold." % ops.GraphKeys.SAVERS)
        if len(savers) > 1:
            raise RuntimeError(
                "More than one item in collection %s. Please indicate which one to use by "
                "passing it to the constructor." % ops.GraphKeys.SAVERS)
        self._saver = savers[0]
        return self._saver


# =============================================================================
# Counting and logging
# =============================================================================

class StepCounterHook(SessionRunHook):
    """Logs how many global steps per second the loop makes (`global_step/sec: 148.8`).

    With a `summary_writer`, or an `output_dir` (whose cached FileWriter is
    used), the rate is also written as a scalar summary tagged
    `global_step/sec`, at the global step.
    """

    _MAX_STALL_WARNINGS = 5

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._output_dir = output_dir
        self._summary_writer = summary_writer
        self._last_global_step = None
        self._steps_per_run = 1
        self._stall_warnings = 0

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_raise("StepCounterHook")
        self._summary_tag = self._global_step_tensor.op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            self._warn_step_not_increased(stale_global_step)
        self._last_global_step = stale_global_step

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / max(elapsed_time, 1e-12)
        if self._summary_writer is not None:
            summary = proto_class("Summary")
            self._summary_writer.add_summary(summary(value=[summary.Value(
                tag=self._summary_tag, simple_value=steps_per_sec)]), global_step)
        _logger.info("%s: %g", self._summary_tag, steps_per_sec)

    def _warn_step_not_increased(self, step):
        if self._stall_warnings < self._MAX_STALL_WARNINGS:
            self._stall_warnings += 1
            _logger.warning(
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s. You could increase "
                "the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.", step, self._last_global_step)


class SummarySaverHook(SessionRunHook):
    """Runs a summary op every N steps or seconds and writes what it returns.

    The op is `summary_op` (one, or a list), else the scaffold's
    (`tf.summary.merge_all()` by default). It is fetched along with the
    caller's fetches at the first step and whenever the timer fires; its
    Summaries go to `summary_writer`, or the cached FileWriter of
    `output_dir`, at the global step after the run. The first run also
    writes a START session log.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_or_raise("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = (self._next_step is None
                                 or self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            session_log = proto_class("SessionLog")
            self._summary_writer.add_session_log(session_log(status=session_log.START),
                                                 global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        """The summary ops to run, as a list; None when there are none."""
        summary_op = self._summary_op if self._summary_op is not None \
            else self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


def _as_graph_element(obj):
    """The tensor (or op) `obj` denotes in the default graph; a bare op name means output 0."""
    graph = ops.get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError("Passed %s should have graph attribute that is equal to current "
                             "graph %s." % (obj, graph))
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError("Name %s is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2)." % obj)


def _tags_and_order(tensors):
    """A dict tag -> tensor, and the order to print the tags in (sorted for a dict)."""
    if isinstance(tensors, dict):
        return dict(tensors), sorted(tensors)
    tensors = list(tensors)
    return {item: item for item in tensors}, tensors


class LoggingTensorHook(SessionRunHook):
    """Logs tensors' values every N local steps, every N seconds, and/or at the end.

    `tensors` is a dict tag -> tensor (or tensor name), or a list of
    tensors or names (each its own tag). The default line reads
    `loss = 0.26, step = 3 (0.027 sec)`; `formatter(values_by_tag)` may
    write another.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs "
                             "must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        self._tensors, self._tag_order = _tags_and_order(tensors)
        self._formatter = formatter
        self._timer = (NeverTriggerTimer() if only_log_at_end else
                       SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(tensor)
                                 for tag, tensor in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))

    def _log_tensors(self, tensor_values):
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter:
            _logger.info(self._formatter(tensor_values))
            return
        with np.printoptions(suppress=True):
            stats = ", ".join("%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order)
        if elapsed_secs is not None:
            _logger.info("%s (%.3f sec)", stats, elapsed_secs)
        else:
            _logger.info("%s", stats)


# =============================================================================
# Watching the loss, final ops, feeds, waiting
# =============================================================================

class NanLossDuringTrainingError(RuntimeError):
    """Raised by `NanTensorHook` when the loss is NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fetches the loss with every run; on NaN raises `NanLossDuringTrainingError` (or stops)."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _logger.error(failure_message)
                raise NanLossDuringTrainingError
            _logger.warning(failure_message)
            run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` once when the session ends; their values are in `final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration):
            _logger.warning(
                "An OutOfRangeError or StopIteration exception is raised by the code in "
                "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have "
                "a dependency back to some input source, which should not happen.")
            raise


class FeedFnHook(SessionRunHook):
    """Adds `feed_fn()` (a dict tensor -> value) to the feeds of every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first run until the global step reaches `wait_until_step`.

    Used to start the workers of a distributed job gradually, once the
    chief has trained a little.
    """

    _POLL_SECS = 0.5

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_or_raise("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _logger.info("Waiting for global step %d before starting training.",
                     self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                _logger.info("Waiting for global step %d before starting training. Current "
                             "step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(self._POLL_SECS)


# =============================================================================
# A progress bar (minitf's own)
# =============================================================================

class ProgressBarHook(SessionRunHook):
    """Shows the loop's progress: a tqdm bar when tqdm can be imported, else a text line.

    This hook is minitf's own; TensorFlow has none. One `run` of the
    monitored session counts as one step. With `num_steps` the bar shows
    `done/num_steps`; `tensors` (a dict tag -> tensor, or a list) adds their
    latest values, e.g. the loss.

    tqdm is optional: minitf does not depend on it. When it is installed,
    `tqdm.auto` is used (a widget in notebooks, a terminal bar elsewhere);
    otherwise, or with `use_tqdm=False`, a plain line such as

        train: 40/100 [########------------]  40% 812.3 steps/s, loss = 0.25

    is written to `stream` (default `sys.stderr`) every `every_n_iter`
    steps (default: 20 lines per run of `num_steps`, else every 100 steps)
    and at the end; on a terminal the line is rewritten in place.
    """

    def __init__(self, num_steps=None, tensors=None, desc="train", every_n_iter=None,
                 use_tqdm=None, stream=None):
        if num_steps is not None and num_steps <= 0:
            raise ValueError("num_steps must be positive, got %s." % num_steps)
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        self._num_steps = num_steps
        if not isinstance(tensors, dict):
            tensors = {_short_tag(t): t for t in tensors or []}
        self._tensors, self._tag_order = _tags_and_order(tensors)
        self._desc = desc
        self._every_n_iter = every_n_iter or (max(1, num_steps // 20) if num_steps else 100)
        self._use_tqdm = use_tqdm
        self._stream = stream
        self._bar = None

    def begin(self):
        self._current_tensors = {tag: _as_graph_element(tensor)
                                 for tag, tensor in self._tensors.items()}

    def after_create_session(self, session, coord):
        if self._bar is None:  # a session recreated after an error goes on with the same bar
            self._steps_done = 0
            self._bar = self._make_bar()

    def before_run(self, run_context):
        self._should_show = self._bar.shows_every_step or self._is_display_step(
            self._steps_done + 1)
        if self._should_show and self._current_tensors:
            return SessionRunArgs(self._current_tensors)
        return None

    def after_run(self, run_context, run_values):
        self._steps_done += 1
        if self._should_show:
            self._bar.show(self._steps_done, self._describe(run_values.results))

    def end(self, session):
        if self._bar is not None:
            self._bar.close(self._steps_done)
            self._bar = None

    def _is_display_step(self, step):
        return step % self._every_n_iter == 0 or step == self._num_steps

    def _describe(self, values):
        if not values:
            return ""
        return ", ".join("%s = %s" % (tag, _short(values[tag])) for tag in self._tag_order)

    def _make_bar(self):
        if self._use_tqdm is False:
            return _TextProgressBar(self._num_steps, self._desc, self._stream)
        try:
            from tqdm.auto import tqdm  # noqa: PLC0415 - optional, never a dependency
        except ImportError:
            if self._use_tqdm:
                raise ImportError("ProgressBarHook(use_tqdm=True) needs the tqdm package; "
                                  "install it or pass use_tqdm=False.") from None
            return _TextProgressBar(self._num_steps, self._desc, self._stream)
        return _TqdmProgressBar(tqdm, self._num_steps, self._desc, self._stream)


def _short_tag(tensor):
    """A tensor's tag in a progress line: its op's name (`loss`, not `Tensor("loss:0", ...)`)."""
    return tensor if isinstance(tensor, str) else tensor.op.name


def _short(value):
    """A value for a progress line: 4 significant digits for floats."""
    value = np.asarray(value)
    if value.dtype.kind == "f":
        if value.ndim == 0:
            return "%.4g" % value
        return np.array2string(value, precision=4, suppress_small=True)
    return str(value)


class _TqdmProgressBar:
    """The bar drawn by tqdm; it limits its own redraw rate, so it sees every step."""

    shows_every_step = True

    def __init__(self, tqdm, total, desc, stream):
        self._bar = tqdm(total=total, desc=desc, unit="step", file=stream)

    def show(self, steps_done, description):
        self._bar.update(steps_done - self._bar.n)
        if description:
            self._bar.set_postfix_str(description, refresh=False)

    def close(self, steps_done):
        self._bar.update(steps_done - self._bar.n)
        self._bar.close()


class _TextProgressBar:
    """A line of text: `desc: done/total [####----] pct rate, values`."""

    shows_every_step = False
    _WIDTH = 20

    def __init__(self, total, desc, stream):
        self._total = total
        self._desc = desc
        self._stream = stream or sys.stderr
        self._in_place = hasattr(self._stream, "isatty") and self._stream.isatty()
        self._start = time.time()
        self._shown_steps = None
        self._last_description = ""

    def show(self, steps_done, description):
        self._shown_steps = steps_done
        self._last_description = description
        self._write(self.line(steps_done, description), final=False)

    def close(self, steps_done):
        if steps_done != self._shown_steps:
            self._write(self.line(steps_done, self._last_description), final=True)
        elif self._in_place:
            self._stream.write("\n")
            self._stream.flush()

    def line(self, steps_done, description):
        rate = steps_done / max(time.time() - self._start, 1e-9)
        if self._total:
            filled = min(self._WIDTH, self._WIDTH * steps_done // self._total)
            bar = "#" * filled + "-" * (self._WIDTH - filled)
            text = "%s: %d/%d [%s] %3d%% %.1f steps/s" % (
                self._desc, steps_done, self._total, bar, 100 * steps_done // self._total, rate)
        else:
            text = "%s: %d steps %.1f steps/s" % (self._desc, steps_done, rate)
        return text + (", " + description if description else "")

    def _write(self, line, final):
        if self._in_place:
            self._stream.write("\r" + line + ("\n" if final else ""))
        else:
            self._stream.write(line + "\n")
        self._stream.flush()
