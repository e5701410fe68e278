"""`tf.raw_ops`: every registered op, called by its op type with keyword arguments.

    tf.raw_ops.Add(x=a, y=b)                 # one Add node
    tf.raw_ops.TopKV2(input=x, k=2)          # (values, indices)

TensorFlow generates one function per op of its C++ library; minitf makes
each from the op's OpDef when first asked for, with the generator
`tf.load_op_library` uses for a library's ops (`minitf/kernels/load_library.py`):
the inputs, then the attrs that cannot be read off the inputs, then `name`.
As in TensorFlow, the arguments must be given by keyword. Internal runtime
ops (those whose type starts with "_") are not offered.

Mirrors TF's `tf.raw_ops` namespace.
"""

import functools

from minitf.framework import op_def as _op_def
from minitf.kernels.load_library import make_op_wrapper as _make_op_wrapper


def __getattr__(op_type):
    if op_type.startswith("_") or not _op_def.is_registered(op_type):
        raise AttributeError("module 'tf.raw_ops' has no attribute '%s': minitf has no op type "
                             "of that name" % op_type)
    wrapper = _make_op_wrapper(_op_def.get_op_def(op_type))

    @functools.wraps(wrapper)
    def raw_op(**kwargs):
        return wrapper(**kwargs)

    raw_op.__name__ = raw_op.__qualname__ = op_type
    globals()[op_type] = raw_op
    return raw_op


def __dir__():
    return sorted(name for name in _op_def.registered_ops() if not name.startswith("_"))
