"""Constant folding: computing, once, what every step would compute the same way.

A training graph holds many nodes whose values never change from step to
step: the shape of a variable, the shape of a fed placeholder of fixed
shape, `BroadcastGradientArgs` of two such shapes, the gradient of a
`reduce_sum` (a tensor of ones, tiled to a static shape) multiplied by a
constant. Running them every step costs a kernel call and the executor's
bookkeeping each. The session folds them when it builds a step's
executors, one partition at a time (the first pass of
`graph_optimizer.PASSES`):

1. *materialize shapes*: `Shape`, `Size` and `Rank` of a tensor whose
   static shape is known (the client sends each node's static output
   shapes in its `_output_shapes` attr) become `Const`s. The `Const` keeps a
   control edge from the tensor's node: the step still runs that node, so
   an uninitialized variable is still an error;
2. *find the foldable nodes*: a node is foldable when every data input
   comes from a `Const` or another foldable node, and it is a pure function
   of them: not stateful (variables, random numbers, queues), no reference
   inputs or outputs, not a runtime node (`_Arg`, `_Send`, ...), not a
   control-flow node (`Switch`, `Merge`, `Enter`, `Exit`, `NextIteration`,
   `LoopCond`: its output's value is the same, but *where* it goes, which
   branch or which frame and iteration, is decided when the step runs), a
   CPU kernel to run it;
3. *evaluate* them all at once: they form a small graph of their own, which
   an Executor runs on the host CPU, as a step would. A node that fails
   (a reshape to an impossible shape) is left out, with what depends on it,
   so that the step raises the error when it runs, naming the node;
4. *replace* each foldable output that a non-foldable node consumes by a
   `Const` holding its value. A single-output node becomes a `Const` of the
   same name and device; each used output of a multi-output node gets a
   `Const` named `ConstantFolding/<node>-folded-<index>`, as Grappler names
   them. A `Const` keeps the control edges that the nodes folded into it
   had from the rest of the graph, so what had to run before still does.
   Values over 10 MiB are not folded: a large constant costs memory for as
   long as the executor lives;
5. *remove* what is left without a consumer: the folded nodes, and pure
   nodes whose only consumers were folded away.

It is on by default, as in TensorFlow: `OptimizerOptions.opt_level` L1 (the
default) or `do_constant_folding=True` turn it on, `L0` off:

    config = tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)))

Mirrors `tensorflow/core/common_runtime/constant_folding.cc` and
`graph_optimizer.cc` (the per-partition folding of DirectSession), with the
shape materialization of Grappler's `grappler/optimizers/constant_folding.cc`.
TensorFlow's L1 also merges common subexpressions; minitf does not.
"""

import numpy as np

from minitf import kernels  # noqa: F401  registers every built-in kernel
from minitf.executor.executor import CONTROL_FLOW_OPS
from minitf.executor.executor import Executor
from minitf.framework.kernel_registry import find_kernel
from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework import node_def_util
from minitf.framework.op_def import get_op_def
from minitf.framework.step import CallFrame
from minitf.framework.step import StepState
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef

MAX_CONSTANT_BYTES = 10 * 1024 * 1024

# Nodes that exist for the runtime's sake, and ones a caller can feed: never folded.
_NEVER_FOLDED = frozenset({"Const", "_Arg", "_Retval", "_Send", "_Recv", "Placeholder",
                           "PlaceholderWithDefault", "NoOp"}) | CONTROL_FLOW_OPS

_SHAPE_OPS = frozenset({"Shape", "Size", "Rank"})


def folding_enabled(optimizer_options):
    """Whether a session with these OptimizerOptions folds constants (TF's rule)."""
    return (optimizer_options.opt_level >= optimizer_options.L1
            or optimizer_options.do_constant_folding)


def run(nodes, context):
    """The partition `nodes` (a list of NodeDefs) with its constant part folded.

    `context.host_device` is the CPU device that evaluates the foldable
    nodes. Returns a new list; the NodeDefs given are not changed.
    """
    host_device = context.host_device
    by_name = {node.name: node for node in nodes}
    shaped = [_materialized_shape(node, by_name) or node for node in nodes]
    by_name = {node.name: node for node in shaped}
    foldable = _foldable_names(shaped)
    values = _evaluate(foldable, by_name, host_device) if foldable else {}
    folded = [name for name in foldable if (name, 0) in values]
    replaced = _replace_folded(shaped, folded, values)
    return _without_dead_nodes(replaced, nodes)


# --- 1. materializing shapes ----------------------------------------------------------------

def _materialized_shape(node, by_name):
    """A Const for `Shape`/`Size`/`Rank` of a tensor of known static shape, else None."""
    if node.op not in _SHAPE_OPS:
        return None
    source_name, index, _ = graph_def_lib.parse_input(node.input[0])
    shapes = by_name[source_name].attr.get("_output_shapes") if source_name in by_name else None
    if not shapes or index >= len(shapes) or shapes[index].ndims is None:
        return None
    shape = shapes[index]
    out_type = node.attr.get("out_type", dtypes.int32)
    if node.op == "Rank":
        value, out_type = np.array(shape.ndims, np.int32), dtypes.int32
    elif not shape.is_fully_defined():
        return None
    elif node.op == "Shape":
        value = np.array(shape.as_list(), out_type.as_numpy_dtype)
    else:
        value = np.array(shape.num_elements(), out_type.as_numpy_dtype)
    controls = ["^" + source_name] + [t for t in node.input[1:] if t.startswith("^")]
    return _const(node.name, node.device, value, out_type, controls)


# --- 2. which nodes fold --------------------------------------------------------------------

def _foldable_names(nodes):
    """The names of the foldable nodes, in an order where inputs come first."""
    constant = {node.name for node in nodes if node.op == "Const"}
    candidates = [node for node in nodes if _may_fold(node)]
    foldable, changed = [], True
    while changed:  # one pass per level of the constant subgraph, usually one in all
        changed = False
        for node in candidates:
            if node.name not in constant and all(
                    graph_def_lib.parse_input(text)[0] in constant
                    for text in node.input if not text.startswith("^")):
                constant.add(node.name)
                foldable.append(node.name)
                changed = True
    return foldable


def _may_fold(node):
    """Whether `node`'s op is a pure function of its inputs, with a CPU kernel to compute it."""
    if node.op in _NEVER_FOLDED or all(text.startswith("^") for text in node.input):
        return False
    try:
        op_def = get_op_def(node.op)
        kernel = find_kernel(node.op, "CPU")
        attrs = op_def.attrs_with_defaults(node.attr)
        input_types, output_types = op_def.input_dtypes(attrs), op_def.output_dtypes(attrs)
    except (KeyError, TypeError, ValueError, errors.OpError):
        return False
    if op_def.is_stateful or kernel.is_async or not output_types:
        return False
    return (not any(t.is_ref_dtype for t in list(input_types) + list(output_types))
            and not _known_too_big(node, output_types))


def _known_too_big(node, output_types):
    """Whether the static shapes already say an output is over the size limit."""
    for shape, dtype in zip(node.attr.get("_output_shapes") or (), output_types):
        if shape.is_fully_defined() and dtype != dtypes.string and (
                shape.num_elements() * dtype.size > MAX_CONSTANT_BYTES):
            return True
    return False


# --- 3. evaluating them -----------------------------------------------------------------------

def _evaluate(foldable, by_name, host_device):
    """{(node name, output index): value} of the foldable nodes that compute without error.

    Runs them as one graph on `host_device`. When a node fails, it and the
    nodes that depend on it are left out and the rest runs again.
    """
    while foldable:
        outputs, graph = _evaluation_graph(foldable, by_name)
        call_frame = CallFrame([], len(outputs))
        try:
            Executor(graph, host_device).run(StepState(0, LocalRendezvous(), call_frame))
        except errors.OpError as e:
            failed = getattr(e, "_node_name", None)
            if failed not in foldable:
                return {}
            foldable = _without_dependents(foldable, failed, by_name)
            continue
        return dict(zip(outputs, call_frame.retvals))
    return {}


def _evaluation_graph(foldable, by_name):
    """The foldable nodes and the Consts they read (control edges dropped), and a
    `_Retval` for each of their outputs."""
    wanted = set(foldable)
    for name in foldable:
        wanted.update(graph_def_lib.parse_input(t)[0] for t in by_name[name].input
                      if not t.startswith("^"))
    graph = [NodeDef(node.name, node.op, [t for t in node.input if not t.startswith("^")], "",
                     node.attr)
             for node in by_name.values() if node.name in wanted]
    outputs = []
    for name in foldable:
        for index, dtype in enumerate(_output_dtypes(by_name[name])):
            graph.append(NodeDef("_retval_%s_%d" % (name, index), "_Retval",
                                 [graph_def_lib.tensor_name(name, index)], "",
                                 {"T": dtype, "index": len(outputs)}))
            outputs.append((name, index))
    return outputs, graph


def _without_dependents(foldable, failed, by_name):
    """`foldable` less `failed` and every node that reads it, directly or not."""
    dropped, kept = {failed}, []
    for name in foldable:  # inputs come first, so one pass finds every dependent
        if name in dropped or any(graph_def_lib.parse_input(t)[0] in dropped
                                  for t in by_name[name].input):
            dropped.add(name)
        else:
            kept.append(name)
    return kept


# --- 4. replacing -----------------------------------------------------------------------------

def _replace_folded(nodes, folded, values):
    """The nodes with every use of a folded output rewired to a Const of its value.

    `folded` lists the folded nodes, inputs first.
    """
    by_name = {node.name: node for node in nodes}
    folded_set = set(folded)
    used = []  # (name, index) of the folded outputs that the rest of the graph reads
    for node in nodes:
        if node.name not in folded_set:
            used.extend(key for key in _data_sources(node) if key[0] in folded_set)
    used = list(dict.fromkeys(used))
    too_big = {name for name, index in used
               if np.asarray(values[name, index]).nbytes > MAX_CONSTANT_BYTES}
    if too_big:  # computed at run time after all, with the foldable nodes they read
        computed = _upstream(too_big, by_name, folded_set)
        return _replace_folded(nodes, [n for n in folded if n not in computed], values)
    controls = _outside_controls(folded, by_name)
    constants = {}
    for name, index in used:
        node = by_name[name]
        const_name = (name if _num_outputs(node) == 1
                      else "ConstantFolding/%s-folded-%d" % (name, index))
        constants[name, index] = _const(const_name, node.device, values[name, index],
                                        _output_dtypes(node)[index], controls[name])
    rest = [_rewired(node, folded_set, constants, controls)
            for node in nodes if node.name not in folded_set]
    return list(constants.values()) + rest


def _data_sources(node):
    return [graph_def_lib.parse_input(t)[:2] for t in node.input if not t.startswith("^")]


def _upstream(names, by_name, folded):
    """`names` and the folded nodes they read from, directly or not."""
    found, stack = set(), list(names)
    while stack:
        name = stack.pop()
        if name not in found:
            found.add(name)
            stack.extend(source for source, _ in _data_sources(by_name[name])
                         if source in folded)
    return found


def _outside_controls(folded, by_name):
    """{folded node: the control inputs ("^x") it inherits from outside the folded part}.

    A folded node inherits its own control inputs and those of every folded
    node and Const it reads from, directly or not.
    """
    inherited = {}

    def controls_of(name):
        if name not in inherited:
            node = by_name[name]
            found = []
            for text in node.input:
                if text.startswith("^"):
                    source = text[1:]
                    found.extend(controls_of(source) if source in folded_set else [text])
            for source, _ in _data_sources(node):
                if source in folded_set or by_name[source].op == "Const":
                    found.extend(controls_of(source))
            inherited[name] = list(dict.fromkeys(found))
        return inherited[name]

    folded_set = set(folded)
    for name in folded:  # inputs first: each call finds its sources' answers ready
        controls_of(name)
    return inherited


def _rewired(node, folded, constants, controls):
    inputs = []
    for text in node.input:
        name, index, is_control = graph_def_lib.parse_input(text)
        if name not in folded:
            inputs.append(text)
        elif not is_control:
            inputs.append(constants[name, index].name)
        else:  # a control edge from a folded node waits for what that node waited for
            inputs.extend(t for t in controls[name] if t not in inputs)
    if inputs == node.input:
        return node
    return NodeDef(node.name, node.op, inputs, node.device, node.attr)


# --- 5. removing what nothing reads -------------------------------------------------------------

def _without_dead_nodes(nodes, before):
    """`nodes` less the pure nodes that had consumers in `before` and have none left.

    A node without consumers in the partition it came from was asked for
    (a target, a `_Retval`, a `_Send`): it stays, as does any stateful node.
    """
    had_consumers = _names_with_consumers(before)
    while True:
        has_consumers = _names_with_consumers(nodes)
        dead = {node.name for node in nodes
                if node.name in had_consumers and node.name not in has_consumers
                and _is_pure(node)}
        if not dead:
            return nodes
        nodes = [node for node in nodes if node.name not in dead]


def _names_with_consumers(nodes):
    return {graph_def_lib.parse_input(text)[0] for node in nodes for text in node.input}


def _is_pure(node):
    return node.op == "Const" or _may_fold(node)


def _output_dtypes(node):
    return [t.base_dtype for t in node_def_util.output_types(node)]


def _num_outputs(node):
    return len(_output_dtypes(node))


def _const(name, device, value, dtype, control_inputs=()):
    return NodeDef(name, "Const", list(control_inputs), device,
                   {"dtype": dtype, "value": np.asarray(value, dtype.as_numpy_dtype)
                    if dtype != dtypes.string else np.asarray(value, object)})
