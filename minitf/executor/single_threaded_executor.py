"""The single-threaded executor: a partition run as one flat loop over a fixed order.

The general executor (`executor.py`) decides at run time what runs next: a
node becomes ready when its pending count reaches zero, and its outputs are
pushed into the input slots of its consumers. On one thread, in a partition
without control flow, every step makes the same decisions, so they can be
made once, when the executor is built (`FlatSchedule`):

* the order: the nodes in one topological order (Kahn's, the order the
  general loop would take on one thread);
* where every tensor lives: each output that somebody reads gets a numbered
  place in one list, `values`, and each input of each node is the number of
  the place it reads;
* when every tensor dies: after its last reader in that order, its place is
  emptied (before the reader's kernel runs, so that the kernel holds the
  only reference, as in the general loop).

A step is then a loop down the order: read the inputs, empty the places
they die in, call the kernel, store the outputs. No pending counts, no
ready queue, no lock, no successors to walk.

It serves only partitions where every node runs exactly once, in an order
fixed in advance: no control flow (Switch, Merge, frames), no _Recv (which
may bring a dead tensor, and waits), no async kernel. When a session has an
inter-op thread pool, the general executor may also run independent long
kernels side by side; the flat loop would not. So `Executor` chooses the
flat loop when the session has no pool, or when a step of the general loop
has shown that no kernel of the partition is long enough to be worth a
thread (`Executor.new_state`). `ConfigProto.experimental.executor_type`
asks for one of the two outright, as in TensorFlow.

Mirrors `tensorflow/core/common_runtime/single_threaded_executor.cc`.
"""

import time

import numpy as np

from minitf.executor.executor import (Executor, as_op_error, check_outputs, kernel_context,
                                      may_forward_from, node_exec_stats, read_variable)
from minitf.executor.kernel_calls import gatherer
from minitf.framework.op_kernel import OpKernelContext
from minitf.graph import errors

SINGLE_THREADED_EXECUTOR = "SINGLE_THREADED_EXECUTOR"


class ScheduledNode:
    """One node of the order: its kernel and where its inputs and outputs live."""

    __slots__ = ("node", "fn", "kwargs", "input_places", "dying_places", "output_places",
                 "deref_slots", "expected_dtype", "forward_slots")

    def __init__(self, node, input_places, output_places):
        self.node = node
        self.fn = node.fn
        self.kwargs = node.kwargs
        self.input_places = tuple(input_places)
        self.output_places = tuple(output_places)
        self.dying_places = ()
        self.forward_slots = ()
        self.deref_slots = node.deref_slots
        # The dtype a single output must have, as a NumPy dtype object (compared by identity
        # first: far cheaper than comparing a dtype with a scalar type, once per node).
        expected = node.output_dtypes[0] if node.single_output else None
        self.expected_dtype = None if expected is None else np.dtype(expected)


class FlatSchedule:
    """The fixed order of a partition, and the places of its tensors (module docstring).

    Built from the general executor's plan: its nodes, their successors, and
    the input slots its scheduling policy presets (the Consts, computed when
    the executor was built).
    """

    def __init__(self, executor):
        nodes = executor.nodes
        preset_slots = executor.policy.new_input_slots()
        done = set(executor.constant_ids) | set(executor.policy.guarded.root_ids)
        self.initial_values = []
        self.preset_places = set()
        self.sources = {}  # place -> (the node making it, its output index)
        input_places = [[None] * node.num_inputs for node in nodes]
        output_places = [[None] * node.num_outputs for node in nodes]
        for node in nodes:
            for consumer_id, slot, index in node.successors:
                if slot < 0 or node.id in done:
                    continue
                if output_places[node.id][index] is None:
                    output_places[node.id][index] = self._new_place(None)
                    self.sources[output_places[node.id][index]] = (node, index)
                input_places[consumer_id][slot] = output_places[node.id][index]
        for consumer_id, slots in enumerate(preset_slots):
            for slot, value in enumerate(slots or ()):
                if value is not None:  # a Const's value: a place of its own, never emptied
                    input_places[consumer_id][slot] = self._new_place(value)
        order = _topological_order(nodes, executor.pending_init, done)
        self.order = [ScheduledNode(nodes[i], input_places[i], output_places[i]) for i in order]
        self._mark_last_reads()
        self.fast_order = [_fast_entry(scheduled) for scheduled in self.order]

    def _new_place(self, value):
        self.initial_values.append(value)
        if value is not None:
            self.preset_places.add(len(self.initial_values) - 1)
        return len(self.initial_values) - 1

    def _mark_last_reads(self):
        """Each produced tensor dies at its last reader in the order (presets never die)."""
        last_reader = {}
        for position, scheduled in enumerate(self.order):
            for place in scheduled.input_places:
                last_reader[place] = position
        dying = [[] for _ in self.order]
        for place, position in last_reader.items():
            if place not in self.preset_places:
                dying[position].append(place)
        for scheduled, places in zip(self.order, dying):
            scheduled.dying_places = tuple(sorted(places))
            if scheduled.node.forwards_inputs:
                scheduled.forward_slots = self._forward_slots(scheduled)

    def _forward_slots(self, scheduled):
        """The inputs whose tensors die at this node, read once, whose buffers its kernel may
        get to write into (`executor._plan_forwarding` says which producers qualify)."""
        places = scheduled.input_places
        return tuple(slot for slot, place in enumerate(places)
                     if place in scheduled.dying_places and places.count(place) == 1
                     and slot not in scheduled.deref_slots
                     and may_forward_from(self.sources.get(place)))


def _fast_entry(scheduled):
    """A node as the fast loop unpacks it: a tuple, and the kernel only when it is simple.

    Simple: one output of a known dtype, no input read from a variable, none
    that may be forwarded.
    The fast loop runs the others the plain way (`FlatScheduleState._run_kernel`).
    """
    simple = (scheduled.expected_dtype is not None and not scheduled.deref_slots
              and len(scheduled.output_places) == 1 and not scheduled.forward_slots)
    output_place = scheduled.output_places[0] if simple else None
    # No attrs, no keyword arguments: a call without `**{}` is a little cheaper.
    return (scheduled, scheduled.node, scheduled.fn if simple else None, scheduled.kwargs or None,
            gatherer(scheduled.input_places), scheduled.dying_places, output_place,
            scheduled.expected_dtype)


def _store(values, output_places, outputs):
    """Puts the outputs that somebody reads into their places."""
    for place, value in zip(output_places, outputs):
        if place is not None:
            values[place] = value


def _topological_order(nodes, pending_init, done):
    """The node ids in the order the general loop takes them on one thread (Kahn's)."""
    pending = list(pending_init)
    ready = [n.id for n in nodes if pending[n.id] == 0 and n.id not in done]
    order = []
    position = 0
    while position < len(ready):
        node = nodes[ready[position]]
        position += 1
        order.append(node.id)
        for consumer_id, _, _ in node.successors:
            pending[consumer_id] -= 1
            if pending[consumer_id] == 0:
                ready.append(consumer_id)
    return order


def ineligibility(executor):
    """Why the flat loop cannot run this partition (None when it can)."""
    if executor.root_frame is None:
        return "it has control flow or a _Recv (dead tensors, frames)"
    for node in executor.nodes:
        if node.is_async:
            return "node %s (%s) has an async kernel" % (node.name, node.op_type)
    return None


class FlatScheduleState:
    """One step of a FlatSchedule: the loop of the module docstring.

    It stands where the general executor's ExecutorState stands in a step
    (`executor.run_step` drives both): `start` runs the whole partition on
    the calling thread and tells the step when it is done.
    """

    def __init__(self, executor, step_run):
        self.executor = executor
        self.schedule = executor.flat_schedule
        self.device = executor.device
        self.step_run = step_run
        self.step = step_run.step
        self.stats = step_run.stats
        self.num_root_nodes = executor.num_root_nodes
        self.completed = 0

    def start(self, here):
        """Runs every node of the partition, in order: on this thread (`here`) or another one.

        A step of several partitions starts all but the first elsewhere, so
        that they run at the same time: on the inter-op pool, else on the
        thread that drives the step, once it has run the first.
        """
        if not here:
            pool = self.executor.thread_pool
            if pool is not None:
                try:
                    pool.schedule(self.start, True)
                    return
                except RuntimeError:  # the pool was shut down (the session closed meanwhile)
                    pass
            self.step_run.inbox.put((self, None))
            return
        try:
            with np.errstate(all="ignore"), self.device.selected():
                if self.stats is None:
                    self._run_fast()
                else:
                    self._run()
        except BaseException as e:  # noqa: BLE001 - kernel errors never get here
            self.step_run.fail(e)
            if not isinstance(e, Exception):
                raise
            return
        self.step_run.executor_finished()

    def process(self, _):
        """Runs the partition on the thread that drives the step (its inbox hands it here)."""
        self.start(here=True)

    def _run(self):
        """The loop of the module docstring, node after node, the plain way (a traced step's)."""
        step = self.step
        values = list(self.schedule.initial_values)
        if self.stats is not None:
            self._record_presets()
        for scheduled in self.schedule.order:
            if step.error is not None:  # aborted from elsewhere (a deadline)
                return
            args = [values[place] for place in scheduled.input_places]
            for place in scheduled.dying_places:
                values[place] = None
            outputs = self._run_kernel(scheduled, args)
            if outputs is None:
                return
            _store(values, scheduled.output_places, outputs)
            args = outputs = None  # `values` must be the tensors' one holder (forwarding)
        self.completed = self.num_root_nodes

    def _run_fast(self):
        """`_run`, for a step without stats, with the simple nodes' kernels called inline.

        The same steps; what it saves is Python's calls and attribute
        lookups, which are most of a small node's cost.
        """
        step = self.step
        values = list(self.schedule.initial_values)
        new_context = OpKernelContext
        result = None
        for (scheduled, node, fn, kwargs, gather, dying_places, output_place,
             expected) in self.schedule.fast_order:
            if step.error is not None:
                return
            args = gather(values)
            for place in dying_places:
                values[place] = None
            if fn is None:
                # `values` and the list made here must be the inputs' only holders, for a
                # kernel that may write into one (buffer forwarding): drop the others.
                args, result = list(args), None
                outputs = self._run_kernel(scheduled, args)
                if outputs is None:
                    return
                _store(values, scheduled.output_places, outputs)
                args = outputs = None
                continue
            try:
                if kwargs is None:
                    result = fn(new_context(node, step), *args)
                else:
                    result = fn(new_context(node, step), *args, **kwargs)
                if getattr(result, "dtype", None) is not expected:
                    check_outputs(node, result)
            except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
                if step.error is None:
                    step.abort(as_op_error(node, e))
                return
            if output_place is not None:
                values[output_place] = result
        self.completed = self.num_root_nodes

    def _run_kernel(self, scheduled, args):
        """The node's outputs as a tuple; None when its kernel failed (the step is aborted)."""
        node = scheduled.node
        start = time.perf_counter() if self.stats is not None else 0.0
        try:
            for slot in scheduled.deref_slots:
                args[slot] = read_variable(node, args[slot])
            ctx = kernel_context(node, scheduled.forward_slots, self.step, args)
            result = scheduled.fn(ctx, *args, **scheduled.kwargs)
            outputs = check_outputs(node, result)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            if self.step.error is None:
                self.step.abort(as_op_error(node, e))
            return None
        if self.stats is not None:
            self._record(node, start, time.perf_counter())
        return outputs

    def _record_presets(self):
        now = time.perf_counter()
        for node_id in self.executor.constant_ids + self.executor.policy.guarded.root_ids:
            self._record(self.executor.nodes[node_id], now, now)

    def _record(self, node, start, end):
        self.stats.append(node_exec_stats(self.step_run, node, start, end))


class SingleThreadedExecutor(Executor):
    """An Executor that runs its steps as a flat loop whenever it can (module docstring).

    `executor_type` is the ConfigProto's: "" or "DEFAULT" lets the executor
    choose, step by step, until it has chosen the flat loop;
    SINGLE_THREADED_EXECUTOR asks for it outright (and fails, as
    TensorFlow's does, on a partition it cannot run).
    """

    def __init__(self, node_defs, device, node_states=None, thread_pool=None, executor_type=""):
        super().__init__(node_defs, device, node_states, thread_pool)
        reason = ineligibility(self)
        if executor_type == SINGLE_THREADED_EXECUTOR and reason is not None:
            raise errors.InvalidArgumentError(
                None, None, "The single-threaded executor cannot run this graph: %s" % reason)
        self.flat_schedule = None
        self._may_go_flat = reason is None
        self._long_kernels_seen = None  # steps that showed long kernels side by side
        if self._may_go_flat and (thread_pool is None or executor_type == SINGLE_THREADED_EXECUTOR):
            self.flat_schedule = FlatSchedule(self)

    def new_state(self, step_run):
        if self.flat_schedule is None and self._may_go_flat:
            self._choose_by_measured_cost()
        if self.flat_schedule is not None:
            return FlatScheduleState(self, step_run)
        return super().new_state(step_run)

    def _choose_by_measured_cost(self):
        """Goes flat once a step of the general loop has shown the pool nothing to do.

        That is when no two kernels long enough to be worth a thread could
        run side by side: none was long, or the long ones depend on each
        other, one after another. The first step measures; after a few
        steps that say "stay", the question is no longer asked.
        """
        if self._long_kernels_seen is None:  # the first step: it measures the kernels
            self._long_kernels_seen = 0
            return
        long_ids = self.policy.kernel_costs.long_in_last_run()
        if _one_after_another(self.nodes, long_ids):
            self.flat_schedule = FlatSchedule(self)
            return
        self._long_kernels_seen += 1
        if self._long_kernels_seen >= _STEPS_TO_CHOOSE:
            self._may_go_flat = False


# How many steps of the general loop may show long kernels side by side before an executor
# stops asking whether to go flat (`SingleThreadedExecutor._choose_by_measured_cost`).
_STEPS_TO_CHOOSE = 3
# Beyond this many long kernels, they are taken to have some that could run side by side.
_MOST_LONG_KERNELS_COMPARED = 16


def _one_after_another(nodes, node_ids):
    """Whether each of the nodes `node_ids` depends on, or is depended on by, every other."""
    if len(node_ids) < 2:
        return True
    if len(node_ids) > _MOST_LONG_KERNELS_COMPARED:
        return False
    after = {node_id: _descendants(nodes, node_id) for node_id in node_ids}
    return all(b in after[a] or a in after[b]
               for i, a in enumerate(node_ids) for b in node_ids[i + 1:])


def _descendants(nodes, start):
    """The ids of the nodes that depend on node `start`, through data or control edges."""
    seen, stack = set(), [start]
    while stack:
        for consumer_id, _, _ in nodes[stack.pop()].successors:
            if consumer_id not in seen:
                seen.add(consumer_id)
                stack.append(consumer_id)
    return seen


def new_executor(node_defs, device, node_states=None, thread_pool=None, executor_type=""):
    """The executor of one partition, of the type a ConfigProto asks for.

    TensorFlow looks the type up in its registry of executor factories; an
    unknown one is NotFoundError.
    """
    if executor_type not in ("", "DEFAULT", SINGLE_THREADED_EXECUTOR):
        raise errors.NotFoundError(
            None, None, "No executor factory registered for the given executor type: %s"
            % executor_type)
    return SingleThreadedExecutor(node_defs, device, node_states, thread_pool, executor_type)
