"""Connectionist temporal classification (CTC): a loss and decoders for unaligned sequences.

A speech or handwriting model emits class scores at every time step, but
its labels say only *what* was said, not when. `ctc_loss` sums the
probability of every alignment of the labels to the steps (a blank class,
the last one, fills the steps between labels) and gives -log of it; its
op, CTCLoss, computes the gradient in the same pass. The decoders go back
from scores to label sequences: `ctc_greedy_decoder` takes the best class
at every step, `ctc_beam_search_decoder` keeps the most probable label
prefixes from step to step. `collapse_repeated` and `ctc_unique_labels` prepare dense
label batches.

The kernels are in minitf/kernels/cpu/ctc_kernels.py, CTCLoss's gradient in
minitf/autodiff/nn_grad.py.

Mirrors `tensorflow/python/ops/ctc_ops.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import functional_ops
from minitf.ops import math_ops
from minitf.ops import sparse_ops


def _get_dim(tensor, i):
    """tensor.shape[i], static where known, else from the graph."""
    return tensor_shape.dimension_value(tensor.shape[i]) or array_ops.shape(tensor)[i]


# --- the loss -----------------------------------------------------------------------------------

def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False,
             time_major=True, logits=None):
    """-log p(labels | inputs) per batch entry: a [batch] vector.

    `labels` is an int32 SparseTensor ([batch, position] -> class in
    [0, num_classes - 1)); `inputs` the logits, [max_time, batch,
    num_classes] (or batch first with `time_major=False`), whose last class
    is the blank; `sequence_length` how many steps of each entry count.
    """
    if not isinstance(labels, sparse_tensor.SparseTensor):
        raise TypeError("Expected argument `labels` to be a SparseTensor. Received "
                        "labels=%s of type: %s" % (labels, type(labels).__name__))
    if logits is not None and inputs is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = convert_to_tensor(logits if logits is not None else inputs, name="logits")
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])  # (B,T,N) => (T,B,N)
    loss, _ = apply_op("CTCLoss", inputs=inputs, labels_indices=labels.indices,
                       labels_values=labels.values, sequence_length=sequence_length,
                       preprocess_collapse_repeated=preprocess_collapse_repeated,
                       ctc_merge_repeated=ctc_merge_repeated,
                       ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs)
    return loss


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None):
    """ctc_loss with the blank class chosen by `blank_index` (0 for dense labels).

    `labels` is a SparseTensor, or a dense [batch, max_label_length] tensor
    whose entry b holds label_length[b] labels; `logit_length` is the
    sequence length. minitf moves the blank class last and runs CTCLoss.
    """
    del unique  # a speed-up for TPUs; the loss is the same without it
    if isinstance(labels, sparse_tensor.SparseTensor):
        if blank_index is None:
            raise ValueError("blank_index must be given when using SparseTensor labels.")
        return _ctc_loss_with_blank(labels, logits, logit_length, logits_time_major,
                                    blank_index)
    with ops.name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        return _ctc_loss_with_blank(dense_labels_to_sparse(labels, label_length), logits,
                                    logit_length, logits_time_major,
                                    0 if blank_index is None else blank_index)


def _ctc_loss_with_blank(labels, logits, logit_length, logits_time_major, blank_index):
    """ctc_loss after moving class `blank_index` of the logits last (and renumbering the
    labels above it one down)."""
    logits = convert_to_tensor(logits, name="logits")
    num_classes = _get_dim(logits, 2)
    if blank_index < 0:
        blank_index += num_classes
    if blank_index != num_classes - 1:
        logits = array_ops.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                                   logits[:, :, blank_index:blank_index + 1]], axis=2)
        labels = sparse_tensor.SparseTensor(
            labels.indices, math_ops.where(labels.values < blank_index, labels.values,
                                           labels.values - 1), labels.dense_shape)
    return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length,
                    time_major=logits_time_major)


def dense_labels_to_sparse(dense, length):
    """The first length[b] labels of each row of `dense`, as an int32 SparseTensor."""
    dense = convert_to_tensor(dense, name="dense")
    flat_values = array_ops.reshape(dense, [-1])
    flat_indices = math_ops.range(array_ops.shape(flat_values, out_type=dtypes.int64)[0])
    mask = array_ops.sequence_mask(length, maxlen=array_ops.shape(dense)[1])
    flat_mask = array_ops.reshape(mask, [-1])
    indices = array_ops.expand_dims(array_ops.boolean_mask(flat_indices, flat_mask), 1)
    values = array_ops.boolean_mask(flat_values, flat_mask)
    sparse = sparse_tensor.SparseTensor(
        indices=indices, values=math_ops.cast(values, dtypes.int32),
        dense_shape=array_ops.shape(flat_values, out_type=dtypes.int64))
    reshaped = sparse_ops.sparse_reshape(sparse, array_ops.shape(dense))
    max_length = math_ops.reduce_max(length)
    return sparse_tensor.SparseTensor(
        indices=reshaped.indices, values=reshaped.values,
        dense_shape=[math_ops.cast(reshaped.dense_shape[0], dtypes.int64),
                     math_ops.cast(max_length, dtypes.int64)])


# --- decoding -----------------------------------------------------------------------------------

def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """([decoded SparseTensor], neg_sum_logits): the best class at every step, with
    repeats merged (if `merge_repeated`) and blanks (the last class by default) dropped."""
    decoded_ix, decoded_val, decoded_shape, log_probabilities = apply_op(
        "CTCGreedyDecoder", inputs=inputs, sequence_length=sequence_length,
        merge_repeated=merge_repeated, blank_index=-1 if blank_index is None else blank_index)
    return ([sparse_tensor.SparseTensor(decoded_ix, decoded_val, decoded_shape)],
            log_probabilities)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """([top_paths decoded SparseTensors], log_probability [batch, top_paths]): the most
    probable label sequences by prefix beam search, `beam_width` prefixes kept per step.

    With `merge_repeated`, repeats in a decoded sequence are merged even where a blank
    separated them (as in TensorFlow).
    """
    outputs = apply_op("CTCBeamSearchDecoder", inputs=inputs, sequence_length=sequence_length,
                       beam_width=beam_width, top_paths=top_paths,
                       merge_repeated=merge_repeated)
    decoded_ixs = outputs[:top_paths]
    decoded_vals = outputs[top_paths:2 * top_paths]
    decoded_shapes = outputs[2 * top_paths:3 * top_paths]
    return ([sparse_tensor.SparseTensor(ix, val, shape)
             for ix, val, shape in zip(decoded_ixs, decoded_vals, decoded_shapes)],
            outputs[-1])


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """ctc_beam_search_decoder without merging the repeats of a decoded sequence."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width=beam_width,
                                   top_paths=top_paths, merge_repeated=False)


# --- preparing dense labels ---------------------------------------------------------------------

def collapse_repeated(labels, seq_length, name=None):
    """(labels with each run of a repeated label merged into one, padded with 0; their
    lengths): [[A, A, B, B, A], ...] -> [[A, B, A, 0, 0], ...]."""
    with ops.name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        label_mask = array_ops.concat([array_ops.ones_like(labels[:, :1], dtypes.bool),
                                       math_ops.not_equal(labels[:, 1:], labels[:, :-1])],
                                      axis=1)
        seq_mask = array_ops.sequence_mask(seq_length, maxlen=_get_dim(labels, 1))
        label_mask = math_ops.logical_and(label_mask, seq_mask)
        new_seq_len = math_ops.reduce_sum(math_ops.cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = math_ops.reduce_max(new_seq_len)
        idx_mask = array_ops.sequence_mask(new_seq_len, maxlen=new_maxlen)
        flat_labels = array_ops.reshape(labels, [-1])
        flat_label_mask = array_ops.reshape(label_mask, [-1])
        flat_idx_mask = array_ops.reshape(idx_mask, [-1])
        idx = math_ops.range(_get_dim(flat_idx_mask, 0))
        flat = array_ops.scatter_nd(
            indices=array_ops.expand_dims(array_ops.boolean_mask(idx, flat_idx_mask), axis=1),
            updates=array_ops.boolean_mask(flat_labels, flat_label_mask),
            shape=array_ops.shape(flat_idx_mask))
        return (array_ops.reshape(flat, [_get_dim(labels, 0), new_maxlen]),
                math_ops.cast(new_seq_len, seq_length.dtype))


def ctc_unique_labels(labels, name=None):
    """Per row of `labels` ([batch, max_label_length], padded with 0): its distinct labels
    in order of appearance, padded with 0 (int64), and the index of each label among
    them (int32). [[3, 4, 4, 3]] -> ([[3, 4, 0, 0]], [[0, 1, 1, 0]])."""
    with ops.name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def unique(x):
            y, idx = array_ops.unique(x)
            y = array_ops.pad(y, [[0, _get_dim(idx, 0) - _get_dim(y, 0)]])
            return [math_ops.cast(y, dtypes.int64), idx]
        return functional_ops.map_fn(unique, labels, dtype=[dtypes.int64, dtypes.int32])
