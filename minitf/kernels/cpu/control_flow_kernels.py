"""Kernels of the control-flow ops: Switch, Merge, Enter, Exit, NextIteration, LoopCond.

They move no data: each forwards a value it was given. What makes a cond or
a loop is what the executor does around them (`minitf/executor/executor.py`):
it marks the output that a Switch leaves unset as *dead*, runs a Merge on
its first live input, starts a child frame at an Enter, the next iteration
at a NextIteration, and leaves the frame at an Exit. A kernel only says
which output gets the value: a Switch returns None for the output it does
not set.

The `Ref` twins forward the variable itself (a `Var`) instead of its value.

Mirrors `tensorflow/core/kernels/control_flow_ops.cc`.
"""

import numpy as np

from minitf.framework import buffers
from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import on_device
from minitf.kernels.kernel_util import shape_text


def _switch(ctx, data, pred):
    """(output_false, output_true): `data` on the side `pred` picks, None (dead) on the other."""
    if pred.ndim != 0:
        raise invalid("The second input must be a scalar, but it has shape %s"
                      % shape_text(pred.shape))
    return (None, data) if bool(pred) else (data, None)  # bool() reads a device scalar too


# The value_index output of a Merge, on the host (a GPU's Merge keeps it there too).
_VALUE_INDICES = tuple(buffers.read_only_view(np.asarray(i, np.int32)) for i in range(8))


def _merge(ctx, *inputs):
    """(the live input, its index). The executor runs a Merge on its first live input
    only, and gives it no other: the others are None."""
    for index, value in enumerate(inputs):
        if value is not None:
            value_index = (_VALUE_INDICES[index] if index < len(_VALUE_INDICES)
                           else np.asarray(index, np.int32))
            return value, (value_index if ctx.xp is np else on_device(ctx, value_index))
    raise invalid("Merge ran without a live input")


def _forward(ctx, data):
    return data


def _control_trigger(ctx):
    return None


for _op, _kernel in (("Switch", _switch), ("RefSwitch", _switch), ("Merge", _merge),
                     ("RefMerge", _merge), ("Enter", _forward), ("RefEnter", _forward),
                     ("Exit", _forward), ("RefExit", _forward), ("NextIteration", _forward),
                     ("RefNextIteration", _forward), ("LoopCond", _forward),
                     ("ControlTrigger", _control_trigger)):
    register_kernel(_op, ALL_DEVICE_TYPES, is_expensive=False)(_kernel)
