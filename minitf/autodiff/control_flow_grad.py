"""Gradient functions of the control-flow ops: each op's gradient is its mirror image.

The gradient of a cond or a loop is built of the same ops, run backwards:

- **Switch <-> Merge.** A cond's Switch routes a value into one branch;
  its gradient merges the gradients coming back from the two branches
  (only the taken one is live). A cond's Merge picks the live branch; its
  gradient is a Switch on the same predicate, which sends the gradient
  back into that branch only.
- **Exit <-> Enter, Enter <-> Exit.** A loop variable leaves its loop at an
  Exit: its gradient enters the gradient loop there (`b_exit`), and leaves
  it where the variable entered the forward loop. A loop invariant's
  gradient is summed over the iterations (an accumulator, `b_acc`).
- **NextIteration** passes the gradient through: the gradient loop's own
  NextIteration is added by the loop Switch's gradient, on its second visit
  (the back edge of the gradient loop). So does the RefIdentity that a
  reference loop variable goes through in the body.
- **LoopCond** has no gradient: the predicate is not differentiated.

Inside a loop the gradient functions run in the gradient loop's context,
which `gradients_impl` enters for them (`control_flow_state.py`).

Mirrors `tensorflow/python/ops/control_flow_grad.py`.
"""

from minitf.autodiff.registry import NotDifferentiable
from minitf.autodiff.registry import RegisterGradient
from minitf.graph import ops
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.sparse_tensor import SparseTensor
from minitf.ops import control_flow_ops
from minitf.ops import control_flow_util
from minitf.ops import math_ops

for _op_type in ("LoopCond", "ControlTrigger", "StackV2", "StackPushV2",
                 "StackPopV2", "StackCloseV2"):
    NotDifferentiable(_op_type)


def _switch_grad(op, *grad):
    """A Merge of the gradients of both outputs (one of them is live).

    A loop's Switch is visited twice: first with the gradient from its Exit
    (output 0), which makes the gradient loop's Merge; then with the
    gradient from the body (output 1), which becomes that Merge's back edge
    through a NextIteration.
    """
    graph = ops.get_default_graph()
    op_ctxt = op._get_control_flow_context()
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, control_flow_ops.WhileContext):
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:  # the second visit: the back edge
            if grad[1] is not None:
                control_flow_ops._add_next_and_back_edge(merge_grad, grad[1],
                                                         enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:  # the first visit: the gradient from the Exit
            merge_grad = control_flow_ops.merge([grad[0], grad[0]], name="b_switch")[0]
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None  # reached from the body first: the Exit is not differentiable
    if isinstance(op_ctxt, control_flow_ops.CondContext):
        zero_grad = grad[1 - op_ctxt.branch]
        if zero_grad is None:  # an output that is not differentiable
            return None, None
        return control_flow_ops.merge(grad, name="cond_grad")[0], None
    false_grad = control_flow_ops.switch(grad[0], op.inputs[1])[0]
    true_grad = control_flow_ops.switch(grad[1], op.inputs[1])[1]
    return control_flow_ops.merge([false_grad, true_grad])[0], None


RegisterGradient("Switch")(_switch_grad)
RegisterGradient("RefSwitch")(_switch_grad)


def _merge_grad(op, grad, _):
    """A Switch of the gradient on the predicate that chose the input.

    In a loop, the loop's predicate. In a cond inside a gradient loop, the
    cond's predicate as it was in the matching forward iteration: saved on
    a stack in the forward loop and popped here.
    """
    input_op = op.inputs[0].op
    graph = ops.get_default_graph()
    op_ctxt = control_flow_util.get_output_context(input_op)
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, control_flow_ops.WhileContext):
        return control_flow_ops._switch_ref_or_tensor(grad, grad_ctxt.pivot)
    if isinstance(op_ctxt, control_flow_ops.CondContext):
        pred = op_ctxt.pred
        if grad_ctxt is not None and grad_ctxt.grad_state is not None:
            grad_state = grad_ctxt.grad_state
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_ctxt = grad_state.grad_context
                grad_ctxt.exit()
                history_pred = grad_state.add_forward_accumulator(pred)
                grad_ctxt.enter()
                real_pred = grad_state.add_backprop_accumulated_value(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return control_flow_ops._switch_ref_or_tensor(grad, pred, name="cond_grad")
    num_inputs = len(op.inputs)
    cond = [math_ops.equal(op.outputs[1], i) for i in range(num_inputs)]
    return [control_flow_ops._switch_ref_or_tensor(grad, cond[i])[1] for i in range(num_inputs)]


RegisterGradient("Merge")(_merge_grad)
RegisterGradient("RefMerge")(_merge_grad)


def _exit_grad(op, grad):
    """The gradient of a loop's result enters the gradient loop (`b_exit`)."""
    graph = ops.get_default_graph()
    op_ctxt = op._get_control_flow_context()
    grad_ctxt = graph._get_control_flow_context()
    if not grad_ctxt.back_prop:
        return None  # the loop was built with back_prop=False
    if op_ctxt.grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    if isinstance(grad, ops.Tensor):
        grad_ctxt.add_name(grad.name)
    else:
        if not isinstance(grad, (IndexedSlices, SparseTensor)):
            raise TypeError("Type %s not supported" % type(grad))
        grad_ctxt.add_name(grad.values.name)
        grad_ctxt.add_name(grad.indices.name)
        if grad.dense_shape is not None:
            grad_ctxt.add_name(grad.dense_shape.name)
    grad_ctxt.enter()
    result = control_flow_ops._enter(grad, grad_ctxt.name, is_constant=False,
                                     parallel_iterations=grad_ctxt.parallel_iterations,
                                     name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.exit()
    return result


RegisterGradient("Exit")(_exit_grad)
RegisterGradient("RefExit")(_exit_grad)


def _next_iteration_grad(_, grad):
    """Passes the gradient through (the gradient loop's NextIteration comes from the Switch)."""
    return grad


RegisterGradient("NextIteration")(_next_iteration_grad)
RegisterGradient("RefNextIteration")(_next_iteration_grad)
# A loop variable that is a reference passes through a RefIdentity in the body.
RegisterGradient("RefIdentity")(_next_iteration_grad)


def _enter_grad(op, grad):
    """A loop variable's gradient leaves the gradient loop (an Exit); a loop invariant's
    is summed over all iterations first (an accumulator)."""
    grad_ctxt = ops.get_default_graph()._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return grad  # not in a gradient loop (or back_prop=False): pass it through
    if op.get_attr("is_constant"):
        if isinstance(grad, ops.Tensor):
            return grad_ctxt.add_backprop_accumulator(op, grad)
        if isinstance(grad, IndexedSlices):
            return grad_ctxt.add_backprop_indexed_slices_accumulator(op, grad)
        raise TypeError("Type %s not supported" % type(grad))
    result = control_flow_ops.exit(grad)
    grad_ctxt.loop_exits.append(result)
    grad_ctxt.exit_result([result])
    return result


RegisterGradient("Enter")(_enter_grad)
RegisterGradient("RefEnter")(_enter_grad)
