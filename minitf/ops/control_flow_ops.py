"""Control flow: conds and loops as dataflow, and the ops that only order other ops.

`tf.cond(pred, true_fn, false_fn)` and `tf.while_loop(cond, body,
loop_vars)` call their functions once, while the graph is built, and wire
what they build with a few control-flow ops (their OpDefs, in
`minitf/framework/op_defs/control_flow.py`, say what each does):

- a cond sends every tensor a branch reads from outside through a `Switch`
  on the predicate: the branch not taken gets a dead tensor, so none of its
  nodes runs. A `Merge` per result picks the live one;
- a loop sends its loop variables through `Enter` into a new frame, where a
  `Merge` takes the initial value, then each `NextIteration`'s; the
  predicate feeds `LoopCond`, whose value steers a `Switch` per variable:
  to the body (an `Identity`, then the body's ops, then `NextIteration`) or
  out (`Exit`). A tensor from outside the loop enters it through an `Enter`
  marked `is_constant`: one value for every iteration.

The bookkeeping that makes this work while building is a *control-flow
context* per cond branch (CondContext) and per loop (WhileContext): the
graph's current context takes every new op in (`add_op`), routes its
inputs from outside through a Switch or an Enter (`add_value`), and gives
an op without inputs a control edge from the branch's or the loop's pivot,
so that it runs in the branch or once per iteration. The contexts also
hold what the gradient of a loop needs (the loop counters and
accumulators of `minitf/autodiff/control_flow_state.py`).

`tf.no_op` computes nothing; it exists to carry control inputs. `tf.group`
is a NoOp that runs after all its inputs, the usual way to bundle several
updates into one `train_op`. `tf.tuple` returns identities of its tensors
that each wait for all of them. None of these moves data: they only add
control edges (`^name` in a NodeDef) that the executor honours.

The methods of the contexts carry TensorFlow's names in snake case
(`AddValue` is `add_value`), as do the private helpers (`_SwitchRefOrTensor`
is `_switch_ref_or_tensor`).

Mirrors `tensorflow/python/ops/control_flow_ops.py` (TF 1.15: switch,
merge, CondContext, WhileContext, cond, case, while_loop, Assert, group,
tuple, with_dependencies) and `tensorflow/python/framework/smart_cond.py`.
"""

import functools
import logging

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_util as util
from minitf.ops import math_ops
from minitf.ops import nest
from minitf.ops import tensor_array_ops

# `tuple` below is tf.tuple; this module needs Python's own as well.
_BaseTuple = tuple

_logger = logging.getLogger("minitf")

__all__ = ["no_op", "group", "tuple", "cond", "case", "while_loop", "Assert"]


# =============================================================================
# The control-flow ops
# =============================================================================

def _as_tensor_or_composite(value, name=None, as_ref=False):
    if isinstance(value, (ops.Tensor, IndexedSlices, SparseTensor)):
        return value
    return convert_to_tensor(value, name=name, as_ref=as_ref)


def switch(data, pred, dtype=None, name=None):
    """(output_false, output_true): `data` forwarded to the side `pred` picks; the other is dead.

    An IndexedSlices or SparseTensor is switched part by part.
    """
    with ops.name_scope(name, "Switch", [data, pred]) as name:
        if not isinstance(data, (IndexedSlices, SparseTensor)):
            data = convert_to_tensor(data, dtype=dtype, name="data", as_ref=True)
        pred = convert_to_tensor(pred, name="pred")
        if isinstance(data, ops.Tensor):
            return _BaseTuple(apply_op("Switch", name=name, data=data, pred=pred))
        parts = [apply_op("Switch", data=t, pred=pred)
                 for t in nest.flatten(data, expand_composites=True)]
        return (nest.pack_sequence_as(data, [p[0] for p in parts], expand_composites=True),
                nest.pack_sequence_as(data, [p[1] for p in parts], expand_composites=True))


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """`switch`, or a RefSwitch for a variable's reference; colocated with `data`.

    (Colocated ignoring the colocation around it: a variable's update built in
    a branch would otherwise drag the Switch of some other tensor to its device.)
    """
    data = _as_tensor_or_composite(data, name="data")
    with ops.colocate_with(data, ignore_existing=True):
        if isinstance(data, ops.Tensor) and data.dtype.is_ref_dtype:
            return _BaseTuple(apply_op("RefSwitch", name=name, data=data, pred=pred))
        return switch(data, pred, name=name)


def merge(inputs, name=None):
    """(the available input, its index): a Merge of `inputs`, at most one of them live.

    IndexedSlices are merged part by part (a Tensor among them becomes one).
    """
    if any(value is None for value in inputs):
        raise ValueError("At least one of the merge inputs is None: %s" % (inputs,))
    with ops.name_scope(name, "Merge", inputs) as name:
        inputs = [_as_tensor_or_composite(value, as_ref=True) for value in inputs]
        if all(isinstance(value, ops.Tensor) for value in inputs):
            op_type = ("RefMerge" if all(v.dtype.is_ref_dtype for v in inputs) else "Merge")
            return _BaseTuple(apply_op(op_type, name=name, inputs=inputs))
        if all(isinstance(v, (IndexedSlices, ops.Tensor)) for v in inputs):
            inputs = [v if isinstance(v, IndexedSlices) else _as_indexed_slices(v)
                      for v in inputs]
        for value in inputs[1:]:
            nest.assert_same_structure(inputs[0], value, expand_composites=True)
        flat = [nest.flatten(value, expand_composites=True) for value in inputs]
        merged = [apply_op("Merge", inputs=list(parts)) for parts in zip(*flat)]
        return (nest.pack_sequence_as(inputs[0], [m[0] for m in merged],
                                      expand_composites=True), merged[0][1])


def _as_indexed_slices(tensor):
    """A dense tensor as IndexedSlices of all its rows (to merge it with IndexedSlices)."""
    shape = array_ops._shape_internal(tensor, optimize=False)
    return IndexedSlices(tensor, math_ops.range(shape[0]), shape)


def _enter(tensor, frame_name, is_constant=False, parallel_iterations=10, use_ref=True,
           use_input_shape=True, name=None):
    """`tensor` made available in the child frame `frame_name` (a RefEnter for a reference).

    `is_constant` marks a loop invariant; the output has the input's shape
    with `use_input_shape`, and no static shape otherwise.
    """
    tensor = _as_tensor_or_composite(tensor, as_ref=True)
    if not isinstance(tensor, ops.Tensor):
        return nest.map_structure(functools.partial(
            _enter, frame_name=frame_name, is_constant=is_constant,
            parallel_iterations=parallel_iterations, use_ref=use_ref,
            use_input_shape=use_input_shape), tensor, expand_composites=True)
    op_type = "RefEnter" if tensor.dtype.is_ref_dtype and use_ref else "Enter"
    result = apply_op(op_type, name=name, data=tensor, frame_name=frame_name,
                      is_constant=is_constant, parallel_iterations=parallel_iterations)
    if use_input_shape:
        result.set_shape(tensor.shape)
    return result


def exit(tensor, name=None):  # noqa: A001 - TF's name
    """`tensor` made available in the parent frame (a RefExit for a reference)."""
    tensor = _as_tensor_or_composite(tensor, as_ref=True)
    if not isinstance(tensor, ops.Tensor):
        return nest.map_structure(exit, tensor, expand_composites=True)
    return apply_op("RefExit" if tensor.dtype.is_ref_dtype else "Exit", name=name, data=tensor)


def _next_iteration(tensor, name=None):
    tensor = _as_tensor_or_composite(tensor, as_ref=True)
    if not isinstance(tensor, ops.Tensor):
        return nest.map_structure(_next_iteration, tensor, expand_composites=True)
    op_type = "RefNextIteration" if tensor.dtype.is_ref_dtype else "NextIteration"
    return apply_op(op_type, name=name, data=tensor)


def _identity(tensor, name=None):
    """An Identity of `tensor` (of each part of an IndexedSlices or SparseTensor); a
    RefIdentity for a reference."""
    if not isinstance(tensor, ops.Tensor):
        return nest.map_structure(_identity, tensor, expand_composites=True)
    if tensor.dtype.is_ref_dtype:
        return apply_op("RefIdentity", name=name, input=tensor)
    return array_ops.identity(tensor, name=name)


def loop_cond(input, name=None):  # noqa: A002 - TF's argument name
    """The predicate of a loop: the Switches of its variables are steered by it."""
    return apply_op("LoopCond", name=name, input=input)


def control_trigger(name=None):
    """A NoOp that is never dead: it runs even when its control inputs are dead."""
    return apply_op("ControlTrigger", name=name)


# --- TensorArrays travel through conds and loops as their flow ---------------------

def _convert_tensorarray_to_flow(value):
    if isinstance(value, tensor_array_ops.TensorArray):
        return value.flow
    return value


def _convert_flow_to_tensorarray(tensor_or_tensor_array, tensor_or_flow):
    if isinstance(tensor_or_tensor_array, tensor_array_ops.TensorArray):
        return tensor_array_ops.build_ta_with_new_flow(tensor_or_tensor_array, tensor_or_flow)
    return tensor_or_flow


def _convert_flows_to_tensorarrays(tensors_or_tensorarrays, tensors_or_flows):
    return [_convert_flow_to_tensorarray(ta, t_or_flow)
            for ta, t_or_flow in zip(tensors_or_tensorarrays, tensors_or_flows)]


# =============================================================================
# Contexts: what a cond branch and a loop body do to the ops built in them
# =============================================================================

class ControlFlowContext:
    """A cond branch or a loop body being built, inside the context it was built in.

    The graph's current context (`graph._get_control_flow_context()`) is
    the one new ops join; `enter` and `exit` change it. A context knows
    the names of the tensors it has seen (`_values`) and, for each tensor
    from outside it reads, the tensor it uses instead (`_external_values`:
    a Switch output, an Enter).
    """

    def __init__(self):
        self._nested_contexts = []
        self._outer_context = ops.get_default_graph()._get_control_flow_context()
        if self._outer_context is not None:
            self._outer_context._nested_contexts.append(self)
        self._context_stack = []
        self._values = set()
        self._external_values = {}

    @property
    def name(self):
        return self._name

    @property
    def outer_context(self):
        """The context this one was built in (None at the top)."""
        return self._outer_context

    def add_name(self, name):
        self._values.add(name)

    def enter(self):
        """Makes this the graph's current context."""
        graph = ops.get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def exit(self):
        """Restores the context current before `enter`."""
        ops.get_default_graph()._set_control_flow_context(self._context_stack.pop())

    def exit_result(self, result):
        """Makes the tensors of `result` known to the outer context."""
        if self._outer_context is not None:
            for tensor in nest.flatten(result, expand_composites=True):
                self._outer_context.add_name(tensor.name)

    def get_while_context(self):
        """The innermost loop this context is in (itself, for a loop)."""
        if self._outer_context is not None:
            return self._outer_context.get_while_context()
        return None

    def add_inner_op(self, op):
        """An op was added to a context inside this one."""
        if self._outer_context is not None:
            self._outer_context.add_inner_op(op)

    def get_control_pivot(self):
        return None

    def is_while_context(self):
        return False

    def is_cond_context(self):
        return False

    def check_input_from_valid_context(self, op, input_op):
        """ValueError unless `op` may read `input_op` (made in this context); the graph asks."""
        util.check_input_from_valid_context(op, input_op)

    def _remove_external_control_edges(self, op):
        """Drops `op`'s control inputs from outside the enclosing loop; returns (kept, dropped).

        A control edge from outside a loop would be an edge between frames:
        the loop body's ops take such dependencies through the loop instead.
        """
        while_ctxt = self.get_while_context()
        if while_ctxt is None:
            return op.control_inputs, []
        internal, external = [], []
        for x in op.control_inputs:
            ctxt = util.get_output_context(x)
            if ctxt is not None and ctxt.get_while_context() is while_ctxt:
                internal.append(x)
            else:
                external.append(x)
        if len(internal) != len(op.control_inputs):
            op._remove_all_control_inputs()
            op._add_control_inputs(internal)
        return internal, external

    def __str__(self):
        return self.name


class CondContext(ControlFlowContext):
    """One branch of a cond: `branch` 1 (true) or 0 (false) of the Switch on `pred`.

    `pivot` is the branch's Identity of the predicate's Switch output: an op
    of the branch without inputs gets a control edge from it, so it runs
    only when the branch is taken.
    """

    def __init__(self, pred, pivot, branch, name="cond_text"):
        self._name = ops.get_default_graph().unique_name(name)
        super().__init__()
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._values.add(pred.name)
        self._external_values[pred.name] = pred
        self._values.add(pivot.name)
        pivot.op._set_control_flow_context(self)

    @property
    def pred(self):
        return self._pred

    @property
    def pivot(self):
        return self._pivot

    @property
    def branch(self):
        return self._branch

    @property
    def grad_state(self):
        while_ctxt = self.get_while_context()
        return while_ctxt.grad_state if while_ctxt is not None else None

    @property
    def back_prop(self):
        while_ctxt = self.get_while_context()
        return while_ctxt.back_prop if while_ctxt is not None else False

    def get_control_pivot(self):
        return self._pivot

    def is_cond_context(self):
        return True

    def add_value(self, val):
        """The tensor the branch reads for `val`: `val` itself, or its Switch output.

        A tensor from outside the branch goes through a Switch on the
        predicate (made once per tensor), so that the branch not taken sees
        it dead. In a nested cond the outer context makes it available first.
        """
        if val.name in self._values:
            # Use the real value if it comes from the outer context (nested conds).
            return self._external_values.get(val.name, val)
        result = val
        self._values.add(val.name)
        if self._outer_context is not None:
            result = self._outer_context.add_value(val)
            self._values.add(result.name)
            self._external_values[result.name] = result
        with ops.control_dependencies(None):
            result = _switch_ref_or_tensor(result, self._pred)[self._branch]
            if self._outer_context is not None:
                self._outer_context.add_inner_op(result.op)
        result.op.graph.prevent_fetching(result.op)
        result.op._set_control_flow_context(self)
        ctxt = self
        while ctxt is not None:  # the Switch output is seen here and in every outer context
            ctxt._values.add(result.name)
            ctxt = ctxt._outer_context
        self._external_values[val.name] = result
        return result

    def add_op(self, op):
        """Takes a new op into the branch: its outside inputs through Switches, or the pivot."""
        self._add_op_internal(op)

    def _add_op_internal(self, op):
        if not op.inputs:
            self._remove_external_control_edges(op)
            if not any(util.op_in_context(x, self) for x in op.control_inputs):
                op._add_control_input(self._pivot.op)
        else:
            for index, x in enumerate(op.inputs):
                if util.is_merge(op) and x.op.type == "NextIteration":
                    real_x = x  # a loop imported into the branch: the NextIteration joins later
                else:
                    real_x = self.add_value(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            self._remove_external_control_edges(op)
        ctxt = self
        while ctxt is not None:
            ctxt._values.update(t.name for t in op.outputs)
            ctxt = ctxt._outer_context
        if self._outer_context is not None or not util.is_loop_exit(op):
            op.graph.prevent_fetching(op)
        if self._outer_context is not None:
            self._outer_context.add_inner_op(op)

    def _process_output_tensor(self, val):
        """The branch's result for `val`: a value made outside the branch goes through a Switch."""
        if val.name not in self._values:  # the branch returns an outside tensor: lambda: x
            self._values.add(val.name)
            real_val = val
            if self._outer_context is not None:
                real_val = self._outer_context.add_value(val)
                self._values.add(real_val.name)
                self._external_values[real_val.name] = real_val
            real_val = _switch_ref_or_tensor(real_val, self._pred)[self._branch]
            self._external_values[val.name] = real_val
            return real_val
        return self._external_values.get(val.name, val)

    def _build_cond_tensor(self, value):
        if isinstance(value, ops.Operation):
            return with_dependencies([value], self._pivot)  # the pivot stands for the op
        value = _convert_tensorarray_to_flow(value)
        return self._process_output_tensor(convert_to_tensor(value))

    def build_cond_branch(self, fn):
        """Calls `fn` in this context; returns (its result, the branch's tensors for it)."""
        original_result = fn()
        if original_result is None:
            return None, None
        result = nest.map_structure(self._build_cond_tensor, original_result,
                                    expand_composites=True)
        if not isinstance(result, (list, _BaseTuple)):
            result = [result]
        return original_result, result


class WhileContext(ControlFlowContext):
    """One `tf.while_loop` being built: its frame (`name`), pivots, Enters and Exits.

    `_pivot_for_pred` (the first Merge) and `_pivot_for_body` (the first
    Identity) are what ops without inputs in the predicate and the body get
    a control edge from; `pivot` is the LoopCond. `grad_state` is set on the
    WhileContext of a gradient loop: the GradLoopState that links it to its
    forward loop.
    """

    def __init__(self, maximum_iterations=None, parallel_iterations=10, back_prop=True,
                 swap_memory=False, name="while_context", grad_state=None):
        super().__init__()
        if not isinstance(parallel_iterations, int) or parallel_iterations <= 0:
            raise ValueError("`parallel_iterations` must be a positive integer: %s"
                             % parallel_iterations)
        self._name = ops.get_default_graph().unique_name(name)
        self._maximum_iterations = maximum_iterations
        self._parallel_iterations = parallel_iterations
        self._back_prop = back_prop
        self._swap_memory = swap_memory
        self._pivot_for_pred = None
        self._pivot_for_body = None
        self._pivot = None
        self._loop_exits = []
        self._loop_enters = []
        self._graph = ops.get_default_graph()
        self._grad_state = grad_state

    @property
    def maximum_iterations(self):
        return self._maximum_iterations

    @property
    def parallel_iterations(self):
        return self._parallel_iterations

    @property
    def back_prop(self):
        return self._back_prop

    @property
    def swap_memory(self):
        return self._swap_memory

    @property
    def pivot(self):
        """The LoopCond: the loop's predicate, as the Switches see it."""
        return self._pivot

    @property
    def loop_enters(self):
        return self._loop_enters

    @property
    def loop_exits(self):
        return self._loop_exits

    @property
    def grad_state(self):
        return self._grad_state

    def get_while_context(self):
        return self

    def get_control_pivot(self):
        return self._pivot_for_body if self._pivot_for_body is not None else self._pivot_for_pred

    def is_while_context(self):
        return True

    def add_value(self, val):
        """The tensor the loop reads for `val`: `val`, or an Enter of it (a loop invariant).

        In a gradient loop, a value of the forward loop is read back from
        the stack that saved it, one per iteration (`GradLoopState.get_real_value`).
        """
        result = val
        new_value = val.name not in self._values and val.op._control_flow_context is not self
        if not new_value:
            return self._external_values.get(val.name, val)
        self._values.add(val.name)
        grad_ctxt = ops.get_default_graph()._get_control_flow_context()
        if grad_ctxt is not None:
            grad_ctxt = grad_ctxt.get_while_context()
            if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                forward_ctxt = util.get_while_context(val.op)
                if util.is_loop_exit(val.op):
                    forward_ctxt = forward_ctxt.outer_context
                    if forward_ctxt is not None:
                        forward_ctxt = forward_ctxt.get_while_context()
                if forward_ctxt is grad_ctxt.grad_state.forward_context:
                    real_val = grad_ctxt.grad_state.get_real_value(val)
                    self._external_values[val.name] = real_val
                    return real_val
        if self._outer_context is not None:
            result = self._outer_context.add_value(val)
        with ops.control_dependencies(None):
            enter = _enter(result, self._name, is_constant=True,
                           parallel_iterations=self._parallel_iterations)
            enter.graph.prevent_feeding(enter)
            if self._outer_context is not None:
                self._outer_context.add_inner_op(enter.op)
        self._fix_control_inputs_and_context([enter])
        self._values.add(enter.name)
        self._external_values[val.name] = enter
        return enter

    def add_op(self, op):
        """Takes a new op into the loop.

        A Shape, Size or Rank built by the gradient loop of a forward value
        is moved into the forward loop: the stack then saves the small
        shape, not the tensor.
        """
        if op.type in ("Shape", "Size", "Rank"):
            grad_ctxt = ops.get_default_graph()._get_control_flow_context()
            if grad_ctxt is not None:
                grad_ctxt = grad_ctxt.get_while_context()
                if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                    input_forward_ctxt = util.get_while_context(op.inputs[0].op)
                    if input_forward_ctxt is grad_ctxt.grad_state.forward_context:
                        input_ctxt = op.inputs[0].op._get_control_flow_context()
                        op._set_control_flow_context(input_ctxt)
                        input_ctxt._add_op_internal(op)
                        return
        self._add_op_internal(op)

    def _add_op_internal(self, op):
        """Inputs from outside come in through Enters; an op without inputs (or with only
        invariant inputs) gets a control edge from the pivot, so it runs once per
        iteration; control inputs from outside the loop come in as data, through Enters."""
        if not op.inputs:
            control_inputs, external_inputs = self._remove_external_control_edges(op)
            if not control_inputs:
                op._add_control_input(self.get_control_pivot().op)
        else:
            for index, x in enumerate(op.inputs):
                real_x = self.add_value(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            _, external_inputs = self._remove_external_control_edges(op)
            self._maybe_add_control_dependency(op)
        for x in op.outputs:
            self._values.add(x.name)
        if external_inputs:
            # An Identity in the loop of each outside op's output pulls it in as data.
            with ops.control_dependencies(None):
                self.enter()
                external_inputs = [array_ops.identity(x.outputs[0]).op
                                   for x in external_inputs if x.outputs]
                self.exit()
            op._add_control_inputs(external_inputs)
        if self._outer_context is not None or not util.is_loop_exit(op):
            op.graph.prevent_fetching(op)
            for x in op.outputs:
                op.graph.prevent_feeding(x)
        if self._outer_context is not None:
            self._outer_context.add_inner_op(op)

    def _maybe_add_control_dependency(self, op):
        """An op whose inputs are all loop invariants gets a control edge from the pivot.

        Otherwise it would be ready once, when the invariants arrive, and run
        in the first iteration only.
        """
        if op.control_inputs:
            return
        if all(util.is_loop_constant_enter(x.op) for x in op.inputs):
            op._add_control_input(self.get_control_pivot().op)

    def _fix_control_inputs_and_context(self, enters):
        """Enters built outside the context join it, keeping the control inputs from
        around them that belong to enclosing conds (not those from enclosing loops)."""
        graph = ops.get_default_graph()
        for enter in enters:
            input_op = enter.op.inputs[0].op
            outer_control_inputs = []
            for op in graph._control_dependencies_for_inputs({input_op}):
                op_ctxt = util.get_output_context(op)
                outer_ctxt = self.outer_context
                outer_while = outer_ctxt.get_while_context() if outer_ctxt is not None else None
                keep = True
                while outer_ctxt is not op_ctxt:
                    if outer_ctxt is None or outer_ctxt is outer_while:
                        keep = False
                        break
                    outer_ctxt = outer_ctxt.outer_context
                if keep:
                    outer_control_inputs.append(op)
            enter.op._set_control_flow_context(self)
            enter.op._add_control_inputs(outer_control_inputs)
            graph._record_op_seen_by_control_dependencies(enter.op)

    def _initialize_values(self, values):
        self._values = {x.name for x in values}

    # --- building the loop ------------------------------------------------------------
    def build_loop(self, pred, body, loop_vars, shape_invariants, return_same_structure):
        """Adds the loop for `pred`, `body` and `loop_vars`; returns the loop's results."""
        original_loop_vars = loop_vars
        flat_loop_vars = [_convert_tensorarray_to_flow(v)
                          for v in nest.flatten(loop_vars, expand_composites=False)]
        flat_loop_vars = [_as_tensor_or_composite(v) for v in flat_loop_vars]
        if shape_invariants is None:
            shape_invariants = [_get_shape_invariant(v) for v in flat_loop_vars]
        loop_tensors = nest.flatten(flat_loop_vars, expand_composites=True)
        try:
            self.enter()
            original_body_result, exit_vars = self._build_loop(
                pred, body, original_loop_vars, loop_tensors, shape_invariants)
        finally:
            self.exit()
        flat_result = nest.flatten(original_body_result, expand_composites=True)
        exit_vars = _convert_flows_to_tensorarrays(flat_result, exit_vars)
        packed = nest.pack_sequence_as(original_body_result, exit_vars, expand_composites=True)
        if return_same_structure:
            return packed
        return packed[0] if len(exit_vars) == 1 else packed

    def _build_loop(self, pred, body, original_loop_vars, loop_vars, shape_invariants):
        """The core: Enters, Merges, the predicate, Switches, the body, back edges, Exits."""
        flat_original = nest.flatten(original_loop_vars, expand_composites=True)
        self._initialize_values(loop_vars)
        real_vars = loop_vars
        if self._outer_context is not None:
            real_vars = [self._outer_context.add_value(x) for x in loop_vars]
        with ops.control_dependencies(None):
            enter_vars = [_enter(x, self._name, is_constant=False,
                                 parallel_iterations=self._parallel_iterations,
                                 use_input_shape=False) for x in real_vars]
            for x in enter_vars:
                x.graph.prevent_feeding(x)
                if self._outer_context is not None:
                    self._outer_context.add_inner_op(x.op)
        control_pivot = self._enclosing_control_pivot()
        if control_pivot is not None:
            for var in enter_vars:
                if util.is_loop_constant_enter(var.op.inputs[0].op):
                    var.op._add_control_input(control_pivot.op)
        _set_shape_invariants(real_vars, enter_vars, shape_invariants)
        self._fix_control_inputs_and_context(enter_vars)
        self._initialize_values(enter_vars)
        self._loop_enters = enter_vars

        merge_vars = [merge([x, x])[0] for x in enter_vars]
        self._pivot_for_pred = merge_vars[0]
        packed_vars = nest.pack_sequence_as(
            original_loop_vars, _convert_flows_to_tensorarrays(flat_original, merge_vars),
            expand_composites=True)
        condition = convert_to_tensor(pred(*packed_vars))
        self._pivot = loop_cond(condition, name="LoopCond")
        switch_vars = [_switch_ref_or_tensor(x, self._pivot) for x in merge_vars]

        vars_for_body = [_identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        packed_vars_for_body = nest.pack_sequence_as(
            original_loop_vars, _convert_flows_to_tensorarrays(flat_original, vars_for_body),
            expand_composites=True)
        body_result = body(*packed_vars_for_body)
        if not nest.is_sequence(body_result) and not isinstance(
                body_result, (IndexedSlices, SparseTensor)):
            body_result = [body_result]
        # The first level is compared as lists: loop_vars is usually a list, the body's
        # result a tuple.
        nest.assert_same_structure(list(packed_vars_for_body), list(body_result),
                                   expand_composites=True)
        original_body_result = body_result
        result = [_as_tensor_or_composite(_convert_tensorarray_to_flow(v))
                  for v in nest.flatten(body_result, expand_composites=True)]
        if len(merge_vars) != len(result):
            raise ValueError("Number of inputs and outputs of body must match loop_vars: %d, %d"
                             % (len(merge_vars), len(result)))
        for m, v in zip(merge_vars, result):
            _add_next_and_back_edge(m, v)
        exit_vars = [exit(x[0]) for x in switch_vars]
        self._loop_exits = exit_vars
        self.exit_result(exit_vars)
        return original_body_result, exit_vars

    def _enclosing_control_pivot(self):
        """The control pivot of the nearest enclosing context that has one, or None."""
        outer = self._outer_context
        while outer is not None:
            pivot = outer.get_control_pivot()
            if pivot is not None:
                return pivot
            outer = outer.outer_context
        return None

    # --- what the gradient of a loop adds (see minitf/autodiff/control_flow_state.py) --
    def add_forward_loop_counter(self, outer_grad_state):
        """Adds `n = 0; while (pivot) n += 1` to this (forward) loop.

        Returns the iteration count (an Exit) and the counter's next value
        (the NextIteration): the stack pushes of each iteration are ordered
        by it. Called in the context around this loop.
        """
        n = constant(0, name="f_count")
        if outer_grad_state is not None:
            # The pushes of one run of an inner loop come before those of the next run.
            outer_add_op = outer_grad_state.forward_index.op.inputs[0].op
            n.op._add_control_input(outer_add_op)
        self.enter()
        merge_n = self._enter_loop_variable(n, "f_count")
        switch_n = switch(merge_n, self._pivot)
        next_n, total_iterations = self._close_loop_variable(
            merge_n, math_ops.add(switch_n[1], 1), switch_n[0], "f_count")
        self.exit()
        return total_iterations, next_n

    def _enter_loop_variable(self, value, name, merge_name=None):
        """Brings `value` into this loop as one more loop variable; returns its Merge."""
        self.add_name(value.name)
        enter = _enter(value, self._name, is_constant=False,
                       parallel_iterations=self._parallel_iterations, name=name)
        self.loop_enters.append(enter)
        return merge([enter, enter], name=merge_name)[0]

    def _close_loop_variable(self, merge_value, next_value, exit_value, name):
        """The back edge of a loop variable and its Exit; returns (NextIteration, Exit)."""
        next_iteration = _next_iteration(next_value)
        merge_value.op._update_input(1, next_iteration)
        result = exit(exit_value, name=name)
        self.loop_exits.append(result)
        self.exit_result([result])
        return next_iteration, result

    def add_backprop_loop_counter(self, count, outer_grad_state):
        """Adds `n = count; while (n >= 1) n -= 1` to this (gradient) loop: its predicate.

        Returns the counter's next value. Called in the context around this loop.
        """
        one = constant(1, name="b_count")
        self.enter()
        merge_count = self._enter_loop_variable(count, "b_count")
        self._pivot_for_pred = merge_count
        self._pivot = loop_cond(math_ops.greater_equal(merge_count, one), name="b_count")
        switch_count = switch(merge_count, self._pivot)
        index = math_ops.subtract(switch_count[1], one)
        self._pivot_for_body = index
        next_count, final_zero = self._close_loop_variable(merge_count, index,
                                                           switch_count[0], "b_count")
        if outer_grad_state is not None:
            # The pops of one run of an inner loop come before those of the next run.
            outer_grad_state.grad_sync._add_control_input(final_zero.op)
        self.exit()
        return next_count

    def add_backprop_accumulator(self, op, grad):
        """Sums `grad` over the iterations of this gradient loop: the gradient of a loop
        invariant (`op` is its Enter). Called in this context; returns the sum (an Exit)."""
        self.exit()
        shape = grad.shape
        if shape.is_fully_defined():
            if self.outer_context is not None:
                self.outer_context.enter()
            acc = constant(0, grad.dtype, shape=shape.as_list(), name="b_acc")
            if self.outer_context is not None:
                self.outer_context.exit()
        else:
            value = op.inputs[0]
            if (isinstance(self.outer_context, WhileContext)
                    and self.outer_context.grad_state is not None):
                # A nested loop: the shape of the invariant comes from the forward's history.
                forward_ctxt = self.grad_state.forward_context
                forward_ctxt.outer_context.enter()
                zeros_shape = array_ops._shape_internal(value, optimize=False)
                forward_ctxt.outer_context.exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history_zeros_shape = outer_grad_state.add_forward_accumulator(zeros_shape)
                self.outer_context.enter()
                real_shape = outer_grad_state.add_backprop_accumulated_value(
                    history_zeros_shape, zeros_shape)
                acc = array_ops.zeros(real_shape, grad.dtype)
                self.outer_context.exit()
            else:
                if self.outer_context is not None:
                    self.outer_context.enter()
                zeros_shape = array_ops._shape_internal(value, optimize=False)
                acc = array_ops.zeros(zeros_shape, grad.dtype)
                if self.outer_context is not None:
                    self.outer_context.exit()
        self.enter()
        merge_acc = self._enter_loop_variable(acc, "b_acc", merge_name="b_acc")
        switch_acc_false, switch_acc_true = switch(merge_acc, self._pivot)
        return self._close_loop_variable(merge_acc, math_ops.add(switch_acc_true, grad),
                                         switch_acc_false, "b_acc")[1]

    def add_backprop_indexed_slices_accumulator(self, op, grad):
        """`add_backprop_accumulator` for an IndexedSlices gradient (an embedding in a
        loop): the iterations' rows are concatenated, not summed."""
        values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
        self.exit()
        if self.outer_context is not None:
            self.outer_context.enter()
        if values.shape.is_fully_defined():
            values_shape = [1] + values.shape.as_list()[1:]
            values_acc = constant(0, values.dtype, shape=values_shape, name="b_acc")
        else:
            values_shape = array_ops._shape_internal(op.inputs[0], optimize=False)[1:]
            values_shape = array_ops.concat([[1], values_shape], 0)
            values_acc = array_ops.zeros(values_shape, dtype=values.dtype)
        indices_acc = constant([0], indices.dtype)
        shape_acc = None
        if dense_shape is not None:
            if dense_shape.shape.is_fully_defined():
                shape_acc = constant(0, dense_shape.dtype, shape=dense_shape.shape.as_list())
            else:
                shape_acc = array_ops.zeros_like(array_ops._shape_internal(
                    op.inputs[0], optimize=False, out_type=dense_shape.dtype), optimize=False)
        if self.outer_context is not None:
            self.outer_context.exit()
        self.enter()
        self.add_name(values_acc.name)
        self.add_name(indices_acc.name)
        init_acc = [indices_acc, values_acc]
        if shape_acc is not None:
            self.add_name(shape_acc.name)
            init_acc.append(shape_acc)
        # The accumulators grow: their Enters take no static shape from their inputs.
        enter_acc = [_enter(x, self._name, is_constant=False,
                            parallel_iterations=self._parallel_iterations,
                            use_input_shape=False, name="b_acc") for x in init_acc]
        enter_acc[0].set_shape([None])
        if values_acc.shape.ndims is not None:
            enter_acc[1].set_shape([None] + values_acc.shape.as_list()[1:])
        self.loop_enters.extend(enter_acc)
        merge_acc = [merge([x, x], name="b_acc")[0] for x in enter_acc]
        switch_acc = [switch(x, self._pivot) for x in merge_acc]
        acc_indexed_slices = [array_ops.concat([xa[1], xv], 0)
                              for xa, xv in zip(switch_acc[:2], [indices, values])]
        if shape_acc is not None:
            acc_indexed_slices.append(math_ops.maximum(dense_shape, switch_acc[2][1]))
        next_acc = [_next_iteration(x) for x in acc_indexed_slices]
        for xm, xn in zip(merge_acc, next_acc):
            xm.op._update_input(1, xn)
        exit_acc = [exit(x[0], name="b_acc") for x in switch_acc]
        self.loop_exits.extend(exit_acc)
        self.exit_result(exit_acc)
        return IndexedSlices(indices=exit_acc[0], values=exit_acc[1],
                             dense_shape=exit_acc[2] if shape_acc is not None else None)


# --- shape invariants ------------------------------------------------------------------

def _shape_less_than_or_equal(shape1, shape2):
    """Whether `shape1` is at least as specific as `shape2` (and compatible with it)."""
    if shape2.ndims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(d2 is None or d1 == d2
               for d1, d2 in zip(shape1.as_list(), shape2.as_list()))


def _get_shape_invariant(var, shape=None):
    """The shape invariant(s) of a loop variable: one per tensor of an IndexedSlices or
    SparseTensor, from the invariant of its dense shape."""
    if isinstance(var, IndexedSlices):
        shape = var.values.shape if shape is None else tensor_shape.as_shape(shape)
        if var.dense_shape is None:
            return [shape, shape[:1]]
        return [shape, shape[:1], tensor_shape.TensorShape([shape.ndims])]
    if isinstance(var, SparseTensor):
        if shape is None:
            rank = tensor_shape.dimension_value(var.dense_shape.shape[0])
        else:
            rank = tensor_shape.as_shape(shape).ndims
        return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
                tensor_shape.TensorShape([rank])]
    return var.shape if shape is None else shape


def _set_shape_invariants(input_vars, enter_vars, shapes):
    """Gives each Enter the shape invariant of its variable, which the variable must meet."""
    flat_shapes = nest.flatten(shapes)
    if not all(isinstance(s, tensor_shape.TensorShape) for s in flat_shapes):
        raise ValueError("`shapes` must be a (possibly nested) list of shapes.")
    for inp, var, shape in zip(input_vars, enter_vars, flat_shapes):
        if not _shape_less_than_or_equal(inp.shape, shape):
            raise ValueError(
                "The shape invariant specified for %s is not compatible with the initial "
                "shape of the loop variable. It enters the loop with shape %s, but the "
                "specified shape invariant is %s." % (inp.name, inp.shape, shape))
        var.set_shape(shape)


def _enforce_shape_invariant(merge_var, next_var):
    """ValueError when a loop variable leaves an iteration less specific than it entered."""
    if not _shape_less_than_or_equal(next_var.shape, merge_var.shape):
        enter = merge_var.op.inputs[0].op
        input_t = enter.inputs[0]
        raise ValueError(
            "Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
            "iteration. To allow the shape to vary across iterations, use the "
            "`shape_invariants` argument of tf.while_loop to specify a less-specific shape."
            % (input_t.name, input_t.shape, next_var.shape))


def _add_next_and_back_edge(m, v, enforce_shape_invariant=True):
    """A NextIteration of `v`, made the Merge `m`'s second input: the loop's back edge."""
    v = _next_iteration(convert_to_tensor(v))
    if enforce_shape_invariant:
        _enforce_shape_invariant(m, v)
    m.op._update_input(1, v)
    return v


# =============================================================================
# tf.cond, tf.case and smart_cond
# =============================================================================

def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if the scalar bool tensor `pred` is true, else `false_fn()`.

    Both functions are called once, now; the ops each one builds run only
    when its branch is taken. They must return the same (nested) structure
    of tensors, of the same dtypes; a singleton list or tuple is unpacked
    unless `strict`. Tensors made outside the branches run whatever `pred`.
    `fn1`/`fn2` are the deprecated names of `true_fn`/`false_fn`.
    """
    true_fn = _branch_function(true_fn, fn1, "true_fn", "fn1")
    false_fn = _branch_function(false_fn, fn2, "false_fn", "fn2")
    with ops.name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("pred must not be a Python bool")
        p_2, p_1 = switch(pred, pred)
        pivot_1 = array_ops.identity(p_1, name="switch_t")
        pivot_2 = array_ops.identity(p_2, name="switch_f")
        pred = array_ops.identity(pred, name="pred_id")
        for tensor in (p_1, p_2, pivot_1, pivot_2, pred):
            tensor.op.graph.prevent_fetching(tensor.op)
        orig_res_t, res_t, context_t = _build_branch(pred, pivot_1, 1, true_fn, "true_fn")
        orig_res_f, res_f, context_f = _build_branch(pred, pivot_2, 0, false_fn, "false_fn")
        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        _check_same_structure(orig_res_t, orig_res_f, res_t, res_f)
        if not res_t:
            raise ValueError("true_fn and false_fn must return at least one result.")
        res_t_flat = nest.flatten(res_t, expand_composites=True)
        res_f_flat = nest.flatten(res_f, expand_composites=True)
        for x, y in zip(res_t_flat, res_f_flat):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError("Outputs of true_fn and false_fn must have the same type: "
                                 "%s, %s" % (x.dtype.name, y.dtype.name))
        merges = [merge(pair)[0] for pair in zip(res_f_flat, res_t_flat)]
        merges = _convert_flows_to_tensorarrays(
            nest.flatten(orig_res_t, expand_composites=True), merges)
        if context_t.outer_context is None:
            ops.add_to_collection(ops.GraphKeys.COND_CONTEXT, context_t)
            ops.add_to_collection(ops.GraphKeys.COND_CONTEXT, context_f)
        merges = nest.pack_sequence_as(orig_res_t, merges, expand_composites=True)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _branch_function(fn, deprecated_fn, name, deprecated_name):
    """`fn`, or the function given under its deprecated name; TypeError for neither or both."""
    if deprecated_fn is not None:
        if fn is not None:
            raise TypeError("cond(): %s and %s may not be set simultaneously."
                            % (name, deprecated_name))
        fn = deprecated_fn
    elif fn is None:
        raise TypeError("cond(): %s argument required" % name)
    if not callable(fn):
        raise TypeError("%s must be callable." % name)
    return fn


def _build_branch(pred, pivot, branch, fn, fn_name):
    """Builds one branch in its own CondContext: (original result, branch tensors, context)."""
    context = CondContext(pred, pivot, branch=branch)
    try:
        context.enter()
        orig_res, res = context.build_cond_branch(fn)
        if orig_res is None:
            raise ValueError("%s must have a return value." % fn_name)
        context.exit_result(res)
    finally:
        context.exit()
    return orig_res, res, context


def _check_same_structure(orig_res_t, orig_res_f, res_t, res_f):
    try:
        nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
    except (TypeError, ValueError):
        # IndexedSlices with int32 and int64 indices match once both are int64.
        nest.map_structure(_cast_indexed_slice_indices, orig_res_t, orig_res_f)
        nest.map_structure(_cast_indexed_slice_indices, res_t, res_f)
        try:
            nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
        except TypeError as e:
            raise TypeError("Incompatible return types of true_fn and false_fn: {}"
                            .format(e)) from None
        except ValueError as e:
            raise ValueError("Incompatible return values of true_fn and false_fn: {}"
                             .format(e)) from None


def _cast_indexed_slice_indices(a, b):
    if (isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices)
            and a.indices.dtype != b.indices.dtype):
        a._indices = math_ops.cast(a.indices, dtypes.int64)
        b._indices = math_ops.cast(b.indices, dtypes.int64)


def _unpack_if_singleton(result):
    if isinstance(result, (list, _BaseTuple)) and len(result) == 1:
        return result[0]
    return result


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first `fn` whose `pred` is true, else of `default`.

    `pred_fn_pairs` is a list of (bool tensor, callable) pairs, or a dict
    (tried in order of the predicates' names). It is built as nested conds:
    `cond(p0, f0, lambda: cond(p1, f1, ...default))`. With `exclusive`, an
    Assert checks that at most one predicate is true. Without `default`,
    the last pair is the default, guarded by Asserts that its predicate is
    true and the others false.
    """
    predicates, actions = _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name)
    with ops.name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _case_create_default_action(predicates, actions)
        fn = default
        # Nested in reverse, so that the conditions are tested in order.
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with ops.control_dependencies([_assert_at_most_n_true(
                    predicates, n=1, msg="Input error: exclusive=True")]):
                return fn()
        return fn()


def _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, _BaseTuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
        if not exclusive:
            _logger.warning("%s: An unordered dictionary of predicate/fn pairs was provided, "
                            "but exclusive=False. The order of conditional tests is "
                            "deterministic but not guaranteed.", name)
    for pred_fn_pair in pred_fn_pairs:
        if not isinstance(pred_fn_pair, _BaseTuple) or len(pred_fn_pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pred_fn_pair
        if not isinstance(pred, ops.Tensor):
            raise TypeError("pred must be a Tensor, got: %s" % (pred,))
        if pred.dtype != dtypes.bool:
            raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    predicates, actions = zip(*pred_fn_pairs)
    return predicates, actions


def _case_create_default_action(predicates, actions):
    """The last action as the default, guarded: its predicate true, the others false."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but "
                      "some of other predicates are True: " % k)
        default_msg = ("Input error: None of conditions evaluated as True:",
                       array_ops.stack(predicates, name="preds_c"))
        with ops.control_dependencies([
                _assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                Assert(predicate, data=default_msg)]):
            return action()

    return default_action, other_predicates, other_actions


def _assert_at_most_n_true(predicates, n, msg):
    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true_conditions = math_ops.reduce_sum(math_ops.cast(preds_c, dtypes.int32),
                                              name="num_true_conds")
    condition = math_ops.less_equal(num_true_conditions, constant(n, name="n_true_conds"))
    preds_names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = ["%s: more than %d conditions (%s) evaluated as True:" % (msg, n, preds_names),
                 preds_c]
    return Assert(condition, data=error_msg, summarize=len(predicates))


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` or `false_fn()` chosen now when `pred` is known while building, else a cond.

    `pred` may be a Python bool, 0 or 1, or a bool tensor whose value
    `constant_value` can tell (a Const): then only one branch is built.
    """
    if not callable(true_fn):
        raise TypeError("`true_fn` must be callable.")
    if not callable(false_fn):
        raise TypeError("`false_fn` must be callable.")
    pred_value = smart_constant_value(pred)
    if pred_value is not None:
        return true_fn() if pred_value else false_fn()
    return cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)


def smart_constant_value(pred):
    """The value of `pred` (a Python bool, 0/1 or a bool tensor) if known now, else None."""
    if isinstance(pred, ops.Tensor):
        value = tensor_util.constant_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, bool) or pred in (0, 1):
        return bool(pred)
    raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: %s"
                    % (pred,))


# =============================================================================
# tf.while_loop
# =============================================================================

def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,  # noqa: A002
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats `body` while `cond` is true: `loop_vars = body(*loop_vars)`.

    `cond(*loop_vars)` returns a scalar bool tensor; `body(*loop_vars)`
    returns loop variables of the same (nested) structure, dtypes and
    shapes. A variable whose shape changes needs a less specific
    `shape_invariants` entry (a TensorShape, None for unknown dims). Up to
    `parallel_iterations` iterations run at once. With
    `maximum_iterations`, the loop stops after that many iterations at
    most. `back_prop=False` gives the loop no gradient. `swap_memory` is
    accepted (minitf has no device memory to swap). Returns the final
    values: one tensor for one loop variable, unless
    `return_same_structure`.
    """
    with ops.name_scope(name, "while", loop_vars):
        if not loop_vars:
            raise ValueError("No loop variables provided")
        if not callable(cond):
            raise TypeError("cond must be callable.")
        if not callable(body):
            raise TypeError("body must be callable.")
        if parallel_iterations < 1:
            raise TypeError("parallel_iterations must be a positive integer.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations,
                                                   name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("maximum_iterations must be a scalar, saw shape: %s"
                                 % maximum_iterations.shape)
            cond, body, loop_vars = _with_iteration_counter(
                cond, body, loop_vars, maximum_iterations, try_to_pack)
            try_to_pack = False
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        if shape_invariants is not None:
            nest.assert_same_structure(loop_vars, shape_invariants, expand_composites=False)
            shape_invariants = _flat_shape_invariants(loop_vars, shape_invariants)
        loop_context = WhileContext(maximum_iterations=maximum_iterations,
                                    parallel_iterations=parallel_iterations,
                                    back_prop=back_prop, swap_memory=swap_memory)
        # Nested loops are reached through the outermost one's context.
        if loop_context.outer_context is None:
            ops.add_to_collection(ops.GraphKeys.WHILE_CONTEXT, loop_context)
        result = loop_context.build_loop(cond, body, loop_vars, shape_invariants,
                                         return_same_structure)
        return result[1] if maximum_iterations is not None else result


def _with_iteration_counter(cond, body, loop_vars, maximum_iterations, try_to_pack):
    """`cond`, `body` and `loop_vars` with a counter that stops the loop at the maximum."""
    counter = constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
    if try_to_pack:
        return (lambda i, lv: math_ops.logical_and(i < maximum_iterations, cond(lv)),
                lambda i, lv: (i + 1, body(lv)),
                (counter, loop_vars[0]))
    return (lambda i, lv: math_ops.logical_and(i < maximum_iterations, cond(*lv)),
            lambda i, lv: (i + 1, body(*lv)),
            (counter, loop_vars))


def _flat_shape_invariants(loop_vars, shape_invariants):
    """One TensorShape per tensor of the flattened loop variables."""
    flat_vars = nest.flatten(loop_vars)
    flat_shapes = nest.flatten(shape_invariants)
    result = []
    for var, shape in zip(flat_vars, flat_shapes):
        var = _convert_tensorarray_to_flow(var)
        shape = None if shape is None else tensor_shape.as_shape(shape)
        if isinstance(var, (IndexedSlices, SparseTensor)):
            result.extend(_get_shape_invariant(var, shape))
        else:
            result.append(shape if shape is not None else _as_tensor_or_composite(var).shape)
    return result


# =============================================================================
# tf.Assert
# =============================================================================

def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's public name
    """An op that fails with InvalidArgumentError, printing `data`, when `condition` is false.

    Run it (or make something depend on it) for the check to happen. When
    `data` holds only strings and int32s the Assert op is used as it is;
    otherwise it is guarded by a cond, so that a large tensor is only
    summarized when the check fails.
    """
    with ops.name_scope(name, "Assert", [condition, data]) as name:
        xs = [convert_to_tensor(x) for x in data]
        summarize = 3 if summarize is None else summarize
        if all(x.dtype in (dtypes.string, dtypes.int32) for x in xs):
            # Strings and int32s are on the host anyway: no need to guard the summary.
            return apply_op("Assert", name="Assert", condition=condition, data=list(data),
                            summarize=summarize)
        condition = convert_to_tensor(condition, name="Condition")

        def true_assert():
            return apply_op("Assert", name="Assert", condition=condition, data=list(data),
                            summarize=summarize)

        guarded_assert = cond(condition, no_op, true_assert, name="AssertGuard")
        return guarded_assert.op


# =============================================================================
# Ops that only order other ops
# =============================================================================

def no_op(name=None):
    """An op that does nothing; run it to run its control inputs."""
    return apply_op("NoOp", name=name)


def _flatten(values):
    for value in values:
        if isinstance(value, (list, _BaseTuple)):
            yield from _flatten(value)
        else:
            yield value


def group(*inputs, **kwargs):
    """A NoOp (named "group_deps" by default) that runs after every op in `inputs`.

    `inputs` are Tensors or Operations, possibly in nested lists; a tensor
    stands for the op that produces it. When the inputs sit on several
    devices, each device gets its own NoOp and the result waits for those,
    so only one control edge per device crosses between devices.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    flat_inputs = list(_flatten(inputs))
    with ops.name_scope(name, "group_deps", flat_inputs) as name:
        if not flat_inputs:
            return no_op(name=name)
        ops_on_device = {}
        for item in flat_inputs:
            if not hasattr(item, "device"):
                raise TypeError("Expected tf.group() expected Tensor arguments not '%s' with "
                                "type '%s'" % (item, type(item)))
            ops_on_device.setdefault(item.device, []).append(item)
        if len(ops_on_device) == 1:
            (device, deps), = ops_on_device.items()
            return _group_control_deps(device, deps, name=name)
        per_device = [_group_control_deps(device, ops_on_device[device])
                      for device in sorted(ops_on_device)]
        with ops.control_dependencies(per_device):
            return no_op(name=name)


def _group_control_deps(device, deps, name=None):
    """A NoOp on `device` that runs after `deps`."""
    with ops.control_dependencies(deps), ops.device(device):
        return no_op(name=name)


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`'s value, computed only after every op in `dependencies` has run.

    The identity is colocated with `output_tensor`, so it adds no transfer.
    """
    with ops.name_scope(name, "control_dependency",
                        list(dependencies) + [output_tensor]) as name:
        with ops.colocate_with(output_tensor):
            with ops.control_dependencies(dependencies):
                output_tensor = convert_to_tensor(output_tensor)
                return array_ops.identity(output_tensor, name=name)


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's public name
    """Identities of `tensors` that are all ready only once every one of them is.

    Operations in `tensors` become groups that wait likewise; None stays
    None. `control_inputs` are further ops everything waits for.
    """
    with ops.name_scope(name, "tuple", tensors) as name:
        tensors = [t if t is None or isinstance(t, (ops.Tensor, ops.Operation))
                   else convert_to_tensor(t) for t in tensors]
        gating_ops = [t if isinstance(t, ops.Operation) else t.op
                      for t in tensors if t is not None]
        for c in control_inputs or ():
            if isinstance(c, ops.Tensor):
                c = c.op
            elif not isinstance(c, ops.Operation):
                raise TypeError("Control input must be Operation or Tensor: %s" % (c,))
            gating_ops.append(c)
        # One entry per op, in creation order, so that the GraphDef is stable.
        gating_ops = sorted(set(gating_ops), key=lambda op: op._id)
        if not gating_ops:
            raise ValueError("Must have at least one Tensor: %s" % (tensors,))
        gate = group(*gating_ops)
        result = []
        for t in tensors:
            if isinstance(t, ops.Tensor):
                result.append(with_dependencies([gate], t))
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None)
        return result
