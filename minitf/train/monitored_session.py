"""MonitoredSession: a session that initializes, restores, calls hooks and recovers.

The training loop of TF1 is

    with tf.train.MonitoredTrainingSession(checkpoint_dir=..., hooks=[...]) as sess:
        while not sess.should_stop():
            sess.run(train_op)

and everything around `sess.run(train_op)` is done by this module:

1. **Scaffold** gathers (or makes) the pieces a session needs: `init_op`,
   `ready_op` (the names of uninitialized variables), `local_init_op`, a
   `Saver`; then it *finalizes* the graph, so nothing can add ops to it
   while the loop runs.
2. A **SessionCreator** makes the `tf.Session` through a `SessionManager`
   (session_manager.py): the chief restores the latest checkpoint of
   `checkpoint_dir`, or runs `init_op` when there is none, then checks
   `ready_op`; a worker waits until the chief is done.
3. The session is wrapped in layers, each adding one behaviour:

       _RecoverableSession   recreate the session after AbortedError/UnavailableError
         _CoordinatedSession  stop when the Coordinator (coordinator.py) says so;
                              re-raise thread errors
           _HookedSession      before_run / merged Session.run / after_run of every hook
             tf.Session        the raw session

4. **close()** (or leaving the `with` block) calls each hook's `end`, which
   is where `CheckpointSaverHook` writes the final checkpoint, then closes
   the session. An `OutOfRangeError` (the input ran out) ends the `with`
   block quietly.

Each new session starts the queue runners of the graph's QUEUE_RUNNERS
collection (`queue_runner_impl.py`) under its Coordinator, as TensorFlow's
does.

Differences from TensorFlow: minitf has no summaries, so `save_summaries_*`
and `summary_dir` are accepted and ignored and no `SummarySaverHook` is
added.

Mirrors `tensorflow/python/training/monitored_session.py`.
"""

import abc
import inspect
import logging

from minitf import saver as saver_lib
from minitf.graph import errors
from minitf.graph import ops
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import variables
from minitf.session.config import RunMetadata, RunOptions
from minitf.train import basic_session_run_hooks
from minitf.train import coordinator
from minitf.train import queue_runner_impl
from minitf.train import session_manager
from minitf.train import session_run_hook

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator",
           "MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession"]

_logger = logging.getLogger("minitf")

# The errors after which a MonitoredSession makes a new session and goes on:
# a worker or parameter server of a distributed job went away and came back.
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

# Marks an argument the caller left out (None means "switched off").
USE_DEFAULT = object()


# =============================================================================
# Scaffold: the ops and the Saver every training session needs
# =============================================================================

class Scaffold:
    """Gathers, or creates, the pieces a monitored session needs, then finalizes the graph.

    Each piece left as None is taken from its graph collection (INIT_OP,
    READY_OP, READY_FOR_LOCAL_INIT_OP, LOCAL_INIT_OP, SAVERS) or, when the
    collection is empty, made by default and put there:

    - `init_op`: initializes the global variables;
    - `ready_op`: a 1-D string tensor, the names of uninitialized variables
      (empty when the model is ready), from `report_uninitialized_variables`;
    - `ready_for_local_init_op`: the same for the global variables only;
    - `local_init_op`: initializes the local variables and lookup tables;
    - `saver`: a `tf.train.Saver` of all saveable variables.

    `init_fn(scaffold, session)` runs after `init_op` (for example to load
    pretrained weights). minitf has no summaries, so `summary_op` stays None
    unless given.
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None, saver=None,
                 copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(mine, theirs):
                return mine if mine is not None else theirs

            init_op = coalesce(init_op, copy_from_scaffold.init_op)
            init_feed_dict = coalesce(init_feed_dict, copy_from_scaffold.init_feed_dict)
            init_fn = coalesce(init_fn, copy_from_scaffold._user_init_fn)
            ready_op = coalesce(ready_op, copy_from_scaffold.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op,
                                               copy_from_scaffold.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, copy_from_scaffold.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict,
                                            copy_from_scaffold.local_init_feed_dict)
            summary_op = coalesce(summary_op, copy_from_scaffold.summary_op)
            saver = coalesce(saver, copy_from_scaffold.saver)

        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Creates the missing pieces, then makes the graph read-only."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", ops.GraphKeys.INIT_OP, _default_init_op)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", ops.GraphKeys.READY_OP, _default_ready_op)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                _default_ready_for_local_init_op)
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", ops.GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = _only_item_of(ops.GraphKeys.SUMMARY_OP, "summary_op")
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        ops.get_default_graph().finalize()
        _logger.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def local_init_feed_dict(self):
        return self._local_init_feed_dict

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The collection's only item; else a new one from `default_constructor`, kept there."""
        item = _only_item_of(collection_key, arg_name)
        if item is not None:
            return item
        item = default_constructor()
        if item is not None:
            ops.add_to_collection(collection_key, item)
        return item

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables and the lookup tables."""
        return control_flow_ops.group(variables.local_variables_initializer(),
                                      _tables_initializer())


def _only_item_of(collection_key, arg_name):
    """The single item of a collection, None when it is empty; RuntimeError for several."""
    items = ops.get_collection(collection_key)
    if len(items) > 1:
        raise RuntimeError(
            'More than one item in the collection "%s". Please indicate which one to use by '
            "passing it to the tf.Scaffold constructor as:  tf.Scaffold(%s=item to use)"
            % (collection_key, arg_name))
    return items[0] if items else None


def _default_init_op():
    return control_flow_ops.group(variables.global_variables_initializer(),
                                  *ops.get_collection("saved_model_initializers"))


def _default_ready_op():
    # TF concatenates the uninitialized variables and resources; minitf's
    # resources (variables aside) need no initialization, so there is one part.
    return array_ops.concat([variables.report_uninitialized_variables()], 0)


def _default_ready_for_local_init_op():
    return array_ops.concat(
        [variables.report_uninitialized_variables(variables.global_variables())], 0)


def _tables_initializer(name="init_all_tables"):
    """One op that runs every lookup table's initializer (as `tf.tables_initializer`)."""
    initializers = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


def _get_saver_or_default():
    """The graph's only Saver (SAVERS collection), or a new one over every saveable variable."""
    saver = _only_item_of(ops.GraphKeys.SAVERS, "saver")
    if saver is not None:
        return saver
    saver = saver_lib.Saver(sharded=True, allow_empty=True)
    ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
    return saver


# =============================================================================
# Session creators: a SessionManager restores or initializes, then checks
# =============================================================================

class SessionCreator(abc.ABC):
    """Makes a `tf.Session`: what a MonitoredSession calls to get (or recover) one."""

    @abc.abstractmethod
    def create_session(self):
        raise NotImplementedError("create_session is not implemented for %s." % self)


class _ScaffoldedCreator(SessionCreator):
    """The part shared by the chief and worker creators: a Scaffold and its session manager."""

    def __init__(self, scaffold, master, config):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = session_manager.SessionManager(
                local_init_op=self._scaffold.local_init_op,
                local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=ops.get_default_graph())
        return self._session_manager


class ChiefSessionCreator(_ScaffoldedCreator):
    """The chief's session: restored from `checkpoint_dir`'s latest checkpoint, or initialized."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        super().__init__(scaffold, master, config)
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldedCreator):
    """A worker's session: it waits up to `max_wait_secs` for the chief to make the model ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        super().__init__(scaffold, master, config)
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)


# =============================================================================
# The wrapping layers
# =============================================================================

class _WrappedSession:
    """A session wrapper: passes `run` on, adds `should_stop`, and closes quietly."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def should_stop(self):
        """True when this layer or a layer below wants to stop, or the session is closed."""
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        """This layer's own stop condition."""
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _logger.error("An error occurred when attempting to close the session. This "
                              "may be due to a preemption in a connected worker or parameter "
                              "server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Makes a new session (from its creator) whenever a run hits a preemption error.

    A distributed job loses a worker or parameter server now and then; the
    run fails with AbortedError or UnavailableError. The new session is
    restored from the latest checkpoint, and the run is tried again.
    """

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        _WrappedSession.__init__(self, self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                _logger.info("An error was raised while a session was being created. This may "
                             "be due to a preemption of a connected worker or parameter "
                             "server. A new session will be created. Error: %s", e)

    def _check_stop(self):
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            _logger.info("An error was raised while considering whether the session is "
                         "complete. The current session will be closed and a new session "
                         "will be created. Error: %s", e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - the next run raises it where the caller sees it
            return True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                _logger.info("An error was raised. This may be due to a preemption in a "
                             "connected worker or parameter server. The current session will "
                             "be closed and a new session will be created. Error: %s", e)
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                _logger.info("An error was raised. The current session will be closed and a "
                             "new session will be created. Error: %s", e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Stops when the Coordinator says so; a thread's error is raised from the next run.

    On close it asks the coordinator to stop and joins the threads
    registered with it (for at most `stop_grace_period_secs`).
    """

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        _WrappedSession.__init__(self, sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # noqa: BLE001 - closing must not hide the first error
                pass

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original_exception:
            # A thread's error, if one stopped the coordinator, explains the failure better.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:  # noqa: BLE001 - keep the run's own error
                raise original_exception from None
            raise


class _HookedSession(_WrappedSession):
    """Calls the hooks around every run, merging what they ask for into one Session.run.

    The caller's fetches go under the key 'caller' of a dict, each hook's
    under the hook itself; hook feeds are merged with the caller's (a tensor
    fed twice is an error), hook options merged into the run's options.
    """

    def __init__(self, sess, hooks):
        _WrappedSession.__init__(self, sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = session_run_hook.SessionRunContext(
            original_args=session_run_hook.SessionRunArgs(fetches, feed_dict),
            session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict,
                                      options=options, run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, session_run_hook.SessionRunValues(
                results=outputs.get(hook),
                options=options, run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        """Adds each hook's fetches to `fetch_dict`; returns the merged feeds."""
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(hook_feeds, request.feed_dict,
                                          "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds,
                                  "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    intersection = set(feeds1) & set(feeds2)
    if intersection:
        raise RuntimeError(message + " Conflict(s): " + str(list(intersection)))


def _merge_run_options(options, incoming):
    """Merges a hook's RunOptions into the run's: the larger number, the OR of flags."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = (options.output_partition_graphs
                                       or incoming.output_partition_graphs)
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom
        or incoming.report_tensor_allocations_upon_oom)


# =============================================================================
# MonitoredSession
# =============================================================================

class _MonitoredSession:
    """What MonitoredSession and SingularMonitoredSession share: create, run, close."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph = ops.get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(),
            hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        """The graph launched in this session (None once closed)."""
        if self._tf_sess() is None:
            return None
        return self._tf_sess().graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Like `tf.Session.run`, with every hook's before_run and after_run around it."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Calls `step_fn(step_context)`: raw runs, runs with hooks, or a stop request.

        `step_context.session` runs without hooks, `step_context.run_with_hooks`
        like `MonitoredSession.run`, and `step_context.request_stop()` raises
        StopIteration, which the `with` block of the session swallows.
        """
        arguments = tuple(inspect.signature(step_fn).parameters)
        if arguments not in (("step_context",), ("self", "step_context")):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` "
                             "and `step_context` arguments if it's an instance method. Got %s "
                             "instead." % (arguments,))
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What a `step_fn` receives: the raw session, a run with hooks, and a stop."""

        def __init__(self, session, run_with_hooks_fn):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self):
            return self._session

        def run_with_hooks(self, *args, **kwargs):
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self):
        """True once a hook requested a stop, the coordinator stopped, or the session closed."""
        return self._sess is None or self._sess.should_stop()

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        # Running out of input is how many training loops end: not an error.
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    class _CoordinatedSessionCreator(SessionCreator):
        """Makes the raw session, a Coordinator, and the hooked, coordinated wrapper."""

        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            self.coord = coordinator.Coordinator(clean_stop_exception_types=[])
            if ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
                queue_runner_impl.start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type=None):
        """Calls the hooks' `end` (unless an error is escaping), then closes the session."""
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    self._graph._unsafe_unfinalize()

    def _is_closed(self):
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session-like object that initializes or restores, calls hooks, and recovers.

    On creation: each hook's `begin`, `scaffold.finalize()` (the graph
    becomes read-only), the session is created and initialized or restored,
    each hook's `after_create_session`. On each `run`: `before_run` of every
    hook, one `Session.run` with the merged fetches and feeds, `after_run`
    of every hook; AbortedError or UnavailableError makes a new session and
    runs again. On `close`: each hook's `end`, then the session closes.

    It is not a `tf.Session`: it cannot be the default session or be passed
    to `saver.save`.
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession for one process: always the chief, no recovery, raw session exposed.

    `raw_session()` is the `tf.Session` underneath: run on it to skip the
    hooks, or pass it to `saver.save`.
    """

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        session_creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(session_creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The underlying `tf.Session`."""
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True,  # noqa: N802 - TF's name
                             checkpoint_dir=None, scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None):
    """A MonitoredSession set up for training, with the standard hooks.

    The chief restores from (or initializes, then checkpoints into)
    `checkpoint_dir`: a `CheckpointSaverHook` saves every
    `save_checkpoint_secs` seconds (600 by default) or, if given instead,
    every `save_checkpoint_steps` steps, and once more at the end; a
    `StepCounterHook` logs steps per second every `log_step_count_steps`
    steps. The chief's hooks are `chief_only_hooks`, then these, then
    `hooks`. A worker (`is_chief=False`) waits up to `max_wait_secs` for the
    chief to make the model ready and runs only `hooks`.

    `save_summaries_steps`, `save_summaries_secs` and `summary_dir` are
    accepted and ignored: minitf writes no summaries.
    """
    del save_summaries_steps, save_summaries_secs  # no summaries in minitf
    save_checkpoint_secs, save_checkpoint_steps = _checkpoint_frequency(
        save_checkpoint_secs, save_checkpoint_steps)
    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                               max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=session_creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)

    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                          master=master, config=config)
    if (summary_dir or checkpoint_dir) and log_step_count_steps and log_step_count_steps > 0:
        all_hooks.append(basic_session_run_hooks.StepCounterHook(
            output_dir=summary_dir or checkpoint_dir, every_n_steps=log_step_count_steps))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0)
                           or (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(basic_session_run_hooks.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs,
            scaffold=scaffold))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)


def _checkpoint_frequency(save_checkpoint_secs, save_checkpoint_steps):
    """(secs, steps) to save at: every 600 s when neither is given, else what was given."""
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        return 600, None
    if save_checkpoint_secs is USE_DEFAULT:
        return None, save_checkpoint_steps
    if save_checkpoint_steps is USE_DEFAULT:
        return save_checkpoint_secs, None
    return save_checkpoint_secs, save_checkpoint_steps
