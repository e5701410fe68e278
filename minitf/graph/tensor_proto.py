"""TensorProto: a tensor's value as the bytes TensorFlow writes, and back.

A TensorProto (`minitf/proto/tensor.proto`) carries a dtype, a shape and
the elements. TensorFlow's rule for where the elements go, which minitf
keeps so that its bytes are TensorFlow's:

- a numeric tensor of more than one element whose dtype has a fixed byte
  layout goes as raw little-endian bytes in `tensor_content`;
- anything else (a scalar, a one-element tensor, a value broadcast to a
  shape, bools, uint16, complex numbers) goes element by element in the
  `*_val` field of its dtype (`float_val`, `int_val`, ...), where a field
  shorter than the shape stands for its last element repeated;
- strings always go in `string_val`, one bytes value per element.

`make_tensor_proto` turns a Python or NumPy value into one with
`tf.constant`'s typing rules; `make_ndarray` reads one back, checking that
its bytes fit its shape. The `protobuf` runtime is imported the first time
one of them runs, never by `import minitf`.

Mirrors `make_tensor_proto` and `MakeNdarray` of
`tensorflow/python/framework/tensor_util.py`.
"""

import numpy as np

from minitf.graph import dtypes
from minitf.graph import tensor_shape
from minitf.graph.python_values import to_numpy

# The dtypes whose multi-element tensors travel as raw bytes in `tensor_content`.
_CONTENT_DTYPES = frozenset([dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8,
                             dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                             dtypes.uint32, dtypes.uint64])

# The `*_val` field that holds the elements of each dtype, one by one.
_VALUE_FIELDS = {dtypes.float16: "half_val", dtypes.float32: "float_val",
                 dtypes.float64: "double_val", dtypes.int8: "int_val", dtypes.int16: "int_val",
                 dtypes.int32: "int_val", dtypes.uint8: "int_val", dtypes.uint16: "int_val",
                 dtypes.int64: "int64_val", dtypes.uint32: "uint32_val",
                 dtypes.uint64: "uint64_val", dtypes.bool: "bool_val",
                 dtypes.string: "string_val", dtypes.complex64: "scomplex_val",
                 dtypes.complex128: "dcomplex_val"}

# A complex number is stored as two values, its real part then its imaginary part.
_COMPLEX_PARTS = {dtypes.complex64: np.float32, dtypes.complex128: np.float64}


def _tensor_pb2():
    from minitf.proto import tensor_pb2  # noqa: PLC0415 - protobuf is loaded only when used
    return tensor_pb2


def new_tensor_proto(**fields):
    """A TensorProto message with `fields` set (protobuf is loaded now)."""
    return _tensor_pb2().TensorProto(**fields)


# =============================================================================
# Values to TensorProtos
# =============================================================================

def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """`values` (a Python value, a NumPy array) as a TensorProto.

    With `shape`, `values` with as many elements is reshaped to it, and
    fewer values are stored as they are, the last one standing for the rest
    (a scalar broadcast to a shape is stored once); `verify_shape` demands
    that `values` already has that shape.
    """
    tensor_pb2 = _tensor_pb2()
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    array = to_numpy(values, dtype)
    dtype = dtypes.as_dtype(array.dtype)
    if shape is None:
        shape = array.shape
    else:
        shape = tuple(tensor_shape.as_shape(shape).as_list())
        _check_fits(array, shape, verify_shape, allow_broadcast)
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum,
                                   tensor_shape=tensor_shape.TensorShape(shape).as_proto())
    if array.size > 1 and array.size == int(np.prod(shape)) and dtype in _CONTENT_DTYPES:
        proto.tensor_content = np.ascontiguousarray(array, array.dtype.newbyteorder("<")).tobytes()
    else:
        _append_values(proto, array, dtype)
    return proto


def _check_fits(array, shape, verify_shape, allow_broadcast):
    """TF's checks: fewer elements than the shape are fine (the last one repeats), more are not."""
    size = int(np.prod(shape))
    if verify_shape and array.shape != shape:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (shape, array.shape))
    if array.size > size:
        raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                         % (size, array.size))
    if allow_broadcast and array.shape not in ((), (1,)) and array.size != size:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (shape, array.shape))


def _append_values(proto, array, dtype):
    field = _VALUE_FIELDS.get(dtype)
    if field is None:
        raise TypeError("minitf cannot store a tensor of dtype %s in a TensorProto" % dtype.name)
    flat = array.reshape(-1)
    if dtype == dtypes.float16:
        flat = flat.view(np.uint16)  # half_val holds float16's bits
    elif dtype in _COMPLEX_PARTS:
        flat = flat.view(_COMPLEX_PARTS[dtype])  # real, imaginary, real, imaginary, ...
    getattr(proto, field).extend(flat.tolist())


# =============================================================================
# TensorProtos to values
# =============================================================================

def make_ndarray(tensor):
    """The NumPy array a TensorProto holds; ValueError when its bytes do not fit its shape."""
    dtype = dtypes.as_dtype(tensor.dtype)
    shape = tuple(tensor_shape.TensorShape(tensor.tensor_shape).as_list())
    size = int(np.prod(shape))
    if tensor.tensor_content:
        numpy_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        if len(tensor.tensor_content) != size * numpy_dtype.itemsize:
            raise ValueError("TensorProto of dtype %s and shape %s holds %d bytes of content, "
                             "expected %d" % (dtype.name, list(shape),
                                              len(tensor.tensor_content),
                                              size * numpy_dtype.itemsize))
        array = np.frombuffer(tensor.tensor_content, dtype=numpy_dtype)
        return array.astype(dtype.as_numpy_dtype).reshape(shape)
    return _from_values(tensor, dtype, shape, size)


def _from_values(tensor, dtype, shape, size):
    field = _VALUE_FIELDS.get(dtype)
    if field is None:
        raise TypeError("minitf cannot read a TensorProto of dtype %s" % dtype.name)
    values = list(getattr(tensor, field))
    if len(values) > size * (2 if dtype in _COMPLEX_PARTS else 1):
        raise ValueError("TensorProto of shape %s holds %d values, more than its %d elements"
                         % (list(shape), len(values), size))
    if dtype == dtypes.string:
        array = np.empty(len(values), dtype=object)
        array[:] = values
    elif dtype == dtypes.float16:
        array = np.array(values, dtype=np.uint16).view(np.float16)
    elif dtype in _COMPLEX_PARTS:
        if len(values) % 2:
            raise ValueError("TensorProto of dtype %s holds %d parts of complex numbers, an odd "
                             "number" % (dtype.name, len(values)))
        array = np.array(values, dtype=_COMPLEX_PARTS[dtype]).view(dtype.as_numpy_dtype)
    else:
        array = np.array(values, dtype=dtype.as_numpy_dtype)
    if size == 0:
        return array.reshape(shape)
    if array.size == 0:
        array = np.zeros(1, dtype=array.dtype) if dtype != dtypes.string else \
            np.array([b""], dtype=object)
    if array.size < size:  # a short field stands for its last value repeated
        array = np.concatenate([array, np.repeat(array[-1:], size - array.size)])
    return array.reshape(shape)
