"""`tf.nest`: nested structures (lists, tuples, namedtuples, dicts) and their flat lists.

The functions are those `tf.cond` and `tf.while_loop` use (`minitf/ops/nest.py`);
`is_nested` is `is_sequence` under its TF 2 name.

Mirrors TF's `tf.nest` namespace (`tensorflow/python/util/nest.py`).
"""

from minitf.ops.nest import (assert_same_structure, flatten, map_structure,  # noqa: F401
                             pack_sequence_as)
from minitf.ops.nest import is_sequence as is_nested  # noqa: F401
