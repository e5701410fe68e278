"""How a kernel runs a function body with conds or loops: on an executor it cannot import.

A dataset function runs on the small executor of
`minitf/kernels/data/captured_function.py`, which knows no dead tensors,
frames or iterations. A body with control flow needs the session's
Executor, a floor above the kernels. So the executor registers here, when
it is imported, how it instantiates such a body
(`minitf/executor/function.py`), and the kernel asks for it.

Mirrors, reduced to what a dataset kernel needs, the FunctionLibraryRuntime
that TensorFlow hands a kernel through its context (`function_library()`,
`tensorflow/core/framework/function.h`).
"""

from minitf.graph import errors

_instantiators = []


def register_control_flow_instantiator(instantiate):
    """`instantiate(function_def, device)` gives an object whose `run(args)` gives the results."""
    _instantiators[:] = [instantiate]


def instantiate_with_control_flow(function_def, device):
    if not _instantiators:
        raise errors.InternalError(None, None, "No executor is loaded to run function %s, "
                                   "which has control flow" % function_def.name)
    return _instantiators[0](function_def, device)
