"""Queues: `tf.FIFOQueue`, `RandomShuffleQueue`, `PaddingFIFOQueue`, `PriorityQueue`.

Before tf.data, TensorFlow read input through queues: threads (queue
runners) ran enqueue ops that filled a queue, and the training step
dequeued a batch from it. A queue is a resource in its device's resource
manager; the Python object here holds its handle (`queue_ref`) and builds
the ops that use it. Each element is a tuple of tensors (the queue's
`dtypes`, maybe with `shapes` and `names`).

A dequeue from an empty queue waits without holding a thread of the
executor (its kernel is async, `minitf/kernels/cpu/queue_kernels.py`);
`close()` releases it with OutOfRangeError, and `RunOptions(timeout_in_ms)`
with DeadlineExceededError.

The module also builds the *stacks* a loop's gradient keeps its forward
values on: `StackV2` makes a stack for the step and gives its handle,
`StackPushV2` pushes a tensor (and passes it through), `StackPopV2` takes
the last one back. The gradient of a while loop pushes every forward value
its gradient needs, once per forward iteration, and pops them in the
gradient loop, which runs the iterations backwards
(`minitf/autodiff/control_flow_state.py`). Users do not build these
themselves.

Mirrors `tensorflow/python/ops/data_flow_ops.py` (QueueBase and its kinds;
the stack ops of `gen_data_flow_ops`: `stack_v2`, `stack_push_v2`,
`stack_pop_v2`).
"""

from minitf.graph import dtypes as dtypes_lib
from minitf.graph import ops
from minitf.graph import random_seed
from minitf.graph import tensor_shape
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import math_ops

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"]


def _as_shapes(shapes, count, unknown_rank_ok):
    if shapes is None:
        return None
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if len(shapes) != count:
        raise ValueError("Queue shapes must have the same length as dtypes")
    if not unknown_rank_ok and not all(s.is_fully_defined() for s in shapes):
        raise ValueError("Queue shapes must have fully-defined shapes: %s" % shapes)
    return shapes


class QueueBase:
    """A queue resource and the ops that use it; see the module docstring."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        self._shapes = shapes if shapes is not None else [tensor_shape.unknown_shape()
                                                          for _ in dtypes]
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        raise NotImplementedError("QueueBase.from_list needs the QueueSelect op, which minitf "
                                  "does not have")

    # --- what it holds --------------------------------------------------------------------
    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    # --- elements in and out ------------------------------------------------------------------
    def _check_enqueue_dtypes(self, vals):
        """The values of one element (a tensor, a list, or a dict by name) as tensors."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals.keys()):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  "
                                 "Dictionary: (%s), Queue: (%s)" % (sorted(vals.keys()),
                                                                    sorted(self._names)))
            vals = [vals[k] for k in self._names]
        elif self._names:
            raise ValueError("You must enqueue a dictionary in a Queue with names")
        if not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components, got %d" % (len(self._dtypes), len(vals)))
        return [convert_to_tensor(v, dtype=dt, name="component_%d" % i)
                for i, (v, dt) in enumerate(zip(vals, self._dtypes))]

    def enqueue(self, vals, name=None):
        """An op that adds one element; it waits while the queue is full."""
        with ops.name_scope(name, "%s_enqueue" % self._name, [self._queue_ref]) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", handle=self._queue_ref, components=vals,
                            name=scope)

    def enqueue_many(self, vals, name=None):
        """An op that adds the rows of `vals` (split along dimension 0) as elements."""
        with ops.name_scope(name, "%s_EnqueueMany" % self._name, [self._queue_ref]) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch = tensor_shape.dimension_value(vals[0].shape.with_rank_at_least(1)[0]) \
                if vals[0].shape.ndims is not None else None
            for val, shape in zip(vals, self._shapes):
                val_batch = val.shape.with_rank_at_least(1)[0] if val.shape.ndims else None
                if batch is not None and val_batch is not None:
                    tensor_shape.Dimension(batch).assert_is_compatible_with(val_batch)
                if val.shape.ndims is not None:
                    val.shape[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", handle=self._queue_ref, components=vals,
                            name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return dict(zip(self._names, tensors))
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _dequeue(self, op_type, suffix, name, n=None, batch=None):
        with ops.name_scope(name, "%s_%s" % (self._name, suffix), [self._queue_ref]) as scope:
            inputs = {"handle": self._queue_ref}
            if n is not None:
                inputs["n"] = convert_to_tensor(n, dtype=dtypes_lib.int32, name="n")
            outputs = apply_op(op_type, component_types=self._dtypes, name=scope, **inputs)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        for tensor, shape in zip(outputs, self._shapes):
            tensor.set_shape(shape if n is None else
                             tensor_shape.TensorShape([batch]).concatenate(shape))
        return self._dequeue_return_value(outputs)

    def dequeue(self, name=None):
        """The oldest element (by the queue's rule); waits while the queue is empty."""
        return self._dequeue("QueueDequeueV2", "Dequeue", name)

    def dequeue_many(self, n, name=None):
        """`n` elements stacked along a new first dimension; waits until there are `n`."""
        static_n = n if isinstance(n, int) else None
        return self._dequeue("QueueDequeueManyV2", "DequeueMany", name, n, static_n)

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but after `close` gives what is left, if anything."""
        return self._dequeue("QueueDequeueUpToV2", "DequeueUpTo", name, n, None)

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op that closes the queue: no more enqueues; waiting dequeues end when it runs dry."""
        name = name or "%s_Close" % self._name
        return apply_op("QueueCloseV2", handle=self._queue_ref,
                        cancel_pending_enqueues=cancel_pending_enqueues, name=name)

    def is_closed(self, name=None):
        return apply_op("QueueIsClosedV2", handle=self._queue_ref,
                        name=name or "%s_IsClosed" % self._name)

    def size(self, name=None):
        """The number of elements in the queue, an int32 scalar."""
        return apply_op("QueueSizeV2", handle=self._queue_ref,
                        name=name or "%s_Size" % self._name)


def _types(dtypes):
    return [dtypes_lib.as_dtype(t) for t in (dtypes if isinstance(dtypes, (list, tuple))
                                             else [dtypes])]


def _names(names, count):
    if names is None:
        return None
    names = list(names) if isinstance(names, (list, tuple)) else [names]
    if len(names) != count:
        raise ValueError("Queue names must have the same length as dtypes")
    return names


class FIFOQueue(QueueBase):
    """Elements leave in the order they came."""

    _op_type = "FIFOQueueV2"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        types = _types(dtypes)
        shapes = _as_shapes(shapes, len(types), unknown_rank_ok=False)
        ref = apply_op(self._op_type, component_types=types, shapes=shapes or [],
                       capacity=capacity, shared_name=shared_name or "", name=name)
        super().__init__(types, shapes, _names(names, len(types)), ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose shapes may have unknown dimensions; `dequeue_many` pads to the longest."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        types = _types(dtypes)
        shapes = _as_shapes(shapes, len(types), unknown_rank_ok=True)
        if any(s.ndims is None for s in shapes):
            raise ValueError("Shapes must be fully specified (ranks known) for a "
                             "PaddingFIFOQueue")
        ref = apply_op("PaddingFIFOQueueV2", component_types=types, shapes=shapes,
                       capacity=capacity, shared_name=shared_name or "", name=name)
        super().__init__(types, shapes, _names(names, len(types)), ref)


class RandomShuffleQueue(QueueBase):
    """Elements leave in a random order; at least `min_after_dequeue` stay until it closes."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        types = _types(dtypes)
        shapes = _as_shapes(shapes, len(types), unknown_rank_ok=False)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            seed2 = seed1  # shared queues must agree on their seeds, whatever their op ids
        ref = apply_op("RandomShuffleQueueV2", component_types=types, shapes=shapes or [],
                       capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed1,
                       seed2=seed2, shared_name=shared_name or "", name=name)
        super().__init__(types, shapes, _names(names, len(types)), ref)


class PriorityQueue(QueueBase):
    """Elements leave lowest priority first: each element is (int64 priority, *values)."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _types(types)
        shapes = _as_shapes(shapes, len(types), unknown_rank_ok=False)
        ref = apply_op("PriorityQueueV2", component_types=types, shapes=shapes or [],
                       capacity=capacity, shared_name=shared_name or "", name=name)
        names = _names(names, len(types))
        super().__init__([dtypes_lib.int64] + types,
                         None if shapes is None else [tensor_shape.scalar()] + shapes,
                         None if names is None else ["priority"] + names, ref)


# --- stacks: a loop's gradient saves its forward values on them ----------------------------

def stack_v2(max_size, elem_type, stack_name="", name=None):
    """A new stack of `elem_type` tensors (at most `max_size`, -1: no limit); its handle."""
    return apply_op("StackV2", name=name, max_size=max_size, elem_type=elem_type,
                    stack_name=stack_name)


def stack_push_v2(handle, elem, swap_memory=False, name=None):
    """Pushes `elem` on the stack; returns `elem`."""
    return apply_op("StackPushV2", name=name, handle=handle, elem=elem,
                    swap_memory=swap_memory)


def stack_pop_v2(handle, elem_type, name=None):
    """The last tensor pushed, taken off the stack."""
    return apply_op("StackPopV2", name=name, handle=handle, elem_type=elem_type)


def stack_close_v2(handle, name=None):
    return apply_op("StackCloseV2", name=name, handle=handle)


# =============================================================================
# Conditional accumulators
# =============================================================================

class ConditionalAccumulatorBase:
    """An accumulator resource: gradients applied by many workers, taken once enough came.

    See `minitf/kernels/cpu/accumulator_kernels.py` for what apply and take do.
    """

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = (tensor_shape.TensorShape(shape) if shape is not None
                       else tensor_shape.unknown_shape())
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        return self._accumulator_ref

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    _NUM_ACCUMULATED = "ResourceAccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "ResourceAccumulatorSetGlobalStep"

    def num_accumulated(self, name=None):
        """How many gradients have been summed since the last take."""
        if name is None:
            name = "%s_NumAccumulated" % self._name
        return apply_op(self._NUM_ACCUMULATED, name=name, handle=self._accumulator_ref)

    def set_global_step(self, new_global_step, name=None):
        """Sets the step below which applied gradients are stale."""
        return apply_op(self._SET_GLOBAL_STEP, name=name, handle=self._accumulator_ref,
                        new_global_step=math_ops.cast(convert_to_tensor(new_global_step),
                                                      dtypes_lib.int64))


def _accumulator_ref(op_type, dtype, shape, shared_name, name, reduction_type):
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    return apply_op(op_type, name=name, dtype=dtype, shape=shape, shared_name=shared_name or "",
                    reduction_type=reduction_type)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Dense gradients: take_grad gives their mean (or sum) once num_required were applied."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(dtype, shape, _accumulator_ref(
            "ResourceConditionalAccumulator", dtype, shape, shared_name, name, reduction_type))

    def apply_grad(self, grad, local_step=0, name=None):
        """Adds `grad`, computed at `local_step` (dropped if older than the global step)."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        local_step = math_ops.cast(convert_to_tensor(local_step), dtypes_lib.int64)
        return apply_op("ResourceAccumulatorApplyGradient", name=name,
                        handle=self._accumulator_ref, local_step=local_step, gradient=grad)

    def take_grad(self, num_required, name=None):
        """Waits for num_required gradients; their mean (or sum), and the next step begins."""
        out = apply_op("ResourceAccumulatorTakeGradient", name=name,
                       handle=self._accumulator_ref, num_required=num_required,
                       dtype=self._dtype)
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Sparse gradients (indices, values, shape): rows summed by index, each averaged over
    the gradients that had it."""

    _NUM_ACCUMULATED = "AccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "AccumulatorSetGlobalStep"

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        super().__init__(dtype, shape, _accumulator_ref(
            "SparseConditionalAccumulator", dtype, shape, shared_name, name, reduction_type))

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """apply_grad of an IndexedSlices."""
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """Adds the rows `grad_values` at `grad_indices`, computed at `local_step`."""
        local_step = math_ops.cast(convert_to_tensor(local_step), dtypes_lib.int64)
        return apply_op(
            "SparseAccumulatorApplyGradient", name=name, handle=self._accumulator_ref,
            local_step=local_step, gradient_indices=math_ops.cast(grad_indices, dtypes_lib.int64),
            gradient_values=grad_values,
            gradient_shape=math_ops.cast([] if grad_shape is None else grad_shape,
                                         dtypes_lib.int64),
            has_known_shape=grad_shape is not None)

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the mean, once num_required gradients came."""
        return apply_op("SparseAccumulatorTakeGradient", name=name,
                        handle=self._accumulator_ref, num_required=num_required,
                        dtype=self._dtype)

    def take_indexed_slices_grad(self, num_required, name=None):
        """take_grad as an IndexedSlices."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)
