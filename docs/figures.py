"""The course's figures and listings: the running example drawn at each stage.

A page of the course asks for a figure with `<!-- diagram: NAME -->` and for
a text listing with `<!-- listing: NAME -->`; `docs/hooks.py` expands them
with `figure(NAME)` and `listing(NAME)` when the site is built. Each recipe
builds the running example with `minitf.tour` (seed 001's `W * x + b`, its
loss, its gradients, its training step), takes it to one stage of the
runtime (GraphDef, pruned graph, placed and partitioned graphs, a traced
step) and draws it with the general helpers of `minitf.visualize`, so a
figure always shows what the code really builds.

A new figure is one function added to `FIGURES` (or `LISTINGS`). This
module belongs to the docs, not to minitf: the library never imports it.
TensorFlow's guides have no counterpart; their figures are drawn by hand.
"""

import minitf as tf
from minitf import tour, visualize
from minitf.device.device import local_devices
from minitf.device.placer import place
from minitf.graph import graph_def as graph_def_lib
from minitf.session import subgraph


# =============================================================================
# Figures
# =============================================================================

def _figure_user_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(example.graph, direction="LR", edge_labels="name")


def _figure_graph_def():
    example = tour.build_running_example()
    return visualize.to_mermaid(example.graph.as_graph_def(), direction="LR",
                                show_attrs=True)


def _figure_pruned_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(tour.prune_for_output(example), direction="LR",
                                show_attrs=True)


def _figure_partitioned_graph():
    example = tour.build_running_example(loss_device="/cpu:1")
    return visualize.to_mermaid(tour.partition_for_loss(example), direction="LR",
                                show_attrs=True)


def _figure_placed_graph():
    example = tour.build_running_example(loss_device="/cpu:1")
    nodes, placement = _placed_loss_graph(example)
    return visualize.placed_to_mermaid(nodes, placement, direction="LR")


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


def _without_initializers(nodes):
    """The nodes of a graph minus the variables' initial values, Assigns and `init`."""
    return [n for n in nodes if n.name != "init" and not n.name.endswith(("/Assign",
                                                                         "/initial_value"))]


def _figure_forward_graph():
    example = tour.build_running_example()
    return visualize.to_mermaid(_without_initializers(example.graph.as_graph_def().node),
                                direction="LR")


def _figure_gradient_graph():
    example = tour.build_running_example()
    tour.add_gradients(example)
    nodes = _without_initializers(example.graph.as_graph_def().node)
    return visualize.to_mermaid(nodes, direction="LR", group_by=visualize.gradient_scope)


def _figure_training_graph():
    example = tour.build_running_example()
    tour.add_training(example)
    nodes = _without_initializers(example.graph.as_graph_def().node)
    folded = visualize.collapse_scopes(nodes, _backward_scope)
    return visualize.to_mermaid(folded, direction="LR", group_by=_update_scope)


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


def _figure_cond_graph():
    example = tour.build_running_example()
    prediction, use_bias = tour.add_cond(example)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example),
                                           [example.x.name, use_bias.name], [prediction.name], [])
    return visualize.to_mermaid(nodes, direction="LR", group_by=_cond_scope)


def _cond_scope(name):
    return "cond" if name.startswith("cond/") else None


def _figure_loop_graph():
    example = tour.build_running_example()
    w, b = tour.add_training_loop(example, steps=100)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example),
                                           [example.x.name, example.y.name], [w.name, b.name], [])
    folded = visualize.collapse_scopes(nodes, _loop_gradients_scope)
    return visualize.to_mermaid(folded, direction="LR",
                                group_by=visualize.loop_frames(folded).get)


def _loop_gradients_scope(name):
    """The `tf.gradients` call inside the training loop's body, folded into one node."""
    return "while/gradients" if name.startswith("while/gradients/") else None


def _figure_loop_gradient_graph():
    example = tour.build_running_example()
    _, gradient = tour.add_power_loop(example)
    nodes = subgraph.rewrite_for_execution(tour.graph_nodes(example), [], [gradient.name], [])
    return visualize.to_mermaid(nodes, direction="LR", group_by=visualize.loop_frames(nodes).get)


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


def _listing_pruned_graph():
    nodes = tour.prune_for_output(tour.build_running_example())
    return "\n".join(graph_def_lib.format_node(n) for n in nodes)


def _listing_partition_graphs():
    partitions = tour.partition_for_loss(tour.build_running_example(loss_device="/cpu:1"))
    return visualize.partition_listing(partitions)


def _listing_transfers():
    partitions = tour.partition_for_loss(tour.build_running_example(loss_device="/cpu:1"))
    return visualize.transfer_table(visualize.transfers(partitions))


def _listing_device_schedule():
    _, run_metadata = _two_cpu_loss_run()
    rows = visualize.schedule(run_metadata.step_stats)
    return visualize.schedule_table(rows, show_device=True)


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
    "training-graph": _figure_training_graph,
    "cond-graph": _figure_cond_graph,
    "loop-graph": _figure_loop_graph,
    "loop-gradient-graph": _figure_loop_gradient_graph,
    "loop-schedule": _figure_loop_schedule,
}

LISTINGS = {
    "graph-def": _listing_graph_def,
    "pruned-graph": _listing_pruned_graph,
    "schedule": _listing_schedule,
    "partition-graphs": _listing_partition_graphs,
    "transfers": _listing_transfers,
    "device-schedule": _listing_device_schedule,
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
