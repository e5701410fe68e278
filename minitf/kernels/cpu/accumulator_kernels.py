"""Kernels of the conditional accumulators: sum gradients until enough have come, then give
their mean.

An accumulator keeps a sum, a count and a global step. `apply` adds a
gradient computed at `local_step`, unless that step is older than the
global step (a stale gradient, dropped with a log line). `take(n)` is an
**async kernel**, like a queue's dequeue: when fewer than n gradients have
been summed it leaves an attempt and returns; the apply that brings the
count to n finishes it, on its own thread. Taking gives the mean (or the
sum), clears the sum and moves the global step on by one. A step that is
aborted takes its attempt back.

The sparse accumulator sums rows by index: its mean divides each row by
the number of gradients that had that row.

Mirrors `tensorflow/core/kernels/conditional_accumulator_base.cc`,
`conditional_accumulator.h` and `sparse_conditional_accumulator.h`.
"""

import logging
import threading

import numpy as np

from minitf.framework.dataset import ResourceHandle, scalar, unwrap
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors, tensor_shape
from minitf.kernels.kernel_util import invalid, shape_text

CPU_ONLY = ("CPU",)
_logger = logging.getLogger("minitf")


class ConditionalAccumulatorBase:
    """The count, the global step, and the takes waiting for enough gradients."""

    def __init__(self, name, dtype, shape, reduction_type):
        self.name, self.dtype, self.reduction_type = name, dtype, reduction_type
        self.shape = tensor_shape.as_shape(shape)
        self.lock = threading.Lock()
        self.global_step = 0
        self.count = 0
        self._takes = []  # [num_required, done, finished]

    def apply(self, local_step, *gradient):
        with self.lock:
            if local_step < self.global_step:
                _logger.info("Stale gradient: local step %d < global step %d; dropped.",
                             local_step, self.global_step)
                return
            self.check(*gradient)
            self.add(*gradient)
            self.count += 1
        self._serve()

    def take(self, num_required, step, done):
        if num_required < 1:
            raise invalid("Argument num_required must be positive, but was %d" % num_required)
        attempt = [num_required, done, False]
        with self.lock:
            self._takes.append(attempt)
        step.on_abort(lambda error: self._cancel(attempt, error))
        self._serve()

    def set_global_step(self, new_global_step):
        with self.lock:
            if new_global_step < self.global_step:
                _logger.warning("Attempt to set current_global_step_ to smaller value: "
                                "current_global_step_ = %d >= new_global_step = %d.",
                                self.global_step, new_global_step)
            self.global_step = new_global_step

    def _serve(self):
        while True:
            with self.lock:
                if not self._takes or self.count < self._takes[0][0]:
                    return
                attempt = self._takes.pop(0)
                attempt[2] = True
                try:
                    value = self.result()
                except errors.OpError as error:
                    value, failure = None, error
                else:
                    failure = None
                self.clear()
                self.count = 0
                self.global_step += 1
            if failure is not None:
                attempt[1](error=failure)
            else:
                attempt[1](value)

    def _cancel(self, attempt, error):
        with self.lock:
            if attempt[2] or attempt not in self._takes:
                return
            self._takes.remove(attempt)
            attempt[2] = True
        attempt[1](error=errors.CancelledError(
            None, None, "TakeGrad operation was cancelled: %s" % error.message))

    def _check_shape(self, what, shape):
        if not self.shape.is_compatible_with(shape):
            raise invalid("Shape mismatch: expected %s, got %s." % (
                shape_text(self.shape.as_list() if self.shape.ndims is not None else []),
                shape_text(shape)))


class ConditionalAccumulator(ConditionalAccumulatorBase):
    def __init__(self, *args):
        super().__init__(*args)
        self.clear()

    def clear(self):
        self._sum = None

    def check(self, gradient):
        self._check_shape("gradient", gradient.shape)
        if self._sum is not None and self._sum.shape != gradient.shape:
            raise invalid("Shape mismatch: expected %s, got %s." % (
                shape_text(self._sum.shape), shape_text(gradient.shape)))

    def add(self, gradient):
        self._sum = np.array(gradient, copy=True) if self._sum is None else self._sum + gradient

    def result(self):
        if self.reduction_type == "MEAN":
            return (self._sum / self.count).astype(self._sum.dtype)
        return self._sum


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    def __init__(self, *args):
        super().__init__(*args)
        self.clear()

    def clear(self):
        self._rows = {}       # index -> summed row
        self._row_counts = {}  # index -> how many gradients had it
        self._dense_shape = None

    def check(self, indices, values, shape, has_known_shape):
        if len(indices) != len(values):
            raise invalid("Shape mismatch: indices and values have different first dimensions: "
                          "%d vs. %d" % (len(indices), len(values)))
        if has_known_shape:
            self._check_shape("gradient", tuple(int(d) for d in shape))

    def add(self, indices, values, shape, has_known_shape):
        if has_known_shape:
            self._dense_shape = np.asarray(shape, np.int64)
        for index, row in zip(np.asarray(indices).tolist(), values):
            if index in self._rows:
                self._rows[index] = self._rows[index] + row
                self._row_counts[index] += 1
            else:
                self._rows[index] = np.array(row, copy=True)
                self._row_counts[index] = 1

    def result(self):
        indices = sorted(self._rows)
        rows = [self._rows[i] / self._row_counts[i] if self.reduction_type == "MEAN"
                else self._rows[i] for i in indices]
        values = (np.stack(rows).astype(self.dtype.as_numpy_dtype) if rows else
                  np.zeros([0] + (self.shape.as_list()[1:] if self.shape.ndims else []),
                           self.dtype.as_numpy_dtype))
        shape = (self._dense_shape if self._dense_shape is not None else
                 np.asarray([-1 if d is None else d for d in self.shape.as_list()]
                            if self.shape.ndims is not None else [], np.int64))
        return np.asarray(indices, np.int64), values, shape


# =============================================================================
# Kernels
# =============================================================================

def _create(ctx, accumulator_class, dtype, shape, container, shared_name, reduction_type):
    name = shared_name or ctx.node_name
    container = container or ctx.resource_manager.default_container
    accumulator = ctx.resource_manager.lookup_or_create(
        container, name, lambda: accumulator_class(name, dtype, shape, reduction_type))
    if not isinstance(accumulator, accumulator_class):
        raise invalid("Shared accumulator '%s' is a %s, not a %s" % (
            name, type(accumulator).__name__, accumulator_class.__name__))
    return scalar(ResourceHandle(ctx.device.name, container, name))


@register_kernel("ResourceConditionalAccumulator", CPU_ONLY, is_expensive=False)
def resource_conditional_accumulator(ctx, *, dtype, shape, container, shared_name,
                                     reduction_type):
    return _create(ctx, ConditionalAccumulator, dtype, shape, container, shared_name,
                   reduction_type)


@register_kernel("SparseConditionalAccumulator", CPU_ONLY, is_expensive=False)
def sparse_conditional_accumulator(ctx, *, dtype, shape, container, shared_name,
                                   reduction_type):
    return _create(ctx, SparseConditionalAccumulator, dtype, shape, container, shared_name,
                   reduction_type)


def _accumulator(ctx, handle, accumulator_class):
    return unwrap(handle, ResourceHandle, "accumulator handle").lookup(ctx.device,
                                                                       accumulator_class)


@register_kernel("ResourceAccumulatorApplyGradient", CPU_ONLY, is_expensive=False)
def accumulator_apply_gradient(ctx, handle, local_step, gradient, *, dtype):
    del dtype
    _accumulator(ctx, handle, ConditionalAccumulator).apply(int(local_step),
                                                            np.asarray(gradient))
    return ()


@register_kernel("SparseAccumulatorApplyGradient", CPU_ONLY, is_expensive=False)
def sparse_accumulator_apply_gradient(ctx, handle, local_step, gradient_indices,
                                      gradient_values, gradient_shape, *, dtype,
                                      has_known_shape):
    del dtype
    _accumulator(ctx, handle, SparseConditionalAccumulator).apply(
        int(local_step), np.asarray(gradient_indices, np.int64), np.asarray(gradient_values),
        np.asarray(gradient_shape, np.int64), has_known_shape)
    return ()


@register_kernel("ResourceAccumulatorTakeGradient", CPU_ONLY, is_async=True,
                 is_expensive=False)
def accumulator_take_gradient(ctx, handle, num_required, *, dtype, done):
    del dtype
    _accumulator(ctx, handle, ConditionalAccumulator).take(
        int(num_required), ctx.step,
        lambda value=None, error=None: done(error=error) if error is not None else done(value))


@register_kernel("SparseAccumulatorTakeGradient", CPU_ONLY, is_async=True, is_expensive=False)
def sparse_accumulator_take_gradient(ctx, handle, num_required, *, dtype, done):
    del dtype
    _accumulator(ctx, handle, SparseConditionalAccumulator).take(
        int(num_required), ctx.step,
        lambda value=None, error=None: done(error=error) if error is not None else done(value))


def _num_accumulated(ctx, handle):
    accumulator = _accumulator(ctx, handle, ConditionalAccumulatorBase)
    with accumulator.lock:
        return np.array(accumulator.count, np.int32)


def _set_global_step(ctx, handle, new_global_step):
    _accumulator(ctx, handle, ConditionalAccumulatorBase).set_global_step(int(new_global_step))
    return ()


for _prefix in ("ResourceAccumulator", "Accumulator"):
    register_kernel(_prefix + "NumAccumulated", CPU_ONLY, is_expensive=False)(_num_accumulated)
    register_kernel(_prefix + "SetGlobalStep", CPU_ONLY, is_expensive=False)(_set_global_step)
