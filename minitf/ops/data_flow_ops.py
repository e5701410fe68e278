"""Stacks: the list a loop's gradient keeps its forward values on.

`StackV2` makes a stack for the step and gives its handle; `StackPushV2`
pushes a tensor (and passes it through), `StackPopV2` takes the last one
back. The gradient of a while loop pushes every forward value its gradient
needs, once per forward iteration, and pops them in the gradient loop, which
runs the iterations backwards (`minitf/autodiff/control_flow_state.py`).
Users do not build these themselves.

Mirrors the stack ops of `tensorflow/python/ops/data_flow_ops.py`
(`gen_data_flow_ops.stack_v2`, `stack_push_v2`, `stack_pop_v2`).
"""

from minitf.graph.op_def_library import apply_op

__all__ = []


def stack_v2(max_size, elem_type, stack_name="", name=None):
    """A new stack of `elem_type` tensors (at most `max_size`, -1: no limit); its handle."""
    return apply_op("StackV2", name=name, max_size=max_size, elem_type=elem_type,
                    stack_name=stack_name)


def stack_push_v2(handle, elem, swap_memory=False, name=None):
    """Pushes `elem` on the stack; returns `elem`."""
    return apply_op("StackPushV2", name=name, handle=handle, elem=elem,
                    swap_memory=swap_memory)


def stack_pop_v2(handle, elem_type, name=None):
    """The last tensor pushed, taken off the stack."""
    return apply_op("StackPopV2", name=name, handle=handle, elem_type=elem_type)


def stack_close_v2(handle, name=None):
    return apply_op("StackCloseV2", name=name, handle=handle)
