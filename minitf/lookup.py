"""`tf.lookup`: the lookup tables under the names TensorFlow 2 gives them.

The tables and their initializers are the Ops chapter's (`minitf/ops/lookup_ops.py`).

Mirrors TF's `tf.lookup` namespace.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.lookup_ops import (KeyValueTensorInitializer, StaticHashTable,  # noqa: F401
                                   TextFileIndex, TextFileInitializer)


def __getattr__(name):
    raise _tf1_api.missing_name_error("tf.lookup", __name__, name)
