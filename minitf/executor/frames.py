"""Frames and iterations: the executor's state for loops.

A graph with a `tf.while_loop` has a cycle: `Merge -> Switch -> body ->
NextIteration -> Merge`. The executor runs it as dataflow all the same, by
giving each node not one pending count per step but one per *iteration* of
the *frame* it is in:

- a **frame** is one execution of a loop. Its nodes are those between its
  `Enter`s and its `Exit`s (statically: every node reached from an `Enter`
  with that `frame_name`). A loop inside a loop body runs once per outer
  iteration, so it gets a new frame each time; a frame is known by its
  parent frame, the parent's iteration and its `frame_name`, and its name
  at run time says all three (`outer;3;inner`). The whole graph outside any
  loop is the *root frame*, `""`.
- an **iteration** of a frame holds what a step holds for a graph without
  loops: a pending count and the input slots of every node of the frame,
  and how many of its nodes are ready or running (`outstanding_ops`). An
  Enter starts iteration 0; a `NextIteration` starts the next one. At most
  `parallel_iterations` iterations of a frame run at once; a NextIteration
  that would start one more waits (`next_iter_roots`) until the oldest
  iteration is done.
- a loop invariant (an Enter with `is_constant`) reaches every iteration:
  the frame keeps its value (`inv_values`) and hands it to each new one.
- an iteration is *done* when none of its nodes is ready or running, none
  of its child frames is still running, and the iteration before it is
  done; then it is deleted. A frame is done when all its Enters have come
  and its last iteration is done: it is deleted too, which may finish an
  iteration of its parent.

Dead tensors ride along: each input remembers whether it was dead
(`dead_counts`), and a `Merge` counts its inputs by TensorFlow's rule (see
`FrameState.activate_nodes`).

The executor view of which frame a node is in: a node is in the frame of
its inputs. So an Enter is in the *parent* frame (its output goes into the
child), and an Exit in the *child* frame (its output goes out to the
parent). `FrameInfo` is that static view, computed once per executor.

Mirrors `FrameState`, `IterationState` and `BuildControlFlowInfo` of
`tensorflow/core/common_runtime/executor.cc` (TF 1.15).
"""

import collections
import zlib

from minitf.graph import errors

ROOT_FRAME = ""


# =============================================================================
# The static view: which frame each node is in
# =============================================================================

class FrameInfo:
    """What every instance of one frame (by `frame_name`) shares, computed once.

    `node_ids` are the frame's nodes; each node's `local_id` indexes the
    per-iteration arrays (in the root frame, the node id itself).
    `pending_init` is every node's pending count at the start of an
    iteration, `preset_inputs` the input slots an iteration starts with
    (constants of the frame, see `scheduling.GuardedConstants`),
    `input_count` the number of Enters into the frame.
    """

    def __init__(self, name):
        self.name = name
        self.node_ids = []
        self.pending_init = []
        self.preset_inputs = {}  # local id -> slot list
        self.input_count = 0
        self.flat_plan = None  # how the loop runs flat (flat_frames.py), made at first use

    @property
    def size(self):
        return len(self.pending_init)


def build_control_flow_info(nodes):
    """Sets each node's `frame_name` and `local_id`; returns {frame name: FrameInfo}.

    A breadth-first walk from the nodes without inputs, as TensorFlow's
    executor does it: a node is in the frame of the input it is first
    reached from, an Enter's consumers are in the frame it names and an
    Exit's consumers in the frame around its own. A node whose inputs come
    from two frames is an InvalidArgumentError, in TensorFlow's words.
    """
    parent_of = {}  # frame name -> name of the frame around it
    frame_of = [None] * len(nodes)
    reached_from = [None] * len(nodes)
    queue = collections.deque()
    for node in nodes:
        if node.num_inputs == 0 and node.num_control_inputs == 0:
            frame_of[node.id] = ROOT_FRAME
            queue.append(node)
    while queue:
        node = queue.popleft()
        frame = _output_frame(node, frame_of[node.id], parent_of)
        for consumer_id, _, _ in node.successors:
            if frame_of[consumer_id] is None:
                frame_of[consumer_id], reached_from[consumer_id] = frame, node
                queue.append(nodes[consumer_id])
            elif frame_of[consumer_id] != frame:
                raise errors.InvalidArgumentError(
                    None, None, "{{node %s}} has inputs from different frames. The input "
                    "{{node %s}} is in frame '%s'. The input {{node %s}} is in frame '%s'."
                    % (nodes[consumer_id].name, node.name, frame,
                       reached_from[consumer_id].name, frame_of[consumer_id]))
    infos = {ROOT_FRAME: FrameInfo(ROOT_FRAME)}
    infos[ROOT_FRAME].pending_init = [0] * len(nodes)
    for node in nodes:
        name = frame_of[node.id] if frame_of[node.id] is not None else ROOT_FRAME
        node.frame_name = name
        info = infos.setdefault(name, FrameInfo(name))
        info.node_ids.append(node.id)
        if name == ROOT_FRAME:
            node.local_id = node.id
            info.pending_init[node.id] = node.pending_init
        else:
            node.local_id = len(info.pending_init)
            info.pending_init.append(node.pending_init)
    for node in nodes:
        if node.is_enter:
            infos.setdefault(node.enter_frame_name,
                             FrameInfo(node.enter_frame_name)).input_count += 1
    return infos


def _output_frame(node, frame, parent_of):
    """The frame `node`'s consumers are in: its own, the one an Enter leads into, or the
    one an Exit leads out to."""
    if node.is_enter:
        parent_of.setdefault(node.enter_frame_name, frame)
        return node.enter_frame_name
    if node.is_exit:
        return parent_of.get(frame, ROOT_FRAME)
    return frame


# =============================================================================
# The run-time state: frames and their iterations
# =============================================================================

class IterationState:
    """One iteration of one frame: pending counts, dead counts and input slots.

    Mirrors TensorFlow's `IterationState`.
    """

    __slots__ = ("frame", "iter_id", "pending", "dead_counts", "inputs",
                 "outstanding_ops", "outstanding_frame_count")

    def __init__(self, frame, iter_id, pending, inputs, dead_counts):
        self.frame = frame
        self.iter_id = iter_id
        self.pending = pending
        self.dead_counts = dead_counts
        self.inputs = inputs
        self.outstanding_ops = 0          # its nodes ready or running
        self.outstanding_frame_count = 0  # its child frames still running

    @property
    def frame_iter(self):
        """(frame id, iteration id): what a kernel's context reports, and rendezvous keys use."""
        return (self.frame.frame_id, self.iter_id)

    def __repr__(self):
        return "<iteration %d of frame %r>" % (self.iter_id, self.frame.name)


class FrameState:
    """One execution of a loop (or the root frame): its iterations and loop invariants.

    Mirrors TensorFlow's `FrameState`; its methods carry the names of
    TensorFlow's. `name` is the frame's name at run time, `frame_id` a
    hash of it: a _Send and its _Recv in a loop meet under a key with the
    frame id and the iteration, so two devices running the same loop agree
    on both.
    """

    def __init__(self, nodes, info, name, parent=None, parent_iter=None,
                 max_parallel_iterations=1):
        self.nodes = nodes  # the executor's, in node id order
        self.info = info
        self.name = name
        self.frame_id = frame_id(name)
        self.parent = parent
        self.parent_iter = parent_iter  # the parent's IterationState this frame runs in
        self.max_parallel_iterations = max_parallel_iterations
        self.num_pending_inputs = info.input_count  # Enters not yet run
        self.iteration_count = 0  # the newest iteration started
        self.num_outstanding_iterations = 1
        self.iterations = {}
        self.next_iter_roots = []  # NextIterations waiting for a free iteration
        self.inv_values = []       # (Enter node, value) of each loop invariant
        self.dead_exits = []       # Exits of the newest iteration that were dead
        self.flat = None           # a FlatFrameRun when the loop runs flat (flat_frames.py)

    def __repr__(self):
        return "<frame %r>" % (self.name,)

    def new_iteration(self, iter_id):
        info = self.info
        inputs = [None] * info.size
        for local_id, values in info.preset_inputs.items():
            inputs[local_id] = list(values)
        return IterationState(self, iter_id, list(info.pending_init), inputs, [0] * info.size)

    def get_iteration(self, iter_id):
        return self.iterations.get(iter_id)

    # --- activating the consumers of a node's outputs ------------------------------
    def activate_nodes(self, node, is_dead, iteration, outputs, ready):
        """Counts `node`'s outputs in at its consumers in `iteration`; queues those now ready.

        A consumer's pending count drops by one per input, and it is dead if
        any input was dead (a dead data input, or a control edge from a dead
        node). A Merge is different: its pending count is 2 per control
        input plus 1, the 1 cleared by its first live data input. So it is
        ready once its control inputs have come and either a live data
        input has (it runs on that one, which alone fills its slot) or all
        its data inputs are dead (it is dead). A dead input from an Enter
        makes a Merge dead at once: the loop it starts is in a dead branch.

        `outputs` holds None for an output without a value (dead). Ready
        consumers are appended to `ready` as (node id, iteration, is_dead).
        Mirrors `FrameState::ActivateNodes`.
        """
        pending, dead_counts, slots = iteration.pending, iteration.dead_counts, iteration.inputs
        for consumer, local, slot, index in node.out_edges:
            if consumer.is_merge:
                self._activate_merge(node, consumer, local, slot, outputs[index] if slot >= 0
                                     else None, iteration, ready)
                continue
            if is_dead or (slot >= 0 and outputs[index] is None):
                dead_counts[local] += 1
            if slot >= 0:
                consumer_slots = slots[local]
                if consumer_slots is None:
                    consumer_slots = slots[local] = [None] * consumer.num_inputs
                consumer_slots[slot] = outputs[index]
            count = pending[local] - 1
            pending[local] = count
            if count == 0:
                ready.append((consumer.id, iteration,
                              dead_counts[local] > 0 and not consumer.is_control_trigger))
                iteration.outstanding_ops += 1

    @staticmethod
    def _activate_merge(node, merge, local, slot, value, iteration, ready):
        """`activate_nodes` for one input of a Merge: control (slot -1), or data `value`."""
        pending, dead_counts = iteration.pending, iteration.dead_counts
        if slot < 0:  # a control input
            pending[local] -= 2
            dead = dead_counts[local] == merge.num_inputs
            merge_ready = pending[local] == 0 or (pending[local] == 1 and dead)
        elif value is not None:  # a live data input: only the first is used
            count = pending[local]
            pending[local] = count & ~1
            if count & 1:
                merge_slots = iteration.inputs[local]
                if merge_slots is None:
                    merge_slots = iteration.inputs[local] = [None] * merge.num_inputs
                merge_slots[slot] = value
            merge_ready, dead = count == 1, False
        else:  # a dead data input
            dead_counts[local] += 1
            dead = dead_counts[local] == merge.num_inputs or node.is_enter
            merge_ready = pending[local] == 1 and dead
        if merge_ready:
            ready.append((merge.id, iteration, dead))
            iteration.outstanding_ops += 1

    # --- iterations ---------------------------------------------------------------
    def increment_iteration(self, ready):
        """Starts the next iteration: deferred NextIterations and loop invariants enter it."""
        self.iteration_count += 1
        iteration = self.new_iteration(self.iteration_count)
        self.iterations[self.iteration_count] = iteration
        self.num_outstanding_iterations += 1
        self.dead_exits = []
        self.activate_nexts(iteration, ready)
        self.activate_loop_invs(iteration, ready)

    def activate_nexts(self, iteration, ready):
        for node, value in self.next_iter_roots:
            self.activate_nodes(node, value is None, iteration, (value,), ready)
        self.next_iter_roots = []

    def activate_loop_invs(self, iteration, ready):
        for node, value in self.inv_values:
            self.activate_nodes(node, value is None, iteration, (value,), ready)

    def add_loop_inv(self, node, value, ready):
        """A loop invariant arrived: every iteration started so far gets it, later ones too."""
        self.inv_values.append((node, value))
        for iter_id in range(self.iteration_count + 1):
            self.activate_nodes(node, value is None, self.iterations[iter_id], (value,), ready)

    def is_iteration_done(self, iter_id):
        iteration = self.iterations[iter_id]
        if iteration.outstanding_ops != 0 or iteration.outstanding_frame_count != 0:
            return False
        if iter_id == 0:
            return self.num_pending_inputs == 0  # every Enter has come
        return iter_id - 1 not in self.iterations  # the one before is deleted

    def cleanup_iterations(self, iter_id, ready):
        """Deletes the done iterations from `iter_id` on; returns whether the frame is done.

        Each deleted iteration frees a place for a NextIteration that waited.
        """
        while iter_id <= self.iteration_count and self.is_iteration_done(iter_id):
            del self.iterations[iter_id]
            self.num_outstanding_iterations -= 1
            iter_id += 1
            if self.next_iter_roots:
                self.increment_iteration(ready)
        return self.is_frame_done()

    def is_frame_done(self):
        return self.num_pending_inputs == 0 and self.num_outstanding_iterations == 0


def child_frame_name(parent_name, iter_id, frame_name):
    """The run-time name of a loop's frame: its parent frame, the parent's iteration, its name."""
    return "%s;%d;%s" % (parent_name, iter_id, frame_name)


def frame_id(name):
    """A stable 64-bit id for a frame name (the root frame's is 0), the same on every device."""
    if name == ROOT_FRAME:
        return 0
    data = name.encode("utf-8")
    return (zlib.crc32(data) << 32) | zlib.crc32(data[::-1])
