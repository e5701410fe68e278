"""Rewriting a GraphDef for one run: feeds in, fetches out, and pruning.

For a given (feeds, fetches, targets) the session builds the graph it will
actually execute:

1. each fed tensor `x:0` is replaced by an `_Arg` node that reads the fed
   value from the step's call frame, and its consumers are rewired to it
   (a fed placeholder's control edges move to the `_Arg` too, so the
   placeholder itself never runs);
2. each fetched tensor gets a `_Retval` node that writes it to the call frame,
   colocated with the node that makes the tensor;

   (the distributed master names a *client device* instead: each feed is
   then a `_Recv` and each fetch a `_Send` on that device, "client
   terminated": the values travel through the step's rendezvous, where the
   worker of the client device puts the feeds and finds the fetches)
3. the graph is *pruned*: only nodes that the `_Retval`s and the targets
   depend on (through data or control edges) are kept. A fed tensor cuts the
   graph: what only produced it is not run.

Mirrors `tensorflow/core/graph/subgraph.cc` (RewriteGraphForExecution with
and without `use_function_convention`, PruneForTargets).
"""

from minitf.framework import node_def_util
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef


def _dtype_of(nodes, node_name, index):
    node = nodes[node_name]
    return node_def_util.output_types(node)[index].base_dtype


def _split_tensor_name(nodes, name, what):
    node_name, _, index_text = name.partition(":")
    index = int(index_text or 0)
    if node_name not in nodes:
        raise errors.NotFoundError(None, None, "%s %s was not found in the graph" % (what, name))
    if index >= node_def_util.num_outputs(nodes[node_name]):
        raise errors.NotFoundError(None, None, "%s %s: output index out of range" % (what, name))
    return node_name, index


def rewrite_for_execution(nodes, feeds, fetches, targets, client_device=None):
    """The pruned, rewritten node list for one signature.

    `nodes` maps names to NodeDefs; `feeds` and `fetches` are tensor names
    ("x:0"), `targets` node names. `client_device`, a (device name,
    incarnation) pair, makes feeds and fetches client-terminated `_Recv`s
    and `_Send`s on that device instead of `_Arg`s and `_Retval`s. Returns
    a list of new NodeDefs.
    """
    arg_for_tensor, arg_for_control, new_nodes = {}, {}, []
    for i, name in enumerate(feeds):
        node_name, index = _split_tensor_name(nodes, name, "Feed")
        arg = _feed_node(nodes[node_name], index, i, _dtype_of(nodes, node_name, index),
                         client_device)
        shapes = nodes[node_name].attr.get("_output_shapes")
        if shapes:  # the client checked that the fed value has this static shape
            arg.attr["_output_shapes"] = [shapes[index]]
        arg_for_tensor[graph_def_lib.tensor_name(node_name, index)] = arg.name
        if nodes[node_name].op == "Placeholder":
            arg_for_control["^" + node_name] = "^" + arg.name
        new_nodes.append(arg)
    rewired = {name: _rewire(node, arg_for_tensor, arg_for_control)
               for name, node in nodes.items()}
    roots, fetch_nodes = [], []
    for i, name in enumerate(fetches):
        node_name, index = _split_tensor_name(nodes, name, "Fetch")
        source = graph_def_lib.tensor_name(node_name, index)
        source = arg_for_tensor.get(source, source)
        retval = _fetch_node(node_name, index, i, source, _dtype_of(nodes, node_name, index),
                             client_device)
        rewired[retval.name] = retval
        roots.append(retval.name)
        fetch_nodes.append(retval)
    for target in targets:
        if target not in nodes:
            raise errors.NotFoundError(None, None, "Target %s was not found in the graph"
                                       % target)
        roots.append(target)
    for arg in new_nodes:
        rewired[arg.name] = arg
    keep = _reachable_backwards(rewired, roots)
    ordered = new_nodes + [rewired[n] for n in nodes if n in keep]
    return ordered + fetch_nodes


def _feed_node(node, index, i, dtype, client_device):
    """The node a fed tensor comes from: `_Arg` i, or a client-terminated `_Recv`."""
    if client_device is None:
        return NodeDef("_arg_%s_%d_%d" % (node.name, index, i), "_Arg", [], node.device,
                       {"T": dtype, "index": i})
    return NodeDef("_recv_%s_%d" % (node.name, index), "_Recv", [], client_device[0],
                   dict(_client_terminated("%s:%d" % (node.name, index), client_device),
                        tensor_type=dtype))


def _fetch_node(node_name, index, i, source, dtype, client_device):
    """The node a fetched tensor leaves by: `_Retval` i, or a client-terminated `_Send`."""
    if client_device is None:
        # Colocated with the tensor it fetches: it takes the device that node gets.
        return NodeDef("_retval_%s_%d_%d" % (node_name, index, i), "_Retval", [source], "",
                       {"T": dtype, "index": i,
                        "_class": ["loc:@" + graph_def_lib.parse_input(source)[0]]})
    return NodeDef("_send_%s_%d" % (node_name, index), "_Send", [source], client_device[0],
                   dict(_client_terminated("%s:%d" % (node_name, index), client_device), T=dtype))


def _client_terminated(tensor_name, client_device):
    """The attrs of a `_Send`/`_Recv` whose other end is the client, on `client_device`.

    The rendezvous key they make names the tensor as the client does ("x:0").
    """
    device, incarnation = client_device
    return {"tensor_name": tensor_name, "send_device": device, "recv_device": device,
            "send_device_incarnation": incarnation, "client_terminated": True}


def _rewire(node, arg_for_tensor, arg_for_control):
    if not arg_for_tensor:
        return node
    inputs = []
    for text in node.input:
        if text.startswith("^"):
            inputs.append(arg_for_control.get(text, text))
            continue
        name, index, _ = graph_def_lib.parse_input(text)
        key = graph_def_lib.tensor_name(name, index)
        inputs.append(arg_for_tensor.get(key, text))
    if inputs == node.input:
        return node
    return NodeDef(node.name, node.op, inputs, node.device, node.attr)


def _reachable_backwards(nodes, roots):
    """Names of every node that `roots` depend on, roots included."""
    keep, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        for text in nodes[name].input:
            source = graph_def_lib.parse_input(text)[0]
            if source not in nodes:
                raise errors.InvalidArgumentError(
                    nodes[name], None, "Node '%s': Unknown input node '%s'" % (name, text))
            stack.append(source)
    return keep
