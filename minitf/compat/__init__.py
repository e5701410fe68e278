"""`tf.compat`: strings and shapes either way, forward compatibility, and `tf.compat.v1`.

TF 2 keeps TF 1.15's whole API as `tf.compat.v1`, and TF 1.15 programs are
written against it: `import tensorflow.compat.v1 as tf`. minitf's
`minitf.compat.v1` is that namespace (`import minitf.compat.v1 as tf`), the
same names as `import minitf as tf`; it is loaded when first asked for,
because it is made from the finished `minitf` namespace. That namespace is
handed down by `minitf/__init__.py` (`_tf_namespace`, its globals): the face
imports `tf.compat`, and nothing here imports the face.

The modules of this package:

* `bytes_and_text.py`: `as_bytes`, `as_text`, `as_str`, `as_str_any`,
  `path_to_str` and the tuples of Python types;
* `compat.py`: `forward_compatible` and `forward_compatibility_horizon`;
* `v2_compat.py`: the switches between TF 1 and TF 2 behaviour, which TF
  1.15 exports at the top (`tf.disable_eager_execution`);
* `v1.py`: `tf.compat.v1`.

`dimension_value` and `dimension_at_index` are the Graph chapter's
(`minitf/graph/tensor_shape.py`). TF 2's API, `tf.compat.v2`, is one of the
names minitf leaves out (docs/coverage.md).

Mirrors TF 1.15's `tf.compat` namespace and `tensorflow/python/compat/`.
"""

import importlib

from minitf.compat.bytes_and_text import (as_bytes, as_str, as_str_any, as_text,  # noqa: F401
                                          bytes_or_text_types, complex_types, integral_types,
                                          path_to_str, real_types)
from minitf.compat.compat import forward_compatibility_horizon, forward_compatible  # noqa: F401
from minitf.graph import tf1_api as _tf1_api
from minitf.graph.tensor_shape import dimension_at_index, dimension_value  # noqa: F401

# The names of the `minitf` namespace, which `tf.compat.v1` repeats: minitf/__init__.py sets
# this to its globals (read when v1 is first asked for, once the namespace is finished).
_tf_namespace = {}


def __getattr__(name):
    """`v1` the first time it is asked for; for any other missing name, the error that says
    whether it is one of TF 1.15's."""
    if name == "v1":
        return importlib.import_module(__name__ + ".v1")
    raise _tf1_api.missing_name_error("tf.compat", __name__, name)
