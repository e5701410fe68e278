"""What one step carries: its state, shared by every executor, and its call frame.

A step is one `Session.run`. Every partition of the graph runs in it, each
on its own executor, and they share one StepState: the step id, the
rendezvous their `_Send`/`_Recv` pairs meet in, the call frame that brings
the feeds in (`_Arg`) and takes the fetches out (`_Retval`), the *step
container* of resources that live only as long as the step (the stacks and
TensorArrays of loops), and the step's first error. A kernel reaches all
of it through its context (`ctx.step_id`, `ctx.rendezvous`,
`ctx.call_frame`, `ctx.step_container`).

A fetch whose `_Retval` never ran (its tensor was dead: a branch of a
`tf.cond` that was not taken) has no value: `consume_retvals` says so.

Mirrors `Executor::Args` of `tensorflow/core/common_runtime/executor.h`
(step id, rendezvous, call frame, step container, cancellation) and
`FunctionCallFrame` of `tensorflow/core/framework/function.h`.
"""

import threading

from minitf.graph import errors


class CallFrame:
    """Feeds in (`args`) and fetches out (`retvals`) of one step."""

    def __init__(self, args, num_retvals):
        self.args = args
        self.retvals = [None] * num_retvals

    def set_retval(self, index, value):
        self.retvals[index] = value

    def consume_retvals(self):
        """The fetched values; InvalidArgumentError for one that was never set (dead)."""
        for value in self.retvals:
            if value is None:
                raise errors.InvalidArgumentError(None, None, "Retval[%d] does not have value"
                                                  % [v is None for v in self.retvals].index(True))
        return self.retvals


class StepState:
    """What all kernels and executors of one step share.

    Besides the step id, the rendezvous and the call frame, it holds the
    step's *first error*: whichever executor fails first records it with
    `abort`, which also aborts the rendezvous so that every `_Recv` still
    waiting, in any partition, wakes up instead of waiting forever. Errors
    that follow (those aborted receives) are consequences and are dropped.
    """

    __slots__ = ("step_id", "rendezvous", "call_frame", "step_container", "error", "_lock",
                 "_on_abort")

    def __init__(self, step_id, rendezvous, call_frame):
        self.step_id = step_id
        self.rendezvous = rendezvous
        self.call_frame = call_frame
        self.step_container = {}
        self.error = None
        self._lock = threading.Lock()
        self._on_abort = []

    @property
    def cancelled(self):
        return self.error is not None

    def abort(self, error):
        """Records `error` as the step's error unless one came first; True if it did."""
        with self._lock:
            if self.error is not None:
                return False
            self.error = error
            callbacks, self._on_abort = self._on_abort, []
        if self.rendezvous is not None:
            self.rendezvous.start_abort(error)
        for callback in callbacks:
            callback(error)
        return True

    def on_abort(self, callback):
        """Calls `callback(error)` when the step is aborted (at once if it already was).

        An async kernel that waits for something outside the step (a queue's
        next element) registers here so that a failed or timed-out step
        releases it (TensorFlow's CancellationManager).
        """
        with self._lock:
            if self.error is None:
                self._on_abort.append(callback)
                return
        callback(self.error)
