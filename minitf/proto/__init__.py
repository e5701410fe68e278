"""TensorFlow's protocol buffers, as minitf writes and reads them.

The `.proto` files here declare TensorFlow's messages with TensorFlow's
package (`tensorflow`), message names and field numbers, so that the bytes
minitf writes are the bytes TensorFlow reads, and the other way round;
they declare only the fields minitf uses (a parser keeps the others as
unknown fields). The `*_pb2.py` modules beside them are generated from
them by `scripts/generate_protos.py` and checked in.

Nothing in `import minitf` imports this package: the `protobuf` runtime is
loaded only when a tensor, a graph or a record is turned into bytes or back
(`minitf.graph.tensor_util.make_tensor_proto` and friends).

Mirrors `tensorflow/core/framework/*.proto`.
"""
