"""`tf.dtypes`: the element types of tensors, and the ops that change a tensor's type.

The DTypes are the Graph chapter's (`minitf/graph/dtypes.py`); every one of
them is here under its name, as `tf.float32` is `tf.dtypes.float32`. The
ops that convert from one type to another (`cast`, `saturate_cast`,
`complex`, `as_string`) are the same functions as at the top of `tf`,
looked up there when first asked for (`tf1_api.alias_getattr`).

Mirrors TF 1.15's `tf.dtypes` namespace (`tensorflow/python/framework/dtypes.py`).
"""

from minitf.graph import dtypes as _dtypes
from minitf.graph import tf1_api as _tf1_api
from minitf.graph.dtypes import QUANTIZED_DTYPES, DType, as_dtype  # noqa: F401

globals().update({name: value for name, value in vars(_dtypes).items()
                  if isinstance(value, DType) and not value.is_ref_dtype
                  and not name.startswith("_")})

__getattr__ = _tf1_api.alias_getattr("tf.dtypes", __name__, {
    "cast": "cast", "saturate_cast": "saturate_cast", "complex": "complex",
    "as_string": "as_string"})
