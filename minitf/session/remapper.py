"""Remapping: one fused node where a partition spells out a known pattern.

Two patterns are fused.

**A contraction, its bias and its activation.** A dense layer is
`relu(matmul(x, w) + b)`: three nodes, three kernels, three arrays of the
layer's size. `_FusedMatMul(x, w, b)` with `fused_ops=["BiasAdd", "Relu"]`
computes the product into a new array and adds the bias and applies the
ReLU to it in place (minitf/kernels/cpu/fused_kernels.py): one node, one
array, the same numbers bit for bit. The bias may be added by `BiasAdd` or
by `Add`/`AddV2` of a vector as long as the product's last dimension (the
static shapes say so); the activation may be Relu or Relu6, or absent.
Conv2D (NHWC) with its bias and activation becomes `_FusedConv2D` the same
way. The fused node takes the name of the last node of the pattern, whose
output it gives.

**The deduplication of a sparse update.** Before a sparse update, an
optimizer sums the gradient rows of repeated indices
(`Optimizer._apply_sparse_duplicate_indices`, which calls
`_deduplicate_indexed_slices`). In the graph that is four nodes:

    unique_indices, positions = Unique(indices)
    count = StridedSlice(Shape(unique_indices), [0], [1], [1], shrink_axis_mask=1)
    summed_values = UnsortedSegmentSum(values, positions, count)

Run as they are, they sort the indices three times (in `Unique`, to number
them by first appearance, and in `UnsortedSegmentSum`), and the step pays
for four nodes. The remapper replaces the four with one
`_DeduplicateIndexedSlices(values, indices)` node that sorts once and gives
both results, the same numbers bit for bit. The fused node takes the name
of the `UnsortedSegmentSum` (its first output replaces it); the consumers of
`unique_indices` read its second output.

A pattern is only fused when nothing else reads its inner tensors (the
product before the bias, the positions, the count) and no control edge
touches it: then no one can tell the difference, except the step, which is
shorter. The client's graph is TensorFlow's, node for node; only the
partitions the executors run change. It is the last pass of
`graph_optimizer.PASSES`, after constant folding and the removal of
pass-through nodes.

Mirrors `tensorflow/core/grappler/optimizers/remapper.cc`, which fuses
Conv2D or MatMul + BiasAdd + an activation the same way; the deduplication
pattern is minitf's own.
"""

import numpy as np

from minitf.graph import dtypes
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef

FUSED_OP = "_DeduplicateIndexedSlices"

# Contractions and the fused op that replaces each with its bias and activation.
_CONTRACTIONS = {"MatMul": "_FusedMatMul", "Conv2D": "_FusedConv2D"}
_BIAS_ADDS = frozenset({"BiasAdd", "Add", "AddV2"})
_ACTIVATIONS = frozenset({"Relu", "Relu6"})
_FUSABLE_TYPES = frozenset({dtypes.float32, dtypes.float64})


def run(nodes, context):
    """The partition `nodes` with each pattern of the module docstring fused; a new list.

    (`context` is the graph passes' common argument; this pass needs nothing from it.)
    """
    return _fuse_contractions(_fuse_deduplications(nodes))


# --- a contraction, its bias and its activation -------------------------------------------

def _fuse_contractions(nodes):
    by_name = {node.name: node for node in nodes}
    readers = _readers(nodes)
    fused, removed = {}, set()
    for node in nodes:
        if node.op not in _CONTRACTIONS:
            continue
        match = _match_contraction(node, by_name, readers)
        if match is None:
            continue
        bias_add, bias, activation = match
        last = activation or bias_add
        fused_ops = ["BiasAdd"] + ([activation.op] if activation is not None else [])
        attr = {k: v for k, v in node.attr.items() if k != "_output_shapes"}
        attr.update(fused_ops=fused_ops, num_args=1, epsilon=0.0001)
        if "_output_shapes" in last.attr:
            attr["_output_shapes"] = last.attr["_output_shapes"]
        fused[last.name] = NodeDef(last.name, _CONTRACTIONS[node.op],
                                   [node.input[0], node.input[1], bias], node.device, attr)
        removed.update(n.name for n in (node, bias_add) if n is not last)
    if not fused:
        return list(nodes)
    return [fused.get(node.name, node) for node in nodes if node.name not in removed]


def _match_contraction(contraction, by_name, readers):
    """(the node adding the bias, the bias input, the activation or None), else None."""
    if (_has_control_edges(contraction, readers)
            or contraction.attr.get("T") not in _FUSABLE_TYPES
            or contraction.attr.get("data_format", "NHWC") not in ("NHWC", b"NHWC")):
        return None
    bias_add = _only_reader(contraction.name, by_name, readers)
    if bias_add is None or bias_add.op not in _BIAS_ADDS:
        return None
    bias = _bias_input(bias_add, contraction, by_name)
    if bias is None:
        return None
    activation = _only_reader(bias_add.name, by_name, readers)
    if activation is not None and activation.op not in _ACTIVATIONS:
        activation = None
    return bias_add, bias, activation


def _only_reader(name, by_name, readers):
    """The one node reading output 0 of `name`, when it is the only reader and has no control
    edges, else None."""
    reading = readers[name]  # (contractions and bias additions have one output)
    if len(reading) != 1:
        return None
    reader = by_name.get(reading[0])
    if reader is None or _has_control_edges(reader, readers):
        return None
    return reader


def _bias_input(bias_add, contraction, by_name):
    """The input of `bias_add` that is the bias of `contraction`'s output, else None.

    BiasAdd's second input is, by definition (NHWC only); for Add/AddV2 the
    other operand must be a vector as long as the product's last dimension,
    which the static shapes must say.
    """
    if bias_add.op == "BiasAdd":
        if (bias_add.input[0] != contraction.name
                or bias_add.attr.get("data_format", "NHWC") not in ("NHWC", b"NHWC")):
            return None
        return bias_add.input[1]
    inputs = list(bias_add.input)
    if sorted(graph_def_lib.parse_input(t)[:2] == (contraction.name, 0) for t in inputs) != [
            False, True]:
        return None  # the product must be exactly one of the two operands
    bias = inputs[1] if graph_def_lib.parse_input(inputs[0])[:2] == (contraction.name, 0) \
        else inputs[0]
    product_shape = _static_shape(contraction.name, by_name)
    bias_shape = _static_shape(bias, by_name)
    if (product_shape is None or bias_shape is None or product_shape.ndims is None
            or bias_shape.ndims != 1 or product_shape.ndims < 1):
        return None
    length, last = bias_shape.as_list()[0], product_shape.as_list()[-1]
    return bias if length is not None and length == last else None


def _static_shape(input_text, by_name):
    name, index, _ = graph_def_lib.parse_input(input_text)
    shapes = by_name[name].attr.get("_output_shapes") if name in by_name else None
    return shapes[index] if shapes and index < len(shapes) else None


# --- the deduplication of a sparse update ---------------------------------------------------

def _fuse_deduplications(nodes):
    by_name = {node.name: node for node in nodes}
    readers = _readers(nodes)
    removed, replaced, rewired = set(), {}, {}
    for node in nodes:
        if node.op != "UnsortedSegmentSum":
            continue
        match = _match(node, by_name, readers)
        if match is None:
            continue
        unique, shape, count, count_constants = match
        replaced[node.name] = NodeDef(
            node.name, FUSED_OP, [node.input[0], unique.input[0]], node.device,
            {"T": node.attr["T"], "Tindices": unique.attr["T"]})
        removed.update([unique.name, shape.name, count.name])
        removed.update(c for c in count_constants if readers[c] == [count.name])
        rewired[unique.name] = node.name + ":1"
    if not replaced:
        return list(nodes)
    result = []
    for node in nodes:
        if node.name in removed:
            continue
        node = replaced.get(node.name, node)
        result.append(_rewired(node, rewired))
    return result


def _match(segment_sum, by_name, readers):
    """(Unique, Shape, StridedSlice, its constant inputs) when `segment_sum` ends the
    pattern, else None."""
    if len(segment_sum.input) != 3 or _has_control_edges(segment_sum, readers):
        return None
    unique_name, positions_index, _ = graph_def_lib.parse_input(segment_sum.input[1])
    count_name, count_index, _ = graph_def_lib.parse_input(segment_sum.input[2])
    unique, count = by_name.get(unique_name), by_name.get(count_name)
    if (unique is None or unique.op != "Unique" or positions_index != 1
            or count is None or count.op != "StridedSlice" or count_index != 0
            or unique.attr.get("out_idx") != segment_sum.attr.get("Tindices")
            or _has_control_edges(unique, readers) or _has_control_edges(count, readers)):
        return None
    if readers[unique_name + ":1"] != [segment_sum.name] or readers[count_name] != [
            segment_sum.name]:
        return None  # someone else reads the positions or the count
    shape = by_name.get(graph_def_lib.parse_input(count.input[0])[0])
    if (shape is None or shape.op != "Shape" or _has_control_edges(shape, readers)
            or graph_def_lib.parse_input(shape.input[0])[:2] != (unique_name, 0)
            or readers[shape.name] != [count_name]):
        return None
    if not _takes_the_first_element(count, by_name):
        return None
    return unique, shape, count, [graph_def_lib.parse_input(t)[0] for t in count.input[1:]]


def _takes_the_first_element(strided_slice, by_name):
    """Whether the StridedSlice is `x[0]` of a vector: begin [0], end [1], strides [1]."""
    masks = [strided_slice.attr.get(m, 0) for m in (
        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")]
    if masks != [0, 0, 0, 0, 1] or len(strided_slice.input) != 4:
        return False
    wanted = ([0], [1], [1])
    for text, value in zip(strided_slice.input[1:], wanted):
        source = by_name.get(graph_def_lib.parse_input(text)[0])
        if (source is None or source.op != "Const" or source.input
                or np.asarray(source.attr["value"]).tolist() != value):
            return False
    return True


def _readers(nodes):
    """{"node" or "node:1" (an output), or "^node": the names of the nodes reading it}."""
    readers = _KeyDefault()
    for node in nodes:
        for text in node.input:
            name, index, is_control = graph_def_lib.parse_input(text)
            key = "^" + name if is_control else graph_def_lib.tensor_name(name, index)
            readers[key].append(node.name)
    return readers


class _KeyDefault(dict):
    def __missing__(self, key):
        self[key] = []
        return self[key]


def _has_control_edges(node, readers):
    return any(t.startswith("^") for t in node.input) or bool(readers["^" + node.name])


def _rewired(node, rewired):
    """`node` reading output 1 of the fused node wherever it read a fused Unique's output 0."""
    inputs = []
    for text in node.input:
        name, index, is_control = graph_def_lib.parse_input(text)
        inputs.append(rewired[name] if name in rewired and not is_control and index == 0
                      else text)
    if inputs == node.input:
        return node
    return NodeDef(node.name, node.op, inputs, node.device, node.attr)
