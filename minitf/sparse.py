"""`tf.sparse`: the SparseTensor namespace.

Only names: the SparseTensor class is in minitf/graph/sparse_tensor.py, its
ops (densify, reshape, reorder, concat, add, cross, the sparse segment
reductions, products, softmax, slices, and the composites from_dense, eye,
expand_dims, transpose, merge, ...) in minitf/ops/sparse_ops.py, and `mask` (which works on
IndexedSlices) in minitf/ops/array_ops.py, where TensorFlow also defines it.
Most names are the TF 1.x top-level ones without their `sparse_` prefix:
`tf.sparse.reorder` is `tf.sparse_reorder`.

Mirrors the `tf.sparse` exports of `tensorflow/python/ops/sparse_ops.py`.

A name of TF 1.15's `tf.sparse` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.graph.sparse_tensor import SparseTensor  # noqa: F401
from minitf.ops.array_ops import sparse_mask as mask  # noqa: F401
from minitf.ops.sparse_ops import bincount, from_dense  # noqa: F401
from minitf.ops.sparse_ops import sparse_add as add  # noqa: F401
from minitf.ops.sparse_ops import sparse_concat as concat  # noqa: F401
from minitf.ops.sparse_ops import sparse_cross as cross  # noqa: F401
from minitf.ops.sparse_ops import sparse_cross_hashed as cross_hashed  # noqa: F401
from minitf.ops.sparse_ops import sparse_expand_dims as expand_dims  # noqa: F401
from minitf.ops.sparse_ops import sparse_eye as eye  # noqa: F401
from minitf.ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows  # noqa: F401
from minitf.ops.sparse_ops import sparse_maximum as maximum  # noqa: F401
from minitf.ops.sparse_ops import sparse_merge as merge  # noqa: F401
from minitf.ops.sparse_ops import sparse_minimum as minimum  # noqa: F401
from minitf.ops.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from minitf.ops.sparse_ops import sparse_reduce_max as reduce_max  # noqa: F401
from minitf.ops.sparse_ops import sparse_reduce_max_sparse as reduce_max_sparse  # noqa: F401
from minitf.ops.sparse_ops import sparse_reduce_sum as reduce_sum  # noqa: F401
from minitf.ops.sparse_ops import sparse_reduce_sum_sparse as reduce_sum_sparse  # noqa: F401
from minitf.ops.sparse_ops import sparse_reorder as reorder  # noqa: F401
from minitf.ops.sparse_ops import sparse_reset_shape as reset_shape  # noqa: F401
from minitf.ops.sparse_ops import sparse_reshape as reshape  # noqa: F401
from minitf.ops.sparse_ops import sparse_retain as retain  # noqa: F401
from minitf.ops.sparse_ops import sparse_segment_mean as segment_mean  # noqa: F401
from minitf.ops.sparse_ops import sparse_segment_sqrt_n as segment_sqrt_n  # noqa: F401
from minitf.ops.sparse_ops import sparse_segment_sum as segment_sum  # noqa: F401
from minitf.ops.sparse_ops import sparse_slice as slice  # noqa: F401,A004 - TF's name
from minitf.ops.sparse_ops import sparse_softmax as softmax  # noqa: F401
from minitf.ops.sparse_ops import sparse_split as split  # noqa: F401
from minitf.ops.sparse_ops import sparse_tensor_dense_matmul as matmul  # noqa: F401
from minitf.ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul  # noqa: F401
from minitf.ops.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401
from minitf.ops.sparse_ops import sparse_to_indicator as to_indicator  # noqa: F401
from minitf.ops.sparse_ops import sparse_transpose as transpose  # noqa: F401
from minitf.ops.data_flow_ops import SparseConditionalAccumulator  # noqa: F401,E402


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.sparse", __name__, name)
