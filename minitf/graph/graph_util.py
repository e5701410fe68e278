"""tf.graph_util: editing GraphDefs as data, chiefly to freeze a trained model.

A *frozen* graph is a GraphDef with no variables left: each variable's node
is replaced by a `Const` holding the value it had in a session, and only
the nodes that compute the outputs are kept. It is one file that any
program can import and run, with no checkpoint beside it; TensorFlow's
tools (and the tutorial "Open a real TensorFlow model") pass models around
this way.

- `extract_sub_graph(graph_def, dest_nodes)`: the nodes the named nodes
  depend on (through data and control inputs), in their original order;
- `convert_variables_to_constants(sess, graph_def, output_node_names)`:
  that subgraph, with every variable's current value (read with
  `sess.run`) as a `Const` in its place;
- `remove_training_nodes(graph_def)`: without `CheckNumerics` nodes, and
  with `Identity` nodes spliced out (an input that went through one now
  comes from the Identity's own input), except protected nodes and
  Identities tied to control edges.

The functions work on minitf's GraphDef and NodeDef (`graph_def.py`); they
take and return those, never touching the Graph.

Mirrors `tensorflow/python/framework/graph_util_impl.py`.
"""

import logging

import numpy as np

from minitf.graph import dtypes
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.importer import import_graph_def  # noqa: F401 - tf.graph_util's too

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes",
           "import_graph_def"]

_logger = logging.getLogger("minitf")

_VARIABLE_OPS = ("Variable", "VariableV2")


def _node_name(text):
    """"^x" and "x:1" name the node "x"."""
    return graph_def_lib.parse_input(text)[0]


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_def_lib.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of `dest_nodes` and every node they depend on, in the original order."""
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    nodes = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        assert name in nodes, "%s is not in graph" % name
    keep, stack = set(), list(dest_nodes)
    while stack:
        name = stack.pop()
        if name not in keep:
            keep.add(name)
            stack.extend(_node_name(text) for text in nodes[name].input)
    return graph_def_lib.GraphDef([node.copy() for node in graph_def.node if node.name in keep],
                                  graph_def.version)


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """The subgraph computing `output_node_names`, each variable replaced by its value.

    The values are read with one `sess.run`; the whitelist (only these) and
    blacklist (not these) choose which variables are frozen.
    """
    inference_graph = extract_sub_graph(input_graph_def, output_node_names)
    frozen = [node.name for node in inference_graph.node
              if node.op in _VARIABLE_OPS
              and (variable_names_whitelist is None or node.name in variable_names_whitelist)
              and (variable_names_blacklist is None
                   or node.name not in variable_names_blacklist)]
    values = dict(zip(frozen, sess.run([name + ":0" for name in frozen]) if frozen else []))
    _logger.info("Froze %d variables.", len(values))
    nodes = [_const_node(node.name, node.attr["dtype"], values[node.name])
             if node.name in values else node.copy() for node in inference_graph.node]
    _logger.info("Converted %d variables to const ops.", len(values))
    return graph_def_lib.GraphDef(nodes)


def _const_node(name, dtype, value):
    """A Const node named `name` holding `value` (TF's create_const_op: no device)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    value = np.asarray(value, dtype=dtype.as_numpy_dtype)
    return graph_def_lib.NodeDef(name, "Const", attr={"dtype": dtype, "value": value})


def remove_training_nodes(input_graph, protected_nodes=None):
    """The GraphDef without CheckNumerics nodes and with Identity nodes spliced out."""
    protected_nodes = set(protected_nodes or [])
    removed = {node.name for node in input_graph.node
               if node.op == "CheckNumerics" and node.name not in protected_nodes}
    nodes = []
    for node in input_graph.node:
        if node.name not in removed:
            node = node.copy()
            node.input = [text for text in node.input if text.lstrip("^") not in removed]
            nodes.append(node)
    # An Identity with a control input, or that is one, may order something: it stays.
    control_inputs = {text[1:] for node in nodes for text in node.input if text.startswith("^")}
    with_control_inputs = {node.name for node in nodes
                           if any(text.startswith("^") for text in node.input)}
    spliced = {node.name: node.input[0] for node in nodes
               if node.op == "Identity" and node.name not in protected_nodes
               and node.name not in with_control_inputs and node.name not in control_inputs}
    result = []
    for node in nodes:
        if node.name in spliced:
            continue
        node = node.copy()
        node.input = [_through_spliced(text, spliced) for text in node.input]
        result.append(node)
    return graph_def_lib.GraphDef(result)


def _through_spliced(text, spliced):
    """The input a chain of spliced Identities stood for (TF keeps only the node name's match)."""
    while text.lstrip("^") in spliced:
        text = spliced[text.lstrip("^")]
    return text
