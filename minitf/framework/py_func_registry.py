"""The Python functions a `PyFunc` op may call, by token.

A graph cannot hold a Python function, so `tf.py_func(fn, ...)` registers
`fn` here under a new token and puts the token in the op's attrs; the
PyFunc kernel looks it up when it runs. The registry belongs to the
process: a graph that calls `py_func` runs only in the process that built
it (as in TensorFlow).

Mirrors `FuncRegistry` of `tensorflow/python/ops/script_ops.py`.
"""

import itertools
import threading

_FUNCTIONS = {}
_tokens = itertools.count()
_lock = threading.Lock()


def register(fn):
    """A new token for `fn`."""
    with _lock:
        token = "pyfunc_%d" % next(_tokens)
        _FUNCTIONS[token] = fn
    return token


def lookup(token):
    """The function registered under `token`, or None."""
    return _FUNCTIONS.get(token)
