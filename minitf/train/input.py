"""The queue-based input functions: producers of file names and slices, and batching queues.

Each function adds a queue and its enqueue ops to the graph, and a
QueueRunner for them to the `QUEUE_RUNNERS` collection
(`queue_runner_impl.py`); nothing moves until `start_queue_runners` (or a
`MonitoredTrainingSession`) starts its threads.

- `match_filenames_once(pattern)` lists the files matching `pattern` into a
  local variable when local variables are initialized.
- `input_producer(tensor)` fills a queue with the rows of `tensor`,
  shuffled if asked, `num_epochs` times (forever by default; a local
  variable counts the epochs, so `local_variables_initializer` must run);
  `string_input_producer` and `range_input_producer` are its common uses,
  `slice_input_producer` dequeues an index and gathers one row of each
  tensor.
- `batch(tensors, batch_size)` enqueues `tensors` (one example, or many with
  `enqueue_many`) from `num_threads` threads and dequeues `batch_size` of
  them; `shuffle_batch` does the same through a RandomShuffleQueue.
- `batch_join(tensors_list, batch_size)` and `shuffle_batch_join` enqueue
  from one thread per element of `tensors_list` (each a list or dict of the
  same structure, say one reader per file) into the one queue.
- `maybe_batch(tensors, keep_input, ...)` and the other `maybe_` functions
  enqueue only when `keep_input` is true (a scalar), or only the examples
  its vector keeps (with `enqueue_many`).

Deprecated in TensorFlow in favour of tf.data (`tf.data.Dataset.batch`,
`shuffle`, `repeat`), and minitf warns as it does.

Mirrors `tensorflow/python/training/input.py`.
"""

from minitf.data.file_ops import matching_files
from minitf.graph import dtypes
from minitf.graph.constant_op import constant
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import data_flow_ops
from minitf.ops import math_ops
from minitf.ops import random_ops
from minitf.ops import state_ops
from minitf.ops import variables
from minitf.train import queue_runner_impl
from minitf.train.queue_runner_impl import warn_deprecated

__all__ = ["match_filenames_once", "limit_epochs", "input_producer", "string_input_producer",
           "range_input_producer", "slice_input_producer", "batch", "shuffle_batch", "batch_join",
           "shuffle_batch_join", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
           "maybe_shuffle_batch_join"]

_INSTEAD = ("Queue-based input pipelines have been replaced by `tf.data`. Use "
            "`tf.data.Dataset.%s`.")


def match_filenames_once(pattern, name=None):
    """A local variable holding the files that match `pattern`, listed when it is initialized."""
    with ops.name_scope(name, "matching_filenames", [pattern]) as name:
        return variables.Variable(name=name, initial_value=matching_files(pattern),
                                  trainable=False, validate_shape=False,
                                  collections=[ops.GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor`, but OutOfRangeError once it has been evaluated `num_epochs` times."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = variables.Variable(constant(0, dtype=dtypes.int64), name="epochs",
                                    trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES])
        counter = state_ops.count_up_to(epochs, num_epochs)
        with ops.control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue filled with the rows of `input_tensor`, `num_epochs` times; see the module."""
    warn_deprecated("input_producer", _INSTEAD % "from_tensor_slices(input_tensor).shuffle"
                    "(tf.shape(input_tensor, out_type=tf.int64)[0]).repeat(num_epochs)",
                    "input")
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            tensor_shape.as_shape(element_shape) if element_shape is not None
            else tensor_shape.unknown_shape(input_tensor.shape.ndims - 1
                                            if input_tensor.shape.ndims else None))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                                        shapes=[element_shape], shared_name=shared_name)
        enqueue = queue.enqueue_many([input_tensor])
        queue_runner_impl.add_queue_runner(queue_runner_impl.QueueRunner(
            queue, [enqueue], cancel_op=cancel_op))
        return queue


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of strings (file names, usually), `num_epochs` times over, maybe shuffled."""
    not_empty = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops.Tensor) and not string_tensor:
        raise ValueError(not_empty)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        value = tensor_util.constant_value(string_tensor)
        if value is not None and value.size == 0:
            raise ValueError(not_empty)
        return input_producer(string_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, "fraction_of_%d_full" % capacity, scope, cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1 (int32), `num_epochs` times over, maybe shuffled."""
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = math_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, "fraction_of_%d_full" % capacity, scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row of each tensor of `tensor_list` (the same row of each), row after row."""
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# =============================================================================
# Batching
# =============================================================================

def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors)]
    return list(tensors)


def _as_original_type(tensors, dequeued):
    if not isinstance(dequeued, list):
        dequeued = [dequeued]
    if isinstance(tensors, dict):
        return dict(zip(sorted(tensors), dequeued))
    return dequeued


def _shapes(tensor_list, shapes, enqueue_many):
    if shapes is not None:
        return [tensor_shape.as_shape(s) for s in shapes]
    result = []
    for t in tensor_list:
        shape = t.shape[1:] if enqueue_many and t.shape.ndims else t.shape
        if not shape.is_fully_defined():
            raise ValueError("All shapes must be fully defined: %s" % [
                t.shape for t in tensor_list])
        result.append(shape)
    return result


def _validate_keep_input(keep_input, enqueue_many):
    """`keep_input` as a tensor: a scalar, or a vector (one per example) with `enqueue_many`."""
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _enqueue(queue, tensors, enqueue_many, keep_input):
    """The enqueue op of `tensors`: all of them, or those `keep_input` keeps."""
    enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
    tensor_list = _as_tensor_list(tensors)
    if keep_input is None:
        return enqueue(tensor_list)
    if keep_input.shape.ndims == 1:  # one flag per example: enqueue those kept
        select = math_ops.cast(keep_input, dtypes.int32)
        return enqueue([array_ops.dynamic_partition(t, select, num_partitions=2)[1]
                        for t in tensor_list])
    return control_flow_ops.smart_cond(keep_input, lambda: enqueue(tensor_list),
                                       control_flow_ops.no_op)


def _batch(tensors_list, batch_size, queue, enqueue_many, allow_smaller_final_batch, name,
           keep_input=None):
    """One enqueue op (and thread) per element of `tensors_list`, one dequeue of `batch_size`."""
    enqueue_ops = [_enqueue(queue, tensors, enqueue_many, keep_input) for tensors in tensors_list]
    queue_runner_impl.add_queue_runner(queue_runner_impl.QueueRunner(queue, enqueue_ops))
    dequeue = queue.dequeue_up_to if allow_smaller_final_batch else queue.dequeue_many
    return _as_original_type(tensors_list[0], dequeue(batch_size, name=name))


def _fifo_queue(tensor_list, capacity, enqueue_many, shapes, dynamic_pad, shared_name):
    """The queue `batch` fills: a PaddingFIFOQueue if `dynamic_pad`, else a FIFOQueue."""
    types = [t.dtype.base_dtype for t in tensor_list]
    if dynamic_pad:
        shapes = shapes or [t.shape[1:] if enqueue_many else t.shape for t in tensor_list]
        return data_flow_ops.PaddingFIFOQueue(capacity, types, shapes, shared_name=shared_name)
    return data_flow_ops.FIFOQueue(capacity, types, _shapes(tensor_list, shapes, enqueue_many),
                                   shared_name=shared_name)


def _converted(tensors):
    flat = _as_tensor_list(tensors)
    if any(isinstance(t, sparse_tensor.SparseTensor) for t in flat):
        raise NotImplementedError("minitf's queue batching takes dense tensors only")
    converted = [convert_to_tensor(t) for t in flat]
    return dict(zip(sorted(tensors), converted)) if isinstance(tensors, dict) else converted


def _converted_list(tensors_list):
    """Each element of `tensors_list` converted (the same object once); all must have the same
    structure and dtypes."""
    if not tensors_list:
        raise ValueError("Expected at least one tensor in batch_join().")
    by_id = {}
    converted = [by_id.setdefault(id(tensors), _converted(tensors)) for tensors in tensors_list]
    first = _as_tensor_list(converted[0])
    for tensors in converted[1:]:
        other = _as_tensor_list(tensors)
        if (isinstance(tensors, dict) != isinstance(converted[0], dict)
                or (isinstance(tensors, dict) and sorted(tensors) != sorted(converted[0]))
                or len(other) != len(first)):
            raise ValueError("Expected all elements of tensors_list to have the same structure: "
                             "%s" % tensors_list)
        if [t.dtype.base_dtype for t in other] != [t.dtype.base_dtype for t in first]:
            raise TypeError("Expected types to be consistent: %s vs. %s." % (
                [t.dtype.base_dtype.name for t in other],
                [t.dtype.base_dtype.name for t in first]))
    return converted


def _flat_inputs(tensors_list):
    return [t for tensors in tensors_list for t in _as_tensor_list(tensors)]


def _fifo_batch(default_name, tensors_list, keep_input, batch_size, capacity, enqueue_many,
                shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name):
    """`batch` and its kin: a FIFO (or padding) queue filled from one thread per element."""
    with ops.name_scope(name, default_name, _flat_inputs(tensors_list)) as scope:
        tensors_list = _converted_list(tensors_list)
        if keep_input is not None:
            keep_input = _validate_keep_input(keep_input, enqueue_many)
        queue = _fifo_queue(_as_tensor_list(tensors_list[0]), capacity, enqueue_many, shapes,
                            dynamic_pad, shared_name)
        return _batch(tensors_list, batch_size, queue, enqueue_many, allow_smaller_final_batch,
                      scope, keep_input)


def _shuffle_batch(default_name, tensors_list, keep_input, batch_size, capacity,
                   min_after_dequeue, seed, enqueue_many, shapes, allow_smaller_final_batch,
                   shared_name, name):
    """`shuffle_batch` and its kin: a RandomShuffleQueue that keeps `min_after_dequeue` to mix."""
    with ops.name_scope(name, default_name, _flat_inputs(tensors_list)) as scope:
        tensors_list = _converted_list(tensors_list)
        if keep_input is not None:
            keep_input = _validate_keep_input(keep_input, enqueue_many)
        first = _as_tensor_list(tensors_list[0])
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed,
            dtypes=[t.dtype.base_dtype for t in first],
            shapes=_shapes(first, shapes, enqueue_many), shared_name=shared_name)
        return _batch(tensors_list, batch_size, queue, enqueue_many, allow_smaller_final_batch,
                      scope, keep_input)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """`tensors` (one example each run, or many) batched `batch_size` at a time through a queue."""
    warn_deprecated("batch", _INSTEAD % "batch(batch_size)", "input")
    return _fifo_batch("batch", [tensors] * num_threads, None, batch_size, capacity,
                       enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                       name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
                name=None):
    """Like `batch`, enqueuing only when `keep_input` (or, with `enqueue_many`, the examples
    its vector keeps)."""
    warn_deprecated("maybe_batch", _INSTEAD % "filter(...).batch(batch_size)", "input")
    return _fifo_batch("batch", [tensors] * num_threads, keep_input, batch_size, capacity,
                       enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                       name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Like `batch`, one enqueuing thread per element of `tensors_list` (say one per reader)."""
    warn_deprecated("batch_join", _INSTEAD % "interleave(...).batch(batch_size)", "input")
    return _fifo_batch("batch_join", tensors_list, None, batch_size, capacity, enqueue_many,
                       shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """`batch_join` that enqueues only what `keep_input` keeps."""
    warn_deprecated("maybe_batch_join", _INSTEAD % "interleave(...).filter(...).batch(...)",
                    "input")
    return _fifo_batch("batch_join", tensors_list, keep_input, batch_size, capacity,
                       enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                       name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Like `batch`, through a RandomShuffleQueue that keeps `min_after_dequeue` to mix."""
    warn_deprecated("shuffle_batch", _INSTEAD % "shuffle(min_after_dequeue).batch(batch_size)",
                    "input")
    return _shuffle_batch("shuffle_batch", [tensors] * num_threads, None, batch_size, capacity,
                          min_after_dequeue, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch` that enqueues only what `keep_input` keeps."""
    warn_deprecated("maybe_shuffle_batch",
                    _INSTEAD % "filter(...).shuffle(min_after_dequeue).batch(batch_size)",
                    "input")
    return _shuffle_batch("shuffle_batch", [tensors] * num_threads, keep_input, batch_size,
                          capacity, min_after_dequeue, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """Like `shuffle_batch`, one enqueuing thread per element of `tensors_list`."""
    warn_deprecated("shuffle_batch_join",
                    _INSTEAD % "interleave(...).shuffle(min_after_dequeue).batch(batch_size)",
                    "input")
    return _shuffle_batch("shuffle_batch_join", tensors_list, None, batch_size, capacity,
                          min_after_dequeue, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch_join` that enqueues only what `keep_input` keeps."""
    warn_deprecated("maybe_shuffle_batch_join",
                    _INSTEAD % "interleave(...).filter(...).shuffle(...).batch(...)", "input")
    return _shuffle_batch("shuffle_batch_join", tensors_list, keep_input, batch_size, capacity,
                          min_after_dequeue, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)
