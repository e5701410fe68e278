"""Static shapes: what the graph knows about a tensor's shape before it runs.

A `TensorShape` may be fully known (`[2, 3]`), partly known (`[None, 3]`, a
batch of any size) or of unknown rank. Shape functions compute the static
shape of every op's outputs while the graph is built, so that many mistakes
are caught before anything runs. Each dimension is a `Dimension` whose value
is an int or None, as in TF1 (`shape[0].value`).

Mirrors `tensorflow/python/framework/tensor_shape.py`.
"""

from minitf.graph import dtypes


class Dimension:
    """One dimension of a shape: a non-negative int, or None when unknown."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
            return
        if isinstance(value, dtypes.DType):
            raise TypeError("Cannot convert %s to Dimension" % value)
        try:
            self._value = int(value)
        except (TypeError, ValueError):
            raise TypeError("Dimension value must be integer or None, got value %r with type %r"
                            % (value, type(value))) from None
        if not isinstance(value, (str, bytes)) and self._value != value:
            raise ValueError("Ambiguous dimension: %s" % (value,))
        if self._value < 0:
            raise ValueError("Dimension %d must be >= 0" % self._value)

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return "Dimension(%r)" % (self._value,)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __hash__(self):
        return hash(self._value)

    def __eq__(self, other):
        """Equal when both known and equal; None (unknown) when either is unknown."""
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result in (None, NotImplemented) else not result

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    def _combine(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return as_dimension(other) - self

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._combine(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return as_dimension(other) // self

    def __truediv__(self, other):
        raise TypeError("unsupported operand type(s) for /: 'Dimension' and '%s', please use "
                        "// instead" % type(other).__name__)

    def __rtruediv__(self, other):
        raise TypeError("unsupported operand type(s) for /: '%s' and 'Dimension', please use "
                        "// instead" % type(other).__name__)

    def __mod__(self, other):
        return self._combine(other, lambda a, b: a % b)

    def __rmod__(self, other):
        return as_dimension(other) % self

    def __lt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value < other.value

    def __le__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value <= other.value

    def __gt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value > other.value

    def __ge__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value >= other.value


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int (or None) inside a Dimension; plain values pass through."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index):
    """`shape[index]` as a Dimension, also when the rank of `shape` is unknown."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return shape.dims[index]


def _is_shape_proto(value):
    """A TensorShapeProto, known by its fields (this module does not import protobuf)."""
    return hasattr(value, "unknown_rank") and hasattr(value, "dim")


class TensorShape:
    """The static shape of a tensor: a list of Dimensions, or unknown rank.

    Made from a list of dims (None where unknown), None (unknown rank), or a
    TensorShapeProto.
    """

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, (str, bytes)):
            raise TypeError("A string has ambiguous TensorShape, please wrap in a list or "
                            "convert to an int: %s" % (dims,))
        elif isinstance(dims, TensorShape):
            self._dims = None if dims.dims is None else list(dims.dims)
        elif _is_shape_proto(dims):
            self._dims = None if dims.unknown_rank else [
                as_dimension(None if d.size == -1 else d.size) for d in dims.dim]
        else:
            try:
                dims_iter = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]  # a single number is a 1-D shape
            else:
                self._dims = [as_dimension(d) for d in dims_iter]

    # --- what is known ----------------------------------------------------
    @property
    def dims(self):
        return self._dims

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def is_fully_defined(self):
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        total = 1
        for d in self._dims:
            total *= d.value
        return total

    # --- sequence protocol ------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        """A Dimension (int key) or a TensorShape (slice); unknown rank gives unknown parts."""
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if not isinstance(key, slice):
            return Dimension(None)
        # With unknown rank, only a slice with known, non-negative bounds has a known rank.
        start = key.start if key.start is not None else 0
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        if key.stop is None or start < 0 or key.stop < 0:
            return unknown_shape()
        return unknown_shape(rank=max(key.stop - start, 0))

    def __bool__(self):
        return self._dims is not None

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % (self._dims,)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        if self._dims is None or other.dims is None:
            return self._dims is None and other.dims is None
        return self.as_list() == other.as_list()

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(None if self._dims is None else tuple(self.as_list()))

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else self.as_list(),)

    # --- combining shapes ---------------------------------------------------
    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return True
        if len(self._dims) != len(other.dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other.dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def merge_with(self, other):
        """The most specific shape compatible with both; ValueError if none."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other.dims is None:
            return self
        try:
            self.assert_same_rank(other)
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other.dims)])
        except ValueError:
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other.dims is None or self.ndims != other.ndims:
            return unknown_shape()
        return TensorShape([a.value if a.value == b.value else None
                            for a, b in zip(self._dims, other.dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other.dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.ndims is not None and other.ndims is not None and self.ndims != other.ndims:
            raise ValueError("Shapes %s and %s must have the same rank" % (self, other))

    def assert_has_rank(self, rank):
        if self.ndims not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank_at_least(self, rank):
        if self.ndims is not None and self.ndims < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        if self.ndims is not None and self.ndims > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def as_proto(self):
        """This shape as a TensorShapeProto (-1 for an unknown dimension)."""
        from minitf.proto import tensor_shape_pb2  # noqa: PLC0415 - loaded only when used
        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        return tensor_shape_pb2.TensorShapeProto(dim=[
            tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d.value is None else d.value)
            for d in self._dims])


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, ndims=None):
    rank = rank if rank is not None else ndims
    return TensorShape(None if rank is None else [None] * rank)


def scalar():
    return TensorShape([])


def vector(length):
    return TensorShape([length])


def matrix(rows, cols):
    return TensorShape([rows, cols])
