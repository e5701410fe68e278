"""Pictures of graphs and schedules, drawn by minitf itself.

This module turns what minitf builds into Mermaid text (a flowchart of nodes
and edges, a Gantt chart of a step's schedule) or into plain-text tables.
The course's figures are not drawn by hand: when the docs are built,
`docs/figures.py` draws the running example with these helpers, so a figure
always shows what the code really builds. The same helpers display a graph
in a notebook (`minitf.visualize.show(graph)`).

Every graph-like thing the course meets can be drawn:

* a `tf.Graph` (the front end: Operations joined by Tensors),
* a `GraphDef`, or a list of `NodeDef`s (what the runtime sees, e.g. a
  pruned graph from `minitf.session.subgraph.rewrite_for_execution`),
* a dict `{device name: [NodeDef]}` (the partitions of a step), or the list
  of GraphDefs in `RunMetadata.partition_graphs`, drawn as one box per device.

A *placed* graph, before it is partitioned, is drawn with every node coloured
by its device and the edges that partitioning will cut drawn thick
(`placed_to_mermaid`); partitions are listed as text with
`partition_listing`, and their `_Send`/`_Recv` pairs with `transfers`.

Nodes can also be boxed by name scope instead of by device (`group_by`),
for instance one box per gradient function (`gradients/Square_grad`), and
whole scopes can be folded into one node each (`collapse_scopes`), so that a
training graph of a hundred ops still reads at a glance.

Data edges are solid arrows, control edges dotted; nodes the runtime adds
(`_Arg`, `_Retval`, `_Send`, `_Recv`) are coloured so they stand out, and so
are the control-flow nodes of conds and loops (`Switch`, `Merge`, `Enter`,
`Exit`, `NextIteration`, `LoopCond`). A loop's nodes can be boxed by the
frame they run in (`loop_frames`).
Schedules are Gantt charts with one lane per thread, per device
(`schedule_to_mermaid(..., lanes="device")`), or per loop iteration
(`lanes="iteration"`).

TensorBoard's graph plugin plays this role for TensorFlow
(`tensorboard/plugins/graph/`); `tensorflow/python/client/timeline.py` draws
schedules.
"""

import collections
import re

import numpy as np

from minitf.device import control_loops
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import ops
from minitf.graph.device_spec import DeviceSpec

# How each kind of node looks: a Mermaid shape (open, close) and a style class.
_FEED_OPS = {"Placeholder", "PlaceholderWithDefault", "_Arg"}
_VARIABLE_OPS = {"VariableV2", "Variable", "VarHandleOp"}
_RUNTIME_OPS = {"_Arg", "_Retval", "_Send", "_Recv"}
_CONTROL_FLOW_OPS = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                     "RefExit", "NextIteration", "RefNextIteration", "LoopCond"}

_STYLES = {
    "feed": "fill:#e3f2fd,stroke:#1565c0",
    "variable": "fill:#fff3e0,stroke:#ef6c00",
    "constant": "fill:#f5f5f5,stroke:#9e9e9e",
    "runtime": "fill:#fce4ec,stroke:#ad1457,stroke-width:2px",
    "op": "fill:#e8f5e9,stroke:#2e7d32",
    "scope": "fill:#ede7f6,stroke:#5e35b1,stroke-dasharray:4 2",
    "control": "fill:#fffde7,stroke:#f9a825,stroke-width:2px",
}

# The op of a node that stands for a whole folded name scope (see collapse_scopes);
# no real op type has this name.
SCOPE_OP = "_FoldedScope"


# =============================================================================
# Graphs as flowcharts
# =============================================================================

def to_mermaid(graph, direction="TB", edge_labels=None, show_attrs=False, title=None,
               group_by=None):
    """Mermaid flowchart text for a tf.Graph, a GraphDef, NodeDefs or partitions.

    `edge_labels`: None, "name" (the tensor, `mul:0`) or "shape" (its dtype and
    static shape; only a tf.Graph knows shapes). `show_attrs` adds a node's
    main attrs (dtype, small constant values, indices) to its label. Nodes
    with a device are grouped in one box per device; with `group_by`, a
    function from a node's name to a box title (or None: no box), they are
    grouped by that instead (e.g. `gradient_scope`).
    """
    nodes, tensor_text = _as_nodes(graph, edge_labels)
    ids = {node.name: "n%d" % i for i, node in enumerate(nodes)}
    lines = ["flowchart %s" % direction]
    if title:
        lines.insert(0, "---\ntitle: %s\n---" % _escape(title))
    lines += _node_lines(nodes, ids, show_attrs, group_by)
    lines += _edge_lines(nodes, ids, tensor_text)
    lines += ["    classDef %s %s" % (kind, style) for kind, style in _STYLES.items()]
    return "\n".join(lines)


def _as_nodes(graph, edge_labels):
    """(NodeDefs with devices, fn giving an edge's label) for anything drawable."""
    if isinstance(graph, ops.Graph):
        nodes = graph.as_graph_def().node
        tensor_text = _graph_edge_labeller(graph, edge_labels)
    elif isinstance(graph, graph_def_lib.GraphDef):
        nodes, tensor_text = graph.node, _name_labeller(edge_labels)
    elif isinstance(graph, dict):
        nodes = []
        for device, device_nodes in graph.items():
            for node in device_nodes:
                node = node.copy()
                node.device = node.device or device
                nodes.append(node)
        tensor_text = _name_labeller(edge_labels)
    else:
        nodes = [node for item in graph
                 for node in (item.node if isinstance(item, graph_def_lib.GraphDef) else [item])]
        tensor_text = _name_labeller(edge_labels)
    return nodes, tensor_text


def _name_labeller(edge_labels):
    if edge_labels is None:
        return lambda source, index: None
    if edge_labels == "name":
        return lambda source, index: "%s:%d" % (source, index)
    raise ValueError("edge_labels=%r needs a tf.Graph (a GraphDef has no shapes)" % edge_labels)


def _graph_edge_labeller(graph, edge_labels):
    if edge_labels in (None, "name"):
        return _name_labeller(edge_labels)
    if edge_labels != "shape":
        raise ValueError("edge_labels must be None, 'name' or 'shape', not %r" % edge_labels)

    def label(source, index):
        tensor = graph.get_tensor_by_name("%s:%d" % (source, index))
        return "%s %s" % (tensor.dtype.base_dtype.name, tensor.shape)

    return label


def _node_lines(nodes, ids, show_attrs, group_by=None):
    boxes = collections.OrderedDict()
    for node in nodes:
        box = group_by(node.name) if group_by is not None else node.device
        boxes.setdefault(box, []).append(node)
    lines = []
    for index, (box, box_nodes) in enumerate(boxes.items()):
        indent = "    "
        if box:
            title = box if group_by is not None else short_device_name(box)
            lines.append('    subgraph d%d["%s"]' % (index, _escape(title)))
            indent = "        "
        # Inside a name-scope box, a node is labelled by its name within the scope; inside
        # a loop's frame (`while/while_context`), by its name within the loop's scope.
        prefix = _box_prefix(box) if box and group_by is not None else None
        for node in box_nodes:
            shown = node.name[len(prefix):] if prefix and node.name.startswith(prefix) else None
            lines.append(indent + _node_text(node, ids[node.name], show_attrs, shown))
        if box:
            lines.append("    end")
    return lines


_NAME_LINE = 14  # characters: a longer name breaks after a "/", so that its box stays narrow


def _wrapped_name(name):
    """The name, escaped, on lines of at most about _NAME_LINE characters, broken after "/"."""
    lines, line = [], ""
    for part in name.split("/"):
        piece = part if not line else "/" + part
        if line and len(line) + len(piece) > _NAME_LINE:
            lines.append(line + "/")
            line = part
        else:
            line += piece
    lines.append(line)
    return "<br/>".join(_escape(text) for text in lines)


def _box_prefix(box):
    """The prefix a node's name loses in `box`: the scope, or the loop's scope of a frame."""
    scope, _, last = box.rpartition("/")
    return scope + "/" if scope and last == "while_context" else box + "/"


def _node_text(node, node_id, show_attrs, shown_name=None, style=None, note=None):
    """One node: its shape says its kind; its class is its kind unless `style` names another.

    `note` is a last line of small text (the device, in a placed graph).
    """
    if node.op == SCOPE_OP:
        label = "<b>%s/</b><br/>%d ops" % (_escape(node.name), node.attr["num_ops"])
        return '%s[["%s"]]:::scope' % (node_id, label)
    label = "<b>%s</b><br/>%s" % (_wrapped_name(shown_name or node.name), _escape(node.op))
    attrs = _main_attrs(node) if show_attrs else ""
    if attrs:
        label += "<br/><small>%s</small>" % _escape(attrs)
    if note:
        label += "<br/><small>%s</small>" % _escape(note)
    kind = node_kind(node.op)
    opening, closing = {"feed": ('[/"', '"/]'), "variable": ('[("', '")]'),
                        "runtime": ('{{"', '"}}'), "constant": ('(["', '"])'),
                        "control": ('[/"', '"\\]')}.get(
                            kind, ('["', '"]'))
    return "%s%s%s%s:::%s" % (node_id, opening, label, closing, style or kind)


def node_kind(op_type):
    """The style class of an op type: feed, variable, runtime, constant, control or op."""
    if op_type in _RUNTIME_OPS:
        return "runtime"
    if op_type in _CONTROL_FLOW_OPS:
        return "control"
    if op_type in _FEED_OPS:
        return "feed"
    if op_type in _VARIABLE_OPS:
        return "variable"
    if op_type == "Const":
        return "constant"
    return "op"


def _main_attrs(node):
    shown = []
    for key in ("dtype", "T", "index", "value", "shape", "send_device", "recv_device"):
        if key not in node.attr:
            continue
        value = node.attr[key]
        if key.endswith("_device"):
            value = short_device_name(value)
        text = _attr_text(value)
        if len(text) <= 24:
            shown.append("%s=%s" % (key, text))
    return ", ".join(shown)


def _attr_text(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=4) if value.size <= 4 else "%s%s" % (
            value.dtype, list(value.shape))
    return str(getattr(value, "name", value))


def _edge_lines(nodes, ids, tensor_text):
    lines = []
    for node in nodes:
        for text in node.input:
            source, index, is_control = graph_def_lib.parse_input(text)
            if source not in ids:
                continue  # an input from outside this picture (another partition)
            if is_control:
                lines.append("    %s -.-> %s" % (ids[source], ids[node.name]))
                continue
            label = tensor_text(source, index)
            arrow = '-->|"%s"|' % _escape(label) if label else "-->"
            lines.append("    %s %s %s" % (ids[source], arrow, ids[node.name]))
    return lines + _rendezvous_lines(nodes, ids)


def _rendezvous_lines(nodes, ids):
    """A dotted arrow from each _Send to the _Recv that meets it in the Rendezvous."""
    sends = {n.attr.get("tensor_name"): n for n in nodes if n.op == "_Send"}
    lines = []
    for node in nodes:
        send = sends.get(node.attr.get("tensor_name")) if node.op == "_Recv" else None
        if send is not None:
            lines.append('    %s -.->|"rendezvous"| %s' % (ids[send.name], ids[node.name]))
    return lines


def short_device_name(device):
    """A device or task name as a figure shows it.

    `/job:localhost/replica:0/task:0/device:CPU:1` -> `CPU:1` (the one task of
    a local session); a task of a cluster keeps its job and index:
    `/job:ps/replica:0/task:0/device:CPU:0` -> `ps:0/CPU:0`,
    `/job:worker/replica:0/task:1` -> `worker:1`. Other names are unchanged.
    """
    match = _FULL_NAME.match(device)
    if match is None:
        return device
    task = "%s:%s" % (match.group("job"), match.group("task"))
    if match.group("device") is None:
        return task
    if match.group("job") == "localhost":
        return match.group("device")
    return "%s/%s" % (task, match.group("device"))


_FULL_NAME = re.compile(r"^/job:(?P<job>[^/]+)/replica:\d+/task:(?P<task>\d+)"
                        r"(?:/device:(?P<device>[^/]+))?$")


def _escape(text):
    """Text safe inside a quoted Mermaid label (Mermaid's own entity codes)."""
    return (str(text).replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;"))


# =============================================================================
# Placed graphs: one colour per device, and the edges partitioning cuts
# =============================================================================

# Fill and stroke of the nodes of the first, second, ... device of a placed graph.
_DEVICE_STYLES = (
    "fill:#e3f2fd,stroke:#1565c0",
    "fill:#fff3e0,stroke:#ef6c00",
    "fill:#e8f5e9,stroke:#2e7d32",
    "fill:#f3e5f5,stroke:#6a1b9a",
    "fill:#fffde7,stroke:#f9a825",
    "fill:#e0f7fa,stroke:#00838f",
)
_CUT_EDGE_STYLE = "stroke:#c62828,stroke-width:3px"


def placed_to_mermaid(nodes, placement, direction="TB", show_attrs=False, title=None):
    """Mermaid flowchart of a placed graph: nodes coloured by device, cut edges thick and red.

    `nodes` are NodeDefs (a pruned graph), `placement` is `{node name: device}`
    as the placer returns it. Each node keeps the shape of its kind and shows
    its device on a last line; every edge whose two ends are on different
    devices is drawn thick: partitioning will replace it by a `_Send`/`_Recv`
    pair.
    """
    nodes = list(nodes)
    devices = sorted({placement[n.name] for n in nodes}, key=_device_order)
    style_of = {device: "device%d" % i for i, device in enumerate(devices)}
    ids = {node.name: "n%d" % i for i, node in enumerate(nodes)}
    lines = ["flowchart %s" % direction]
    if title:
        lines.insert(0, "---\ntitle: %s\n---" % _escape(title))
    for node in nodes:
        device = placement[node.name]
        lines.append("    " + _node_text(node, ids[node.name], show_attrs,
                                         style=style_of[device], note=short_device_name(device)))
    cut, links = [], 0
    for source, target, is_control in _edges(nodes):
        if source not in ids:
            continue
        if placement[source] != placement[target]:
            cut.append(str(links))  # linkStyle counts links in the order they are drawn
        lines.append("    %s %s %s" % (ids[source], "-.->" if is_control else "-->", ids[target]))
        links += 1
    if cut:
        lines.append("    linkStyle %s %s" % (",".join(cut), _CUT_EDGE_STYLE))
    lines += ["    classDef device%d %s" % (i, _DEVICE_STYLES[i % len(_DEVICE_STYLES)])
              for i in range(len(devices))]
    return "\n".join(lines)


def _edges(nodes):
    """(source, target, is_control) for every input of every node, in order."""
    for node in nodes:
        for text in node.input:
            source, _, is_control = graph_def_lib.parse_input(text)
            yield source, node.name, is_control


def _device_order(device):
    """Devices by job, replica, task, type and index (CPU:2 before CPU:10)."""
    spec = DeviceSpec.from_string(device)
    return (spec.job or "", spec.replica or 0, spec.task or 0, spec.device_type or "",
            -1 if spec.device_index is None else spec.device_index)


Transfer = collections.namedtuple(
    "Transfer", ["tensor", "send", "recv", "send_device", "recv_device", "tensor_name",
                 "consumers"])


def transfers(partitions):
    """The `_Send`/`_Recv` pairs of a step's partitions, one Transfer per pair.

    `partitions` is `RunMetadata.partition_graphs` (a list of GraphDefs) or a
    dict `{device: [NodeDef]}`. A pair is matched by its `tensor_name` attr
    (the edge name of its rendezvous key); `tensor` is what the `_Send` reads
    (`^name` for a control edge, whose `_Send` reads a dummy constant) and
    `consumers` the nodes that read the `_Recv`. A distributed step's
    client-terminated `_Send`s and `_Recv`s (its fetches and feeds) are not
    transfers between devices, and are left out.
    """
    nodes, _ = _as_nodes(partitions, None)
    by_name = {node.name: node for node in nodes}
    recvs = {n.attr["tensor_name"]: n for n in nodes if n.op == "_Recv"}
    consumers = collections.defaultdict(list)
    for node in nodes:
        for text in node.input:
            consumers[graph_def_lib.parse_input(text)[0]].append(node.name)
    rows = []
    for send in (n for n in nodes if n.op == "_Send" and not n.attr.get("client_terminated")):
        recv = recvs.get(send.attr["tensor_name"])
        tensor = send.input[0]
        source = by_name.get(graph_def_lib.parse_input(tensor)[0])
        if _is_control_dummy(source):
            tensor = "^" + graph_def_lib.parse_input(source.input[0])[0]
        rows.append(Transfer(tensor, send.name, recv.name if recv else None,
                             send.attr["send_device"], send.attr["recv_device"],
                             send.attr["tensor_name"], consumers[recv.name] if recv else []))
    return rows


def _is_control_dummy(node):
    """A constant that only waits for other nodes: what a cut control edge sends."""
    return (node is not None and node.op == "Const" and bool(node.input)
            and all(text.startswith("^") for text in node.input))


def transfer_table(rows):
    """A fixed-width text table of Transfers: what goes where, and who reads it there."""
    table = [("tensor", "from", "to", "rendezvous edge", "read by")] + [
        (row.tensor, short_device_name(row.send_device), short_device_name(row.recv_device),
         row.tensor_name, _some(row.consumers)) for row in rows]
    widths = [max([minimum] + [len(cells[i]) for cells in table])
              for i, minimum in enumerate((22, 8, 8, 22))]
    return "\n".join(" ".join(cell.ljust(width) for cell, width in zip(cells, widths))
                     + " " + cells[-1] for cells in table).replace(" \n", "\n")


def _some(names, shown=2):
    """`a, b` or `a, b and 4 more`: a list that stays on one line."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    return "%s and %d more" % (", ".join(names[:shown]), len(names) - shown)


def partition_listing(partitions):
    """Each partition as text: a `# device` line, then one line per node (devices shortened)."""
    nodes, _ = _as_nodes(partitions, None)
    by_device = collections.OrderedDict()
    for node in nodes:
        by_device.setdefault(node.device, []).append(node)
    parts = []
    for device in sorted(by_device, key=_device_order):
        lines = [_shorten_devices(graph_def_lib.format_node(n).replace(" @ " + device, ""))
                 for n in by_device[device]]
        parts.append("# %s\n%s" % (device, "\n".join(lines)))
    return "\n\n".join(parts)


def _shorten_devices(text):
    """Full device names in `text` (attrs of _Send/_Recv) as `short_device_name` writes them."""
    return re.sub(r"/job:[^/\s,}]+/replica:\d+/task:\d+/device:[^/\s,}']+",
                  lambda match: short_device_name(match.group(0)), text)


# =============================================================================
# Name scopes: boxes and folded scopes
# =============================================================================

def gradient_scope(name):
    """The scope of the gradient function (or optimizer update) that built a node.

    `gradients/Square_grad/Mul` -> `gradients/Square_grad` (one call of a
    gradient function), `GradientDescent/update_W/ApplyGradientDescent` ->
    `GradientDescent/update_W` (one variable's update), the other ops of a
    `tf.gradients` call (initial gradients, sums) -> `gradients`, and a
    forward op -> None.
    """
    parts = name.split("/")
    for depth, part in enumerate(parts[:-1]):
        if part.endswith("_grad") or part.startswith("update_"):
            return "/".join(parts[:depth + 1])
    if len(parts) > 1 and _is_gradients_scope(parts[0]):
        return parts[0]
    return None


def _is_gradients_scope(part):
    """`gradients`, `gradients_1`, ...: the scopes tf.gradients opens."""
    head, _, number = part.partition("_")
    return head == "gradients" and (not number or number.isdigit())


def collapse_scopes(nodes, scope_of):
    """NodeDefs where every scope `scope_of` names is folded into one node.

    `scope_of(name)` gives the scope a node belongs to, or None to keep the
    node as it is. A folded node is named after its scope, counts its ops,
    and has as inputs everything the scope's ops read from outside it.
    """
    nodes = list(nodes)
    scopes = {node.name: scope_of(node.name) for node in nodes}
    representative = {name: scope or name for name, scope in scopes.items()}
    members = collections.defaultdict(list)
    for node in nodes:
        if scopes[node.name]:
            members[scopes[node.name]].append(node)
    result, folded = [], set()
    for node in nodes:
        scope = scopes[node.name]
        if scope is None:
            kept = node.copy()
            kept.input = _outside_inputs([node], node.name, representative)
            result.append(kept)
        elif scope not in folded:
            folded.add(scope)
            group = members[scope]
            result.append(graph_def_lib.NodeDef(
                scope, SCOPE_OP, _outside_inputs(group, scope, representative), node.device,
                {"num_ops": len(group)}))
    return result


def _outside_inputs(group, name, representative):
    """The inputs of `group`'s nodes from outside it, sources renamed to their
    representatives, without repeats; data inputs first, then control inputs."""
    data, control = [], []
    for node in group:
        for text in node.input:
            source, _, is_control = graph_def_lib.parse_input(text)
            target = representative.get(source, source)
            if target == name:
                continue  # an edge inside the folded scope
            if is_control:
                entry, entries = "^" + target, control
            elif target != source:
                entry, entries = target, data  # into a folded scope: one edge is enough
            else:
                entry, entries = text, data
            if entry not in entries:
                entries.append(entry)
    # A control edge from where a data edge already comes adds nothing to the picture.
    sources = {graph_def_lib.parse_input(text)[0] for text in data}
    return data + [c for c in control if c[1:] not in sources]


def loop_frames(nodes):
    """{node name: the while loop's frame it is in, or None outside every loop}.

    For `group_by`: one box per loop. An Enter is drawn in the loop it
    starts and an Exit in the loop it ends (the executor counts them in the
    frame around). Frames are TensorFlow's `frame_name`s, such as
    `while/while_context`.
    """
    info = control_loops.ControlFlowInfo(list(nodes))
    return {name: frame or None for name, frame in info.frame.items()}


# =============================================================================
# A step's schedule
# =============================================================================

ScheduleRow = collections.namedtuple(
    "ScheduleRow", ["node", "op", "device", "thread", "start_us", "end_us", "frame",
                    "iteration"], defaults=("", 0))


def schedule(step_stats):
    """The nodes of one traced step in start order, with times relative to the first start.

    `step_stats` is `RunMetadata.step_stats` from a run with
    `RunOptions(trace_level=RunOptions.FULL_TRACE)`. Threads are numbered
    0, 1, ... in order of first appearance.
    """
    stats = [s for device in step_stats.dev_stats for s in device.node_stats]
    if not stats:
        return []
    origin = min(s.all_start_micros for s in stats)
    threads = {}
    rows = []
    for stat in sorted(stats, key=lambda s: s.all_start_micros):
        thread = threads.setdefault(stat.thread_id, len(threads))
        start = stat.all_start_micros - origin
        rows.append(ScheduleRow(stat.node_name, stat.op, stat.device, thread, start,
                                start + stat.all_end_rel_micros, stat.frame_name, stat.iter_id))
    return rows


def schedule_table(rows, show_device=False):
    """A fixed-width text table of schedule rows (with a device column if `show_device`)."""
    head = "%-28s %-10s " % ("node", "op") + ("%-6s " % "device" if show_device else "")
    lines = [head + "%-6s %8s %8s" % ("thread", "start", "end")]
    for row in rows:
        device = "%-6s " % short_device_name(row.device) if show_device else ""
        lines.append("%-28s %-10s %s%-6d %6dus %6dus" % (row.node, row.op, device, row.thread,
                                                        row.start_us, row.end_us))
    return "\n".join(lines)


# Mermaid draws a Gantt chart as wide as the page it is drawn in and its text at
# 11 px, which a narrower column then scales down out of reach: drawn 900 px
# wide with 14 px text, a chart reads at the width of a docs page or a notebook.
_GANTT_CONFIG = ["---", "config:", "  gantt:", "    useWidth: 900", "    fontSize: 14",
                 "    sectionFontSize: 14", "    barHeight: 22", "---"]


def schedule_to_mermaid(step_stats, title="One step of the executor", lanes="thread"):
    """A Mermaid Gantt chart, one bar per node, in one section per lane.

    `lanes="thread"`: a section per (device, thread), to see what each thread
    did; `lanes="device"`: a section per device, to see the partitions of a
    step run side by side (as Perfetto shows a Chrome trace's processes);
    `lanes="iteration"`: a section per loop frame and iteration (the nodes
    outside loops first), to see iterations start and overlap.

    Mermaid's Gantt charts count in dates, to the millisecond; one
    microsecond of the step is drawn as one millisecond, so the axis, which
    reads `seconds.milliseconds`, shows the step's `milliseconds.microseconds`.
    """
    if lanes not in ("thread", "device", "iteration"):
        raise ValueError("lanes must be 'thread', 'device' or 'iteration', not %r" % (lanes,))
    rows = schedule(step_stats)
    lines = _GANTT_CONFIG + ["gantt", "    title %s (ms since the step began)" % title,
                             "    dateFormat x", "    axisFormat %S.%L"]
    sections = collections.OrderedDict()
    if lanes == "iteration":
        for row in sorted(rows, key=lambda r: (r.frame != "", r.start_us)):
            title = _iteration_title(row.frame, row.iteration) if row.frame else "outside loops"
            sections.setdefault(title, []).append(row)
    else:
        for row in sorted(rows, key=lambda r: _device_order(r.device)):
            device = short_device_name(row.device)
            title = device if lanes == "device" else "%s thread %d" % (device, row.thread)
            sections.setdefault(title, []).append(row)
    for title, section_rows in sections.items():
        lines.append("    section %s" % title)
        for row in section_rows:
            end = max(row.end_us, row.start_us + 1)
            lines.append("    %s (%s) : %d, %d" % (_gantt_text(row.node), _gantt_text(row.op),
                                                   row.start_us, end))
    return "\n".join(lines)


def _iteration_title(frame, iteration):
    """`outer iteration 2, inner iteration 1` for the run-time frame `;0;outer;2;inner`.

    A frame's run-time name is its parent's, the parent's iteration and its
    own `frame_name`, joined by `;` (the root frame is `""`).
    """
    parts = frame.split(";")
    names, iterations = parts[2::2], parts[3::2] + [str(iteration)]
    return _gantt_text(", ".join("%s iteration %s" % pair for pair in zip(names, iterations)))


def _gantt_text(text):
    return "".join(" " if c in ":;#" else c for c in text)


# =============================================================================
# Notebook display
# =============================================================================

class GraphView:
    """What `show` returns: renders as a Mermaid diagram in Markdown-aware front ends."""

    def __init__(self, graph, **options):
        self.graph = graph
        self.mermaid = to_mermaid(graph, **options)

    def _repr_markdown_(self):
        return "```mermaid\n%s\n```" % self.mermaid

    def __repr__(self):
        nodes, _ = _as_nodes(self.graph, None)
        return "\n".join(graph_def_lib.format_node(n) for n in nodes)


def show(graph=None, **options):
    """Displays a graph (default: the default graph) in a notebook; see `to_mermaid`."""
    return GraphView(ops.get_default_graph() if graph is None else graph, **options)
