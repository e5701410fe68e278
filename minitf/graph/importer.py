"""import_graph_def: a GraphDef back into Python Operations of the default graph.

The inverse of `Graph.as_graph_def()`. Each NodeDef becomes an Operation
named `<prefix>/<node name>` (the prefix is the `name` argument, "import" by
default, made unique like any name scope; `name=""` means no prefix), its
input strings are wired to the new ops, and `input_map` lets some of those
inputs be replaced by tensors already in the graph (`{"x:0": t}`, or
`{"^x": op}` for a control input). `return_elements` names the ops ("y") or
tensors ("y:0") to hand back.

The imported ops obey the scopes around the call, as TF's do: every one gets
the control inputs of the enclosing `tf.control_dependencies` blocks, and
the device scopes apply with the node's own device taking precedence. A node
colocated with another (`_class: loc:@x`) takes that node's device.

`graph_def` may come from TensorFlow (`tf.GraphDef.FromString` of a frozen
model), so the importer checks every node against minitf's OpDefs before
it creates a single op, and refuses what it does not know with TF 1.15's
errors, naming the node and the op:

- an op type minitf does not have is a NotFoundError ("Op type not
  registered");
- an attr the op's OpDef does not declare (newer TensorFlows added some,
  such as MatMul's `grad_a` and `grad_b`, all false by default) is a
  ValueError, TF 1.15's wrapping of its InvalidArgumentError ("NodeDef
  mentions attr 'grad_a' not in Op<name=MatMul; ...>"). Attrs whose names
  start with "_" are the runtime's own and pass. As in TF 1.15, an unknown
  attr is dropped instead when `producer_op_list` (the OpDefs of the
  program that wrote the graph, which a meta graph carries as its
  `stripped_op_list`) says that it has exactly its default value: a
  newer op's attr at its default changes nothing. Without that list minitf
  cannot know the default and refuses, as TF 1.15 does; TensorFlow's answer
  for old readers is to write graphs with default attrs stripped
  (`strip_default_attrs=True`).

Mirrors `tensorflow/python/framework/importer.py` and the C++ importer
`tensorflow/core/graph/graph_constructor.cc`.
"""

from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.framework import op_def as op_def_lib
from minitf.graph import ops
from minitf.graph import tensor_conversion


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports `graph_def` into the default graph; returns the requested elements (or None)."""
    del op_dict  # accepted for compatibility; TF ignores it too
    graph_def = _as_graph_def(graph_def)
    if producer_op_list is not None:
        graph_def = _remove_default_attrs(producer_op_list, graph_def)
    input_map = _check_input_map(input_map)
    return_elements = _check_return_elements(return_elements)
    graph = ops.get_default_graph()
    with ops.name_scope(name, "import", list(input_map.values())) as scope:
        prefix = scope
        input_map = _convert_input_map_values(name, input_map)
    nodes = _nodes_by_name(graph_def)
    _check_input_map_keys(input_map, nodes)
    _check_return_elements_exist(return_elements, nodes)
    new_names = _import_names(graph, prefix, graph_def.node)
    back_edges = _back_edges(nodes)
    order = _topological_order(graph_def.node, nodes, back_edges)
    _check_nodes(graph, order, input_map, new_names)  # all checks first: no half import
    created = {}
    try:
        for node in order:
            created[node.name] = _import_node(graph, node, new_names, created, input_map,
                                              back_edges.get(node.name, ()))
        _close_back_edges(back_edges, nodes, created, input_map)
    except Exception:
        graph._remove_new_ops(list(created.values()))  # e.g. a shape function refused a node
        raise
    _apply_enclosing_scopes(graph, created, nodes)
    return _gather_return_elements(return_elements, created)


# --- checking the arguments -------------------------------------------------------

def _as_graph_def(graph_def):
    """minitf's GraphDef, or TensorFlow's message (minitf's or TensorFlow's own module) as one."""
    if isinstance(graph_def, graph_def_lib.GraphDef):
        return graph_def
    descriptor = getattr(type(graph_def), "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) == "tensorflow.GraphDef":
        return graph_def_lib.GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError("graph_def must be a GraphDef proto.")


def _remove_default_attrs(producer_op_list, graph_def):
    """A copy without the attrs minitf's OpDefs lack but the producer's give, at their default.

    `producer_op_list` has an `op` list of OpDefs (minitf's, or TensorFlow's
    messages). TF's `_RemoveDefaultAttrs`.
    """
    producer_op_defs = {op.name: _as_op_def(op) for op in producer_op_list.op}
    nodes = []
    for node in graph_def.node:
        producer = producer_op_defs.get(node.op)
        if producer is not None and op_def_lib.is_registered(node.op):
            known = op_def_lib.get_op_def(node.op).attrs
            node = node.copy()
            for name in [n for n in node.attr if n not in known and n in producer.attrs]:
                default = producer.attrs[name]
                if default.has_default and graph_def_lib.attr_values_equal(node.attr[name],
                                                                          default.default):
                    del node.attr[name]
        nodes.append(node)
    return graph_def_lib.GraphDef(nodes, graph_def.version)


def _as_op_def(op):
    if isinstance(op, op_def_lib.OpDef):
        return op
    from minitf.graph import graph_def_proto  # noqa: PLC0415 - protobuf is loaded only when used
    return graph_def_proto.op_def_from_proto(op)


def _check_input_map(input_map):
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    result = {}
    for key, value in input_map.items():
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        name, index, is_control = graph_def_lib.parse_input(key)
        result["^" + name if is_control else "%s:%d" % (name, index)] = value
    return result


def _check_return_elements(return_elements):
    if return_elements is None:
        return None
    if isinstance(return_elements, str) or not all(
            isinstance(x, str) for x in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    return list(return_elements)


def _convert_input_map_values(name, input_map):
    """Python values and arrays in `input_map` become constants under `<prefix>/_inputs`."""
    if all(isinstance(v, (ops.Tensor, ops.Operation)) for v in input_map.values()):
        return input_map
    if name == "":
        raise ValueError("tf.import_graph_def() requires a non-empty `name` if `input_map` "
                         "contains non-Tensor values. Try calling tf.convert_to_tensor() on "
                         "`input_map` values before calling tf.import_graph_def().")
    with ops.name_scope("_inputs"):
        return {k: v if isinstance(v, ops.Operation) else tensor_conversion.convert_to_tensor(v)
                for k, v in input_map.items()}


def _nodes_by_name(graph_def):
    nodes = {}
    for node in graph_def.node:
        if node.name in nodes:
            raise ValueError("Node '%s' is not unique in the GraphDef" % node.name)
        nodes[node.name] = node
    return nodes


def _check_input_map_keys(input_map, nodes):
    """Every key must name a node (and an existing output) of the GraphDef."""
    missing = []
    for key in input_map:
        name, index, is_control = graph_def_lib.parse_input(key)
        node = nodes.get(name)
        if node is None or (not is_control and index >= _num_outputs(node)):
            missing.append(key)
    if missing:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]"
                         % ", ".join(missing))


def _op_def(node):
    try:
        return op_def_lib.get_op_def(node.op)
    except KeyError:
        raise errors.NotFoundError(
            None, None, "Node '%s': Op type not registered '%s' in binary running on this "
            "host. Make sure the Op and Kernel are registered in the binary running in this "
            "process (minitf has no op of this type)." % (node.name, node.op)) from None


def _check_attrs_known(node, op_def):
    """TF's ValidateNodeDef: the node sets every attr its op needs, and only those (or "_x")."""
    for name, attr in op_def.attrs.items():
        if name not in node.attr and not attr.has_default:
            raise ValueError("NodeDef missing attr '%s' from Op<name=%s; attrs=%s>; NodeDef: "
                             "{{node %s}}" % (name, node.op, ", ".join(op_def.attrs),
                                              node.name))
    for name in sorted(node.attr):
        if name not in op_def.attrs and not name.startswith("_"):
            raise ValueError(
                "NodeDef mentions attr '%s' not in Op<name=%s; attrs=%s>; NodeDef: {{node %s}}. "
                "(Check whether your GraphDef-interpreting binary is up to date with your "
                "GraphDef-generating binary.)." % (name, node.op, ", ".join(op_def.attrs),
                                                   node.name))


def _num_outputs(node):
    op_def = _op_def(node)
    return len(op_def.output_dtypes(op_def.attrs_with_defaults(node.attr)))


def _back_edges(nodes):
    """{Merge name: its data input slots fed by a NextIteration}: a loop's back edges.

    A loop is a cycle (Merge, ..., NextIteration, Merge). As TensorFlow's
    importer does, the Merge is created before its NextIteration, with its
    loop-entry input standing in on the back edge, and the edge is closed
    once the NextIteration exists (`_close_back_edges`).
    """
    back_edges = {}
    for node in nodes.values():
        if node.op not in ("Merge", "RefMerge"):
            continue
        data_inputs = [text for text in node.input if not text.startswith("^")]
        for slot, text in enumerate(data_inputs):
            source = nodes.get(graph_def_lib.parse_input(text)[0])
            if source is not None and source.op in ("NextIteration", "RefNextIteration"):
                back_edges.setdefault(node.name, []).append(slot)
    return back_edges


def _topological_order(node_list, nodes, back_edges=None):
    """The nodes, each after all of its inputs but the loops' back edges (GraphDefs need
    not be sorted)."""
    back_edges = back_edges or {}
    order, state = [], {}
    for root in node_list:
        stack = [(root, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                state[node.name] = "done"
                order.append(node)
                continue
            if state.get(node.name) == "done":
                continue
            if state.get(node.name) == "visiting":
                raise ValueError("GraphDef has a cycle through node '%s'" % node.name)
            state[node.name] = "visiting"
            stack.append((node, True))
            data_inputs = [t for t in node.input if not t.startswith("^")]
            skipped = {data_inputs[slot] for slot in back_edges.get(node.name, ())}
            for text in reversed(node.input):
                source = graph_def_lib.parse_input(text)[0]
                if source not in nodes:
                    raise ValueError("Node '%s': Unknown input node '%s'" % (node.name, text))
                if state.get(source) != "done" and text not in skipped:
                    stack.append((nodes[source], False))
    return order


# --- creating the ops ------------------------------------------------------------------

def _import_names(graph, prefix, node_list):
    """{node name: name of its op}: `prefix + name`, made unique against the graph.

    Like TF's importer, a name already taken by a node, or by a scope that
    holds nodes, gets `_1`, `_2`, ... appended.
    """
    taken = set(graph._nodes_by_name)
    taken.update(_scopes_of(graph._nodes_by_name))
    wanted = {prefix + node.name for node in node_list}
    chosen = {}
    for node in node_list:
        name = prefix + node.name
        candidate, count = name, 0
        while candidate in taken or (count > 0 and candidate in wanted):
            count += 1
            candidate = "%s_%d" % (name, count)
        chosen[node.name] = candidate
        taken.add(candidate)
    return chosen


def _scopes_of(names):
    """"a/b/c" -> {"a", "a/b"}: the scopes that hold the named nodes."""
    scopes = set()
    for name in names:
        parts = name.split("/")
        scopes.update("/".join(parts[:i]) for i in range(1, len(parts)))
    return scopes


def _check_nodes(graph, order, input_map, new_names):
    """Every check that can fail, before any op is created.

    Each node's inputs must exist, be as many as its OpDef wants and have
    the dtypes it wants; a mapped input must be a tensor of the graph.
    """
    output_dtypes = {}
    for node in order:  # first every node's outputs: a loop's back edge reads a later node
        op_def = _op_def(node)
        _check_attrs_known(node, op_def)
        output_dtypes[node.name] = op_def.output_dtypes(
            op_def.attrs_with_defaults(dict(node.attr)))
    for node in order:
        op_def = _op_def(node)
        attrs = op_def.attrs_with_defaults(dict(node.attr))
        expected = op_def.input_dtypes(attrs)
        data_inputs = [t for t in node.input if not t.startswith("^")]
        if len(expected) != len(data_inputs):
            raise ValueError("Node '%s': expected %d inputs, got %d"
                             % (node.name, len(expected), len(data_inputs)))
        for i, (text, want) in enumerate(zip(data_inputs, expected)):
            got, where = _input_dtype(graph, node, text, output_dtypes, input_map)
            if not want.is_compatible_with(got):
                raise ValueError("Input %d of node %s was passed %s from %s incompatible with "
                                 "expected %s." % (i, new_names[node.name], got.name, where,
                                                   want.name))
        for group in attrs.get("_class", []):
            target = group[len("loc:@"):]
            if group.startswith("loc:@") and target not in new_names:
                raise ValueError("Node '%s' expects to be colocated with unknown node '%s'"
                                 % (node.name, target))


def _input_dtype(graph, node, text, output_dtypes, input_map):
    """(dtype, tensor name) of one data input, mapped or from the GraphDef."""
    source, index, _ = graph_def_lib.parse_input(text)
    mapped = input_map.get("%s:%d" % (source, index))
    if mapped is not None:
        if not isinstance(mapped, ops.Tensor) or mapped.graph is not graph:
            raise ValueError("Node '%s': input '%s' is mapped to %r, which is not a Tensor of "
                             "the default graph" % (node.name, text, mapped))
        return mapped.dtype, mapped.name
    outputs = output_dtypes[source]
    if index >= len(outputs):
        raise ValueError("Node '%s': Connecting to invalid output %d of source node %s which "
                         "has %d outputs" % (node.name, index, source, len(outputs)))
    return outputs[index], text


def _import_node(graph, node, new_names, created, input_map, back_edge_slots=()):
    op_def = _op_def(node)
    attrs = op_def.attrs_with_defaults(dict(node.attr))
    inputs, control_inputs = _wire_inputs(node, created, input_map, back_edge_slots)
    if "_class" in attrs:
        attrs["_class"] = [_renamed_group(group, new_names) for group in attrs["_class"]]
    with graph.control_dependencies(None):
        op = graph.create_op(node.op, inputs, op_def.output_dtypes(attrs),
                             name=new_names[node.name] + "/", attrs=attrs, op_def=op_def,
                             compute_device=False)
    graph._names_in_use.setdefault(op.name.lower(), 1)
    op._add_control_inputs(control_inputs)
    return op


def _wire_inputs(node, created, input_map, back_edge_slots=()):
    """The node's data inputs as Tensors and its control inputs as Operations.

    On a loop's back edge (`back_edge_slots`), not created yet, the Merge's
    first other input stands in until `_close_back_edges`.
    """
    inputs, control_inputs = [], []
    for text in node.input:
        source, index, is_control = graph_def_lib.parse_input(text)
        if is_control:
            mapped = input_map.get("^" + source)
            control_inputs.append(ops._as_operation(mapped) if mapped is not None
                                  else created[source])
        elif len(inputs) in back_edge_slots:
            inputs.append(None)
        else:
            inputs.append(_input_tensor(source, index, created, input_map))
    stand_in = next((t for t in inputs if t is not None), None)
    return [stand_in if t is None else t for t in inputs], control_inputs


def _input_tensor(source, index, created, input_map):
    mapped = input_map.get("%s:%d" % (source, index))
    return mapped if mapped is not None else created[source].outputs[index]


def _close_back_edges(back_edges, nodes, created, input_map):
    """Each Merge of a loop now reads its NextIteration."""
    for merge_name, slots in back_edges.items():
        data_inputs = [t for t in nodes[merge_name].input if not t.startswith("^")]
        for slot in slots:
            source, index, _ = graph_def_lib.parse_input(data_inputs[slot])
            created[merge_name]._update_input(slot, _input_tensor(source, index, created,
                                                                  input_map))


def _renamed_group(group, new_names):
    """`loc:@x` -> `loc:@<x's imported name>`."""
    if not group.startswith("loc:@"):
        return group
    return "loc:@" + new_names[group[len("loc:@"):]]


def _apply_enclosing_scopes(graph, created, nodes):
    """Control dependencies and devices of the scopes around the import call."""
    outer_control_inputs = _enclosing_control_inputs(graph)
    for op in created.values():
        op._add_control_inputs(outer_control_inputs)
        graph._record_op_seen_by_control_dependencies(op)
    colocated = {n: op for n, op in created.items() if _colocation_targets(op)}
    for node_name, op in created.items():
        if node_name not in colocated:
            op._set_device(nodes[node_name].device)  # the innermost request: it wins
            graph._apply_device_functions(op)
    for op in colocated.values():
        _take_colocated_device(graph, op)


def _enclosing_control_inputs(graph):
    """The control inputs of the enclosing control_dependencies blocks, in order."""
    result = []
    for controller in graph._control_dependencies_stack:
        result.extend(op for op in controller.control_inputs if op not in result)
    return result


def _colocation_targets(op):
    groups = op._attrs.get("_class", [])
    return [g[len("loc:@"):] for g in groups
            if g.startswith("loc:@") and g[len("loc:@"):] != op.name]


def _take_colocated_device(graph, op):
    """A colocated op ignores its own device and the scopes: it goes where its target is."""
    op._set_device("")
    for target in _colocation_targets(op):
        target_op = graph._nodes_by_name.get(target)
        if target_op is not None and target_op.device:
            op._set_device(target_op.device)
            break


def _check_return_elements_exist(names, nodes):
    for name in names or ():
        node_name, index, _ = graph_def_lib.parse_input(name)
        if node_name not in nodes:
            kind = "tensor" if ":" in name else "node"
            raise ValueError("Requested return %s '%s' not found in graph def" % (kind, name))
        if ":" in name and index >= _num_outputs(nodes[node_name]):
            raise ValueError("Invalid return output %d of node '%s', which has %d output(s)"
                             % (index, node_name, _num_outputs(nodes[node_name])))


def _gather_return_elements(names, created):
    if names is None:
        return None
    result = []
    for name in names:
        node_name, index, _ = graph_def_lib.parse_input(name)
        op = created[node_name]
        result.append(op.outputs[index] if ":" in name else op)
    return result
