"""A function body with conds or loops, run as one step of an Executor per call.

The small executor of dataset functions (`minitf/kernels/data/captured_function.py`)
runs a body in one pass over its nodes; dead tensors, frames and iterations
need the real Executor. Each call is a step of its own: a call frame brings
the arguments to the `_Arg` nodes and takes the results from the `_Retval`
nodes, and a result that is dead (a branch not taken) is an
InvalidArgumentError naming the function. Registered with
`minitf/framework/function_runtime.py` when the executor is imported.

Mirrors the way `tensorflow/core/common_runtime/function.cc` runs a
function's body on an executor.
"""

from minitf.executor.executor import Executor
from minitf.framework import function_runtime
from minitf.framework.step import CallFrame, StepState
from minitf.graph import errors


class ExecutorFunction:
    """A FunctionDef planned for one device, whose `run(args)` is a step of an Executor."""

    def __init__(self, function_def, device):
        self.name = function_def.name
        self._num_results = sum(1 for node in function_def.node if node.op == "_Retval")
        self._executor = Executor(list(function_def.node), device)

    def run(self, args):
        """The function's results for `args`; InvalidArgumentError for a dead result."""
        call_frame = CallFrame(args, self._num_results)
        self._executor.run(StepState(0, None, call_frame))
        try:
            return call_frame.consume_retvals()
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(None, None, "%s\n\t [[function %s]]" % (
                e.message, self.name)) from None


function_runtime.register_control_flow_instantiator(ExecutorFunction)
