"""OpKernelContext: what a kernel may know about the world while it runs.

One is made for every kernel call. It exposes the device the kernel runs on
and its array module (`xp`), the device's resource manager, the node's own
persistent state (random generators keep their position here between runs),
and the step: its id, its rendezvous for Send/Recv, the call frame that
carries feeds in and fetches out, and the container of resources that live
for one step, such as the stacks of a loop's gradient
(`minitf/framework/step.py`). In a loop it also says which frame and
iteration the node runs in (`frame_iter`), and a node that runs with a dead
input (only _Send does) learns it from `is_input_dead`. A kernel sees
nothing else: not the graph, not the session, not the executor.

Mirrors `tensorflow/core/framework/op_kernel.h` (OpKernelContext).
"""


class OpKernelContext:
    """The context passed as the first argument of every kernel."""

    __slots__ = ("_node", "_step", "_iteration", "_is_input_dead")
    _forwardable = ()  # the inputs whose buffers the kernel may write into: ForwardingContext
    may_forward = False  # whether any is (a kernel asks this first: it is the cheap question)

    def __init__(self, node, step, iteration=None, is_input_dead=False):
        self._node = node
        self._step = step
        self._iteration = iteration  # the executor's IterationState; None outside loops
        self._is_input_dead = is_input_dead

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

    @property
    def step_container(self):
        """The resources of this step (a dict); they are dropped when the step ends."""
        return self._step.step_container

    @property
    def frame_iter(self):
        """(frame id, iteration) the node runs in: (0, 0) outside any loop."""
        return (0, 0) if self._iteration is None else self._iteration.frame_iter

    def forward_input(self, slot, array, shape):
        """`array`, the kernel's input `slot`, when the kernel may write its output of `shape`
        into it; else None (and the kernel allocates its output as usual).

        Mirrors `OpKernelContext::forward_input_or_allocate_output`: the
        executor lets a kernel have an input's buffer only when nothing else
        can ever read it again (`ForwardingContext`); the shape must match
        what the kernel is about to write.
        """
        if slot in self._forwardable and array.shape == shape:
            return array
        return None

    @property
    def is_input_dead(self):
        """Whether the node's input is dead (a _Send on a branch not taken)."""
        return self._is_input_dead


class ForwardingContext(OpKernelContext):
    """The context of a kernel that may write into some of its inputs' buffers.

    `forwardable` are the input slots the executor found it may give away:
    the buffer is a NumPy array the kernel's arguments hold the only
    reference to (no later node, no variable, no feed or fetch, no view
    reads it), writeable and owning its memory.
    """

    __slots__ = ("_forwardable",)
    may_forward = True

    def __init__(self, node, step, iteration=None, is_input_dead=False, forwardable=()):
        super().__init__(node, step, iteration, is_input_dead)
        self._forwardable = forwardable
