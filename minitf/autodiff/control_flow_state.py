"""The state of `tf.gradients` through while loops: one gradient loop per forward loop.

The gradient of a while loop is another while loop that runs the forward
loop's iterations backwards. For each forward loop on the path from the
xs to the ys, `tf.gradients` builds (a `GradLoopState`):

- a *forward counter* in the forward loop (`f_count`): how many
  iterations ran;
- the *gradient loop*, a WhileContext whose predicate counts that number
  down to zero (`b_count`): it runs as many iterations, last first;
- for every forward value the gradient needs (an input of a Mul, say), a
  *stack*: the forward loop pushes the value in each iteration (`f_acc`,
  StackPushV2), the gradient loop pops it in the matching iteration
  (StackPopV2). A value made outside the forward loop, or a loop
  invariant, needs no stack: it is the same in every iteration;
- for a loop invariant, an *accumulator* in the gradient loop that sums
  its gradient over the iterations (`b_acc`).

Pushes in one forward iteration are ordered before the next iteration's
(control edges through the counter), and pops likewise (`b_sync`), so that
each pop meets its push even when iterations run in parallel.

`ControlFlowState` maps each forward WhileContext to its GradLoopState, and
is what `gradients_impl` asks while it walks back through loops: which
gradient context an op's gradient is built in, when a loop's Exits are
ready (all of them at once: an Exit without a real gradient gets zeros),
and what a zero gradient is inside a loop.

Mirrors `tensorflow/python/ops/control_flow_state.py` (TF 1.15 kept it in
`control_flow_ops.py`: _GradLoopState, _ControlFlowState,
MaybeCreateControlFlowState, ZerosLikeOutsideLoop).
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_util
from minitf.graph.constant_op import constant
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import control_flow_util as util
from minitf.ops import data_flow_ops


class GradLoopState:
    """A forward loop and its gradient loop, and what links them.

    `history_map` holds, for each forward value the gradient has asked for,
    what the gradient loop reads instead (a StackPopV2); `switch_map`, for
    each forward loop Switch, the gradient loop's Merge made for it.
    """

    def __init__(self, forward_ctxt, outer_grad_state):
        self._outer_grad_state = outer_grad_state
        self._forward_sync = None
        self._grad_sync = None
        self._history_map = {}
        self._switch_map = {}
        self._unused_exits = []
        self._deferred_exits = []
        self._forward_loop_exits = list(forward_ctxt.loop_exits)
        self.pending_exits_count = len(forward_ctxt.loop_exits)
        if outer_grad_state is not None:
            outer_forward_ctxt = outer_grad_state.forward_context
        else:
            outer_forward_ctxt = forward_ctxt.outer_context
        # The forward loop counter.
        if outer_forward_ctxt is not None:
            outer_forward_ctxt.enter()
        count, forward_index = forward_ctxt.add_forward_loop_counter(outer_grad_state)
        if outer_forward_ctxt is not None:
            outer_forward_ctxt.exit()
        self._forward_context = forward_ctxt
        self._forward_index = forward_index
        # The gradient loop, and its counter.
        if outer_grad_state is not None:
            # A nested loop: each run of it has its own iteration count, saved on a stack.
            outer_forward_ctxt.add_name(count.name)
            history_count = outer_grad_state.add_forward_accumulator(count)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.enter()
            self._grad_context = self._new_grad_context(forward_ctxt)
            real_count = outer_grad_state.add_backprop_accumulated_value(history_count, count)
            self._grad_index = self._grad_context.add_backprop_loop_counter(
                real_count, outer_grad_state)
            outer_grad_ctxt.exit()
        else:
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.enter()
            self._grad_context = self._new_grad_context(forward_ctxt)
            self._grad_index = self._grad_context.add_backprop_loop_counter(
                count, outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.exit()

    def _new_grad_context(self, forward_ctxt):
        return control_flow_ops.WhileContext(
            maximum_iterations=forward_ctxt.maximum_iterations,
            parallel_iterations=forward_ctxt.parallel_iterations,
            back_prop=forward_ctxt.back_prop, swap_memory=forward_ctxt.swap_memory,
            name=forward_ctxt.name, grad_state=self)

    @property
    def outer_grad_state(self):
        """The GradLoopState of the loop around the forward loop (None if not nested)."""
        return self._outer_grad_state

    @property
    def forward_context(self):
        return self._forward_context

    @property
    def forward_index(self):
        """The forward counter's next value (the NextIteration of `f_count`)."""
        return self._forward_index

    @property
    def forward_sync(self):
        """A ControlTrigger in the forward loop that pushes in conds are ordered before."""
        if self._forward_sync is None:
            self._forward_sync = _sync_trigger("f_sync", self._forward_context,
                                               self._forward_index)
        return self._forward_sync

    @property
    def grad_context(self):
        """The WhileContext of the gradient loop."""
        return self._grad_context

    @property
    def grad_index(self):
        return self._grad_index

    @property
    def grad_sync(self):
        """A ControlTrigger in the gradient loop that every pop of an iteration comes before."""
        if self._grad_sync is None:
            self._grad_sync = _sync_trigger("b_sync", self._grad_context, self._grad_index)
            if self._grad_context.outer_context is not None:
                self._grad_context.outer_context.add_inner_op(self._grad_sync)
        return self._grad_sync

    @property
    def history_map(self):
        return self._history_map

    @property
    def switch_map(self):
        return self._switch_map

    @property
    def unused_exits(self):
        return self._unused_exits

    @property
    def deferred_exits(self):
        return self._deferred_exits

    @property
    def forward_loop_exits(self):
        return self._forward_loop_exits

    def add_forward_accumulator(self, value, dead_branch=False):
        """A stack, and a push of `value` in every iteration of the forward loop.

        Called in the context `tf.gradients` was called in. The push is
        ordered after the forward counter's increment of its iteration and
        before its NextIteration (or, in a cond, before `forward_sync`), so
        pushes happen in iteration order. Returns the stack's handle.
        """
        with self._forward_index.graph.as_default():
            curr_ctxt = ops.get_default_graph()._get_control_flow_context()
            with ops.control_dependencies(None):
                if curr_ctxt is not None:
                    curr_ctxt.enter()
                with ops.colocate_with(value):
                    max_size = constant(-1, dtypes.int32)
                    acc = data_flow_ops.stack_v2(max_size=max_size,
                                                 elem_type=value.dtype.base_dtype, name="f_acc")
                if curr_ctxt is not None:
                    curr_ctxt.exit()
                enter_acc = self.forward_context.add_value(acc)
                swap_enabled = self.forward_context.swap_memory
                value_ctxt = util.get_output_context(value.op)
                if value_ctxt is self.forward_context:
                    self.forward_context.enter()
                    push = data_flow_ops.stack_push_v2(enter_acc, value, swap_memory=swap_enabled)
                    self.forward_context.exit()
                    self.forward_index.op._add_control_input(push.op)
                else:
                    # `value` is in a cond inside the forward loop.
                    if not isinstance(value_ctxt, control_flow_ops.CondContext):
                        raise TypeError("value_ctxt is not a CondContext: %s" % value_ctxt)
                    if dead_branch:
                        # A zero for the branch not taken (see zeros_like_v1_while_loop).
                        value_ctxt.outer_context.enter()
                        push = data_flow_ops.stack_push_v2(enter_acc, value,
                                                           swap_memory=swap_enabled)
                        value_ctxt.outer_context.exit()
                        push.op._set_control_flow_context(value_ctxt)
                    else:
                        value_ctxt.enter()
                        push = data_flow_ops.stack_push_v2(enter_acc, value,
                                                           swap_memory=swap_enabled)
                        value_ctxt.exit()
                    self.forward_sync._add_control_input(push.op)
                add_op = self.forward_index.op.inputs[0].op
                push.op._add_control_input(add_op)
                return acc

    def add_backprop_accumulated_value(self, history_value, value, dead_branch=False):
        """The pop of `history_value` (a stack of `value`) in the gradient loop.

        Called in the gradient loop's context. In a cond, the pop is guarded
        by a Switch on the cond's predicate (as saved for this iteration).
        """
        history_ctxt = history_value.op._get_control_flow_context()
        cond_ctxt = None
        value_ctxt = value.op._get_control_flow_context()
        while value_ctxt is not None and value_ctxt is not history_ctxt:
            if isinstance(value_ctxt, control_flow_ops.CondContext):
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer_context
        with ops.control_dependencies(None):
            self.grad_context.enter()
            if cond_ctxt is not None:
                grad_state, pred = self, None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_ctxt.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = control_flow_ops._switch_ref_or_tensor(history_value,
                                                                       pred)[branch]
            pop = data_flow_ops.stack_pop_v2(history_value, value.dtype.base_dtype)
            pop.set_shape(value.shape)
            self.grad_context.exit()
        if self.grad_context.parallel_iterations > 1:
            # Every pop of an iteration comes before the counter moves on.
            self.grad_sync._add_control_input(pop.op)
        return pop

    def get_real_value(self, value):
        """What the gradient loop reads for the forward value `value`.

        A loop invariant, or a value from outside every forward loop of this
        gradient, is the same in all iterations: it just enters the gradient
        loop. A constant is rebuilt in the gradient loop. Anything else is
        saved on a stack in the forward loop and popped here.
        """
        real_value = self._history_map.get(value.name)
        if real_value is not None:
            return real_value
        cur_value, cur_grad_state = value, self
        history_value = None
        while True:
            enter_op = util.get_loop_constant_enter(cur_value)
            if enter_op is not None:
                cur_value = enter_op.inputs[0]
                cur_grad_state = cur_grad_state.outer_grad_state
                if cur_grad_state is None:
                    real_value = self._grad_context.add_value(cur_value)
                    break
            elif cur_value.op.type == "Const":
                real_value = constant(tensor_util.constant_value(cur_value),
                                      dtype=cur_value.dtype)
                break
            else:
                self._grad_context.exit()
                history_value = cur_grad_state.add_forward_accumulator(cur_value)
                self._grad_context.enter()
                break
        if real_value is None:
            real_value = cur_grad_state.add_backprop_accumulated_value(history_value, cur_value)
            if cur_grad_state is not self:
                real_value = self._grad_context.add_value(real_value)
        self._history_map[value.name] = real_value
        return real_value


def _sync_trigger(name, context, index):
    """A ControlTrigger in `context` that the loop counter `index` waits for."""
    with ops.control_dependencies(None):
        trigger = control_flow_ops.control_trigger(name=name)
    trigger._set_control_flow_context(context)
    index.op._add_control_input(trigger)
    return trigger


class ControlFlowState:
    """The GradLoopStates of one `tf.gradients` call, by forward WhileContext."""

    def __init__(self):
        self._map = {}

    def get_grad_state(self, op, before):
        """The GradLoopState of the loop `op` is in (for an Exit, `before` its gradient is
        built, the loop around it)."""
        if before and util.is_loop_exit(op):
            forward_ctxt = op._get_control_flow_context().outer_context
            if forward_ctxt is not None:
                forward_ctxt = forward_ctxt.get_while_context()
        else:
            forward_ctxt = util.get_while_context(op)
        return self._map.get(forward_ctxt) if forward_ctxt is not None else None

    def process_unused_loop_exits(self, pending_count, to_ops_set):
        """The Exits no gradient will reach, when some other Exit of their loop has one.

        Such an Exit still gets a (zero) gradient: the gradient loop needs one
        per loop variable. Also gives each loop's Enters a pending count, so
        the walk reaches them (for second derivatives).
        """
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count.get(y.op, 0) == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count.get(y.op, 0) == 0:
                    pending_count[y.op] = 1
        return loop_exits

    def enter_grad_while_context(self, op, before):
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.enter()

    def exit_grad_while_context(self, op, before):
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.exit()

    def add_while_context(self, op, between_op_list, between_ops):
        """Creates the GradLoopState of the loop whose Exit is `op`; its Exits join `between`."""
        forward_ctxt = util.get_while_context(op)
        if forward_ctxt in self._map:
            return
        outer_forward_ctxt = forward_ctxt.outer_context
        if outer_forward_ctxt is not None:
            outer_forward_ctxt = outer_forward_ctxt.get_while_context()
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
        grad_state = GradLoopState(forward_ctxt, outer_grad_state)
        self._map[forward_ctxt] = grad_state
        for loop_exit in grad_state.forward_loop_exits:
            if loop_exit.op not in between_ops:
                between_ops.add(loop_exit.op)
                between_op_list.append(loop_exit.op)

    def zeros_like_for_exit(self, val):
        """A zero gradient for the Exit `val` (a loop variable the ys do not use)."""
        val_shape = val.shape
        forward_ctxt = val.op._get_control_flow_context()
        outer_forward_ctxt = forward_ctxt.outer_context
        if outer_forward_ctxt is not None:
            outer_forward_ctxt = outer_forward_ctxt.get_while_context()
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
        if outer_grad_state is None:
            if val_shape.is_fully_defined():
                return array_ops.zeros(val_shape.as_list(), val.dtype)
            return array_ops.zeros_like(val, optimize=False)
        if val_shape.is_fully_defined():
            outer_grad_state.grad_context.enter()
            result = array_ops.zeros(val_shape.as_list(), val.dtype)
            outer_grad_state.grad_context.exit()
            return result
        # A nested loop: only the shape is saved, on a stack of the outer loop.
        forward_ctxt.outer_context.enter()
        shape = array_ops._shape_internal(val, optimize=False)
        forward_ctxt.outer_context.exit()
        history_shape = outer_grad_state.add_forward_accumulator(shape)
        outer_grad_ctxt = outer_grad_state.grad_context
        outer_grad_ctxt.enter()
        real_shape = outer_grad_state.add_backprop_accumulated_value(history_shape, shape)
        result = array_ops.zeros(real_shape, val.dtype)
        outer_grad_ctxt.exit()
        return result

    def zeros_like_v1_while_loop(self, op, index):
        """A zero gradient for output `index` of `op`, in the gradient loop's context.

        None for a loop Switch (its two gradients are built by its gradient
        function). For an op in a loop, a constant when the shape is known,
        else zeros of the shape the forward loop saved; a cond Switch's zero
        is guarded by a Switch for the branch not taken.
        """
        if util.is_loop_switch(op):
            return None
        dead_branch = util.is_switch(op)
        forward_ctxt = util.get_while_context(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            return zeros_like(op, index)
        op_ctxt = op._get_control_flow_context()
        val = convert_to_tensor(op.outputs[index], name="tensor")
        shape = val.shape
        if shape.is_fully_defined():
            result = constant(0, shape=shape.as_list(), dtype=val.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_ctxt.pred.name)
                branch = op_ctxt.branch
                result = control_flow_ops._switch_ref_or_tensor(result, pred)[1 - branch]
            return result
        if dead_branch:
            pred, branch = op_ctxt.pred, op_ctxt.branch
            op_ctxt.outer_context.enter()
            val = control_flow_ops._switch_ref_or_tensor(op.inputs[0], pred)[1 - branch]
            zeros_shape = array_ops._shape_internal(val, optimize=False)
            op_ctxt.outer_context.exit()
            val.op._set_control_flow_context(op_ctxt)
            zeros_shape.op._set_control_flow_context(op_ctxt)
        else:
            op_ctxt.enter()
            zeros_shape = array_ops._shape_internal(val, optimize=False)
            op_ctxt.exit()
        grad_state.grad_context.exit()
        history_zeros_shape = grad_state.add_forward_accumulator(zeros_shape,
                                                                 dead_branch=dead_branch)
        grad_state.grad_context.enter()
        shape = grad_state.add_backprop_accumulated_value(history_zeros_shape, zeros_shape,
                                                          dead_branch)
        return array_ops.zeros(shape, val.dtype)

    def post_processing(self):
        """Loop variables whose next value does not depend on their value get zeros.

        Their gradient Merge has the same input twice (no back edge was made):
        the gradient of every iteration after the first is zero.
        """
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is not b_merge.op.inputs[1]:
                    continue
                dtype = b_merge.op.inputs[0].dtype
                shape = b_merge.op.inputs[0].shape
                if shape.is_fully_defined():
                    grad_state.grad_context.enter()
                    grad_val = constant(0, dtype=dtype, shape=shape.as_list())
                    next_grad_val = control_flow_ops._next_iteration(grad_val)
                    grad_state.grad_context.exit()
                else:
                    outer_grad_ctxt = grad_state.grad_context.outer_context
                    if outer_grad_ctxt is not None:
                        outer_grad_ctxt.enter()
                    enter_grad = b_merge.op.inputs[0].op.inputs[0]
                    grad_shape = array_ops._shape_internal(enter_grad, optimize=False)
                    grad_val = array_ops.zeros(grad_shape, dtype)
                    if outer_grad_ctxt is not None:
                        outer_grad_ctxt.exit()
                    grad_state.grad_context.enter()
                    next_grad_val = control_flow_ops._next_iteration(grad_val)
                    grad_state.grad_context.exit()
                b_merge.op._update_input(1, next_grad_val)


def maybe_create_control_flow_state(between_op_list, between_ops, colocate_gradients_with_ops):
    """A ControlFlowState when loops lie between the xs and the ys, else None.

    Adds every Exit of those loops to `between_op_list` and `between_ops`.
    """
    loop_state = None
    for op in list(between_op_list):
        if util.is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate_gradients_with_ops:
                with ops.colocate_with(op):
                    loop_state.add_while_context(op, between_op_list, between_ops)
            else:
                loop_state.add_while_context(op, between_op_list, between_ops)
    return loop_state


def zeros_like(op, index):
    """A zero gradient for output `index` of `op` (outside any loop being differentiated).

    For a Switch of a cond, the zeros are built behind a Switch of its
    input, on the branch it leads to: they exist only when that branch is
    taken, as the gradient that needs them does.
    """
    if not util.is_switch(op):
        return array_ops.zeros_like(op.outputs[index], optimize=False)
    val = op.outputs[index]
    op_ctxt = op._get_control_flow_context()
    if op_ctxt is None or not op_ctxt.is_cond_context():
        return array_ops.zeros_like(val, optimize=False)
    switch_val = control_flow_ops.switch(op.inputs[0], op_ctxt.pred)[1 - op_ctxt.branch]
    # The zeros' ops depend on the switch, so they are on its branch.
    pivot = array_ops.identity(switch_val)
    zeros_shape = array_ops._shape_internal(switch_val, optimize=False)
    with ops.control_dependencies([pivot]):
        return array_ops.zeros(zeros_shape, dtype=val.dtype)
