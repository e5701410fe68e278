"""Flat frames: a loop's iterations run one after another, each as one flat loop.

The general executor runs a `tf.while_loop` as dataflow (`frames.py`):
every node of every iteration waits on a pending count, is tagged with its
iteration when it is ready, and pushes its outputs into its consumers'
slots, so that up to `parallel_iterations` iterations can overlap. On one
thread they never do: iteration after iteration, the same nodes run in the
same order, and what the bookkeeping decides could be decided once. This
module decides it once per loop, when the executor first meets the loop
(`FlatFramePlan`), as the single-threaded executor does for a partition
without control flow (`single_threaded_executor.py`):

* the order of one iteration: the frame's nodes in a topological order,
  the back edges (`NextIteration` to `Merge`) left out;
* a numbered place for every tensor an iteration reads: the outputs of the
  frame's nodes, the values of the `Enter`s that lead into the loop, the
  constants folded into the frame;
* where each tensor dies within an iteration.

An iteration is then a walk down the order. Dead tensors stay what they
are in the general loop: a value of None in a place. A node with a dead
input (or a control input from a dead node) is dead and does not run; a
`Switch` fills one output and leaves the other dead; a `Merge` takes its
first live input. The loop's own Merges take their `Enter`'s value in
iteration 0 and their `NextIteration`'s value from the iteration before
in every later one. When every `NextIteration` of an iteration is dead,
the predicate was false: the loop is over, and its `Exit`s have handed
their values to the frame around it.

The flat run keeps to what every iteration of a `tf.while_loop` does: it
starts once every `Enter` of the loop has come, all alive; an iteration in
which some `NextIteration`s are dead and others alive (a body that returns
a tensor from outside the loop) hands the loop back to the general
executor at that iteration's end, as do a dead `Enter` (a loop inside a
branch not taken) and a step that collects stats (the timeline shows every
iteration). `executor.ExecutorState` chooses it for a loop that is
`eligible`: no loop inside it, no async kernel, no `_Send`/`_Recv`, and
edges in and out of the frame as `tf.while_loop` makes them; and only
while no other thread touches the step, and while none of the loop's
kernels has been measured long enough to be worth running two iterations
at once (`scheduling.KernelCosts`).

TensorFlow has no counterpart: its single-threaded executor
(`tensorflow/core/common_runtime/single_threaded_executor.cc`) refuses a
graph with control flow, and its general executor runs loops as the
general loop here does (`executor.cc`, FrameState). This module applies
the single-threaded executor's idea to one iteration of one loop.
"""

import time

from minitf.executor.kernel_calls import check_outputs, gatherer, kernel_context, read_variable
from minitf.framework.op_kernel import OpKernelContext

# What a node of the order does, by the part it plays in the loop.
LOOP_MERGE = 0  # a loop variable's Merge: the Enter's value, then the NextIteration's
MERGE = 1       # a Merge of a cond inside the body: its first live input
SWITCH = 2      # the value on the side the predicate picks, the other side dead
FORWARD = 3     # Identity, LoopCond, NextIteration: the input, as it is
EXIT = 4        # the input, handed to the frame around the loop when alive
KERNEL = 5      # any other node: its kernel, unless it is dead

# What `FlatFrameRun.run` ends with.
FINISHED, RESUMED, FAILED = "finished", "resumed", "failed"

_FORWARD_OPS = frozenset({"Identity", "LoopCond", "NextIteration", "RefNextIteration"})
_EXIT_OPS = frozenset({"Exit", "RefExit"})
_SWITCH_OPS = frozenset({"Switch", "RefSwitch"})


class FlatIteration:
    """What a kernel's context learns about the iteration it runs in (`frame_iter`)."""

    __slots__ = ("frame", "iter_id")

    def __init__(self, frame, iter_id):
        self.frame = frame
        self.iter_id = iter_id

    @property
    def frame_iter(self):
        return (self.frame.frame_id, self.iter_id)


class FlatFramePlan:
    """The order of one iteration of a loop, and the places of its tensors (module docstring).

    Built once per executor and loop (`plan_for`) from the general
    executor's plan: its nodes, their successors, and the constants folded
    into the frame (`FrameInfo.preset_inputs`). `reason` says why a loop
    cannot run flat (None when it can).
    """

    def __init__(self, nodes, info):
        self.nodes = nodes
        reached = {consumer_id for node in nodes for consumer_id, _, _ in node.successors}
        # A constant folded into its consumers (scheduling.GuardedConstants) has no edge in
        # any more, and never runs: it is not part of an iteration.
        self.frame_ids = [node_id for node_id in info.node_ids if node_id in reached]
        self.in_frame = set(self.frame_ids)
        self.sources = {(consumer_id, slot): (node, index) for node in nodes
                        for consumer_id, slot, index in node.successors if slot >= 0}
        self.expensive_ids = tuple(i for i in self.frame_ids if nodes[i].is_expensive)
        self.reason = self._ineligibility()
        if self.reason is None:
            self._plan(info)

    # --- which loops qualify --------------------------------------------------------
    def _ineligibility(self):
        """Why the loop cannot run flat, in a few words; None when it can. It can when its
        nodes run once per iteration, on this thread, fed as tf.while_loop feeds them: no
        loop inside it, nothing that waits, Enters only into its Merges (or, for loop
        invariants, anywhere but a Merge), and NextIterations only into its Merges."""
        nodes, in_frame = self.nodes, self.in_frame
        for node_id in self.frame_ids:
            node = nodes[node_id]
            if node.is_enter:
                return "node %s enters a loop inside the loop" % node.name
            if node.is_async or node.is_transfer:
                return "node %s (%s) waits for other work" % (node.name, node.op_type)
            if node.is_next_iteration and not all(
                    slot >= 0 and nodes[c].is_merge for c, slot, _ in node.successors):
                return "node %s feeds more than a Merge" % node.name
        for source in nodes:
            if source.id in in_frame:
                continue
            for consumer_id, slot, _ in source.successors:
                if consumer_id not in in_frame:
                    continue
                reason = self._entry_ineligibility(source, nodes[consumer_id], slot)
                if reason is not None:
                    return reason
        merges = [nodes[i] for i in self.frame_ids if nodes[i].is_merge]
        if not any(self._is_loop_merge(m) for m in merges):
            return "the frame has no loop variable"
        for merge in merges:
            if not self._is_loop_merge(merge) and any(
                    self._source(merge, slot)[0].is_next_iteration
                    for slot in range(merge.num_inputs)):
                return "Merge %s mixes a NextIteration with other inputs" % merge.name
        return None

    def _entry_ineligibility(self, source, consumer, slot):
        """Why the edge from `source`, outside the frame, into `consumer` does not qualify."""
        if not source.is_enter:
            return "node %s reaches into the loop without an Enter" % source.name
        if source.is_constant_enter:
            if consumer.is_merge:
                return "loop invariant %s feeds a Merge" % source.name
            return None
        if slot < 0 or not consumer.is_merge or len(source.successors) != 1:
            return "Enter %s feeds more than its loop variable's Merge" % source.name
        if not self._is_loop_merge(consumer):
            return "Merge %s is not a loop variable's" % consumer.name
        return None

    def _is_loop_merge(self, merge):
        """A Merge of an Enter (outside) and a NextIteration (inside), with no control input."""
        if not merge.is_merge or merge.num_inputs != 2 or merge.num_control_inputs != 0:
            return False
        kinds = sorted((self._source(merge, slot)[0].is_enter,
                        self._source(merge, slot)[0].is_next_iteration) for slot in range(2))
        return kinds == [(False, True), (True, False)]

    def _source(self, consumer, slot):
        """(node, output index) of the data input `slot` of `consumer`."""
        return self.sources[(consumer.id, slot)]

    # --- the plan -----------------------------------------------------------------------
    def _plan(self, info):
        """The places, the order, and the entries the run walks (`order`)."""
        nodes = self.nodes
        self.initial_values = []
        self.enter_places = {}  # Enter node id -> its place (loop variables and invariants)
        output_places = {i: [None] * nodes[i].num_outputs for i in self.frame_ids}
        input_places = {i: [None] * nodes[i].num_inputs for i in self.frame_ids}
        control_sources = {i: [] for i in self.frame_ids}
        for source in nodes:
            for consumer_id, slot, index in source.successors:
                if consumer_id not in self.in_frame:
                    continue
                if slot < 0:
                    if source.id in self.in_frame:
                        control_sources[consumer_id].append(source.id)
                    continue  # from a loop invariant's Enter: there in every iteration
                if source.id in self.in_frame:
                    places = output_places[source.id]
                    if places[index] is None:
                        places[index] = self._new_place()
                    input_places[consumer_id][slot] = places[index]
                else:
                    if source.id not in self.enter_places:
                        self.enter_places[source.id] = self._new_place()
                    input_places[consumer_id][slot] = self.enter_places[source.id]
        node_of_local_id = {nodes[i].local_id: i for i in self.frame_ids}
        for local_id, values in info.preset_inputs.items():
            for slot, value in enumerate(values):
                if value is not None:  # a constant of the frame: a place never emptied
                    input_places[node_of_local_id[local_id]][slot] = self._new_place(value)
        order = self._topological_order(control_sources)
        if order is None:
            self.reason = "the loop's nodes have no order without its back edges"
            return
        made_here = {place for node_id in order for place in output_places[node_id]
                     if place is not None}
        alias, dead_when_empty = self._forwarders(order, input_places, output_places,
                                                  control_sources, made_here)
        order = [node_id for node_id in order if node_id not in dead_when_empty]

        def resolve(place):
            while place in alias:
                place = alias[place]
            return place

        for node_id in order:
            input_places[node_id] = tuple(resolve(p) for p in input_places[node_id])
        self.next_iterations = [(node_id, resolve(output_places[node_id][0]))
                                for node_id in self.frame_ids if nodes[node_id].is_next_iteration]
        self.next_places = [place for _, place in self.next_iterations]
        position = {node_id: p for p, node_id in enumerate(order)}
        control_places = {node_id: tuple(dead_when_empty[c] for c in control_sources[node_id]
                                         if c in dead_when_empty) for node_id in order}
        last_reader = self._last_readers(order, input_places, control_places,
                                         made_here - set(self.next_places))
        self.order = []
        for p, node_id in enumerate(order):
            self.order.append(self._entry(
                nodes[node_id], p, input_places[node_id],
                tuple(position[c] for c in control_sources[node_id] if c in position),
                control_places[node_id], tuple(output_places[node_id]),
                tuple(place for place, reader in last_reader.items() if reader == p)))

    def _new_place(self, value=None):
        self.initial_values.append(value)
        return len(self.initial_values) - 1

    def _forwarders(self, order, input_places, output_places, control_sources, made_here):
        """The Identities, LoopConds and NextIterations that need not run.

        Such a node gives its input as it is, and is dead exactly when its
        input is: its readers may read its input's place instead, and its
        control edges are dead when that place is empty. Returns the places
        it stood for ({its output's place: its input's place}) and {node id:
        the place whose emptiness is its deadness}. A NextIteration stays
        when what it passes on was not made in the iteration (a loop
        invariant, a constant: the loop's Merge empties the place it reads)
        or is passed on by another NextIteration too.
        """
        nodes = self.nodes
        alias, dead_when_empty, passed_on = {}, {}, set()
        for node_id in order:
            node = nodes[node_id]
            if (node.op_type not in _FORWARD_OPS or node.deref_slots or control_sources[node_id]
                    or node.num_inputs != 1 or input_places[node_id][0] is None):
                continue
            source_place = input_places[node_id][0]
            while source_place in alias:
                source_place = alias[source_place]
            if node.is_next_iteration:
                if source_place not in made_here or source_place in passed_on:
                    continue
                passed_on.add(source_place)
            if output_places[node_id][0] is not None:
                alias[output_places[node_id][0]] = source_place
            dead_when_empty[node_id] = source_place
        return alias, dead_when_empty

    def _topological_order(self, control_sources):
        """The frame's node ids in one iteration's order, the back edges left out; None when
        there is none."""
        nodes, in_frame = self.nodes, self.in_frame
        pending = {}
        for node_id in self.frame_ids:
            node = nodes[node_id]
            sources = [self.sources.get((node_id, slot)) for slot in range(node.num_inputs)]
            data = sum(1 for source in sources  # (a folded constant's slot has no source)
                       if source is not None and source[0].id in in_frame
                       and not source[0].is_next_iteration)
            pending[node_id] = data + len(control_sources[node_id])
        ready = [i for i in self.frame_ids if pending[i] == 0]
        order = []
        while ready:
            node = nodes[ready.pop(0)]
            order.append(node.id)
            if node.is_next_iteration:
                continue
            for consumer_id, _, _ in node.successors:
                if consumer_id in pending:
                    pending[consumer_id] -= 1
                    if pending[consumer_id] == 0:
                        ready.append(consumer_id)
        return order if len(order) == len(self.frame_ids) else None

    @staticmethod
    def _last_readers(order, input_places, control_places, mortal):
        """{place: position of its last reader}, for the `mortal` places: those made and
        read in one iteration. (The NextIterations' values are read in the next
        iteration, by the loop's Merges, which empty them; the Enters' values and the
        constants outlive the loop.) A control edge read as a place reads it too."""
        last = {}
        for p, node_id in enumerate(order):
            for place in input_places[node_id] + control_places[node_id]:
                if place in mortal:
                    last[place] = p
        return last

    def _entry(self, node, position, inputs, controls, control_places, outputs, dying):
        """A node as the run unpacks it: (what it does, the node, its position, a gatherer of
        its inputs, the positions of its control inputs, the places whose emptiness is a
        control input's deadness, the places it fills, the places that die when it reads
        them, and what its kind needs besides):

        * a loop variable's Merge: (the Enter's place, the NextIteration's place, which
          input the NextIteration is);
        * a kernel that is simple (one output of a known dtype, no input read from a
          variable, none it may write into): (its function, its attrs or None, the dtype
          of its output), so that the run calls it inline.
        """
        extra = None
        if self._is_loop_merge(node):
            kind = LOOP_MERGE
            next_slot = 0 if self._source(node, 0)[0].is_next_iteration else 1
            extra = (inputs[1 - next_slot], inputs[next_slot], next_slot)
        elif node.is_merge:
            kind = MERGE
        elif node.op_type in _SWITCH_OPS:
            kind = SWITCH
        elif node.op_type in _EXIT_OPS and not node.deref_slots:
            kind = EXIT
        elif node.op_type in _FORWARD_OPS and not node.deref_slots:
            kind = FORWARD
        else:
            kind = KERNEL
            if (node.single_output and node.output_dtypes[0] is not None
                    and not node.deref_slots and not node.forward_candidates):
                extra = (node.fn, node.kwargs or None, node.output_dtypes[0])
        return (kind, node, position, gatherer(inputs), controls, control_places, outputs,
                dying, extra)


def plan_for(executor_nodes, info):
    """The FlatFramePlan of a loop (`info`, its FrameInfo), built at its first use."""
    plan = info.flat_plan
    if plan is None:
        plan = info.flat_plan = FlatFramePlan(executor_nodes, info)
    return plan


class FlatFrameRun:
    """One execution of a loop run flat: the Enters' values as they come, then the iterations.

    `ExecutorState` hands it each Enter of the frame (`enter`) instead of
    activating the frame's nodes; when the last has come it calls `run`,
    which either runs the whole loop here or, when the loop cannot run
    flat after all, replays the Enters into the general loop (`replay`).
    """

    def __init__(self, plan, frame, state):
        self.plan = plan
        self.frame = frame
        self.state = state
        self.enters = []  # (Enter node, value) in the order they came

    def enter(self, node, value):
        self.enters.append((node, value))

    def can_run(self):
        """Whether the loop may run flat now: every Enter alive, nobody else in the step."""
        state = self.state
        return (state.stats is None and not state.shared
                and all(value is not None for _, value in self.enters))

    def replay(self, ready):
        """Hands the Enters to the general loop, as if it had taken them as they came."""
        frame = self.frame
        frame.flat = None
        for node, value in self.enters:
            if node.is_constant_enter:
                frame.add_loop_inv(node, value, ready)
            else:
                frame.activate_nodes(node, value is None, frame.iterations[0], (value,), ready)

    # --- the iterations ---------------------------------------------------------------
    def run(self, ready):
        """Runs the loop's iterations; returns FINISHED, RESUMED (the general loop goes on from
        an iteration's end) or FAILED (a node failed, or the step was aborted)."""
        plan, frame = self.plan, self.frame
        values = list(plan.initial_values)
        for node, value in self.enters:
            values[plan.enter_places[node.id]] = value
            if node.is_constant_enter:
                frame.inv_values.append((node, value))
        dead = [False] * len(plan.order)
        step = self.state.step
        iter_id = 0
        while True:
            if step.error is not None:  # aborted from elsewhere (a deadline)
                return FAILED
            dead_exits = []
            if not self._run_iteration(FlatIteration(frame, iter_id), values, dead, dead_exits,
                                       ready):
                return FAILED
            alive = sum(values[place] is not None for place in plan.next_places)
            if not alive:  # the predicate was false: the Exits have their values
                frame.dead_exits = dead_exits
                return FINISHED
            iter_id += 1
            if alive < len(plan.next_places):
                self._resume_in_general_loop(iter_id, values, ready)
                return RESUMED

    def _run_iteration(self, iteration, values, dead, dead_exits, ready):
        """One walk down the order; False when a kernel failed.

        The kinds are asked for in the order they are met most; a simple
        kernel is called inline, except in iteration 0, where an expensive
        one is timed for the policy (`_run_kernel`).
        """
        first = iteration.iter_id == 0
        step = self.state.step
        new_context = OpKernelContext
        for (kind, node, position, gather, controls, control_places, outputs, dying,
             extra) in self.plan.order:
            if kind == LOOP_MERGE:
                if outputs[1] is None and not first:  # nobody reads which input it took
                    next_place = extra[1]
                    values[outputs[0]] = values[next_place]
                    values[next_place] = None
                elif not self._loop_merge(node, outputs, extra, first, values, iteration):
                    return False
                continue
            args = gather(values)
            is_dead = False
            for value in args:
                if value is None:
                    is_dead = True
                    break
            for control in controls:
                if dead[control]:
                    is_dead = True
            for place in control_places:
                if values[place] is None:
                    is_dead = True
            for place in dying:
                values[place] = None
            if is_dead and node.is_control_trigger:  # it runs whatever its inputs were
                is_dead = False
            dead[position] = is_dead
            if is_dead and kind != MERGE:
                _store(values, outputs, node.dead_outputs)
                if kind == EXIT:
                    dead_exits.append(node)
            elif kind == KERNEL and extra is not None and not first:  # simple: called inline
                fn, kwargs, expected = extra
                try:
                    if kwargs is None:
                        result = fn(new_context(node, step, iteration), *args)
                    else:
                        result = fn(new_context(node, step, iteration), *args, **kwargs)
                    if getattr(result, "dtype", None) is not expected:
                        check_outputs(node, result)
                except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
                    self.state._record_error(node, e)
                    return False
                args = None  # `values` must hold the tensors alone (buffer forwarding)
                if outputs[0] is not None:
                    values[outputs[0]] = result
                result = None
            elif kind == SWITCH and getattr(args[1], "ndim", None) == 0:
                output_false, output_true = outputs
                taken = output_true if bool(args[1]) else output_false  # a device scalar too
                if output_false is not None:
                    values[output_false] = None
                if output_true is not None:
                    values[output_true] = None
                if taken is not None:
                    values[taken] = args[0]
            elif kind == EXIT:
                self.frame.parent.activate_nodes(node, False, self.frame.parent_iter,
                                                 (args[0],), ready)
            elif kind == FORWARD:
                if outputs[0] is not None:
                    values[outputs[0]] = args[0]
            elif kind == MERGE:  # on its first live input, the others left out, as in the loop
                is_dead = dead[position] = self._merge(node, args, outputs, values, iteration)
                if is_dead is None:
                    return False
            else:
                outputs_made = self._run_kernel(node, list(args), iteration)
                if outputs_made is None:
                    return False
                _store(values, outputs, outputs_made)
            args = None
        return True

    def _loop_merge(self, node, outputs, extra, first, values, iteration):
        """A loop variable's Merge: the Enter's value in iteration 0, the NextIteration's
        later; False when its kernel, run only when its second output is read, failed."""
        enter_place, next_place, next_slot = extra
        place = enter_place if first else next_place
        value = values[place]
        values[place] = None
        if outputs[1] is None:  # nobody reads which input it took
            values[outputs[0]] = value
            return True
        args = [None, None]
        args[1 - next_slot if first else next_slot] = value
        result = self._run_kernel(node, args, iteration)
        if result is not None:
            _store(values, outputs, result)
        return result is not None

    def _merge(self, node, args, outputs, values, iteration):
        """A Merge of a cond in the body: whether it is dead (None when its kernel failed)."""
        live = _first_live(args)
        if live is None:
            _store(values, outputs, node.dead_outputs)
            return True
        merge_args = [None] * len(args)
        merge_args[live] = args[live]
        result = self._run_kernel(node, merge_args, iteration)
        if result is None:
            return None
        _store(values, outputs, result)
        return False

    def _run_kernel(self, node, args, iteration):
        """The node's outputs as a tuple; None when its kernel failed (the step is aborted)."""
        state = self.state
        timed = node.is_expensive and iteration.iter_id == 0
        start = time.perf_counter() if timed else 0.0
        try:
            for slot in node.deref_slots:
                args[slot] = read_variable(node, args[slot])
            ctx = kernel_context(node, node.forward_candidates, state.step, args, iteration)
            outputs = check_outputs(node, node.fn(ctx, *args, **node.kwargs))
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            state._record_error(node, e)
            return None
        if timed:
            state.kernel_costs.observe(node.id, time.perf_counter() - start)
        return outputs

    def _resume_in_general_loop(self, iter_id, values, ready):
        """Some NextIterations alive, others dead: iteration `iter_id` starts in the general
        loop, with the live values, as the general loop would have started it."""
        frame, plan = self.frame, self.plan
        frame.flat = None
        del frame.iterations[0]
        frame.iteration_count = iter_id
        frame.dead_exits = []
        iteration = frame.iterations[iter_id] = frame.new_iteration(iter_id)
        for node_id, place in plan.next_iterations:
            if values[place] is not None:
                frame.activate_nodes(plan.nodes[node_id], False, iteration, (values[place],),
                                     ready)
        frame.activate_loop_invs(iteration, ready)


def _first_live(args):
    """The index of the first input that is not dead, or None."""
    for index, value in enumerate(args):
        if value is not None:
            return index
    return None


def _store(values, places, outputs):
    for place, value in zip(places, outputs):
        if place is not None:
            values[place] = value
