"""Removing nodes that only pass their input through.

Three kinds of node give back their input unchanged, and a gradient graph
has several of them:

- a `Reshape` to the shape its input already has: the gradient of
  `embedding_lookup` reshapes its values to `[-1, 64]` and its indices to
  `[-1]`, which they often are already;
- an `Identity` of a value (not of a variable's reference, which is how a
  variable is read): the ops wrap their results in one to give them a name,
  such as `embedding_lookup/Identity`;
- a reduction (`Sum`, `Mean`, `Prod`, `Max`, `Min`) over no axes at all: the
  gradient of `x + b` sums the gradient over the axes where `x` was
  broadcast, and constant folding finds there are none (a copy of the
  whole gradient, every step, if it ran).

Where the static shapes (the `_output_shapes` the client sends) say a
`Reshape` changes nothing, and for every such `Identity`, the consumers
read the node's input instead and the node is dropped. A node with control
edges, in or out, stays: something waits for it, or it for something.
It is the second pass of `graph_optimizer.PASSES`, after constant folding.

Mirrors two stages of TensorFlow's Grappler: the arithmetic optimizer's
removal of redundant reshapes and the dependency optimizer's removal of
identities (`tensorflow/core/grappler/optimizers/arithmetic_optimizer.cc`,
`dependency_optimizer.cc`), which also keep the identities that read a
variable.
"""

import numpy as np

from minitf.framework import node_def_util
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef


def run(nodes, context):
    """The partition `nodes` without its pass-through nodes; a new list.

    (`context` is the graph passes' common argument; this pass needs nothing from it.)
    """
    controlled = {graph_def_lib.parse_input(t)[0] for n in nodes for t in n.input
                  if t.startswith("^")}
    by_name = {node.name: node for node in nodes}
    bypass = {node.name: node.input[0] for node in nodes
              if node.name not in controlled and _passes_through(node, by_name)}
    if not bypass:
        return list(nodes)
    return [_rewired(node, bypass) for node in nodes if node.name not in bypass]


def _passes_through(node, by_name):
    if any(text.startswith("^") for text in node.input):
        return False
    if node.op == "Identity":
        return not _reads_a_reference(node.input[0], by_name)
    if node.op in _REDUCTIONS:
        return _reduces_over_no_axes(node, by_name)
    if node.op == "Reshape":
        before = _static_shape(node.input[0], by_name)
        after = node.attr.get("_output_shapes", [None])[0]
        return (before is not None and after is not None and before.is_fully_defined()
                and after.is_fully_defined() and before.as_list() == after.as_list())
    return False


_REDUCTIONS = frozenset({"Sum", "Mean", "Prod", "Max", "Min"})


def _reduces_over_no_axes(node, by_name):
    """Whether the reduction's axes are a constant with no elements."""
    axes = by_name.get(graph_def_lib.parse_input(node.input[1])[0])
    if axes is None or axes.op != "Const" or axes.input:
        return False
    return np.asarray(axes.attr["value"]).size == 0


def _reads_a_reference(input_text, by_name):
    name, index, _ = graph_def_lib.parse_input(input_text)
    source = by_name.get(name)
    if source is None:
        return True  # not known here: keep the node
    return node_def_util.output_types(source)[index].is_ref_dtype


def _static_shape(input_text, by_name):
    name, index, _ = graph_def_lib.parse_input(input_text)
    shapes = by_name[name].attr.get("_output_shapes") if name in by_name else None
    return shapes[index] if shapes and index < len(shapes) else None


def _rewired(node, bypass):
    """`node` reading, for each input from a removed node, that node's own input."""
    inputs = []
    for text in node.input:
        name, index, is_control = graph_def_lib.parse_input(text)
        seen = set()
        while not is_control and name in bypass and index == 0 and name not in seen:
            seen.add(name)  # a cycle of them (an invalid graph) is left for the executor
            text = bypass[name]  # a chain of pass-through nodes resolves to its start
            name, index, _ = graph_def_lib.parse_input(text)
        inputs.append(text)
    if inputs == node.input:
        return node
    return NodeDef(node.name, node.op, inputs, node.device, node.attr)
