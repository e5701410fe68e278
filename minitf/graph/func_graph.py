"""FuncGraph: the graph a Python function is traced into, to become a FunctionDef.

`Dataset.map(fn)` does not call `fn` on every element. It calls it once, on
placeholders, inside a FuncGraph: every op `fn` builds lands in this graph,
and the tensors it returns are the function's results. The graph then
becomes a `FunctionDef` (`minitf/graph/graph_def.py`), kept as an attr of
the dataset op, and the iterator's kernel runs it once per element.

A function may use tensors of the graph around it (a placeholder, a
constant, another function's argument). Such a tensor cannot be an input
of an op in this graph; it is *captured* instead: the FuncGraph gives it a
placeholder of its own, and the dataset op takes the outer tensor as an
extra input ("other arguments") whose value is passed to every call.
Capturing goes through every enclosing FuncGraph, so a function traced
inside another (a `map` inside a `flat_map`) works too.

Mirrors `tensorflow/python/framework/func_graph.py` and the `_Arg`/`_Retval`
form of `tensorflow/core/framework/function.cc`.
"""

from minitf.graph import dtypes
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import ops
from minitf.graph import tensor_shape


class FuncGraph(ops.Graph):
    """A graph being traced from a Python function; knows its inputs, captures and outputs."""

    def __init__(self, name, outer_graph=None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph if outer_graph is not None else ops.get_default_graph()
        self.seed = self.outer_graph.seed  # random ops in the function follow tf.set_random_seed
        self.inputs = []     # the placeholders of the arguments, then of the captures
        self.outputs = []
        self.captures = []   # (outer tensor, its placeholder here), in order of capture
        self._captured = {}

    @property
    def building_function(self):
        return True

    def add_argument(self, dtype, shape, name="arg"):
        """A placeholder standing for one argument of the function."""
        placeholder = self._placeholder(dtype, shape, name)
        self.inputs.append(placeholder)
        return placeholder

    def _placeholder(self, dtype, shape, name):
        op = self.create_op("Placeholder", [], [dtypes.as_dtype(dtype)], name=name,
                            attrs={"dtype": dtypes.as_dtype(dtype),
                                   "shape": tensor_shape.as_shape(shape)})
        return op.outputs[0]

    def _capture(self, tensor, op_name):
        """The placeholder standing for `tensor` of an enclosing graph (made once)."""
        key = id(tensor)
        if key in self._captured:
            return self._captured[key]
        outer = tensor
        if isinstance(self.outer_graph, FuncGraph) and tensor.graph is not self.outer_graph:
            outer = self.outer_graph._capture(tensor, op_name)  # through the graph between
        with self.control_dependencies(None):
            placeholder = self._placeholder(tensor.dtype.base_dtype, tensor.shape, "captured")
        self.captures.append((outer, placeholder))
        self.inputs.append(placeholder)
        self._captured[key] = placeholder
        return placeholder

    @property
    def captured_inputs(self):
        """The outer tensors the function captured: extra inputs of the op that calls it."""
        return [outer for outer, _ in self.captures]

    def to_function_def(self):
        """The traced graph as a FunctionDef: placeholders become `_Arg`s, outputs `_Retval`s."""
        arg_index = {t.op.name: i for i, t in enumerate(self.inputs)}
        nodes = []
        for node in self.as_graph_def().node:
            if node.name in arg_index:
                node = graph_def_lib.NodeDef(node.name, "_Arg", [], node.device, {
                    "T": node.attr["dtype"], "index": arg_index[node.name]})
            nodes.append(node)
        for i, tensor in enumerate(self.outputs):
            nodes.append(graph_def_lib.NodeDef(
                "%s_retval_%d" % (self.name, i), "_Retval",
                [graph_def_lib.tensor_name(tensor.op.name, tensor.value_index)], "",
                {"T": tensor.dtype.base_dtype, "index": i}))
        return graph_def_lib.FunctionDef(self.name, nodes)
