"""Coordinator: one stop flag shared by a training loop and its helper threads.

A training loop rarely runs alone: in TF, queue runners fill the input
queues from threads of their own. The loop and those threads need one
place to say "stop", and one way to carry a thread's error back to the
main thread, where the loop can see it. The Coordinator is that place.

Where it sits: a `MonitoredSession` makes one Coordinator for each session
it creates, hands it to every hook's `after_create_session`, and its
`_CoordinatedSession` layer asks it before each run whether to stop
(monitored_session.py). The threads it joins are the queue runners'
(`queue_runner_impl.py`) and the user's own.

`LooperThread` is a thread that calls a function again and again (every
`timer_interval_secs`, or as fast as it can) until the Coordinator says stop.

Mirrors `tensorflow/python/training/coordinator.py`.
"""

import contextlib
import sys
import threading
import time

from minitf.graph import errors

__all__ = ["Coordinator", "LooperThread"]


class Coordinator:
    """A stop flag, the first error that raised it, and the threads to join.

    Threads (input pipelines, in TF the queue runners) check
    `should_stop()` and report a failure with `request_stop(error)`; the
    training loop sees the stop, and `join()` or `raise_requested_exception()`
    re-raises the error in the main thread. An error of one of the
    `clean_stop_exception_types` (OutOfRangeError by default: the input is
    exhausted) stops without being an error.
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._registered_threads = set()
        self._joined = False

    def request_stop(self, ex=None):
        """Asks everyone to stop; `ex` (an exception or exc_info) is re-raised by join()."""
        with self._lock:
            exc_info = self._error_to_report(ex)
            if self._joined and exc_info is not None:
                # Nobody will join again to see it: raise it here.
                raise exc_info[1].with_traceback(exc_info[2])
            if not self._stop_event.is_set():
                if exc_info is not None and self._exc_info_to_raise is None:
                    self._exc_info_to_raise = exc_info
                self._stop_event.set()

    def _error_to_report(self, ex):
        """`ex` as an exc_info tuple; None for no error or a clean stop."""
        if ex is None:
            return None
        exc_info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
        if isinstance(exc_info[1], self._clean_stop_exception_types):
            return None
        return exc_info

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A `with` block whose exception, if any, becomes `request_stop(exception)`."""
        try:
            yield
        except Exception:  # noqa: BLE001 - handed to the coordinator
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (or `timeout` seconds); True if it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for a stop, gives the threads `stop_grace_period_secs` to end, re-raises errors."""
        with self._lock:
            threads = list(self._registered_threads | set(threads or []))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.time() + stop_grace_period_secs
        for thread in threads:
            thread.join(max(0.0, deadline - time.time()))
        still_running = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise[1].with_traceback(self._exc_info_to_raise[2])
        if still_running and not ignore_live_threads:
            raise RuntimeError("Coordinator stopped with threads still running: %s"
                               % " ".join(still_running))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Re-raises the error a thread stopped the coordinator with, if any."""
        with self._lock:
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise[1].with_traceback(self._exc_info_to_raise[2])


class LooperThread(threading.Thread):
    """A thread that runs `target(*args, **kwargs)` in a loop until `coord` says stop.

    Every `timer_interval_secs` seconds, or back to back when it is None. An
    exception stops the coordinator and is reported by its `join`. Subclasses
    override `run_loop` (and `start_loop`, `stop_loop`) instead of passing a target.
    """

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """A started LooperThread calling `target`."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once in the thread, before the loop."""

    def stop_loop(self):
        """Called once in the thread, after the loop."""

    def run_loop(self):
        """One turn of the loop: calls the target."""
        if self._target:
            self._target(*self._args, **self._kwargs)
