"""Small questions about control flow: what kind of node is this, which cond or loop is it in.

Every op built inside a `tf.cond` branch or a `tf.while_loop` body records
its *control-flow context* (`op._get_control_flow_context()`): the
CondContext of the branch or the WhileContext of the loop, each inside the
context it was built in (`outer_context`), None outside any. These helpers
answer the questions the contexts and the gradients ask of ops and
contexts; `check_input_from_valid_context` is the rule that an op may only
read a tensor made in its own loop or an enclosing one.

Mirrors `tensorflow/python/ops/control_flow_util.py`.
"""

__all__ = []


def is_switch(op):
    return op.type in ("Switch", "RefSwitch")


def is_merge(op):
    return op.type in ("Merge", "RefMerge")


def is_loop_enter(op):
    return op.type in ("Enter", "RefEnter")


def is_loop_exit(op):
    return op.type in ("Exit", "RefExit")


def is_cond_switch(op):
    """Whether `op` is the Switch of a cond: every consumer is in a cond context.

    (A Switch is not in the context it leads into, so its consumers decide.)
    """
    if not is_switch(op) or not op.outputs:
        return False
    for output in op.outputs:
        for consumer in output.consumers():
            ctxt = consumer._get_control_flow_context()
            if is_loop_enter(consumer):
                ctxt = ctxt.outer_context
            if ctxt is None or not ctxt.is_cond_context():
                return False
    return True


def is_loop_switch(op):
    """Whether `op` is a Switch of a while loop (not of a cond inside its body)."""
    if not is_switch(op):
        return False
    ctxt = op._get_control_flow_context()
    return ctxt is not None and ctxt.is_while_context() and not is_cond_switch(op)


def is_loop_constant_enter(op):
    """Whether `op` is the Enter of a loop invariant."""
    return is_loop_enter(op) and op.get_attr("is_constant")


def get_loop_constant_enter(value):
    """The invariant Enter behind `value` (through Identities and Switches), or None."""
    op = value.op
    while op.type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):
        op = op.inputs[0].op
    return op if is_loop_constant_enter(op) else None


def get_output_context(op):
    """The context of `op`'s outputs: its own, except an Exit's, which leave the loop."""
    ctxt = op._get_control_flow_context()
    if ctxt is not None and is_loop_exit(op):
        ctxt = ctxt.outer_context
    return ctxt


def get_containing_while_context(ctxt, stop_ctxt=None):
    """`ctxt` or the nearest WhileContext around it (stopping at `stop_ctxt`), or None."""
    while ctxt is not None:
        if ctxt.is_while_context() or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer_context
    return None


def is_containing_context(ctxt, maybe_containing_ctxt):
    """Whether `maybe_containing_ctxt` is `ctxt` or one of the contexts around it."""
    while ctxt is not maybe_containing_ctxt:
        if ctxt is None:
            return False
        ctxt = ctxt.outer_context
    return True


def op_in_context(op, ctxt):
    return is_containing_context(op._get_control_flow_context(), ctxt)


def get_while_context(op):
    """The while loop `op` is in (through any conds), or None."""
    ctxt = op._get_control_flow_context()
    return ctxt.get_while_context() if ctxt is not None else None


def check_input_from_valid_context(op, input_op):
    """ValueError unless `op` may read an output of `input_op`.

    An op may read from its own loop or any loop around it (or from outside
    every loop). Not from inside a loop it is not in: that value exists
    once per iteration, and the op does not run per iteration. Conds are
    allowed, as are the ways the gradient machinery reaches into a forward
    loop from its gradient loop and back.
    """
    op_ctxt = op._get_control_flow_context()
    input_ctxt = get_output_context(input_op)
    if input_ctxt is None or op_ctxt is input_ctxt:
        return
    while_ctxt = get_containing_while_context(op_ctxt)
    input_while_ctxt = get_containing_while_context(input_ctxt)
    if while_ctxt is None:
        # Outside every loop: reading from a cond is allowed (it fails at run time if
        # the branch is not taken), and the Enters and Switches that contexts make are
        # built outside the context they serve.
        if input_while_ctxt is None or is_loop_enter(op) or is_switch(op):
            return
    elif _reads_from_allowed_loop(while_ctxt, input_while_ctxt, input_ctxt):
        return
    if while_ctxt is not None:
        message = ("Cannot use '%s' as input to '%s' because they are in different while "
                   "loops." % (input_op.name, op.name))
    else:
        message = ("Cannot use '%s' as input to '%s' because '%s' is in a while loop."
                   % (input_op.name, op.name, input_op.name))
    raise ValueError(message + " See info log for more details.")


def _reads_from_allowed_loop(while_ctxt, input_while_ctxt, input_ctxt):
    if is_containing_context(while_ctxt, input_while_ctxt):
        return True  # the input's loop contains the op's (or the input is in no loop)
    grad_state = while_ctxt.grad_state
    if grad_state is not None and (
            is_containing_context(grad_state.forward_context, input_while_ctxt)
            or grad_state.forward_context is input_while_ctxt.outer_context):
        return True  # a gradient loop reading its forward loop (or a cond in it)
    input_grad_state = input_while_ctxt.grad_state
    if input_grad_state is not None:
        forward = input_grad_state.forward_context
        if forward is while_ctxt:
            return True  # a forward loop reading its gradient loop
        if forward.grad_state is not None and forward.grad_state.forward_context is while_ctxt:
            return True
    return False
