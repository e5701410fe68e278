"""The executor's scheduling policy: what it does beyond the plain loop, to run fast.

The loop of `executor.py` would be correct without anything here: run
every ready node on the thread that made it ready, count pending inputs
under a lock, run the Consts like any node. Four speed-ups change how fast
it goes, never what it computes:

1. **Consts are computed once, when the executor is built.** A Const
   without control inputs gives the same value every step, so every step
   starts with that value already in the input slots of its consumers,
   their pending counts lowered to match; the Const itself never runs in a
   step (`PresetConstants`). A Const whose inputs are control edges only
   (in a cond branch or a loop body, from the pivot that keeps it there)
   gives the same value whenever it runs, too: its value is preset in
   every iteration, and its consumers wait for its control inputs instead
   (`GuardedConstants`). In a loop that saves a node per constant per
   iteration.
2. **Several expensive ready nodes fan out to the inter-op pool.** When
   several nodes become ready at once, the loop asks the policy which of
   them stay on this thread and which go to the pool
   (`SchedulingPolicy.split_ready`): all but one of the *long* ones go, so
   two independent branches of the graph run at the same time.
3. **Long means measured.** Whether a node is worth another thread is
   learnt by timing it: each executor remembers how long every expensive
   kernel took in its last two runs, and only kernels that took longer
   than a hand-off costs, both times, are handed off (`KernelCosts`).
4. **No lock while one thread runs the step.** Pending counts are shared
   by every thread that runs nodes of the step, so they change under a
   lock; until the step first hands work to another thread (a pool
   thread, an async kernel's callback) there is nobody to lock out, and
   the lock is skipped: a chain of small ops on one thread pays nothing
   for threads it does not use. This one lives in the loop itself, as
   the state's `shared` flag, because it is checked for every node: a
   call into this module per node would cost more than the lock it saves.

The loop asks the policy at fixed points, never once per node: when the
executor is built (`SchedulingPolicy(...)`), when a step starts
(`new_input_slots`), after an expensive kernel (`kernel_costs.observe`)
and when several nodes are ready at once on a session with a pool
(`split_ready`).

TensorFlow 1.15 runs inline the kernels that say they are cheap
(`OpKernel::IsExpensive`, `ExecutorState::ScheduleReady` in
`tensorflow/core/common_runtime/executor.cc`); its later executors also
learn each kernel's cost as it runs (`kernel_stats.h`). It runs Const
nodes every step but skips their kernel (`OpKernel::const_tensor`).
"""

import collections

# A kernel estimated to run for less than this stays on the thread that made
# it ready: handing it to another thread would cost more than it could save.
_LONG_KERNEL_SECONDS = 100e-6


class SchedulingPolicy:
    """The speed-ups of one executor: its preset Consts, its kernels' costs, its hand-offs."""

    def __init__(self, nodes, compute_constant, frame_infos):
        self.nodes = nodes
        # Guarded first: a Const they hand their control inputs to may be a preset one.
        self.guarded = GuardedConstants(nodes, compute_constant, frame_infos)
        self.constants = PresetConstants(nodes, compute_constant)
        self.kernel_costs = KernelCosts(len(nodes))

    @property
    def constant_ids(self):
        """The Consts computed when the executor was built: no step runs them."""
        return self.constants.ids

    def pending_counts(self):
        """Each node's pending count at the start of a step: the Consts are done already."""
        return [node.pending_init - self.constants.inputs_given[node.id] for node in self.nodes]

    def new_input_slots(self):
        """The input slots a step starts with: None, but the Consts' values in place."""
        slots = [None] * len(self.nodes)
        for consumer_id, values in self.constants.inputs.items():
            slots[consumer_id] = list(values)
        if not self.guarded.root_inputs:
            return slots
        for consumer_id, values in self.guarded.root_inputs.items():
            if slots[consumer_id] is None:
                slots[consumer_id] = list(values)
            else:
                for slot, value in enumerate(values):
                    if value is not None:
                        slots[consumer_id][slot] = value
        return slots

    def split_ready(self, ready, inline_ready, node_id):
        """Queues the ready nodes that stay here; returns those for the pool.

        Keeps one expensive node on this thread and hands the other long
        ones to the pool; cheap nodes always stay. What counts is whether
        this thread already has expensive work queued (`inline_ready`, its
        queue): a constant waiting in the queue must not send the first of
        two big branches away to the pool, or both branches would end up on
        the pool's thread, one after the other. `node_id(entry)` is the node
        of an entry of the queues.
        """
        nodes, go = self.nodes, []
        if not self.kernel_costs.long_ids or not any(
                self.worth_a_thread(nodes[node_id(entry)]) for entry in ready):
            inline_ready.extend(ready)  # nothing to hand off (the usual case): no scan
            return go
        has_expensive = any(nodes[node_id(entry)].is_expensive for entry in inline_ready)
        for entry in ready:
            node = nodes[node_id(entry)]
            if has_expensive and self.worth_a_thread(node):
                go.append(entry)
            else:
                has_expensive = has_expensive or node.is_expensive
                inline_ready.append(entry)
        return go

    def worth_a_thread(self, node):
        """Whether running `node` elsewhere pays for the hand-off.

        Handing a node to another thread costs tens of microseconds, and
        Python threads only run at the same time while NumPy has released the
        interpreter lock inside a long operation. So a node goes to the pool
        only when its kernel is not marked cheap and it has taken long when
        it ran before (`KernelCosts`). The size of the inputs is no guide: a
        lookup of 512 rows in a table of millions is quick. A node without
        inputs (a variable, a constant, a fed value) only hands over
        something that already exists, so it stays.
        """
        return node.is_expensive and node.num_inputs > 0 and self.kernel_costs.is_long(node.id)


class PresetConstants:
    """The Consts of one executor, run once, when it is built.

    A Const without control inputs gives the same value every step, so the
    executor computes it now (`compute_constant(node)` runs its kernel),
    and every step starts with that value already in the input slots of
    its consumers (`inputs`, {consumer id: slot list}), their pending
    counts lowered by the inputs it gives them (`inputs_given`, counting
    control edges too): the Const itself never runs in a step. minitf
    skips the node, where TensorFlow skips only its kernel, because here a
    node's bookkeeping costs more than a Const's kernel. A traced step
    still lists the Consts (`ids`), as ready at its start in no time.
    """

    def __init__(self, nodes, compute_constant):
        constants = [n for n in nodes if n.op_type == "Const" and n.pending_init == 0
                     and not any(nodes[c].is_merge for c, _, _ in n.successors)]
        self.ids = tuple(n.id for n in constants)
        self.inputs = {}
        self.inputs_given = collections.Counter()
        for node in constants:
            value = compute_constant(node)
            for consumer_id, slot, _ in node.successors:
                if slot >= 0:
                    num_inputs = nodes[consumer_id].num_inputs
                    self.inputs.setdefault(consumer_id, [None] * num_inputs)[slot] = value
                self.inputs_given[consumer_id] += 1


class GuardedConstants:
    """The Consts whose inputs are control edges only, folded into their consumers.

    Such a Const sits in a cond branch or a loop body, where a control edge
    from the branch's or the loop's pivot makes it run in the branch, once
    per iteration. It gives the same value whenever it runs, so the
    executor computes it now and every iteration of its frame starts with
    the value in its consumers' input slots (`FrameInfo.preset_inputs`; in
    the root frame, `root_inputs`). Its control inputs pass to its
    consumers, which therefore still wait for them and are dead when one
    is dead, as the Const would have made them. The Const never runs
    (`root_ids`: those of the root frame, done when a step starts).
    Left out: a Const read by a Merge (a dead input counts differently
    there) or with control edges going out.
    """

    def __init__(self, nodes, compute_constant, frame_infos):
        self.root_inputs = {}
        root_ids = []
        for node in nodes:
            if not self._foldable(node, nodes):
                continue
            controls = [n for n in nodes if (node.id, -1, 0) in n.successors]
            self._fold(node, controls, compute_constant(node), nodes,
                       frame_infos[node.frame_name])
            if node.frame_name == "":
                root_ids.append(node.id)
        self.root_ids = tuple(root_ids)

    @staticmethod
    def _foldable(node, nodes):
        return (node.op_type == "Const" and node.num_inputs == 0 and node.num_control_inputs > 0
                and node.successors and all(slot >= 0 and not nodes[c].is_merge
                                            for c, slot, _ in node.successors))

    def _fold(self, node, controls, value, nodes, info):
        presets = self.root_inputs if info.name == "" else info.preset_inputs
        consumers = []
        for consumer_id, slot, _ in node.successors:
            consumer = nodes[consumer_id]
            slots = presets.setdefault(consumer.local_id, [None] * consumer.num_inputs)
            slots[slot] = value
            consumer.pending_init -= 1
            info.pending_init[consumer.local_id] -= 1
            if consumer_id not in consumers:
                consumers.append(consumer_id)
        for control in controls:
            control.successors.remove((node.id, -1, 0))
            for consumer_id in consumers:
                control.successors.append((consumer_id, -1, 0))
                nodes[consumer_id].pending_init += 1
                info.pending_init[nodes[consumer_id].local_id] += 1
        node.successors = []


class KernelCosts:
    """How long each node's kernel took in the last two steps that ran it.

    A node counts as long when both of its last two runs took longer than
    the hand-off costs. One slow run (the machine was busy, the garbage
    collector ran) does not change where a node runs, and a node not yet
    timed twice counts as short: the first steps run on one thread, in a
    repeatable order, and later steps hand off the nodes that turned out
    long. TensorFlow 1.15 only asks each kernel whether it is expensive; its
    later executors also learn each kernel's cost as it runs, as a running
    average (`tensorflow/core/common_runtime/kernel_stats.h`).
    """

    def __init__(self, num_nodes):
        self._last = [None] * num_nodes
        self._before_last = [None] * num_nodes
        self.long_ids = set()  # the nodes that are long now: usually none

    def observe(self, node_id, seconds):
        # Not locked: two threads updating one node at once lose one time, which is harmless.
        before_last = self._before_last[node_id] = self._last[node_id]
        self._last[node_id] = seconds
        if seconds >= _LONG_KERNEL_SECONDS and before_last is not None and (
                before_last >= _LONG_KERNEL_SECONDS):
            self.long_ids.add(node_id)
        elif self.long_ids:
            self.long_ids.discard(node_id)

    def long_in_last_run(self):
        """The nodes whose last run took long enough to be worth a thread."""
        return [node_id for node_id, seconds in enumerate(self._last)
                if seconds is not None and seconds >= _LONG_KERNEL_SECONDS]

    def recent(self, node_id):
        """The seconds of the node's last two runs (fewer before it has run twice)."""
        return tuple(t for t in (self._before_last[node_id], self._last[node_id])
                     if t is not None)

    def is_long(self, node_id):
        before_last = self._before_last[node_id]
        return (before_last is not None and before_last >= _LONG_KERNEL_SECONDS
                and self._last[node_id] >= _LONG_KERNEL_SECONDS)
