"""Executor: runs one partition of a graph, node by node, as inputs become ready.

Built once from a list of NodeDefs (one device's share of a pruned graph), an
Executor keeps a static *plan*: for every node its kernel, its attrs as
keyword arguments, its out-edges and its *pending count*: how many inputs
(data and control) it waits for. Running a step is then a loop over an
`ExecutorState`, the step's mutable copy of the counts and the nodes' input
slots. Its methods are named after TensorFlow's:

1. nodes whose count is zero are *ready*; `schedule_ready` queues them on
   the thread that made them ready (or, when that thread runs no nodes of
   this executor, on another one);
2. `process` runs ready nodes one after another: it gathers a node's inputs
   from its slots and calls its kernel;
3. `node_done` finishes a node: `propagate_outputs` pushes each output into
   the input slots of its consumers and counts their pending inputs down,
   and the consumers that reach zero are ready, back to 1.

An output is referenced only by its consumers' input slots, and a node's
inputs are dropped as soon as it has run: a tensor is freed when its last
consumer has run.

Conditionals and loops are dataflow too (the Control flow chapter). A
`Switch` leaves one of its outputs without a value: that output is *dead*,
and a node with a dead input is dead itself: it does not run, its outputs
are dead, and so are its control edges. A `Merge` runs on its first live
input. A ready node is therefore *tagged* `(node id, iteration, is_dead)`:
a loop's nodes run once per iteration of their *frame*, and each iteration
keeps its own pending counts and input slots (`minitf/executor/frames.py`).
`propagate_outputs` moves a value into a child frame at an `Enter`, into
the next iteration at a `NextIteration` and back to the parent frame at an
`Exit`; a frame is deleted when its last iteration is done. On one thread,
a loop that qualifies skips most of that bookkeeping: it runs *flat*, each
iteration a walk down an order fixed once (`minitf/executor/flat_frames.py`).

Variables flow as references (a `Var`): an input declared `Ref(T)` gets the
`Var` itself, any other input gets a read-only view of the variable's current
buffer (reading an uninitialized variable fails with FailedPreconditionError).
A Const's value, too, reaches kernels read-only: both outlive the step, and
a fetch of them is a copy (`minitf/framework/buffers.py`).

A step of a session runs the executors of all its partitions together
(`run_step`). The calling thread drives it: it runs ready nodes, then waits
on the step's *inbox* for work that arrives later (a `_Recv` whose tensor has
come). The first error anywhere stops the whole step: it is recorded on the
step, the step's rendezvous is aborted so that no `_Recv` waits forever, and
no further node starts; nodes already running finish, and the error is raised
to the caller.

With a deadline (`RunOptions(timeout_in_ms=...)`), a helper thread drives the
step and the caller waits for it. At the deadline the step is aborted like
an error would abort it and DeadlineExceededError is raised at once.
(TensorFlow also waits for the kernels still running to finish; a Python
kernel cannot be interrupted, so minitf lets them finish in the background.)

What makes the loop fast, and not what makes it correct, is the scheduling
policy, in `minitf/executor/scheduling.py`: Consts computed when the executor
is built, expensive ready nodes handed to the inter-op thread pool, their
costs measured, no lock while a single thread runs the step, and, for a
partition without control flow, a propagation that skips frames and dead
tensors.

Mirrors `tensorflow/core/common_runtime/executor.cc` (ExecutorImpl,
ExecutorState) and the step loop of `direct_session.cc`.
"""

import collections
import queue
import threading
import time

import numpy as np

from minitf import kernels  # noqa: F401  registers every built-in kernel
from minitf.executor import flat_frames
from minitf.executor import frames
from minitf.executor.kernel_calls import (  # noqa: F401  (also the executor's own names)
    as_op_error, check_outputs, kernel_context, read_variable)
from minitf.executor.scheduling import SchedulingPolicy
from minitf.executor.step_stats import NodeExecStats
from minitf.framework import buffers
from minitf.framework.kernel_registry import find_kernel
from minitf.framework import node_def_util
from minitf.framework.op_def import get_op_def
from minitf.framework.op_kernel import OpKernelContext
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib


# The control-flow ops the executor treats specially, by the part they play.
_SWITCH_OPS = frozenset({"Switch", "RefSwitch"})
_MERGE_OPS = frozenset({"Merge", "RefMerge"})
_ENTER_OPS = frozenset({"Enter", "RefEnter"})
_EXIT_OPS = frozenset({"Exit", "RefExit"})
_NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})
_TRANSFER_OPS = frozenset({"_Send", "_Recv"})
CONTROL_FLOW_OPS = (_SWITCH_OPS | _MERGE_OPS | _ENTER_OPS | _EXIT_OPS | _NEXT_ITERATION_OPS
                    | {"LoopCond", "ControlTrigger"})


class ExecutorNode:
    """The static plan of one node."""

    __slots__ = ("id", "name", "op_type", "node_def", "device", "kernel", "fn", "kwargs",
                 "num_inputs", "num_control_inputs", "num_outputs", "single_output",
                 "deref_slots", "successors", "pending_init", "is_async", "is_expensive",
                 "output_dtypes", "state", "dead_outputs", "frame_name", "local_id",
                 "is_switch", "is_merge", "is_enter", "is_constant_enter", "enter_frame_name",
                 "parallel_iterations", "is_exit", "is_next_iteration", "is_control_trigger",
                 "is_transfer", "moves_between_frames", "out_edges", "forwards_inputs",
                 "forward_candidates")

    def __repr__(self):
        return "<ExecutorNode %s (%s)>" % (self.name, self.op_type)


class Executor:
    """Runs the nodes of one device's partition; see the module docstring."""

    def __init__(self, node_defs, device, node_states=None, thread_pool=None):
        self.device = device
        self.thread_pool = thread_pool
        self.nodes = []
        node_states = {} if node_states is None else node_states
        by_name = {}
        for node_def in node_defs:
            node = self._plan_node(len(self.nodes), node_def, device, node_states)
            by_name[node.name] = node
            self.nodes.append(node)
        self._connect(by_name)
        _plan_forwarding(self.nodes)
        self.frame_infos = frames.build_control_flow_info(self.nodes)
        self._check_no_cycle()
        # The policy computes the Consts now, once: no step runs them, and every
        # step starts with their consumers' pending counts lowered.
        self.policy = SchedulingPolicy(self.nodes, self._compute_constant, self.frame_infos)
        self.constant_ids = self.policy.constant_ids
        self.pending_init = self.policy.pending_counts()
        done = set(self.constant_ids)
        self.roots = [n.id for n in self.nodes
                      if self.pending_init[n.id] == 0 and n.id not in done]
        for node in self.nodes:  # the edges as the frame-aware loop walks them
            node.out_edges = tuple((self.nodes[consumer_id], self.nodes[consumer_id].local_id,
                                    slot, index) for consumer_id, slot, index in node.successors)
        self.num_root_nodes = len(self.frame_infos[frames.ROOT_FRAME].node_ids)
        if _may_have_dead_tensors(self.nodes):
            self.state_class, self.root_frame = ExecutorState, None
        else:
            self.state_class = FrameFreeExecutorState
            self.root_frame = frames.FrameState(self.nodes, self.frame_infos[frames.ROOT_FRAME],
                                                frames.ROOT_FRAME)

    # --- building the plan -----------------------------------------------------
    @staticmethod
    def _plan_node(node_id, node_def, device, node_states):
        op_def = get_op_def(node_def.op)
        attrs = op_def.attrs_with_defaults(node_def.attr)
        node = ExecutorNode()
        node.id = node_id
        node.name = node_def.name
        node.op_type = node_def.op
        node.node_def = node_def
        node.device = device
        try:
            node.kernel = find_kernel(node_def.op, device.device_type)
            node.kwargs = node.kernel.attr_kwargs(attrs)
        except errors.OpError as e:
            error = type(e)(node_def, None, "%s\n\t [[node %s (op: %s, device: %s)]]" % (
                e.message, node_def.name, node_def.op, device.name))
            error._node_name = node_def.name
            raise error from None
        if node.op_type == "Const":  # every step reads the same value: kernels get it read-only
            node.kwargs["value"] = buffers.read_only_view(node.kwargs["value"])
        node.fn = node.kernel.fn
        node.forwards_inputs = node.kernel.forwards_inputs
        node.forward_candidates = ()
        node.is_async = node.kernel.is_async
        node.is_expensive = node.kernel.is_expensive
        output_dtypes = op_def.output_dtypes(attrs)
        node.num_outputs = len(output_dtypes)
        node.single_output = op_def.single_output
        # As NumPy dtype objects: `check_outputs` compares them by identity first, far
        # cheaper than comparing an array's dtype with a scalar type, once per node run.
        node.output_dtypes = [None if t.is_ref_dtype else np.dtype(t.as_numpy_dtype)
                              for t in output_dtypes]
        node.dead_outputs = (None,) * node.num_outputs
        node.state = node_states.setdefault(node_def.name, {})
        node.successors = []
        node.deref_slots = ()
        _plan_control_flow(node, attrs)
        return node

    def _connect(self, by_name):
        for node in self.nodes:
            input_dtypes = node_def_util.input_types(node.node_def)
            data_inputs, control_inputs, deref = 0, 0, []
            for text in node.node_def.input:
                source_name, index, is_control = graph_def_lib.parse_input(text)
                source = by_name.get(source_name)
                if source is None:
                    raise errors.InvalidArgumentError(
                        node.node_def, None, "Node '%s': unknown input node '%s'"
                        % (node.name, text))
                if is_control:
                    source.successors.append((node.id, -1, 0))
                    control_inputs += 1
                    continue
                slot = data_inputs
                source.successors.append((node.id, slot, index))
                if (source.output_dtypes[index] is None and slot < len(input_dtypes)
                        and not input_dtypes[slot].is_ref_dtype):
                    deref.append(slot)
                data_inputs += 1
            node.num_inputs = data_inputs
            node.num_control_inputs = control_inputs
            # A Merge waits for all its control inputs (2 each) and one live data input
            # (the 1 that its first live input clears): `FrameState.activate_nodes`.
            node.pending_init = (2 * control_inputs + 1 if node.is_merge
                                 else data_inputs + control_inputs)
            node.deref_slots = tuple(deref)

    def _check_no_cycle(self):
        """A dry run of the pending counts: nodes never reaching zero lie on a cycle.

        A loop's back edge (NextIteration to Merge) is no cycle: a Merge runs
        on its first input, which comes from an Enter.
        """
        pending = [n.pending_init for n in self.nodes]
        ready = [n.id for n in self.nodes if n.num_inputs == 0 and n.num_control_inputs == 0]
        reached = 0
        while ready:
            node = self.nodes[ready.pop()]
            reached += 1
            if node.is_next_iteration:
                continue
            for consumer_id, slot, _ in node.successors:
                count = pending[consumer_id]
                if self.nodes[consumer_id].is_merge:
                    pending[consumer_id] = count - 2 if slot < 0 else count & ~1
                    became_ready = (pending[consumer_id] == 0
                                    and (slot < 0 or count == 1))
                else:
                    pending[consumer_id] = count - 1
                    became_ready = count == 1
                if became_ready:
                    ready.append(consumer_id)
        if reached != len(self.nodes):
            stuck = [n.name for n, count in zip(self.nodes, pending) if count > 0]
            raise errors.InvalidArgumentError(
                None, None, "Graph is invalid, contains a cycle with %d nodes, including: %s"
                % (len(stuck), ", ".join(stuck[:3])))

    @staticmethod
    def _compute_constant(node):
        """Runs a Const's kernel outside any step; a bad constant fails as its node would."""
        try:
            return node.fn(OpKernelContext(node, None), **node.kwargs)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            raise as_op_error(node, e) from None

    # --- running a step -----------------------------------------------------------
    def run(self, step, collect_stats=False, timeout=None):
        """Runs every node of the partition once; raises the first OpError."""
        return run_step([self], step, collect_stats, timeout)

    def new_state(self, step_run):
        """The state of this executor in a new step (`run_step` makes one per executor)."""
        return self.state_class(self, step_run)


def _plan_control_flow(node, attrs):
    """The part `node` plays in conds and loops, read off its op type."""
    op_type = node.op_type
    node.is_switch = op_type in _SWITCH_OPS
    node.is_merge = op_type in _MERGE_OPS
    node.is_enter = op_type in _ENTER_OPS
    node.is_exit = op_type in _EXIT_OPS
    node.is_next_iteration = op_type in _NEXT_ITERATION_OPS
    node.is_control_trigger = op_type == "ControlTrigger"
    node.is_transfer = op_type in _TRANSFER_OPS
    node.moves_between_frames = node.is_enter or node.is_exit or node.is_next_iteration
    node.is_constant_enter = node.is_enter and attrs["is_constant"]
    node.enter_frame_name = attrs["frame_name"] if node.is_enter else None
    node.parallel_iterations = attrs["parallel_iterations"] if node.is_enter else 1
    node.frame_name, node.local_id = frames.ROOT_FRAME, node.id


# Buffer forwarding (`_plan_forwarding`): below this many elements a new output costs less
# than asking whether an input may be reused.
FORWARD_MIN_ELEMENTS = 1024
# Producers whose outputs are never forwarded: they outlive the step (Const), belong to the
# caller (_Arg) or another device (_Recv), or pass another node's tensor along (control flow).
_NOT_FORWARDED_FROM = frozenset({"Const", "_Arg", "_Recv"}) | CONTROL_FLOW_OPS


def _plan_forwarding(nodes):
    """Sets each node's `forward_candidates`: the inputs its kernel may get to write into.

    Buffer forwarding: an elementwise kernel may write its output into an
    input's buffer instead of a new array, when no one else will ever read
    that buffer. Here, when the executor is built, the inputs that may
    qualify: the kernel says it can (`forwards_inputs`), the tensor has this
    one reader in the partition, it is not read from a variable, and its
    producer makes a buffer of the step's own (not a Const, a feed, a
    received tensor or control flow passing another's along); tensors known
    to be small are left out. Whether the buffer is really free is asked
    again at run time, of the array itself (`buffers.only_reference`).
    Mirrors the input-forwarding of `OpKernelContext::forward_input`.
    """
    readers = collections.Counter()
    sources = {}
    for node in nodes:
        for consumer_id, slot, index in node.successors:
            if slot >= 0:
                readers[(node.id, index)] += 1
                sources[(consumer_id, slot)] = (node, index)
    for node in nodes:
        if node.forwards_inputs:
            node.forward_candidates = tuple(
                slot for slot in range(node.num_inputs) if slot not in node.deref_slots
                and may_forward_from(sources.get((node.id, slot)))
                and readers[(sources[(node.id, slot)][0].id, sources[(node.id, slot)][1])] == 1)


def may_forward_from(source):
    """Whether output `index` of `source` ((node, index), or None) is a buffer of the step's
    own, possibly large enough to be worth reusing."""
    if source is None:
        return False
    node, index = source
    if node.op_type in _NOT_FORWARDED_FROM or node.output_dtypes[index] is None:
        return False
    shapes = node.node_def.attr.get("_output_shapes")
    if shapes and index < len(shapes) and shapes[index].is_fully_defined():
        return shapes[index].num_elements() >= FORWARD_MIN_ELEMENTS
    return True


def _may_have_dead_tensors(nodes):
    """Whether a node of the partition can make a dead tensor or a frame, or receive one."""
    return any(node.op_type in CONTROL_FLOW_OPS or node.op_type == "_Recv" for node in nodes)


def run_step(executors, step, collect_stats=False, timeout=None):
    """Runs one step of `executors` (one per partition) together.

    Returns the NodeExecStats of every node run (an empty list unless
    `collect_stats`). Raises the step's first error, or DeadlineExceededError
    when `timeout` (seconds) passes first.
    """
    step_run = _StepRun(executors, step, collect_stats)
    if timeout:
        step_run.drive_with_deadline(timeout)
    else:
        step_run.drive()
    if step.error is not None:
        raise step.error
    return step_run.stats if collect_stats else []


class _StepRun:
    """One step of several executors: who drives it, and its inbox of late work."""

    def __init__(self, executors, step, collect_stats):
        self.step = step
        self.inbox = queue.SimpleQueue()
        self.stats = [] if collect_stats else None
        self.start_time = time.time()
        self.start_counter = time.perf_counter()
        self.handed_off = collections.deque()  # (state, ready) given to the pool, not started
        self.states = [e.new_state(self) for e in executors if e.nodes]
        self._unfinished = len(self.states)
        self._lock = threading.Lock()

    def drive(self):
        """Starts every executor, then serves the inbox on this thread until all are done.

        Between items of the inbox it also runs work this step handed to the
        pool that no pool thread has started yet: with four branches and two
        threads, the thread driving the step takes the third branch itself
        when it has finished the first, instead of waiting while the pool's
        one thread runs three of them.
        """
        if not self.states:
            return
        for state in self.states[1:]:
            state.start(here=False)
        self.states[0].start(here=True)
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                if self.run_handed_off():
                    continue
                item = self.inbox.get()
            if item is None:
                break
            state, ready = item
            state.process(ready)

    def hand_off(self, pool, state, ready):
        """Gives `ready` nodes of `state` to the pool (or to whichever thread starts it first).

        Without a pool to take it (it was shut down: the session closed
        meanwhile), the thread driving the step runs it from its inbox.
        """
        item = (state, ready)
        self.handed_off.append(item)  # before scheduling: each closure finds one, or none left
        try:
            pool.schedule(self.run_handed_off)
        except RuntimeError:
            try:
                self.handed_off.remove(item)
            except ValueError:
                return  # the driving thread has started it already
            self.inbox.put(item)

    def run_handed_off(self):
        """Runs the oldest hand-off no thread has started yet; False when there is none."""
        try:
            state, ready = self.handed_off.popleft()
        except IndexError:
            return False
        state.process(ready)
        return True
        if self.step.error is None:
            self._check_all_ran()

    def drive_with_deadline(self, timeout):
        """`drive` on a helper thread; at the deadline the step is aborted and we return."""
        finished = threading.Event()

        def drive_then_signal():
            try:
                self.drive()
            finally:
                finished.set()

        threading.Thread(target=drive_then_signal, daemon=True,
                         name="minitf_step_%d" % self.step.step_id).start()
        if not finished.wait(timeout):
            # Kernels already running finish in the background; no new node starts.
            self.step.abort(errors.DeadlineExceededError(
                None, None, "Timed out waiting for notification"))

    def executor_finished(self):
        with self._lock:
            self._unfinished -= 1
            last = self._unfinished == 0
        if last:
            self.inbox.put(None)

    def fail(self, exception):
        """A bug in the executor itself: fail the step and stop driving, rather than hang."""
        self.step.abort(errors.InternalError(None, None, "Executor failure: %s: %s" % (
            type(exception).__name__, exception)))
        self.inbox.put(None)

    def _check_all_ran(self):
        for state in self.states:
            if state.completed != state.num_root_nodes:
                self.step.abort(errors.InternalError(
                    None, None, "Executor finished with %d of %d nodes run"
                    % (state.completed, state.num_root_nodes)))


class ExecutorState:
    """The mutable state of one executor in one step: frames, iterations, ready nodes.

    A ready node is *tagged* `(node id, iteration, is_dead)`: the
    IterationState it runs in (of the root frame, unless it is in a loop)
    and whether it is dead. Mirrors `ExecutorState` of
    `tensorflow/core/common_runtime/executor.cc`, whose methods give the
    names below.
    """

    def __init__(self, executor, step_run):
        self.nodes = executor.nodes
        self.device = executor.device
        self.roots = executor.roots
        self.pool = executor.thread_pool
        self.policy = executor.policy
        self.kernel_costs = executor.policy.kernel_costs
        self.frame_infos = executor.frame_infos
        self.step_run = step_run
        self.step = step_run.step
        self.stats = step_run.stats
        self.lock = threading.Lock()
        # False while only the thread that started the step has touched this state; set
        # before the first hand-off to another thread (see `_run_elsewhere`, `_start_async`).
        self.shared = False
        self.outstanding = len(executor.roots)  # nodes ready or running, not yet finished
        self.constant_ids = executor.constant_ids
        self.root_frame, self.root_iteration = self._start_root_frame(executor)
        self.root_iteration.outstanding_ops = len(executor.roots)
        self.outstanding_frames = {}  # the frames of loops running now, by run-time name
        self.num_root_nodes = executor.num_root_nodes
        # They ran when the executor was built.
        self.completed = len(self.constant_ids) + len(executor.policy.guarded.root_ids)

    def _start_root_frame(self, executor):
        """The root frame, and its one iteration, which holds the step's counts and slots."""
        frame = frames.FrameState(self.nodes, executor.frame_infos[frames.ROOT_FRAME],
                                  frames.ROOT_FRAME)
        iteration = frames.IterationState(frame, 0, list(executor.pending_init),
                                          self.policy.new_input_slots(), [0] * len(self.nodes))
        frame.iterations[0] = iteration
        return frame, iteration

    def start(self, here):
        """Runs the roots on this thread (`here`) or hands them to another one."""
        if self.stats is not None:
            now = time.perf_counter()
            for node_id in self.constant_ids + self.policy.guarded.root_ids:
                self._record_stats(self.nodes[node_id], self.root_iteration, now, now)
        roots = self._root_tasks()
        if self.outstanding == 0:  # only Consts, computed when the executor was built
            self.step_run.executor_finished()
        elif here:
            inline_ready = collections.deque()
            self.schedule_ready(roots, inline_ready)
            self.process(inline_ready)
        else:
            self.schedule_ready(roots, None)

    def _root_tasks(self):
        """The roots, tagged: in the root frame's iteration 0, alive."""
        return [(node_id, self.root_iteration, False) for node_id in self.roots]

    @staticmethod
    def ready_node_id(tagged):
        """The node id of an entry of a ready queue (a tagged node)."""
        return tagged[0]

    # --- the loop -------------------------------------------------------------------
    def process(self, inline_ready):
        """Runs ready nodes on this thread until none are left here.

        Mirrors `ExecutorState::Process`. NumPy's floating-point warnings are
        off while kernels run: as in TensorFlow, inf and nan are ordinary
        results, not events.
        """
        try:
            with np.errstate(all="ignore"), self.device.selected():
                self._process(inline_ready)
        except BaseException as e:  # noqa: BLE001 - kernel errors never get here
            self.step_run.fail(e)
            if not isinstance(e, Exception):
                raise

    def _process(self, inline_ready):
        nodes, step = self.nodes, self.step
        while inline_ready:
            tagged = inline_ready.popleft()
            node = nodes[tagged[0]]
            if step.error is not None:  # the step failed: what is left is skipped
                self.node_done(node, tagged, None, inline_ready)
            elif tagged[2] and not node.is_transfer:
                # A dead node does not run: its outputs are dead. (A _Send runs, to tell
                # its _Recv on the other device that the tensor is dead.)
                self.node_done(node, tagged, node.dead_outputs, inline_ready)
            elif node.is_async:
                self._start_async(node, tagged)
            else:
                self.node_done(node, tagged, self._run_kernel(node, tagged), inline_ready)

    def node_done(self, node, tagged, outputs, inline_ready):
        """Finishes a node: propagates its outputs and schedules the nodes made ready.

        Mirrors `ExecutorState::NodeDone`. `outputs` is None when the node
        failed or was skipped: its consumers never become ready. The last
        node to finish tells the step that this executor is done.
        """
        if self.shared:
            with self.lock:
                ready, finished = self.propagate_outputs(node, tagged, outputs)
        else:  # no other thread has seen this state yet (lock elision, scheduling.py)
            ready, finished = self.propagate_outputs(node, tagged, outputs)
        if finished:
            self.step_run.executor_finished()
        elif len(ready) == 1 and inline_ready is not None and not inline_ready:
            # A chain: its next node runs here, next, as `schedule_ready` would have
            # it; the shortcut saves a call for nearly every node.
            inline_ready.append(ready[0])
        elif ready:
            self.schedule_ready(ready, inline_ready)

    def propagate_outputs(self, node, tagged, outputs):
        """Hands the node's outputs to its consumers, in the frame and iteration they run in.

        Mirrors `ExecutorState::PropagateOutputs`: most nodes activate their
        consumers in their own iteration. An Enter activates them in
        iteration 0 of the child frame (found, or created), or in every
        iteration for a loop invariant; an Exit in the parent frame (a dead
        Exit is remembered, and its deadness reaches the parent only when
        the frame is done: only the last iteration's Exits matter); a
        NextIteration in the next iteration, which it starts, unless
        `parallel_iterations` are running (then it waits) or it is dead
        (deadness stops at a NextIteration: that is how a loop ends).

        Returns the tagged nodes that became ready, and whether this
        executor has finished: it also counts the node off the outstanding
        ones, which TensorFlow's `NodeDone` does with an atomic counter.
        """
        ready = []
        if outputs is not None:
            _, iteration, is_dead = tagged
            frame = iteration.frame
            if frame is self.root_frame:
                self.completed += 1
            if not node.moves_between_frames:
                frame.activate_nodes(node, is_dead, iteration, outputs, ready)
            elif node.is_enter:
                child = self.find_or_create_child_frame(frame, iteration, node)
                if child.flat is not None:  # the loop runs flat once its Enters have come
                    self._enter_flat_frame(child, node, outputs[0], ready)
                else:
                    if node.is_constant_enter:
                        child.add_loop_inv(node, outputs[0], ready)
                    else:
                        child.activate_nodes(node, is_dead, child.iterations[0], outputs,
                                             ready)
                    child.num_pending_inputs -= 1
            elif node.is_exit:
                if not is_dead:
                    frame.parent.activate_nodes(node, False, frame.parent_iter, outputs, ready)
                elif iteration.iter_id == frame.iteration_count:
                    frame.dead_exits.append(node)
            elif not is_dead:  # a NextIteration
                self._start_next_iteration(node, frame, iteration, outputs[0], ready)
            # FrameState.decrement_outstanding_ops, inline: it runs for every node.
            iteration.outstanding_ops -= 1
            if iteration.outstanding_ops == 0 and frame.cleanup_iterations(iteration.iter_id,
                                                                          ready):
                self._frame_done(frame, ready)
        self.outstanding += len(ready) - 1
        return ready, self.outstanding == 0

    @staticmethod
    def _start_next_iteration(node, frame, iteration, value, ready):
        if (iteration.iter_id == frame.iteration_count
                and frame.num_outstanding_iterations == frame.max_parallel_iterations):
            frame.next_iter_roots.append((node, value))  # no free iteration: it waits
            return
        if iteration.iter_id == frame.iteration_count:
            frame.increment_iteration(ready)
        frame.activate_nodes(node, False, frame.iterations[iteration.iter_id + 1], (value,),
                             ready)

    # --- frames ---------------------------------------------------------------------
    def find_or_create_child_frame(self, frame, iteration, enter):
        """The frame `enter` leads into from `iteration` of `frame`; created by its first Enter.

        Mirrors `ExecutorState::FindOrCreateChildFrame`.
        """
        name = frames.child_frame_name(frame.name, iteration.iter_id, enter.enter_frame_name)
        child = self.outstanding_frames.get(name)
        if child is None:
            info = self.frame_infos[enter.enter_frame_name]
            child = frames.FrameState(self.nodes, info, name, frame, iteration,
                                      enter.parallel_iterations)
            child.iterations[0] = child.new_iteration(0)
            iteration.outstanding_frame_count += 1
            self.outstanding_frames[name] = child
            child.flat = self._flat_run(child, info)
        return child

    # --- loops run flat (flat_frames.py) ---------------------------------------------
    def _flat_run(self, frame, info):
        """A FlatFrameRun for a new frame of a loop that may run flat, else None.

        Not when the step collects stats (the timeline shows each
        iteration), nor when a kernel of the loop has been measured long
        enough that two iterations at once would pay (on a session with a
        thread pool).
        """
        if self.stats is not None:
            return None
        plan = flat_frames.plan_for(self.nodes, info)
        if plan.reason is not None:
            return None
        if self.pool is not None and any(self.kernel_costs.is_long(node_id)
                                         for node_id in plan.expensive_ids):
            return None
        return flat_frames.FlatFrameRun(plan, frame, self)

    def _enter_flat_frame(self, frame, enter, value, ready):
        """An Enter of a loop run flat: kept until the last has come, then the loop runs."""
        run = frame.flat
        run.enter(enter, value)
        frame.num_pending_inputs -= 1
        if frame.num_pending_inputs > 0:
            return
        if not run.can_run():
            run.replay(ready)
            return
        if run.run(ready) == flat_frames.FINISHED:
            frame.flat = None
            frame.iterations.clear()
            frame.num_outstanding_iterations = 0
            self._frame_done(frame, ready)

    def _frame_done(self, frame, ready):
        """Deletes a finished frame, then cleans up what it finishes in its parent."""
        parent, parent_iter = frame.parent, frame.parent_iter
        self.delete_frame(frame, ready)
        if parent is not None:
            self.cleanup_frames_iterations(parent, parent_iter, ready)

    def delete_frame(self, frame, ready):
        """Hands the dead Exits of the frame's last iteration to the parent, then forgets it.

        Mirrors `ExecutorState::DeleteFrame`.
        """
        if frame.parent is not None:
            for node in frame.dead_exits:
                frame.parent.activate_nodes(node, True, frame.parent_iter, node.dead_outputs,
                                            ready)
        self.outstanding_frames.pop(frame.name, None)

    def cleanup_frames_iterations(self, frame, iteration, ready):
        """A child frame of `iteration` finished: maybe it finishes the iteration, the frame...

        Mirrors `ExecutorState::CleanupFramesIterations`.
        """
        iteration.outstanding_frame_count -= 1
        if frame.cleanup_iterations(iteration.iter_id, ready):
            self._frame_done(frame, ready)

    # --- scheduling -------------------------------------------------------------------
    def schedule_ready(self, ready, inline_ready):
        """Queues the nodes that became ready: on this thread, or elsewhere.

        Mirrors `ExecutorState::ScheduleReady`. `inline_ready` is the queue
        of this thread's `process`; None when this thread runs no nodes of
        this executor (a partition started elsewhere, an async kernel's
        callback), and then every node goes elsewhere. Otherwise they stay
        here, except the expensive ones the scheduling policy hands to the
        pool when several are ready at once.
        """
        if inline_ready is None:
            self._run_elsewhere(collections.deque(ready))
        elif self.pool is None or len(ready) + len(inline_ready) < 2:
            inline_ready.extend(ready)  # no pool, or nothing to run beside it: here
        else:
            for tagged in self.policy.split_ready(ready, inline_ready, self.ready_node_id):
                self._run_elsewhere(collections.deque((tagged,)))

    def _run_elsewhere(self, ready):
        """Runs `ready` on the pool, else on the thread driving the step (TF's `runner_`)."""
        self.shared = True  # another thread touches this state from now on: lock it
        if self.pool is not None:
            self.step_run.hand_off(self.pool, self, ready)
        else:
            self.step_run.inbox.put((self, ready))

    # --- one node -------------------------------------------------------------------
    def _gather_inputs(self, node, iteration):
        """The node's inputs, its slots emptied (TensorFlow's `PrepareInputs`)."""
        slots = iteration.inputs
        args = slots[node.local_id] or []
        slots[node.local_id] = None  # from now on only the kernel holds its inputs
        for slot in node.deref_slots:
            args[slot] = read_variable(node, args[slot])
        return args

    def _run_kernel(self, node, tagged):
        """Calls the node's kernel; returns its outputs as a tuple (or None on error).

        Expensive kernels are timed for the policy's `KernelCosts` (in a loop,
        in its first iteration); cheap ones only when the step collects stats.
        """
        _, iteration, is_dead = tagged
        timed = (node.is_expensive and iteration.iter_id == 0) or self.stats is not None
        start = time.perf_counter() if timed else 0.0
        try:
            args = self._gather_inputs(node, iteration)
            ctx = kernel_context(node, node.forward_candidates, self.step, args, iteration,
                                 is_dead)
            outputs = check_outputs(node, node.fn(ctx, *args, **node.kwargs))
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            self._record_error(node, e)
            return None
        if timed:
            end = time.perf_counter()
            if node.is_expensive and iteration.iter_id == 0:
                self.kernel_costs.observe(node.id, end - start)
            if self.stats is not None:
                self._record_stats(node, iteration, start, end)
        return outputs

    def _start_async(self, node, tagged):
        """Starts an async kernel; its `done` callback finishes the node, on any thread."""
        _, iteration, is_dead = tagged
        start = time.perf_counter() if self.stats is not None else 0.0
        called = []

        def done(outputs=None, error=None):
            if called:  # a kernel must call done once; a second call is ignored
                return
            called.append(True)
            try:
                self._async_done(node, tagged, start, outputs, error)
            except BaseException as e:  # noqa: BLE001 - runs on the caller's thread
                self.step_run.fail(e)

        self.shared = True  # `done` may be called on another thread
        try:
            args = self._gather_inputs(node, iteration)
            ctx = OpKernelContext(node, self.step, iteration, is_dead)
            node.fn(ctx, *args, done=done, **node.kwargs)
        except Exception as e:  # noqa: BLE001
            done(error=e)

    def _async_done(self, node, tagged, start, outputs, error):
        if error is None:
            try:
                outputs = check_outputs(node, outputs)
            except Exception as e:  # noqa: BLE001
                error = e
        if error is not None:
            self._record_error(node, error)
            outputs = None
        else:
            if self.stats is not None:
                self._record_stats(node, tagged[1], start, time.perf_counter())
            if outputs and outputs[0] is None:
                # A _Recv that received a dead tensor is a dead node: its control edges
                # are dead too (TensorFlow's partition puts an Identity after it for that).
                tagged = (tagged[0], tagged[1], True)
        self.node_done(node, tagged, outputs, None)  # this thread has no queue of this executor's

    # --- errors and stats ------------------------------------------------------------
    def _record_error(self, node, exception):
        if self.step.error is None:  # later errors are consequences of the first
            self.step.abort(as_op_error(node, exception))

    def _record_stats(self, node, iteration, start, end):
        self.stats.append(node_exec_stats(self.step_run, node, start, end,
                                          iteration.frame.name, iteration.iter_id))


class FrameFreeExecutorState(ExecutorState):
    """The executor state of a partition without control flow: one frame, nothing dead.

    Where no node can make a tensor dead or start a frame (no control-flow
    op, no _Recv that could bring a dead tensor), every node runs once, in
    the root frame's one iteration. Its ready queues then hold bare node
    ids, not tagged nodes; propagating a node's outputs is the plain
    count-down of the first part of this module, and running it needs no
    check for a dead node: the same steps as `ExecutorState`'s methods
    otherwise, without asking each consumer whether it is a Merge, each
    output whether it is dead, or each ready node which iteration it is in.
    A speed-up of the scheduling policy (`minitf/executor/scheduling.py`),
    chosen when the executor is built.
    """

    def _start_root_frame(self, executor):
        # Nothing in a frame-free partition's root frame changes: one serves every step.
        iteration = frames.IterationState(executor.root_frame, 0, list(executor.pending_init),
                                          self.policy.new_input_slots(), None)
        self.inputs, self.pending = iteration.inputs, iteration.pending
        return executor.root_frame, iteration

    def _root_tasks(self):
        return self.roots

    @staticmethod
    def ready_node_id(node_id):
        return node_id

    def _process(self, inline_ready):  # ExecutorState's, on node ids, less the dead nodes
        nodes, step = self.nodes, self.step
        while inline_ready:
            node_id = inline_ready.popleft()
            node = nodes[node_id]
            if step.error is not None:
                self.node_done(node, node_id, None, inline_ready)
            elif node.is_async:
                self._start_async(node, (node_id, self.root_iteration, False))
            else:
                self.node_done(node, node_id, self._run_kernel(node), inline_ready)

    def _run_kernel(self, node):  # ExecutorState's, in the root iteration only
        timed = node.is_expensive or self.stats is not None
        start = time.perf_counter() if timed else 0.0
        try:
            args = self.inputs[node.id] or []
            self.inputs[node.id] = None
            for slot in node.deref_slots:
                args[slot] = read_variable(node, args[slot])
            ctx = kernel_context(node, node.forward_candidates, self.step, args)
            outputs = check_outputs(node, node.fn(ctx, *args, **node.kwargs))
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            self._record_error(node, e)
            return None
        if timed:
            end = time.perf_counter()
            if node.is_expensive:
                self.kernel_costs.observe(node.id, end - start)
            if self.stats is not None:
                self._record_stats(node, self.root_iteration, start, end)
        return outputs

    def propagate_outputs(self, node, node_id, outputs):
        ready = []
        if outputs is not None:
            self.completed += 1
            inputs, pending = self.inputs, self.pending
            for consumer_id, slot, index in node.successors:
                if slot >= 0:
                    slots = inputs[consumer_id]
                    if slots is None:
                        slots = [None] * self.nodes[consumer_id].num_inputs
                        inputs[consumer_id] = slots
                    slots[slot] = outputs[index]
                count = pending[consumer_id] - 1
                pending[consumer_id] = count
                if count == 0:
                    ready.append(consumer_id)
        self.outstanding += len(ready) - 1
        return ready, self.outstanding == 0


def node_exec_stats(step_run, node, start, end, frame_name="", iter_id=0):
    """The step stats of one node run from `start` to `end` (perf_counter seconds)."""
    return NodeExecStats(
        node_name=node.name, op=node.op_type, device=node.device.name,
        thread_id=threading.get_ident(),
        all_start_micros=int((step_run.start_time + start - step_run.start_counter) * 1e6),
        all_end_rel_micros=max(1, int((end - start) * 1e6)),
        frame_name=frame_name, iter_id=iter_id)
