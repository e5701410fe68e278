"""`tf.py_func`: a Python function as an op of the graph.

The function is registered in the process's registry
(`minitf/framework/py_func_registry.py`) under a token, and a `PyFunc` op
carries the token; when the op runs, its kernel calls the function with its
inputs as NumPy arrays (`minitf/kernels/cpu/script_kernels.py`). Such a
graph runs only in the process that built it. `Dataset.from_generator`
reads its generator through py_func.

`tf.numpy_function` is py_func under its TF 2 name. `tf.py_function` builds
an EagerPyFunc op: in TensorFlow its function receives eager tensors and
backprop goes through it on a gradient tape; minitf, which has neither
eager tensors nor tapes, hands it the same NumPy arrays as py_func's and
stops the gradient there, as at a py_func.

Mirrors `tensorflow/python/ops/script_ops.py`.
"""

from minitf.framework import py_func_registry
from minitf.graph import dtypes
from minitf.graph.op_def_library import apply_op

__all__ = ["py_func"]  # numpy_function and py_function: minitf/__init__.py


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps `func(*inputs) -> outputs` as an op; returns a tensor, or a list when `Tout` is one.

    minitf treats every py_func as stateful: it is never computed ahead of
    time by constant folding.
    """
    del stateful
    return _script_op("PyFunc", func, inp, Tout, name)


def numpy_function(func, inp, Tout, name=None):  # noqa: N803 - TF's argument name
    """`tf.numpy_function`: py_func, under the name TensorFlow 2 gives it."""
    return py_func(func, inp, Tout, stateful=True, name=name)


def py_function(func, inp, Tout, name=None):  # noqa: N803 - TF's argument name
    """`func(*inputs)` as an EagerPyFunc op; its inputs come as NumPy arrays."""
    return _script_op("EagerPyFunc", func, inp, Tout, name)


def _script_op(op_type, func, inp, Tout, name):  # noqa: N803 - TF's argument name
    token = py_func_registry.register(func)
    is_list = isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    result = apply_op(op_type, name=name, input=list(inp), token=token, Tout=types)
    outputs = [] if not types else (list(result) if isinstance(result, (list, tuple))
                                    else [result])
    if is_list:
        return outputs
    return outputs[0]
