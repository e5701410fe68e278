"""The OpDefs of connectionist temporal classification (CTC), and their shape functions.

CTCLoss gives, per batch entry, -log p(labels | inputs) summed over every
alignment of the labels to the time steps, and its gradient with respect
to the inputs (the logits) in the same pass. CTCGreedyDecoder and
CTCBeamSearchDecoder turn the logits back into label sequences, as
SparseTensor parts (indices, values, dense shape).

The front end is `minitf/ops/ctc_ops.py`; the kernels are in
`minitf/kernels/cpu/ctc_kernels.py`.

Mirrors `tensorflow/core/ops/ctc_ops.cc`.
"""

from minitf.framework.common_shapes import merge_dims, with_rank
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape


def _batch_size(op):
    """The batch size that inputs ([max_time, batch, classes]) and sequence_length agree on."""
    inputs = with_rank(op.inputs[0].shape, 3)
    sequence_length = with_rank(op.inputs[-1].shape, 1)
    return inputs, merge_dims(inputs.as_list()[1], sequence_length.as_list()[0])


def _ctc_loss_shape(op):
    """loss: [batch]; gradient: the shape of inputs."""
    labels_indices = with_rank(op.inputs[1].shape, 2)
    labels_values = with_rank(op.inputs[2].shape, 1)
    merge_dims(labels_indices.as_list()[0], labels_values.as_list()[0])
    inputs, batch = _batch_size(op)
    dims = inputs.as_list()
    return [tensor_shape.TensorShape([batch]),
            tensor_shape.TensorShape([dims[0], batch, dims[2]])]


def _decoded_shapes(op, paths):
    """Per path: indices [n, 2], values [n], dense shape [2]; then log_probability."""
    _, batch = _batch_size(op)
    return ([tensor_shape.TensorShape([None, 2])] * paths
            + [tensor_shape.TensorShape([None])] * paths
            + [tensor_shape.TensorShape([2])] * paths
            + [tensor_shape.TensorShape([batch, paths])])


register_op("CTCLoss").input("inputs: T").input("labels_indices: int64").input(
    "labels_values: int32").input("sequence_length: int32").attr(
    "preprocess_collapse_repeated: bool = false").attr("ctc_merge_repeated: bool = true").attr(
    "ignore_longer_outputs_than_inputs: bool = false").output("loss: T").output(
    "gradient: T").attr("T: {float32, float64} = float32").set_shape_fn(_ctc_loss_shape)

register_op("CTCGreedyDecoder").input("inputs: T").input("sequence_length: int32").attr(
    "merge_repeated: bool = false").attr("blank_index: int = -1").output(
    "decoded_indices: int64").output("decoded_values: int64").output(
    "decoded_shape: int64").output("log_probability: T").attr(
    "T: {float32, float64} = float32").set_shape_fn(lambda op: _decoded_shapes(op, 1))

register_op("CTCBeamSearchDecoder").input("inputs: T").input("sequence_length: int32").attr(
    "beam_width: int >= 1").attr("top_paths: int >= 1").attr(
    "merge_repeated: bool = true").output("decoded_indices: top_paths * int64").output(
    "decoded_values: top_paths * int64").output("decoded_shape: top_paths * int64").output(
    "log_probability: T").attr("T: {float32, float64} = float32").set_shape_fn(
    lambda op: _decoded_shapes(op, op.get_attr("top_paths")))
