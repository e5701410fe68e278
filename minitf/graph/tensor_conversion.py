"""convert_to_tensor: how Python values, arrays and Variables become Tensors.

Every op constructor accepts "tensor-like" arguments: a Tensor, a Python
number or list, a NumPy array, a Variable. Each kind registers a conversion
function here; `convert_to_tensor` tries them in priority order. Constants
register in `constant_op`, Variables in `minitf.ops.variables`, lists of
tensors (auto-packing) in `minitf.ops.array_ops`.

Mirrors `tensorflow/python/framework/ops.py` (convert_to_tensor and
register_tensor_conversion_function).
"""

from minitf.graph import dtypes
from minitf.graph import ops

_CONVERSION_FUNCTIONS = []  # (priority, base_type, function), kept sorted by priority


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """`conversion_func(value, dtype=None, name=None, as_ref=False)` for values of `base_type`."""
    _CONVERSION_FUNCTIONS.append((priority, base_type, conversion_func))
    _CONVERSION_FUNCTIONS.sort(key=lambda entry: entry[0])


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False,
                      dtype_hint=None):
    """Returns `value` as a Tensor of `dtype` (if given), adding a Const op when needed."""
    if isinstance(value, ops.Tensor):
        return _check_tensor_dtype(value, dtype, as_ref)
    if value is None:
        raise ValueError("None values not supported.")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    preferred_dtype = preferred_dtype or dtype_hint
    for _, base_type, conversion_func in _CONVERSION_FUNCTIONS:
        if not isinstance(value, base_type):
            continue
        if dtype is None and preferred_dtype is not None:
            try:
                result = conversion_func(value, dtype=dtypes.as_dtype(preferred_dtype),
                                         name=name, as_ref=as_ref)
            except (TypeError, ValueError):
                result = NotImplemented
            if result is not NotImplemented:
                return result
        result = conversion_func(value, dtype=dtype, name=name, as_ref=as_ref)
        if result is NotImplemented:
            continue
        return _check_tensor_dtype(result, dtype, as_ref)
    raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. Consider "
                    "casting elements to a supported type." % (type(value), value))


def _check_tensor_dtype(tensor, dtype, as_ref):
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(tensor.dtype):
        raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                         % (dtypes.as_dtype(dtype).name, tensor.dtype.name, tensor))
    return tensor


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype, None if name is None else "%s_%d" % (name, i),
                              preferred_dtype) for i, v in enumerate(values)]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    if hasattr(value, "indices") and hasattr(value, "values") and hasattr(value, "dense_shape"):
        return value
    return convert_to_tensor(value, dtype, name)


def is_tensor_like(value):
    return isinstance(value, ops.Tensor) or any(
        isinstance(value, base_type) for _, base_type, _ in _CONVERSION_FUNCTIONS
        if base_type is not object)
