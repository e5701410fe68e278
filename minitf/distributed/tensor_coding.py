"""Tensors on the wire: feeds, fetches and RecvTensor's chunked stream.

Every tensor that leaves a process travels as a TensorProto: its dtype, its
shape, and its elements as raw little-endian bytes (`tensor_content`) or one
by one in the `*_val` field of its dtype, exactly as
`minitf.graph.tensor_proto.make_tensor_proto` writes them. Nothing received
is unpickled or evaluated: a received tensor is bytes reinterpreted as the
dtype it names, and bytes that do not fit its shape are an error.

Feeds, fetches and the values a RunGraph sends or returns are
`NamedTensorProto`s built with protobuf. A tensor that one worker pulls from
another (`RecvTensor`) can be large, and Python's gRPC copies a message
several times on its way: so a tensor of more than `CHUNK_BYTES` travels as
a stream of RecvTensorResponses, the first with its dtype and shape and
each with the next part of its content, and each message is encoded and
decoded by hand, so that its content is copied once on each side instead
of three times. The bytes are exactly those protobuf writes for the same
message (tested), and the parser reads any RecvTensorResponse protobuf
writes.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_tensor_coding.cc`
(EncodeTensorToByteBuffer: a response encoded around the tensor's own
buffer) and `tensorflow/core/distributed_runtime/tensor_coding.cc`
(TensorResponse::ParseFast: the content found in place).
"""

import time

import numpy as np

from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_shape
from minitf.graph.tensor_proto import make_ndarray, make_tensor_proto
from minitf.proto import named_tensor_pb2
from minitf.proto import tensor_pb2
from minitf.proto import worker_pb2

# A tensor larger than this travels in parts of this size (TensorFlow's
# default `recv_buf_max_chunk`, the chunk of its collective transfers).
CHUNK_BYTES = 4 << 20

# Wire types and the tags this module writes (field number << 3 | wire type).
_VARINT, _LENGTH_DELIMITED = 0, 2
_RESPONSE_TENSOR_TAG = b"\x0a"  # RecvTensorResponse.tensor = 1
_TENSOR_CONTENT_FIELD = 4      # TensorProto.tensor_content = 4


# =============================================================================
# Named tensors: feeds, fetches, RunGraph's sends and recvs
# =============================================================================

def named_tensor(name, value):
    """`value` (a NumPy array or scalar) as a NamedTensorProto called `name`."""
    return named_tensor_pb2.NamedTensorProto(name=name, tensor=make_tensor_proto(value))


def tensor_value(proto, what):
    """The array a TensorProto holds; InvalidArgumentError naming `what` when it is malformed."""
    try:
        return make_ndarray(proto)
    except (ValueError, TypeError, KeyError) as e:
        raise errors.InvalidArgumentError(None, None, "Malformed TensorProto for %s: %s"
                                          % (what, e)) from None


def named_values(named_tensors, what):
    """{name: array} of a repeated NamedTensorProto field; a name given twice is an error."""
    values = {}
    for item in named_tensors:
        if item.name in values:
            raise errors.InvalidArgumentError(None, None, "Duplicated %s: %s" % (what, item.name))
        values[item.name] = tensor_value(item.tensor, "%s %s" % (what, item.name))
    return values


# =============================================================================
# RecvTensor: encoding, one message or a stream of chunks
# =============================================================================

def encode_recv_tensor_response(value, is_dead=False):
    """The serialized RecvTensorResponses that carry `value`: one, or one per chunk.

    A generator: each chunk is encoded (its one copy) only when gRPC asks
    for the next message, while the previous one is on its way.
    """
    start_micros = int(time.time() * 1e6)
    if is_dead:  # a dead tensor (of a branch not taken) travels as the flag alone
        yield worker_pb2.RecvTensorResponse(is_dead=True,
                                            send_start_micros=start_micros).SerializeToString()
        return
    array = np.asarray(value)
    if not _is_chunked(array):
        response = worker_pb2.RecvTensorResponse(tensor=make_tensor_proto(array),
                                                 is_dead=is_dead,
                                                 send_start_micros=start_micros)
        yield response.SerializeToString()
        return
    content = memoryview(np.ascontiguousarray(array, array.dtype.newbyteorder("<"))).cast("B")
    header = tensor_pb2.TensorProto(
        dtype=dtypes.as_dtype(array.dtype).as_datatype_enum,
        tensor_shape=tensor_shape.TensorShape(array.shape).as_proto()).SerializeToString()
    trailer = worker_pb2.RecvTensorResponse(is_dead=is_dead,
                                            send_start_micros=start_micros).SerializeToString()
    for offset in range(0, len(content), CHUNK_BYTES):
        chunk = content[offset:offset + CHUNK_BYTES]
        yield _chunk_message(header if offset == 0 else b"", chunk,
                             trailer if offset == 0 else b"")


def _is_chunked(array):
    """Whether `array` travels as raw content in chunks: numeric, and larger than one chunk."""
    return array.dtype != object and array.dtype.kind != "b" and array.nbytes > CHUNK_BYTES


def _chunk_message(tensor_fields, chunk, trailer):
    """RecvTensorResponse{tensor: TensorProto{<tensor_fields>, tensor_content: chunk}, <trailer>}.

    Protobuf writes fields in the order of their numbers; so does this, and
    the result is byte for byte what `SerializeToString` gives.
    """
    content_field = (_tag(_TENSOR_CONTENT_FIELD, _LENGTH_DELIMITED)
                     + _varint(len(chunk)))
    tensor_length = len(tensor_fields) + len(content_field) + len(chunk)
    return b"".join([_RESPONSE_TENSOR_TAG, _varint(tensor_length), tensor_fields,
                     content_field, chunk, trailer])


def _tag(field_number, wire_type):
    return _varint(field_number << 3 | wire_type)


def _varint(number):
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


# =============================================================================
# RecvTensor: decoding, the content found in place
# =============================================================================

class ParsedRecvTensorResponse:
    """One RecvTensorResponse as the receiver needs it.

    `tensor` is a TensorProto of every field but the content, `content` a
    memoryview of the content inside the received bytes (not copied).
    """

    __slots__ = ("tensor", "content", "is_dead")

    def __init__(self, tensor, content, is_dead):
        self.tensor = tensor
        self.content = content
        self.is_dead = is_dead


def parse_recv_tensor_response(data):
    """Reads a serialized RecvTensorResponse; DataLossError for bytes that are not one."""
    try:
        return _parse_response(memoryview(data))
    except (IndexError, ValueError) as e:
        raise errors.DataLossError(None, None, "Malformed RecvTensorResponse: %s" % e) from None


def _parse_response(data):
    tensor, content, is_dead = None, None, False
    for field_number, wire_type, value, _, _ in _fields(data):
        if field_number == 1 and wire_type == _LENGTH_DELIMITED:
            tensor, content = _parse_tensor(value)
        elif field_number == 2 and wire_type == _VARINT:
            is_dead = bool(value)
    if tensor is None:
        tensor, content = tensor_pb2.TensorProto(), memoryview(b"")
    return ParsedRecvTensorResponse(tensor, content, is_dead)


def _parse_tensor(data):
    """(TensorProto without its content, the content as a memoryview) of TensorProto bytes."""
    other_fields, content = [], memoryview(b"")
    for field_number, wire_type, value, start, end in _fields(data):
        if field_number == _TENSOR_CONTENT_FIELD and wire_type == _LENGTH_DELIMITED:
            content = value
        else:
            other_fields.append(data[start:end])
    tensor = tensor_pb2.TensorProto()
    tensor.ParseFromString(b"".join(other_fields))  # small: dtype, shape, *_val fields
    return tensor, content


def _fields(data):
    """(field number, wire type, value, start, end) of each field of a message's bytes.

    A length-delimited value is a memoryview into `data`, a varint an int;
    `start` and `end` delimit the whole field (key and value) in `data`.
    """
    position = 0
    while position < len(data):
        start = position
        key, position = _read_varint(data, position)
        field_number, wire_type = key >> 3, key & 7
        if wire_type == _VARINT:
            value, position = _read_varint(data, position)
        elif wire_type == _LENGTH_DELIMITED:
            length, position = _read_varint(data, position)
            if position + length > len(data):
                raise ValueError("field %d runs past the end of the message" % field_number)
            value, position = data[position:position + length], position + length
        elif wire_type == 1:  # 64-bit
            value, position = data[position:position + 8], position + 8
        elif wire_type == 5:  # 32-bit
            value, position = data[position:position + 4], position + 4
        else:
            raise ValueError("unsupported wire type %d" % wire_type)
        if position > len(data):
            raise ValueError("field %d runs past the end of the message" % field_number)
        yield field_number, wire_type, value, start, position


def _read_varint(data, position):
    result, shift = 0, 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


class RecvTensorAssembler:
    """Puts a tensor together from the RecvTensorResponses of one RecvTensor stream."""

    def __init__(self, key):
        self._key = key
        self._array = None       # the destination, once the first chunk said dtype and shape
        self._buffer = None      # its bytes
        self._filled = 0
        self._single = None      # a value that came whole, in one message
        self.is_dead = False

    def add(self, parsed):
        """Takes the next message of the stream (a `ParsedRecvTensorResponse`)."""
        if self._array is None and self._single is None:
            try:
                self._start(parsed)
            except (TypeError, ValueError, errors.InvalidArgumentError) as e:
                raise self._error(str(e)) from None
        elif self._array is not None and not parsed.tensor.ByteSize():
            self._append(parsed.content)
        else:
            raise self._error("a message that does not continue its tensor")

    def _start(self, parsed):
        self.is_dead = parsed.is_dead
        if self.is_dead:
            self._single = ()  # nothing more may follow; the value is None
            return
        tensor = parsed.tensor
        size = int(np.prod(tensor_shape.TensorShape(tensor.tensor_shape).as_list() or [1]))
        dtype = dtypes.as_dtype(tensor.dtype)
        if dtype == dtypes.string or not parsed.content or \
                len(parsed.content) == size * np.dtype(dtype.as_numpy_dtype).itemsize:
            whole = tensor_pb2.TensorProto()
            whole.CopyFrom(tensor)
            whole.tensor_content = bytes(parsed.content)
            self._single = tensor_value(whole, "RecvTensor %s" % self._key)
            return
        shape = tensor_shape.TensorShape(tensor.tensor_shape).as_list()
        self._array = np.empty(shape, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"))
        self._buffer = self._array.reshape(-1).view(np.uint8)
        self._append(parsed.content)

    def _append(self, content):
        end = self._filled + len(content)
        if end > len(self._buffer):
            raise self._error("more content than its shape holds")
        # A NumPy copy lets go of Python's lock: gRPC's threads go on meanwhile.
        np.copyto(self._buffer[self._filled:end], np.frombuffer(content, np.uint8))
        self._filled = end

    def result(self):
        """The received array, None for a dead tensor; DataLossError for a stream cut short."""
        if self.is_dead:
            return None
        if self._single is not None:
            return self._single
        if self._array is None:
            raise self._error("no message")
        if self._filled != len(self._buffer):
            raise self._error("%d of %d bytes" % (self._filled, len(self._buffer)))
        return self._array.astype(self._array.dtype.newbyteorder("="), copy=False)

    def _error(self, what):
        return errors.DataLossError(None, None, "RecvTensor %s: %s" % (self._key, what))
