"""Kernels of the queues: FIFO, random-shuffle, padding and priority queues as resources.

A queue lives in its device's resource manager (under `shared_name`, or
its node's name) and outlives steps; its handle flows along `resource`
edges. It holds *elements* (one array per component) up to `capacity`.

Enqueue and dequeue are **async kernels**: a dequeue from an empty queue
does not wait on a thread. It leaves an *attempt* in the queue, a callback
to call when it can be served, and returns; the executor's thread goes on
with other work (or other steps). Every change of the queue (an enqueue, a
dequeue, `close`) serves the attempts that have become possible, oldest
first, and calls their `done` on the thread that made the change. An
attempt also ends when its step is aborted (an error elsewhere in the step,
or the deadline of `RunOptions(timeout_in_ms)`): the step's abort calls it
back, and it leaves the queue without taking anything.

`close()` lets the dequeues that can still be served finish and fails the
others with OutOfRangeError; enqueues after it fail with CancelledError,
and so do pending ones when `cancel_pending_enqueues`.

The kinds differ in which element a dequeue takes and when it may:
FIFO takes the oldest; RandomShuffle a random one, once more than
`min_after_dequeue` are left (or the queue is closed); Priority the one
whose first component (an int64) is smallest; a PaddingFIFO queue's
`dequeue_many` pads the elements to a common shape.

Mirrors `tensorflow/core/kernels/queue_base.cc`, `fifo_queue.cc`,
`random_shuffle_queue_op.cc`, `padding_fifo_queue.cc`, `priority_queue.cc`
and `queue_ops.cc`.
"""

import collections
import heapq
import itertools
import threading

import numpy as np

from minitf.framework import buffers
from minitf.framework.dataset import ResourceHandle, scalar, unwrap
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_shape
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text

# Queues hold host values, as TensorFlow's do; soft placement puts them on the CPU.
CPU_ONLY = ("CPU",)


class _Attempt:
    """An enqueue or dequeue waiting for the queue: what it needs, and whom to call when done."""

    __slots__ = ("elements", "count", "allow_fewer", "done", "finished")

    def __init__(self, done, elements=None, count=0, allow_fewer=False):
        self.elements = collections.deque(elements or ())  # enqueue: still to be added
        self.count = count                                # dequeue: how many to take
        self.allow_fewer = allow_fewer                    # dequeue_up_to
        self.done = done
        self.finished = False


class QueueBase:
    """A queue's elements, its pending attempts, and the rule that serves them."""

    kind = "FIFOQueue"

    def __init__(self, name, component_types, shapes, capacity):
        self.name = name
        self.component_types = list(component_types)
        self.shapes = [s if s.ndims is not None else None for s in shapes] or None
        self.capacity = capacity if capacity >= 0 else float("inf")
        self.closed = False
        self._lock = threading.Lock()
        self._enqueues = collections.deque()
        self._dequeues = collections.deque()

    # --- storage, per kind -------------------------------------------------------------
    def size(self):
        raise NotImplementedError

    def _push(self, element):
        raise NotImplementedError

    def _pop(self):
        raise NotImplementedError

    def _can_dequeue(self, count):
        return self.size() >= count

    def _combine(self, elements):
        """Elements as one output per component, with a new first dimension."""
        return [np.stack([e[i] for e in elements]) for i in range(len(self.component_types))]

    # --- checks ------------------------------------------------------------------------
    def check_element(self, element):
        if len(element) != len(self.component_types):
            raise invalid("Expected %d components, got %d" % (len(self.component_types),
                                                              len(element)))
        for i, value in enumerate(element):
            expected = self._shape_of(i)
            if expected is not None and not expected.is_compatible_with(np.shape(value)):
                raise invalid("Shape mismatch in tuple component %d. Expected %s, got %s"
                              % (i, shape_text(expected.as_list()), shape_text(np.shape(value))))

    def _shape_of(self, i):
        return self.shapes[i] if self.shapes else None

    def check_many(self, count):
        if count < 0:
            raise invalid("Dequeue requested %d elements, a negative number" % count)
        if self.shapes is None or any(not s.is_fully_defined() for s in self.shapes):
            raise invalid("%s's DequeueMany and DequeueUpTo require the components to have "
                          "specified shapes." % self.kind)

    # --- attempts ------------------------------------------------------------------------
    def enqueue(self, elements, step, done):
        """Adds `elements` as space allows; `done()` once all are in, or with the error."""
        with self._lock:
            if self.closed:
                error = errors.CancelledError(None, None, "%s '%s' is closed." % (self.kind,
                                                                                    self.name))
            else:
                error = None
                attempt = _Attempt(done, elements=elements)
                self._enqueues.append(attempt)
        if error is not None:
            done(error=error)
            return
        step.on_abort(lambda e: self._cancel(self._enqueues, attempt, e))
        self._serve()

    def dequeue(self, count, allow_fewer, step, done):
        """Takes `count` elements when it can; `done(elements)`, or `done(error=...)`."""
        attempt = _Attempt(done, count=count, allow_fewer=allow_fewer)
        with self._lock:
            self._dequeues.append(attempt)
        step.on_abort(lambda e: self._cancel(self._dequeues, attempt, e))
        self._serve()

    def close(self, cancel_pending_enqueues):
        with self._lock:
            self.closed = True
            cancelled = list(self._enqueues) if cancel_pending_enqueues else []
            if cancel_pending_enqueues:
                self._enqueues.clear()
        for attempt in cancelled:
            self._finish(attempt, error=errors.CancelledError(
                None, None, "%s '%s' is closed." % (self.kind, self.name)))
        self._serve()

    def _cancel(self, pending, attempt, error):
        with self._lock:
            if attempt.finished or attempt not in pending:
                return
            pending.remove(attempt)
        self._finish(attempt, error=errors.CancelledError(
            None, None, "%s operation was cancelled: %s" % (self.kind, error.message)))

    @staticmethod
    def _finish(attempt, value=None, error=None):
        if attempt.finished:
            return
        attempt.finished = True
        if error is not None:
            attempt.done(error=error)
        else:
            attempt.done(value)

    def _serve(self):
        """Serves the pending attempts that can go ahead, oldest first, until none can."""
        while True:
            with self._lock:
                finished = self._serve_one_dequeue() or self._serve_one_enqueue()
            if finished is None:
                return
            if finished is not True:
                attempt, value, error = finished
                self._finish(attempt, value, error)

    def _serve_one_dequeue(self):
        """(attempt, elements, error) for a dequeue that can finish now, else None."""
        if not self._dequeues:
            return None
        attempt = self._dequeues[0]
        count = attempt.count
        if self._can_dequeue(count):
            self._dequeues.popleft()
            return attempt, [self._pop() for _ in range(count)], None
        if not self.closed:
            return None
        self._dequeues.popleft()
        if attempt.allow_fewer and self.size() > 0:
            return attempt, [self._pop() for _ in range(self.size())], None
        return attempt, None, errors.OutOfRangeError(
            None, None, "%s '%s' is closed and has insufficient elements (requested %d, current "
            "size %d)" % (self.kind, self.name, count, self.size()))

    def _serve_one_enqueue(self):
        """Moves elements of the oldest enqueue in while there is room; True if any moved."""
        if not self._enqueues or self.size() >= self.capacity:
            return None
        attempt = self._enqueues[0]
        while attempt.elements and self.size() < self.capacity:
            self._push(attempt.elements.popleft())
        if attempt.elements:
            return True  # a dequeue may now be served; the rest waits for room
        self._enqueues.popleft()
        return attempt, (), None


class FIFOQueue(QueueBase):
    kind = "FIFOQueue"

    def __init__(self, *args):
        super().__init__(*args)
        self._elements = collections.deque()

    def size(self):
        return len(self._elements)

    def _push(self, element):
        self._elements.append(element)

    def _pop(self):
        return self._elements.popleft()


class PaddingFIFOQueue(FIFOQueue):
    """A FIFO queue whose shapes may have unknown dimensions; dequeue_many pads them."""

    kind = "PaddingFIFOQueue"

    def check_many(self, count):
        if count < 0:
            raise invalid("Dequeue requested %d elements, a negative number" % count)

    def _combine(self, elements):
        outputs = []
        for i in range(len(self.component_types)):
            values = [np.asarray(e[i]) for e in elements]
            shape = np.max([v.shape for v in values], axis=0) if values[0].ndim else ()
            out = np.zeros((len(values),) + tuple(shape), dtype=values[0].dtype)
            if out.dtype == object:
                out[...] = b""
            for j, v in enumerate(values):
                out[(j,) + tuple(slice(0, d) for d in v.shape)] = v
            outputs.append(out)
        return outputs


class RandomShuffleQueue(QueueBase):
    """Dequeues a random element, keeping at least `min_after_dequeue` until it is closed."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, component_types, shapes, capacity, min_after_dequeue, seed, seed2):
        super().__init__(name, component_types, shapes, capacity)
        self.min_after_dequeue = min_after_dequeue
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int(s) for s in np.random.SeedSequence().generate_state(2))
        self._rng = np.random.default_rng([seed, seed2])
        self._elements = []

    def size(self):
        return len(self._elements)

    def _push(self, element):
        self._elements.append(element)

    def _pop(self):
        index = int(self._rng.integers(len(self._elements)))
        self._elements[index], self._elements[-1] = self._elements[-1], self._elements[index]
        return self._elements.pop()

    def _can_dequeue(self, count):
        if self.closed:
            return self.size() >= count
        return self.size() - count >= self.min_after_dequeue


class PriorityQueue(QueueBase):
    """Dequeues the element whose first component (an int64 priority) is smallest."""

    kind = "PriorityQueue"

    def __init__(self, name, component_types, shapes, capacity):
        super().__init__(name, [dtypes.int64] + list(component_types),
                         [tensor_shape.scalar()] + list(shapes) if shapes else [], capacity)
        self._heap = []
        self._order = itertools.count()  # equal priorities leave in the order they came

    def check_element(self, element):
        super().check_element(element)
        if np.shape(element[0]) != ():
            raise invalid("Expected the priority element to be a scalar, but received shape: %s"
                          % shape_text(np.shape(element[0])))

    def size(self):
        return len(self._heap)

    def _push(self, element):
        heapq.heappush(self._heap, (int(element[0]), next(self._order), element))

    def _pop(self):
        return heapq.heappop(self._heap)[2]


# =============================================================================
# Kernels
# =============================================================================

def _create(ctx, queue_class, shared_name, container, *args):
    name = shared_name or ctx.node_name
    container = container or ctx.resource_manager.default_container
    queue = ctx.resource_manager.lookup_or_create(
        container, name, lambda: queue_class(name, *args))
    if not isinstance(queue, queue_class):
        raise invalid("Shared queue '%s' has kind %s, not %s" % (name, queue.kind,
                                                                 queue_class.kind))
    return scalar(ResourceHandle(ctx.device.name, container, name))


@register_kernel("FIFOQueueV2", CPU_ONLY, is_expensive=False)
def fifo_queue(ctx, *, component_types, shapes, capacity, container, shared_name):
    return _create(ctx, FIFOQueue, shared_name, container, component_types, shapes, capacity)


@register_kernel("PaddingFIFOQueueV2", CPU_ONLY, is_expensive=False)
def padding_fifo_queue(ctx, *, component_types, shapes, capacity, container, shared_name):
    return _create(ctx, PaddingFIFOQueue, shared_name, container, component_types, shapes,
                   capacity)


@register_kernel("RandomShuffleQueueV2", CPU_ONLY, is_expensive=False)
def random_shuffle_queue(ctx, *, component_types, shapes, capacity, min_after_dequeue, seed,
                         seed2, container, shared_name):
    return _create(ctx, RandomShuffleQueue, shared_name, container, component_types, shapes,
                   capacity, min_after_dequeue, seed, seed2)


@register_kernel("PriorityQueueV2", CPU_ONLY, is_expensive=False)
def priority_queue(ctx, *, component_types, shapes, capacity, container, shared_name):
    return _create(ctx, PriorityQueue, shared_name, container, component_types, shapes,
                   capacity)


def _kept(components):
    """Values the queue keeps beyond the step: a read-only one (a variable's buffer) is copied."""
    return [buffers.for_the_caller(c) for c in components]


def _queue(ctx, handle):
    return unwrap(handle, ResourceHandle, "queue handle").lookup(ctx.device, QueueBase)


@register_kernel("QueueEnqueueV2", CPU_ONLY, is_async=True, is_expensive=False)
def queue_enqueue(ctx, handle, *components, done):
    queue = _queue(ctx, handle)
    components = _kept(components)
    queue.check_element(components)
    queue.enqueue([list(components)], ctx.step, lambda value=None, error=None: done(
        (), error=error) if error is not None else done(()))


@register_kernel("QueueEnqueueManyV2", CPU_ONLY, is_async=True, is_expensive=False)
def queue_enqueue_many(ctx, handle, *components, done):
    queue = _queue(ctx, handle)
    components = _kept(components)
    sizes = {np.shape(c)[0] if np.ndim(c) else None for c in components}
    if None in sizes or len(sizes) != 1:
        raise invalid("EnqueueMany requires all components to have the same, non-scalar first "
                      "dimension, got shapes %s" % [shape_text(np.shape(c)) for c in components])
    elements = [[c[i, ...] for c in components] for i in range(sizes.pop())]
    for element in elements[:1]:
        queue.check_element(element)
    queue.enqueue(elements, ctx.step, lambda value=None, error=None: done(
        (), error=error) if error is not None else done(()))


def _dequeued(queue, done, single):
    def finish(elements=None, error=None):
        if error is not None:
            done(error=error)
        elif single:
            done(tuple(elements[0]))
        else:
            done(tuple(queue._combine(elements)) if elements else tuple(
                np.zeros((0,) + tuple(s.as_list()), t.as_numpy_dtype)
                for s, t in zip(queue.shapes, queue.component_types)))
    return finish


@register_kernel("QueueDequeueV2", CPU_ONLY, is_async=True, is_expensive=False)
def queue_dequeue(ctx, handle, *, done):
    queue = _queue(ctx, handle)
    queue.dequeue(1, False, ctx.step, _dequeued(queue, done, single=True))


@register_kernel("QueueDequeueManyV2", CPU_ONLY, is_async=True, is_expensive=False)
def queue_dequeue_many(ctx, handle, n, *, done):
    queue = _queue(ctx, handle)
    queue.check_many(int(n))
    queue.dequeue(int(n), False, ctx.step, _dequeued(queue, done, single=False))


@register_kernel("QueueDequeueUpToV2", CPU_ONLY, is_async=True, is_expensive=False)
def queue_dequeue_up_to(ctx, handle, n, *, done):
    queue = _queue(ctx, handle)
    queue.check_many(int(n))
    queue.dequeue(int(n), True, ctx.step, _dequeued(queue, done, single=False))


@register_kernel("QueueCloseV2", CPU_ONLY, is_expensive=False)
def queue_close(ctx, handle, *, cancel_pending_enqueues):
    _queue(ctx, handle).close(cancel_pending_enqueues)
    return ()


@register_kernel("QueueSizeV2", CPU_ONLY, is_expensive=False)
def queue_size(ctx, handle):
    return np.asarray(_queue(ctx, handle).size(), np.int32)


@register_kernel("QueueIsClosedV2", CPU_ONLY, is_expensive=False)
def queue_is_closed(ctx, handle):
    return np.asarray(_queue(ctx, handle).closed)
