"""`tf.py_func`: a Python function as an op of the graph.

The function is registered in the process's registry
(`minitf/framework/py_func_registry.py`) under a token, and a `PyFunc` op
carries the token; when the op runs, its kernel calls the function with its
inputs as NumPy arrays (`minitf/kernels/cpu/script_kernels.py`). Such a
graph runs only in the process that built it. `Dataset.from_generator`
reads its generator through py_func.

Mirrors `tensorflow/python/ops/script_ops.py`.
"""

from minitf.framework import py_func_registry
from minitf.graph import dtypes
from minitf.graph.op_def_library import apply_op

__all__ = ["py_func"]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps `func(*inputs) -> outputs` as an op; returns a tensor, or a list when `Tout` is one.

    minitf treats every py_func as stateful: it is never computed ahead of
    time by constant folding.
    """
    token = py_func_registry.register(func)
    is_list = isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    result = apply_op("PyFunc", name=name, input=list(inp), token=token, Tout=types)
    outputs = [] if not types else (list(result) if isinstance(result, (list, tuple))
                                    else [result])
    if is_list:
        return outputs
    return outputs[0]
