"""QueueRunner: threads that keep running enqueue ops, so that a queue stays full.

The older input pipeline: a queue between the reading ops and the training
step, and a QueueRunner holding the enqueue ops that fill it. Its
`create_threads(sess, coord)` starts one thread per enqueue op; each runs
its op again and again until the Coordinator (`coordinator.py`) says stop,
or the queue it reads from is closed and empty (OutOfRangeError: the input
is exhausted, the last thread closes the queue so that the consumer sees
the end too). Any other error stops the Coordinator with that error, and a
cancel thread closes the queue with `cancel_pending_enqueues` so that no
thread stays blocked on a full queue.

QueueRunners are kept in the graph's `QUEUE_RUNNERS` collection;
`start_queue_runners` (and `MonitoredTrainingSession`) starts them all.

Deprecated in TensorFlow since tf.data took over, and minitf warns as it does.

Mirrors `tensorflow/python/training/queue_runner_impl.py`.
"""

import logging
import threading
import weakref

from minitf.graph import errors
from minitf.graph import ops

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

_logger = logging.getLogger("minitf")

DEPRECATION = "To construct input pipelines, use the `tf.data` module."
_warned = set()


def warn_deprecated(name, instructions=DEPRECATION, module="queue_runner_impl"):
    """What TensorFlow logs the first time a deprecated input-pipeline function is used."""
    if name in _warned:
        return
    _warned.add(name)
    _logger.warning("From %s (from tensorflow.python.training.%s) is deprecated and will be "
                    "removed in a future version.\nInstructions for updating:\n%s",
                    name, module, instructions)


class QueueRunner:
    """The enqueue ops of one queue, and the op that closes it; see the module docstring."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        warn_deprecated("QueueRunner.__init__")
        if queue_runner_def is not None:
            raise NotImplementedError("minitf builds QueueRunners from ops, not from a "
                                      "QueueRunnerDef")
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(
            cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(
            queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """The errors the threads met (without a Coordinator to hand them to)."""
        return self._exceptions_raised

    @property
    def name(self):
        return self._queue.name

    def _run(self, sess, enqueue_op, coord):
        """One thread: run `enqueue_op` until told to stop or the input is exhausted."""
        decremented = False
        try:
            while not (coord is not None and coord.should_stop()):
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:  # the last thread closes
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - already closing
                                _logger.info("Ignored exception: %s", e)
                    return
        except Exception as e:  # noqa: BLE001 - handed to the coordinator
            if coord is not None:
                coord.request_stop(e)
            else:
                _logger.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, coord):
        """Waits for the stop, then cancels the queue so that no enqueue stays blocked."""
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            _logger.info("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (and a cancel thread with a coordinator); started if asked."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []  # already running for this session
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon,
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord),
                                            daemon=daemon, name="QueueRunnerCancel-%s"
                                            % self.name))
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            if start:
                thread.start()
        return threads


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph's collection of queue runners."""
    warn_deprecated("add_queue_runner")
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every queue runner in the collection; returns them."""
    warn_deprecated("start_queue_runners")
    if sess is None:
        sess = ops.get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    with sess.graph.as_default():
        threads = []
        for qr in ops.get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
