"""Control loops: how a while loop split over several devices keeps its iterations in step.

A loop whose body has nodes on two devices is cut like any graph: each
edge that crosses devices gets a _Send and a _Recv. But in a loop a node
runs once per iteration, in a frame; a _Recv has no inputs, so nothing
would tell it which frame and iteration it belongs to, or that the loop
has ended. So before the graph is cut, each device that receives tensors
inside a loop gets a small loop of its own, a *control loop*, that runs
in step with the real one:

    Enter(dummy) -> Merge -> Switch(pred) -> NextIteration -> Merge
                      |
                      +--> (control edge) the _Recvs of this frame

Its Switch reads the loop's predicate (the `LoopCond`, on the device that
owns it, the frame's *leader*), itself received through a _Send/_Recv, so
the control loop iterates exactly as often as the real loop. Its Merge
runs once per iteration, and each _Recv of the frame gets a control edge
from it: the _Recv then runs once per iteration, in the frame, and its
rendezvous key (which holds the frame id and the iteration) meets the
_Send of that iteration. A loop nested in a loop gets its own control
loop, fed by the outer control loop's Merge; the outermost one starts at
a dummy Const on its device.

Before that, the control-flow nodes move next to the data they steer: a
Switch goes to its data input's device, an Exit to its input's, an Enter
and a NextIteration to their first consumer's. That keeps many edges on
one device.

Mirrors `AddControlFlow`, `AddControlLoop` and
`OptimizeControlFlowColocation` of `tensorflow/core/graph/graph_partition.cc`
and `BuildControlFlowInfo` of `tensorflow/core/graph/control_flow.cc`.
"""

import collections
import itertools

import numpy as np

from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef

ROOT_FRAME = ""
CONTROL_LOOP_PREFIX = "_cloop"

_ENTERS = ("Enter", "RefEnter")
_EXITS = ("Exit", "RefExit")


def has_loops(node_defs):
    return any(node.op in _ENTERS for node in node_defs)


def is_control_loop_merge(node):
    return node.op == "Merge" and node.name.startswith(CONTROL_LOOP_PREFIX)


class ControlFlowInfo:
    """Which frame each node is in, as the graph sees it (an Enter in the frame it starts).

    `frame[name]` is a node's frame and `parent[frame]` the frame around
    a frame. `input_frame` is where a node's inputs come from (an Enter's,
    the parent frame) and `output_frame` where its outputs go (an Exit's,
    the parent frame).
    """

    def __init__(self, node_defs):
        self.frame = {}
        self.parent = {}
        self.enter = {}  # frame -> an Enter of it (it holds the frame's parallel_iterations)
        consumers = collections.defaultdict(list)
        for node in node_defs:
            for text in node.input:
                consumers[graph_def_lib.parse_input(text)[0]].append(node)
        reached_from = {}
        queue = collections.deque(n for n in node_defs if not n.input)
        for node in queue:
            self.frame[node.name] = ROOT_FRAME
        while queue:
            node = queue.popleft()
            out_frame = self.output_frame(node)
            for consumer in consumers[node.name]:
                frame = out_frame
                if consumer.op in _ENTERS:
                    frame = consumer.attr["frame_name"]
                    self.parent.setdefault(frame, out_frame)
                    self.enter.setdefault(frame, consumer)
                    if self.parent[frame] != out_frame:
                        raise _mixed_frames(consumer, node, out_frame, reached_from[consumer.name],
                                            self.parent[frame])
                if consumer.name not in self.frame:
                    self.frame[consumer.name] = frame
                    reached_from[consumer.name] = node
                    queue.append(consumer)
                elif self.frame[consumer.name] != frame:
                    raise _mixed_frames(consumer, node, frame, reached_from[consumer.name],
                                        self.frame[consumer.name])

    def input_frame(self, node):
        frame = self.frame.get(node.name, ROOT_FRAME)
        return self.parent[frame] if node.op in _ENTERS else frame

    def output_frame(self, node):
        frame = self.frame.get(node.name, ROOT_FRAME)
        return self.parent[frame] if node.op in _EXITS else frame


def _mixed_frames(node, input_a, frame_a, input_b, frame_b):
    return errors.InvalidArgumentError(
        node, None, "{{node %s}} has inputs from different frames. The input {{node %s}} is in "
        "frame '%s'. The input {{node %s}} is in frame '%s'."
        % (node.name, input_a.name, frame_a, input_b.name, frame_b))


def add_control_flow(node_defs, placement):
    """The nodes (copies) and placement with a control loop for every loop that crosses devices.

    Each cross-device edge inside a loop frame also gets a control edge from
    its destination device's control loop Merge to its destination; when the
    graph is cut, that edge moves to the _Recv (`partition`).
    """
    nodes = [NodeDef(n.name, n.op, list(n.input), n.device, n.attr) for n in node_defs]
    placement = dict(placement)
    info = ControlFlowInfo(nodes)
    _optimize_control_flow_colocation(nodes, placement)
    by_name = {node.name: node for node in nodes}
    loop_conds = {info.frame[n.name]: n for n in nodes if n.op == "LoopCond"}
    builder = _ControlLoopBuilder(info, placement, loop_conds)
    for src, dst, _ in _cross_device_frame_edges(nodes, by_name, info, placement):
        builder.add(info.output_frame(src), placement[dst.name], dst.name)
    nodes.extend(builder.new_nodes)
    by_name.update((node.name, node) for node in builder.new_nodes)
    for src, dst, frame in list(_cross_device_frame_edges(nodes, by_name, info, placement)):
        dst.input.append("^" + builder.loops[frame, placement[dst.name]].merge.name)
    return nodes, placement


def _cross_device_frame_edges(nodes, by_name, info, placement):
    """(src, dst, frame) for every edge between two devices inside one loop frame."""
    for dst in nodes:
        for text in list(dst.input):
            name = graph_def_lib.parse_input(text)[0]
            src = by_name[name]
            if placement[name] == placement[dst.name] or is_control_loop_merge(src):
                continue
            frame = info.output_frame(src)
            if frame != ROOT_FRAME and frame == info.input_frame(dst):
                yield src, dst, frame


def _optimize_control_flow_colocation(nodes, placement):
    """Switch and Exit go to their input's device; Enter and NextIteration to their first
    data consumer's (a reference Enter stays with its variable)."""
    first_consumer = {}
    for node in nodes:
        for text in node.input:
            name, _, is_control = graph_def_lib.parse_input(text)
            if not is_control:
                first_consumer.setdefault(name, node.name)
    for node in nodes:
        data_inputs = [graph_def_lib.parse_input(t)[0] for t in node.input if t[0] != "^"]
        if node.op in ("Switch", "RefSwitch", "Exit", "RefExit") and data_inputs:
            placement[node.name] = placement[data_inputs[0]]
        elif node.op in ("Enter", "NextIteration", "RefNextIteration") and (
                node.name in first_consumer):
            placement[node.name] = placement[first_consumer[node.name]]


class _ControlLoop:
    def __init__(self, enter, merge, switch):
        self.enter, self.merge, self.switch = enter, merge, switch


class _ControlLoopBuilder:
    """Makes the control loops, one per (frame, device), nested as the frames are."""

    def __init__(self, info, placement, loop_conds):
        self.info = info
        self.placement = placement
        self.loop_conds = loop_conds
        self.loops = {}
        self.new_nodes = []
        self._ids = itertools.count()

    def add(self, frame, device, dst_name):
        """The control loops for `frame` (and the frames around it) on `device`."""
        child = None
        while True:
            if frame == ROOT_FRAME:
                if child is not None:  # the outermost control loop starts at a dummy Const
                    dummy = self._node(_new_name(dst_name, self._ids), "Const", [], device,
                                       {"dtype": dtypes.float32,
                                        "value": np.zeros((0,), np.float32)}, ROOT_FRAME)
                    child.enter.input.append(dummy.name)
                return
            existing = self.loops.get((frame, device))
            if existing is not None:
                if child is not None:
                    child.enter.input.append(existing.merge.name)
                return
            loop = self._control_loop(frame, device, dst_name)
            self.loops[frame, device] = loop
            if child is not None:
                child.enter.input.append(loop.merge.name)
            frame, child = self.info.parent[frame], loop

    def _control_loop(self, frame, device, dst_name):
        loop_cond = self.loop_conds.get(frame)
        if loop_cond is None:
            raise errors.InvalidArgumentError(
                None, None, "A cross-device loop must have a pivot predicate: " + frame)
        enter_name, merge_name, switch_name, next_name = (
            CONTROL_LOOP_PREFIX + _new_name(dst_name, self._ids) for _ in range(4))
        parallel_iterations = self.info.enter[frame].attr.get("parallel_iterations", 10)
        enter = self._node(enter_name, "Enter", [], device, {
            "T": dtypes.float32, "frame_name": frame, "is_constant": False,
            "parallel_iterations": parallel_iterations}, frame)
        merge = self._node(merge_name, "Merge", [enter_name, next_name], device,
                           {"T": dtypes.float32, "N": 2}, frame)
        switch = self._node(switch_name, "Switch", [merge_name, loop_cond.name], device,
                            {"T": dtypes.float32}, frame)
        self._node(next_name, "NextIteration", [switch_name + ":1"], device,
                   {"T": dtypes.float32}, frame)
        return _ControlLoop(enter, merge, switch)

    def _node(self, name, op, inputs, device, attr, frame):
        node = NodeDef(name, op, inputs, device, attr)
        self.placement[name] = device
        self.info.frame[name] = frame
        self.new_nodes.append(node)
        return node


def _new_name(prefix, ids):
    return "%s/_%d" % (prefix, next(ids))
