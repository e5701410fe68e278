"""CapturedFunction: a FunctionDef and the values it captured, run once per element.

`Dataset.map(fn)` traced `fn` into a FunctionDef (`minitf/graph/func_graph.py`)
and the MapDataset kernel received it as an attr, and the values of the
tensors `fn` captured as inputs. A CapturedFunction keeps both, and runs
the function on one element's components at a time.

It runs through a *small executor*, not the session's: a function body is
a handful of nodes, run thousands of times, always on the thread that asks
for the element. So the plan is a list of the body's nodes in a
topological order, each with its kernel and the positions of its inputs,
and a call is one loop over it: `_Arg` nodes take the arguments, every
other node calls its kernel on its inputs' values, and the `_Retval` nodes'
inputs are the results. No pending counts, no threads, no locks; a kernel
sees the same OpKernelContext it sees in a step. An error names the node
and the function.

A body with control flow (a `tf.cond`, a `tf.while_loop`, or a check
guarded by one) needs what the small executor does not have: dead tensors,
frames and iterations. Such a body runs on the session's Executor instead,
one step per call (`minitf/executor/function.py`, reached through
`minitf/framework/function_runtime.py`: a kernel cannot import the
executor).

Mirrors `tensorflow/core/kernels/data/captured_function.cc` and, for the
way a function body runs, `tensorflow/core/common_runtime/function.cc`
(FunctionLibraryRuntime) with a single-threaded executor.
"""

import collections

import numpy as np

from minitf.framework import buffers
from minitf.framework import function_runtime
from minitf.framework.kernel_registry import find_kernel
from minitf.framework.op_def import get_op_def
from minitf.framework.op_kernel import OpKernelContext
from minitf.framework.step import StepState
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib


class _Node:
    """One node of a function body's plan: what its kernel needs, and where its inputs are."""

    __slots__ = ("name", "op_type", "device", "state", "fn", "kwargs", "inputs", "arg_index",
                 "single_output")


# The ops of conds and loops: a body holding one runs on the session's Executor.
_CONTROL_FLOW_OPS = frozenset(("Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                               "Exit", "RefExit", "NextIteration", "RefNextIteration",
                               "LoopCond", "ControlTrigger"))


def instantiate(function_def, device):
    """The function planned for `device`: the small executor, or the Executor for control flow."""
    if any(node.op in _CONTROL_FLOW_OPS for node in function_def.node):
        return function_runtime.instantiate_with_control_flow(function_def, device)
    return InstantiatedFunction(function_def, device)


class InstantiatedFunction:
    """A FunctionDef planned for one device: `run(args)` returns its results."""

    def __init__(self, function_def, device):
        self.name = function_def.name
        self.device = device
        ordered = _topological_order(function_def.node)
        position = {node.name: i for i, node in enumerate(ordered)}
        self.nodes, self.results = [], []
        for node_def in ordered:
            sources = [graph_def_lib.parse_input(text) for text in node_def.input]
            inputs = [(position[name], index) for name, index, control in sources if not control]
            if node_def.op == "_Retval":
                self.results.append((node_def.attr["index"], inputs[0]))
                self.nodes.append(None)
                continue
            self.nodes.append(self._plan(node_def, device, inputs))
        self.results = [source for _, source in sorted(self.results)]
        self._step = StepState(0, None, None)

    def _plan(self, node_def, device, inputs):
        node = _Node()
        node.name, node.op_type, node.device, node.state = node_def.name, node_def.op, device, {}
        node.inputs = inputs
        node.arg_index = node_def.attr["index"] if node_def.op == "_Arg" else None
        if node.arg_index is not None:
            return node
        op_def = get_op_def(node_def.op)
        attrs = op_def.attrs_with_defaults(node_def.attr)
        kernel = find_kernel(node_def.op, device.device_type)
        if kernel.is_async:
            raise errors.UnimplementedError(None, None, "Op %s (node %s) cannot run inside a "
                                            "dataset function" % (node_def.op, node_def.name))
        node.fn, node.kwargs = kernel.fn, kernel.attr_kwargs(attrs)
        if node.op_type == "Const":
            node.kwargs["value"] = buffers.read_only_view(node.kwargs["value"])
        node.single_output = op_def.single_output
        return node

    def run(self, args):
        """The function's results for `args` (one array per `_Arg`, in index order)."""
        values = [None] * len(self.nodes)
        step = self._step
        for i, node in enumerate(self.nodes):
            if node is None:
                continue
            if node.arg_index is not None:
                values[i] = (args[node.arg_index],)
                continue
            inputs = [values[p][k] for p, k in node.inputs]
            try:
                result = node.fn(OpKernelContext(node, step), *inputs, **node.kwargs)
            except Exception as e:  # noqa: BLE001 - every failure becomes an OpError
                raise _function_error(self.name, node, e) from None
            values[i] = (result,) if node.single_output else tuple(result or ())
        return [values[p][k] for p, k in self.results]


def _topological_order(node_defs):
    """The nodes so that each comes after its data and control inputs (Kahn's algorithm)."""
    by_name = {n.name: n for n in node_defs}
    pending = {}
    consumers = collections.defaultdict(list)
    for node in node_defs:
        sources = {graph_def_lib.parse_input(text)[0] for text in node.input}
        pending[node.name] = len(sources)
        for source in sources:
            consumers[source].append(node.name)
    ready = collections.deque(n.name for n in node_defs if pending[n.name] == 0)
    ordered = []
    while ready:
        name = ready.popleft()
        ordered.append(by_name[name])
        for consumer in consumers[name]:
            pending[consumer] -= 1
            if pending[consumer] == 0:
                ready.append(consumer)
    if len(ordered) != len(node_defs):
        raise errors.InvalidArgumentError(None, None, "Function body has a cycle")
    return ordered


def _function_error(function_name, node, exception):
    if isinstance(exception, errors.OpError):
        error_class, message = type(exception), exception.message
    elif isinstance(exception, (ValueError, TypeError, IndexError, ZeroDivisionError)):
        error_class, message = errors.InvalidArgumentError, str(exception)
    else:
        error_class = errors.InternalError
        message = "%s: %s" % (type(exception).__name__, exception)
    return error_class(None, None, "%s\n\t [[node %s (op: %s) in function %s]]" % (
        message, node.name, node.op_type, function_name))


class CapturedFunction:
    """A function and the values of the tensors it captured, planned lazily per device."""

    def __init__(self, function_def, captured_inputs, device):
        self.function_def = function_def
        # Kept beyond the step: a variable's buffer is copied as it is now.
        self.captured_inputs = [buffers.for_the_caller(v) for v in captured_inputs]
        self.device = device
        self._instance = None

    def _instantiated(self):
        if self._instance is None:
            self._instance = instantiate(self.function_def, self.device)
        return self._instance

    def run(self, components):
        """The function applied to one element (a list of arrays): a list of arrays."""
        return self._instantiated().run(list(components) + self.captured_inputs)

    def run_predicate(self, components):
        result = self.run(components)
        value = np.asarray(result[0])
        if len(result) != 1 or value.shape != () or value.dtype != np.bool_:
            raise errors.InvalidArgumentError(None, None, "Filter predicate `f` must return a "
                                              "scalar bool.")
        return bool(value)
