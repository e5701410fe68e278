"""The course's figures and listings: the running example drawn at each stage.

A page of the course asks for a figure with `<!-- diagram: NAME -->` and for
a text listing with `<!-- listing: NAME -->`; `docs/hooks.py` expands them
with `figure(NAME)` and `listing(NAME)` when the site is built. Each recipe
builds the running example with `minitf.tour` (note 001's `W * x + b`, its
loss, its gradients, its training step), takes it to one stage of the
runtime (GraphDef, pruned graph, placed and partitioned graphs, a traced
step) and draws it with the general helpers of `minitf.visualize`, so a
figure always shows what the code really builds.

A new figure is one function added to `FIGURES` (or `LISTINGS`). This
module belongs to the docs, not to minitf: the library never imports it.
TensorFlow's guides have no counterpart; their figures are drawn by hand.
"""

import os
import pathlib
import struct
import tempfile
import textwrap

import numpy as np

import minitf as tf
from minitf import tour, visualize
from minitf.device.device import local_devices
from minitf.device.partition import partition
from minitf.device.placer import place
from minitf.framework import table
from minitf.framework import tensor_bundle
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import graph_def_proto
from minitf.session import subgraph


# =============================================================================
# Figures
# =============================================================================

def _figure_user_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(example.graph, direction="TB", edge_labels="name")


def _figure_graph_def():
    example = tour.build_running_example()
    return visualize.to_mermaid(example.graph.as_graph_def(), direction="TB",
                                show_attrs=True)


def _figure_pruned_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(tour.prune_for_output(example), direction="TB",
                                show_attrs=True)


def _figure_partitioned_graph():
    example = tour.build_running_example(loss_device="/cpu:1")
    return visualize.to_mermaid(tour.partition_for_loss(example), direction="TB",
                                show_attrs=True)


def _figure_placed_graph():
    example = tour.build_running_example(loss_device="/cpu:1")
    nodes, placement = _placed_loss_graph(example)
    return visualize.placed_to_mermaid(nodes, placement, direction="TB")


def _placed_loss_graph(example, num_cpus=2):
    """(pruned nodes, placement) of `sess.run(loss, {x, y})` on `num_cpus` CPUs."""
    nodes = tour.prune_for_loss(example)
    return nodes, place(nodes, local_devices({"CPU": num_cpus}))


def _two_cpu_loss_run():
    """(loss, RunMetadata) of a traced `sess.run(loss)` with the loss on /cpu:1 of two CPUs."""
    example = tour.build_running_example(loss_device="/cpu:1")
    return tour.traced_loss_run(example, config=tf.ConfigProto(device_count={"CPU": 2}))


def _figure_device_timeline():
    _, run_metadata = _two_cpu_loss_run()
    return visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="device",
                                         title="sess.run(loss) with the loss on CPU:1")


def _figure_schedule():
    example = tour.build_running_example()
    _, run_metadata = tour.traced_loss_run(example)
    return visualize.schedule_to_mermaid(run_metadata.step_stats,
                                         title="sess.run(loss) on the running example")


# The Distributed chapter's cluster: one ps, two workers (the addresses are never dialled).
CLUSTER = {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]}
CLIENT_TASK = "/job:worker/replica:0/task:0"


def _cluster_loss_run():
    """(pruned nodes, placement, partitions) of `sess.run(loss, {x, y})` on CLUSTER.

    The running example under `replica_device_setter`: W and b on the ps,
    `out` on worker 0, the loss on worker 1; the client's session is on
    worker 0's master, so the feeds and the fetch are client-terminated
    `_Recv`s and `_Send`s on worker 0's CPU, as the master rewrites them.
    """
    setter = tf.train.replica_device_setter(cluster=CLUSTER,
                                            worker_device="/job:worker/task:0")
    example = tour.build_running_example(loss_device="/job:worker/task:1",
                                         device_function=setter)
    devices = [device for job, tasks in CLUSTER.items() for index in range(len(tasks))
               for device in local_devices(job_prefix="/job:%s/replica:0/task:%d"
                                           % (job, index))]
    devices.sort(key=lambda d: (not d.name.startswith(CLIENT_TASK), d.name))
    incarnations = {d.name: i + 1 for i, d in enumerate(devices)}
    nodes = subgraph.rewrite_for_execution(
        tour.graph_nodes(example), [example.x.name, example.y.name], [example.loss.name], [],
        client_device=(devices[0].name, incarnations[devices[0].name]))
    placement = place(nodes, devices)
    return nodes, placement, partition(nodes, placement, incarnations)


def _figure_cluster_placed_graph():
    nodes, placement, _ = _cluster_loss_run()
    # Every task has one device, CPU:0: each node is labelled with its task alone,
    # which keeps the nodes narrow enough for the labels to stay readable.
    tasks = {name: device.rsplit("/device:", 1)[0] for name, device in placement.items()}
    return visualize.placed_to_mermaid(nodes, tasks, direction="TB")


def _cluster_partition(task):
    """A figure of one task's share of the cluster run: its partition alone."""
    def figure():
        _, _, partitions = _cluster_loss_run()
        share = {device: nodes for device, nodes in partitions.items()
                 if device.startswith(task + "/")}
        return visualize.to_mermaid(share, direction="TB")
    return figure


def _without_initializers(nodes):
    """The nodes of a graph minus the variables' initial values, Assigns and `init`."""
    return [n for n in nodes if n.name != "init" and not n.name.endswith(("/Assign",
                                                                         "/initial_value"))]


def _figure_forward_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(_without_initializers(example.graph.as_graph_def().node),
                                direction="TB")


def _gradient_nodes():
    example = tour.build_running_example()
    tour.add_gradients(example)
    return _without_initializers(example.graph.as_graph_def().node)


def _figure_gradient_graph():
    """The running example after tf.gradients, one node per call of a gradient function."""
    folded = visualize.collapse_scopes(_gradient_nodes(), visualize.gradient_scope)
    return visualize.to_mermaid(folded, direction="TB")


def _figure_mul_grad():
    """The ops of one gradient function, `gradients/mul_grad`, and the tensors they read."""
    return _one_scope("gradients/mul_grad", _gradient_nodes())


def _one_scope(scope, nodes):
    """The nodes of `scope` in a box, and the nodes outside it that they read."""
    inside = [n for n in nodes if visualize.gradient_scope(n.name) == scope]
    read = {graph_def_lib.parse_input(text)[0] for n in inside for text in n.input}
    outside = [n for n in nodes if n.name in read and n not in inside]
    return visualize.to_mermaid(outside + inside, direction="TB",
                                group_by=lambda name: scope if name.startswith(scope + "/")
                                else None)


def _figure_training_graph():
    example = tour.build_running_example()
    tour.add_training(example)
    nodes = _without_initializers(example.graph.as_graph_def().node)
    folded = visualize.collapse_scopes(nodes, _backward_scope)
    return visualize.to_mermaid(folded, direction="TB", group_by=_update_scope)


def _backward_scope(name):
    """The gradient-function scope of a backward op; None for any other op."""
    scope = visualize.gradient_scope(name)
    return None if scope is None or _is_update_scope(scope) else scope


def _update_scope(name):
    """The `<optimizer>/update_<var>` scope of an update op; None for any other op."""
    scope = visualize.gradient_scope(name)
    return scope if scope is not None and _is_update_scope(scope) else None


def _is_update_scope(scope):
    return scope.rsplit("/", 1)[-1].startswith("update_")


# Control-flow graphs are wide: nodes packed closer keep their text readable.
_COMPACT = "---\nconfig:\n  flowchart:\n    nodeSpacing: 8\n    rankSpacing: 24\n---\n"


def _figure_cond_graph():
    example = tour.build_running_example()
    prediction, use_bias = tour.add_cond(example)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example),
                                           [example.x.name, use_bias.name], [prediction.name], [])
    return _COMPACT + visualize.to_mermaid(nodes, direction="TB", group_by=_cond_scope)


def _cond_scope(name):
    return "cond" if name.startswith("cond/") else None


def _figure_loop_graph():
    example = tour.build_running_example()
    w, b = tour.add_training_loop(example, steps=100)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example),
                                           [example.x.name, example.y.name], [w.name, b.name], [])
    folded = visualize.collapse_scopes([n for n in nodes if n.op not in ("_Arg", "_Retval")],
                                       _loop_body_scope)
    return _COMPACT + visualize.to_mermaid(folded, direction="TB",
                                           group_by=visualize.loop_frames(folded).get)


_LOSS_OPS = ("while/mul", "while/add", "while/sub", "while/Square", "while/Rank", "while/range")
_STEP_OPS = ("while/add_1", "while/mul_1", "while/sub_1", "while/mul_2", "while/sub_2")


def _figure_loop_gradient_half(forward):
    """The power loop's gradient graph, one frame at a time: the forward frame (`forward`)
    or the gradient frame, each with the nodes outside both frames that it touches
    (constants left out). Both at once are too wide to read."""
    example = tour.build_running_example()
    _, gradient = tour.add_power_loop(example)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example), [], [gradient.name], [])
    frames = visualize.loop_frames(nodes)
    inside = {n.name for n in nodes if (frames[n.name] == "gradients/while/while_context") != forward}
    near = set(inside)
    for node in nodes:
        sources = {graph_def_lib.parse_input(t)[0] for t in node.input}
        if node.name in inside:
            near |= {s for s in sources if not frames[s]}
        elif sources & inside and not frames[node.name]:
            near.add(node.name)
    shown = [n for n in nodes if n.name in near and n.op not in ("_Arg", "_Retval")
             and not (n.op == "Const" and not frames[n.name])]
    return _COMPACT + visualize.to_mermaid(shown, direction="TB", group_by=frames.get)


def _loop_body_scope(name):
    """The training loop's body folded into three nodes: the loss, its gradients, the step."""
    if name.startswith("while/gradients/"):
        return "while/gradients"
    op_name = (name.rsplit("/", 1)[0]
               if name.endswith(("/x", "/y", "/start", "/delta", "/Enter")) else name)
    if op_name in _LOSS_OPS:
        return "while/loss"
    if op_name in _STEP_OPS:
        return "while/step"
    return None


def _figure_loop_schedule():
    example = tour.build_running_example()
    loss, _ = tour.add_loop_loss(example)
    _, run_metadata = tour.traced_loss_run(example._replace(loss=loss))
    return visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="iteration",
                                         title="sess.run(loss) with the loss summed in a loop")


# =============================================================================
# Listings
# =============================================================================

def _listing_graph_def():
    return str(tour.build_running_example().graph.as_graph_def())


def _listing_tensor_bundle():
    """The running example's checkpoint (W = 0.3, b = -0.3), its two files byte by byte."""
    with tempfile.TemporaryDirectory() as directory:
        prefix = os.path.join(directory, "model.ckpt")
        tensor_bundle.write_checkpoint(prefix, [("W", np.float32(tour.W_INIT), tf.float32),
                                                ("b", np.float32(tour.B_INIT), tf.float32)])
        with open(tensor_bundle.data_filename(prefix), "rb") as f:
            data = f.read()
        with open(tensor_bundle.index_filename(prefix), "rb") as f:
            index = f.read()
    lines = ["model.ckpt.data-00000-of-00001 (%d bytes)" % len(data),
             _bytes_line(0, data[:4], "W: float32 0.3, little-endian"),
             _bytes_line(4, data[4:], "b: float32 -0.3"), "",
             "model.ckpt.index (%d bytes)" % len(index)]
    footer = len(index) - table.FOOTER_SIZE
    metaindex, end_of_first = table.decode_handle(index[footer:])
    index_handle, end = table.decode_handle(index[footer:], end_of_first)
    data_handle, _ = table.decode_handle(table.read_block(index[slice(
        index_handle[0], index_handle[0] + index_handle[1])])[0][1])
    lines += _block_lines(index, data_handle, "data block", _describe_value)
    lines += _block_lines(index, metaindex, "metaindex block (empty)", None)
    lines += _block_lines(index, index_handle, "index block", _describe_handle)
    lines.append("  footer")
    lines.append(_bytes_line(footer, index[footer:footer + end_of_first],
                             "metaindex block at %d, %d bytes" % metaindex))
    lines.append(_bytes_line(footer + end_of_first, index[footer + end_of_first:footer + end],
                             "index block at %d, %d bytes" % index_handle))
    lines.append(_bytes_line(footer + end, b"\0" * 3,
                             "... zeros up to 40 bytes (%d of them)" % (40 - end)))
    lines.append(_bytes_line(len(index) - 8, index[-8:], "magic number 0xdb4775248b80fb57"))
    return "\n".join(lines)


def _bytes_line(offset, raw, meaning):
    shown = " ".join("%02x" % b for b in raw[:12]) + (" .." if len(raw) > 12 else "")
    return "  %04x  %-38s %s" % (offset, shown, meaning)


def _block_lines(raw, handle, title, describe):
    """One line per entry of the block at `handle`, then its restarts and trailer."""
    offset, size = handle
    contents = raw[offset:offset + size]
    lines = ["  %s (offset %d, %d bytes)" % (title, offset, size)]
    position, key = 0, b""
    num_restarts, = struct.unpack_from("<I", contents, size - 4)
    limit = size - 4 * (num_restarts + 1)
    while position < limit:
        start = position
        shared, position = table.get_varint(contents, position)
        unshared, position = table.get_varint(contents, position)
        length, position = table.get_varint(contents, position)
        key = key[:shared] + contents[position:position + unshared]
        lines.append(_bytes_line(offset + start, contents[start:position],
                                 "entry: %d key bytes shared, %d new, value of %d"
                                 % (shared, unshared, length)))
        if unshared:
            lines.append(_bytes_line(offset + position, contents[position:position + unshared],
                                     "key %r" % key.decode()))
        position += unshared
        value = contents[position:position + length]
        lines.append(_bytes_line(offset + position, value, describe(key, value)))
        position += length
    lines.append(_bytes_line(offset + limit, contents[limit:size],
                             "restart points %s, their count"
                             % list(struct.unpack_from("<%dI" % num_restarts, contents, limit))))
    trailer = raw[offset + size:offset + size + table.TRAILER_SIZE]
    lines.append(_bytes_line(offset + size, trailer, "trailer: no compression, masked CRC-32C"))
    return lines


def _describe_value(key, value):
    from minitf.proto import tensor_bundle_pb2  # noqa: PLC0415 - protobuf only when drawing
    if key == tensor_bundle.HEADER_KEY:
        header = tensor_bundle_pb2.BundleHeaderProto.FromString(value)
        return "header: num_shards %d, version %d" % (header.num_shards,
                                                     header.version.producer)
    entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
    return "entry: %s, shape %s, offset %d, size %d, crc32c %08x" % (
        tf.as_dtype(entry.dtype).name, [d.size for d in entry.shape.dim], entry.offset,
        entry.size, entry.crc32c)


def _describe_handle(key, value):
    (offset, size), _ = table.decode_handle(value)
    return "the data block: offset %d, size %d" % (offset, size)


def _listing_graph_def_text():
    graph_def = tour.build_running_example().graph.as_graph_def()
    return graph_def_proto.graph_def_to_text(graph_def)


def _listing_pruned_graph():
    nodes = tour.prune_for_output(tour.build_running_example())
    return "\n".join(graph_def_lib.format_node(n) for n in nodes)


def _listing_partition_graphs():
    partitions = tour.partition_for_loss(tour.build_running_example(loss_device="/cpu:1"))
    return _wrapped(visualize.partition_listing(partitions))


def _wrapped(text, width=96):
    """`text` with each line longer than `width` folded, so that a listing fits the page."""
    return "\n".join(textwrap.fill(line, width, subsequent_indent="    ", break_long_words=False,
                                   break_on_hyphens=False) if len(line) > width else line
                     for line in text.splitlines())


def _listing_transfers():
    partitions = tour.partition_for_loss(tour.build_running_example(loss_device="/cpu:1"))
    return visualize.transfer_table(visualize.transfers(partitions))


def _listing_device_schedule():
    _, run_metadata = _two_cpu_loss_run()
    rows = visualize.schedule(run_metadata.step_stats)
    return visualize.schedule_table(rows, show_device=True)


def _listing_cluster_partitions():
    return _wrapped(visualize.partition_listing(_cluster_loss_run()[2]))


def _listing_cluster_transfers():
    return _wrapped(visualize.transfer_table(visualize.transfers(_cluster_loss_run()[2])))


def _listing_services():
    """The two services as minitf/proto declares them (the method table of the chapter)."""
    proto = pathlib.Path(tf.__file__).parent / "proto"
    return "\n\n".join(_service_block(proto / name)
                        for name in ("master_service.proto", "worker_service.proto"))


def _service_block(path):
    """The `service ... { ... }` block of a .proto file."""
    text = path.read_text(encoding="utf-8")
    start = text.index("service ")
    return text[start:text.index("}", start) + 1]


def _listing_schedule():
    _, run_metadata = tour.traced_loss_run(tour.build_running_example())
    return visualize.schedule_table(visualize.schedule(run_metadata.step_stats))


# =============================================================================
# The named figures and listings the pages ask for
# =============================================================================

FIGURES = {
    "user-graph": _figure_user_graph,
    "graph-def": _figure_graph_def,
    "pruned-graph": _figure_pruned_graph,
    "placed-graph": _figure_placed_graph,
    "partitioned-graph": _figure_partitioned_graph,
    "schedule": _figure_schedule,
    "device-timeline": _figure_device_timeline,
    "forward-graph": _figure_forward_graph,
    "gradient-graph": _figure_gradient_graph,
    "mul-grad": _figure_mul_grad,
    "training-graph": _figure_training_graph,
    "cluster-placed-graph": _figure_cluster_placed_graph,
    "cluster-partition-ps": _cluster_partition("/job:ps/replica:0/task:0"),
    "cluster-partition-worker0": _cluster_partition("/job:worker/replica:0/task:0"),
    "cluster-partition-worker1": _cluster_partition("/job:worker/replica:0/task:1"),
    "cond-graph": _figure_cond_graph,
    "loop-graph": _figure_loop_graph,
    "loop-gradient-forward": lambda: _figure_loop_gradient_half(forward=True),
    "loop-gradient-backward": lambda: _figure_loop_gradient_half(forward=False),
    "loop-schedule": _figure_loop_schedule,
}

LISTINGS = {
    "graph-def-text": _listing_graph_def_text,
    "tensor-bundle": _listing_tensor_bundle,
    "graph-def": _listing_graph_def,
    "pruned-graph": _listing_pruned_graph,
    "schedule": _listing_schedule,
    "partition-graphs": _listing_partition_graphs,
    "transfers": _listing_transfers,
    "device-schedule": _listing_device_schedule,
    "cluster-partitions": _listing_cluster_partitions,
    "cluster-transfers": _listing_cluster_transfers,
    "services": _listing_services,
}


def figure(name):
    """The Mermaid text of one of the course's named figures (see FIGURES)."""
    if name not in FIGURES:
        raise KeyError("No figure named %r; known figures: %s" % (name, ", ".join(FIGURES)))
    return FIGURES[name]()


def listing(name):
    """The text of one of the course's named listings (see LISTINGS)."""
    if name not in LISTINGS:
        raise KeyError("No listing named %r; known listings: %s" % (name, ", ".join(LISTINGS)))
    return LISTINGS[name]()
