"""`tf.TensorSpec`: what a tensor must be, without a value: a shape, a dtype, a name.

A spec describes the tensors a piece of code takes (TF 2's `tf.function`
signatures, a SavedModel's inputs): `TensorSpec([None, 3], tf.float32)`
stands for any float32 matrix of 3 columns. `is_compatible_with` says
whether a tensor (or another spec) fits it; `from_tensor` reads a spec off
a tensor.

Mirrors `TensorSpec` of `tensorflow/python/framework/tensor_spec.py`.
"""

from minitf.graph import dtypes, tensor_shape


class TensorSpec:
    """A shape (partial or unknown), a dtype and an optional name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = tensor_shape.TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec, name=None):
        """A copy of `spec` (a TensorSpec, or anything with a shape and a dtype), renamed."""
        return cls(spec.shape, spec.dtype, name or getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor`, named after its op unless `name` is given."""
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        """True when the other's dtype is this one and its shape fits this shape."""
        return (self._dtype.is_compatible_with(spec_or_tensor.dtype)
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def __eq__(self, other):
        return (type(self) is type(other) and self._dtype == other._dtype
                and self._name == other._name and _same_shape(self._shape, other._shape))

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape.ndims, self._dtype, self._name))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self._shape, self._dtype,
                                                           self._name)


def _same_shape(a, b):
    """Equal as specs: both unknown, or the same dimensions (unknown ones included)."""
    if a.ndims is None or b.ndims is None:
        return a.ndims is None and b.ndims is None
    return a.as_list() == b.as_list()
