"""OpKernelContext: what a kernel may know about the world while it runs.

One is made for every kernel call. It exposes the device the kernel runs on
and its array module (`xp`), the device's resource manager, the node's own
persistent state (random generators keep their position here between runs),
and the step: its id, its rendezvous for Send/Recv, and the call frame that
carries feeds in and fetches out.

Mirrors `tensorflow/core/framework/op_kernel.h` (OpKernelContext).
"""

import threading


class StepState:
    """What all kernels and executors of one step share.

    Besides the step id, the rendezvous and the call frame, it holds the
    step's *first error*: whichever executor fails first records it with
    `abort`, which also aborts the rendezvous so that every `_Recv` still
    waiting, in any partition, wakes up instead of waiting forever. Errors
    that follow (those aborted receives) are consequences and are dropped.
    """

    __slots__ = ("step_id", "rendezvous", "call_frame", "shared_buffers", "error", "_lock")

    def __init__(self, step_id, rendezvous, call_frame):
        self.step_id = step_id
        self.rendezvous = rendezvous
        self.call_frame = call_frame
        # Ids of the buffers read this step that outlive it (variables', constants',
        # fed arrays): a fetch of one is copied, so the caller never shares a buffer.
        self.shared_buffers = set()
        self.error = None
        self._lock = threading.Lock()

    @property
    def cancelled(self):
        return self.error is not None

    def abort(self, error):
        """Records `error` as the step's error unless one came first; True if it did."""
        with self._lock:
            if self.error is not None:
                return False
            self.error = error
        if self.rendezvous is not None:
            self.rendezvous.start_abort(error)
        return True


class OpKernelContext:
    """The context passed as the first argument of every kernel."""

    __slots__ = ("_node", "_step")

    def __init__(self, node, step):
        self._node = node
        self._step = step

    @property
    def node_name(self):
        return self._node.name

    @property
    def op_type(self):
        return self._node.op_type

    @property
    def device(self):
        return self._node.device

    @property
    def xp(self):
        return self._node.device.xp

    @property
    def resource_manager(self):
        return self._node.device.resource_manager

    @property
    def state(self):
        """A dict that persists for this node across the session's steps."""
        return self._node.state

    @property
    def step_id(self):
        return self._step.step_id

    @property
    def rendezvous(self):
        return self._step.rendezvous

    @property
    def call_frame(self):
        return self._step.call_frame

    @property
    def step(self):
        return self._step
