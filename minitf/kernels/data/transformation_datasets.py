"""Kernels of the datasets made from other datasets: map, filter, batch, shuffle, ...

Each kernel takes its input dataset (a `variant` scalar) and returns a new
dataset holding it; the new dataset's iterator holds the input's iterator
and pulls from it. Functions (`map`'s, `filter`'s, `flat_map`'s) arrive as
FunctionDef attrs with the values they captured, and run through a
`CapturedFunction` once per element (`captured_function.py`).

- `MapDataset` applies the function to each element; `ParallelMapDataset`
  runs up to `num_parallel_calls` calls at once on a thread pool, and still
  yields the results in order;
- `FilterDataset` keeps the elements whose predicate is true;
- `FlatMapDataset` and `InterleaveDataset` map each element to a dataset and
  yield its elements, one dataset after the other or `cycle_length` of
  them in turns of `block_length` elements;
- `BatchDatasetV2` stacks `batch_size` elements (the last batch may be
  smaller unless `drop_remainder`); `PaddedBatchDatasetV2` pads them to a
  common shape first; `UnbatchDataset` splits them again;
- `ShuffleDataset` keeps a buffer of `buffer_size` elements and yields a
  random one of them, refilling its place from the input. With a seed the
  order repeats from run to run; with `reshuffle_each_iteration` every new
  iterator (each epoch of a `repeat`) draws a new order from that seed;
- `RepeatDataset`, `TakeDataset`, `SkipDataset`, `ZipDataset`,
  `ConcatenateDataset` count and combine; `CacheDataset` keeps the elements
  of the first complete pass in memory and replays them; `PrefetchDataset`
  computes up to `buffer_size` elements ahead on a thread of its own.

Mirrors `tensorflow/core/kernels/data/*_dataset_op.cc` (map, parallel_map,
filter, flat_map, interleave, batch, padded_batch, shuffle, repeat, take,
skip, zip, concatenate, cache, prefetch) and `experimental/unbatch_dataset_op.cc`.
"""

import collections
import concurrent.futures
import os
import queue
import threading
import weakref

import numpy as np

from minitf.framework.dataset import DatasetBase, IteratorBase, scalar, unwrap
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.data.captured_function import CapturedFunction
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text

CPU_ONLY = ("CPU",)


def _input(dataset):
    return unwrap(dataset, DatasetBase, "input_dataset")


class _Transformed(DatasetBase):
    """A dataset made from `input`; `iterator_class(self)` makes its iterators."""

    iterator_class = None

    def __init__(self, input_dataset, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.input = input_dataset

    def make_iterator(self):
        return self.iterator_class(self)


class _InputIterator(IteratorBase):
    """An iterator that pulls from one iterator of its dataset's input."""

    def __init__(self, dataset):
        self.dataset = dataset
        self.input = dataset.input.make_iterator()

    def close(self):
        self.input.close()


def _register(op_type, dataset_class):
    """The kernel of a transformation whose scalar inputs are plain ints or bools."""

    @register_kernel(op_type, CPU_ONLY)
    def kernel(ctx, input_dataset, *args, output_types, output_shapes):
        values = [a.item() if isinstance(a, np.ndarray) else a for a in args]
        return scalar(dataset_class(_input(input_dataset), *values, output_types,
                                    output_shapes))
    kernel.__name__ = op_type
    return kernel


# =============================================================================
# map, filter, flat_map, interleave
# =============================================================================

class _MapIterator(_InputIterator):
    def get_next(self):
        element = self.input.get_next()
        return None if element is None else self.dataset.function.run(element)


class MapDataset(_Transformed):
    iterator_class = _MapIterator

    def __init__(self, input_dataset, function, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        self.function = function


_POOL = None
_POOL_LOCK = threading.Lock()


def _pool():
    """The threads that run parallel map calls, shared by every iterator of the process."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                max_workers=os.cpu_count() or 2, thread_name_prefix="minitf_data")
        return _POOL


class _ParallelMapIterator(_InputIterator):
    """Keeps `num_parallel_calls` calls in flight; yields their results in input order."""

    def __init__(self, dataset):
        super().__init__(dataset)
        self._in_flight = collections.deque()
        self._input_ended = False

    def get_next(self):
        while not self._input_ended and len(self._in_flight) < self.dataset.num_parallel_calls:
            element = self.input.get_next()
            if element is None:
                self._input_ended = True
                break
            self._in_flight.append(_pool().submit(self.dataset.function.run, element))
        if not self._in_flight:
            return None
        return self._in_flight.popleft().result()

    def close(self):
        for future in self._in_flight:
            future.cancel()
        super().close()


class ParallelMapDataset(MapDataset):
    iterator_class = _ParallelMapIterator

    def __init__(self, input_dataset, function, num_parallel_calls, output_types,
                 output_shapes):
        super().__init__(input_dataset, function, output_types, output_shapes)
        if num_parallel_calls == -1:  # tf.data.experimental.AUTOTUNE
            num_parallel_calls = os.cpu_count() or 2
        if num_parallel_calls <= 0:
            raise invalid("num_parallel_calls must be greater than zero.")
        self.num_parallel_calls = num_parallel_calls


class _FilterIterator(_InputIterator):
    def get_next(self):
        while True:
            element = self.input.get_next()
            if element is None or self.dataset.predicate.run_predicate(element):
                return element


class FilterDataset(_Transformed):
    iterator_class = _FilterIterator

    def __init__(self, input_dataset, predicate, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        self.predicate = predicate


def _dataset_of(function, element):
    """The dataset `function` returns for `element` (flat_map's and interleave's functions)."""
    return unwrap(function.run(element)[0], DatasetBase, "The function's result")


class _FlatMapIterator(_InputIterator):
    def __init__(self, dataset):
        super().__init__(dataset)
        self._current = None

    def get_next(self):
        while True:
            if self._current is None:
                element = self.input.get_next()
                if element is None:
                    return None
                self._current = _dataset_of(self.dataset.function, element).make_iterator()
            element = self._current.get_next()
            if element is not None:
                return element
            self._current = None


class FlatMapDataset(MapDataset):
    iterator_class = _FlatMapIterator


class _InterleaveIterator(_InputIterator):
    """`cycle_length` slots, each an open dataset; `block_length` elements from each in turn.

    A slot that is empty when its turn comes is filled with the dataset of
    the next input element; a dataset that ends empties its slot and ends
    the turn.
    """

    def __init__(self, dataset):
        super().__init__(dataset)
        self._slots = [None] * dataset.cycle_length
        self._open = 0
        self._index = 0        # the slot whose turn it is
        self._taken = 0        # elements taken from it in this turn
        self._input_ended = False

    def _next_turn(self):
        self._index, self._taken = (self._index + 1) % len(self._slots), 0

    def get_next(self):
        while not self._input_ended or self._open:
            slot = self._slots[self._index]
            if slot is not None:
                element = slot.get_next()
                if element is not None:
                    self._taken += 1
                    if self._taken == self.dataset.block_length:
                        self._next_turn()
                    return element
                self._slots[self._index] = None
                self._open -= 1
                self._next_turn()
            elif not self._input_ended:
                element = self.input.get_next()
                if element is None:
                    self._input_ended = True
                else:
                    self._slots[self._index] = _dataset_of(self.dataset.function,
                                                           element).make_iterator()
                    self._open += 1
            else:
                self._next_turn()
        return None


class InterleaveDataset(MapDataset):
    iterator_class = _InterleaveIterator

    def __init__(self, input_dataset, function, cycle_length, block_length, output_types,
                 output_shapes):
        super().__init__(input_dataset, function, output_types, output_shapes)
        if cycle_length <= 0 or block_length <= 0:
            raise invalid("cycle_length and block_length must be greater than zero.")
        self.cycle_length, self.block_length = cycle_length, block_length


def _function(ctx, f, captured):
    return CapturedFunction(f, captured, ctx.device)


@register_kernel("MapDataset", CPU_ONLY)
def map_dataset(ctx, input_dataset, *captured, f, output_types, output_shapes):
    return scalar(MapDataset(_input(input_dataset), _function(ctx, f, captured), output_types,
                             output_shapes))


@register_kernel("ParallelMapDataset", CPU_ONLY)
def parallel_map_dataset(ctx, input_dataset, *args, f, output_types, output_shapes):
    *captured, num_parallel_calls = args
    return scalar(ParallelMapDataset(_input(input_dataset), _function(ctx, f, captured),
                                     int(num_parallel_calls), output_types, output_shapes))


@register_kernel("FilterDataset", CPU_ONLY)
def filter_dataset(ctx, input_dataset, *captured, predicate, output_types, output_shapes):
    return scalar(FilterDataset(_input(input_dataset), _function(ctx, predicate, captured),
                                output_types, output_shapes))


@register_kernel("FlatMapDataset", CPU_ONLY)
def flat_map_dataset(ctx, input_dataset, *captured, f, output_types, output_shapes):
    return scalar(FlatMapDataset(_input(input_dataset), _function(ctx, f, captured),
                                 output_types, output_shapes))


@register_kernel("InterleaveDataset", CPU_ONLY)
def interleave_dataset(ctx, input_dataset, *args, f, output_types, output_shapes):
    *captured, cycle_length, block_length = args
    return scalar(InterleaveDataset(_input(input_dataset), _function(ctx, f, captured),
                                    int(cycle_length), int(block_length), output_types,
                                    output_shapes))


# =============================================================================
# batch, padded_batch, unbatch
# =============================================================================

def _take_batch(iterator, batch_size, drop_remainder):
    elements = []
    while len(elements) < batch_size:
        element = iterator.get_next()
        if element is None:
            break
        elements.append(element)
    if not elements or (drop_remainder and len(elements) < batch_size):
        return None
    return elements


def _stack(values, component):
    first = np.shape(values[0])
    if len({np.shape(v) for v in values}) > 1:
        i = next(i for i, v in enumerate(values) if np.shape(v) != first)
        raise invalid("Cannot batch tensors with different shapes in component %d. First "
                      "element had shape %s and element %d had shape %s." % (
                          component, shape_text(first), i, shape_text(np.shape(values[i]))))
    if not first:  # scalars: one array of their values
        return np.array([v[()] if isinstance(v, np.ndarray) else v for v in values],
                        dtype=np.asarray(values[0]).dtype)
    return np.stack(values)


class _BatchIterator(_InputIterator):
    def get_next(self):
        values = self.input.get_next_values(self.dataset.batch_size)
        if values is not None:
            return self._batch_of_values(values)
        elements = _take_batch(self.input, self.dataset.batch_size, self.dataset.drop_remainder)
        if elements is None:
            return None
        return [_stack([e[i] for e in elements], i) for i in range(len(elements[0]))]

    def _batch_of_values(self, values):
        """A batch of plain scalar values (`IteratorBase.get_next_values`) as one array."""
        if not values or (self.dataset.drop_remainder and len(values) < self.dataset.batch_size):
            return None
        batch = np.empty(len(values), dtype=self.dataset.output_dtypes[0].as_numpy_dtype)
        batch[:] = values
        return [batch]


class BatchDataset(_Transformed):
    iterator_class = _BatchIterator

    def __init__(self, input_dataset, batch_size, drop_remainder, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        if batch_size <= 0:
            raise invalid("Batch size must be greater than zero.")
        self.batch_size, self.drop_remainder = batch_size, bool(drop_remainder)


_register("BatchDatasetV2", BatchDataset)


def _pad(values, padded_shape, padding_value, component):
    """One component's values padded to one shape (-1: the longest in the batch), stacked."""
    ranks = {np.ndim(v) for v in values}
    if len(ranks) != 1 or ranks.pop() != len(padded_shape):
        raise invalid("All elements in a batch must have the same rank as the padded shape for "
                      "component%d: expected rank %d but got element with rank %d" % (
                          component, len(padded_shape), np.ndim(values[0])))
    longest = np.max([np.shape(v) for v in values], axis=0).astype(int) if padded_shape else []
    target = [int(m) if p == -1 else int(p) for p, m in zip(padded_shape, longest)]
    for value in values:
        if any(d > t for d, t in zip(np.shape(value), target)):
            raise invalid("Attempted to pad to a smaller size than the input element.")
    out = np.empty([len(values)] + target, dtype=np.asarray(values[0]).dtype)
    out[...] = padding_value
    for i, value in enumerate(values):
        out[(i,) + tuple(slice(0, d) for d in np.shape(value))] = value
    return out


class _PaddedBatchIterator(_InputIterator):
    def get_next(self):
        dataset = self.dataset
        elements = _take_batch(self.input, dataset.batch_size, dataset.drop_remainder)
        if elements is None:
            return None
        return [_pad([e[i] for e in elements], dataset.padded_shapes[i],
                     dataset.padding_values[i], i) for i in range(len(elements[0]))]


class PaddedBatchDataset(BatchDataset):
    iterator_class = _PaddedBatchIterator

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder,
                 output_types, output_shapes):
        super().__init__(input_dataset, batch_size, drop_remainder, output_types, output_shapes)
        self.padded_shapes = [list(np.asarray(s).reshape(-1)) for s in padded_shapes]
        self.padding_values = [np.asarray(v).item() if np.asarray(v).dtype != object
                               else np.asarray(v)[()] for v in padding_values]


@register_kernel("PaddedBatchDatasetV2", CPU_ONLY)
def padded_batch_dataset(ctx, input_dataset, batch_size, *args, Toutput_types, output_shapes,
                         N):
    padded_shapes, padding_values, drop_remainder = args[:N], args[N:-1], args[-1]
    return scalar(PaddedBatchDataset(_input(input_dataset), int(batch_size), padded_shapes,
                                     padding_values, bool(drop_remainder), Toutput_types,
                                     output_shapes))


class _UnbatchIterator(_InputIterator):
    def __init__(self, dataset):
        super().__init__(dataset)
        self._batch, self._row = None, 0

    def get_next(self):
        while self._batch is None or self._row >= len(self._batch[0]):
            self._batch, self._row = self.input.get_next(), 0
            if self._batch is None:
                return None
            sizes = {len(c) for c in self._batch}
            if len(sizes) != 1:
                raise invalid("Input element must have the same batch size in each component.")
        self._row += 1
        return [c[self._row - 1, ...] for c in self._batch]


class UnbatchDataset(_Transformed):
    iterator_class = _UnbatchIterator


_register("UnbatchDataset", UnbatchDataset)


# =============================================================================
# shuffle
# =============================================================================

class _ShuffleIterator(_InputIterator):
    def __init__(self, dataset, rng):
        super().__init__(dataset)
        self._rng = rng
        self._buffer = []
        self._input_ended = False

    def get_next(self):
        while not self._input_ended and len(self._buffer) < self.dataset.buffer_size:
            element = self.input.get_next()
            if element is None:
                self._input_ended = True
            else:
                self._buffer.append(element)
        if not self._buffer:
            return None
        index = int(self._rng.integers(len(self._buffer)))
        element = self._buffer[index]
        self._buffer[index] = self._buffer[-1]  # the last one takes its place
        self._buffer.pop()
        return element


class ShuffleDataset(_Transformed):
    """Random order from a seed: each iterator's generator comes from the dataset's seeds."""

    def __init__(self, input_dataset, buffer_size, seed, seed2, reshuffle_each_iteration,
                 output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        if buffer_size <= 0:
            raise invalid("buffer_size must be greater than zero.")
        self.buffer_size = buffer_size
        if seed == 0 and seed2 == 0:  # no seed given: a different order every run
            seed, seed2 = (int(s) for s in np.random.SeedSequence().generate_state(2))
        self.seeds = [seed, seed2]
        self.reshuffle_each_iteration = reshuffle_each_iteration
        self._seed_generator = np.random.default_rng(self.seeds)
        self._lock = threading.Lock()

    def make_iterator(self):
        if self.reshuffle_each_iteration:
            with self._lock:
                rng = np.random.default_rng(self._seed_generator.integers(1 << 63, size=2))
        else:
            rng = np.random.default_rng(self.seeds)
        return _ShuffleIterator(self, rng)


@register_kernel("ShuffleDataset", CPU_ONLY)
def shuffle_dataset(ctx, input_dataset, buffer_size, seed, seed2, *, reshuffle_each_iteration,
                    output_types, output_shapes):
    return scalar(ShuffleDataset(_input(input_dataset), int(buffer_size), int(seed), int(seed2),
                                 reshuffle_each_iteration, output_types, output_shapes))


# =============================================================================
# repeat, take, skip, zip, concatenate
# =============================================================================

class _RepeatIterator(IteratorBase):
    def __init__(self, dataset):
        self._dataset = dataset
        self._epochs = 0
        self._current = dataset.input.make_iterator() if dataset.count != 0 else None
        self._seen_in_epoch = 0

    def get_next(self):
        while self._current is not None:
            element = self._current.get_next()
            if element is not None:
                self._seen_in_epoch += 1
                return element
            self._epochs += 1
            empty_epoch = self._seen_in_epoch == 0
            self._current.close()
            self._current, self._seen_in_epoch = None, 0
            count = self._dataset.count
            if not empty_epoch and (count < 0 or self._epochs < count):
                self._current = self._dataset.input.make_iterator()
        return None

    def close(self):
        if self._current is not None:
            self._current.close()


class RepeatDataset(_Transformed):
    iterator_class = _RepeatIterator

    def __init__(self, input_dataset, count, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        self.count = count


class _TakeIterator(_InputIterator):
    def __init__(self, dataset):
        super().__init__(dataset)
        self._left = dataset.count

    def get_next(self):
        if self._left == 0:
            return None
        self._left -= 1
        return self.input.get_next()


class TakeDataset(RepeatDataset):
    iterator_class = _TakeIterator


class _SkipIterator(_InputIterator):
    def __init__(self, dataset):
        super().__init__(dataset)
        self._to_skip = dataset.count

    def get_next(self):
        while self._to_skip != 0:
            self._to_skip -= 1
            if self.input.get_next() is None:
                self._to_skip = 0
                return None
        return self.input.get_next()


class SkipDataset(RepeatDataset):
    iterator_class = _SkipIterator


_register("RepeatDataset", RepeatDataset)
_register("TakeDataset", TakeDataset)
_register("SkipDataset", SkipDataset)


class _ZipIterator(IteratorBase):
    def __init__(self, dataset):
        self._inputs = [d.make_iterator() for d in dataset.inputs]

    def get_next(self):
        element = []
        for iterator in self._inputs:
            part = iterator.get_next()
            if part is None:
                return None
            element.extend(part)
        return element

    def close(self):
        for iterator in self._inputs:
            iterator.close()


class ZipDataset(DatasetBase):
    def __init__(self, inputs, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.inputs = inputs

    def make_iterator(self):
        return _ZipIterator(self)


@register_kernel("ZipDataset", CPU_ONLY)
def zip_dataset(ctx, *input_datasets, N, output_types, output_shapes):
    return scalar(ZipDataset([_input(d) for d in input_datasets], output_types, output_shapes))


class _ConcatenateIterator(IteratorBase):
    def __init__(self, dataset):
        self._next_inputs = [dataset.input, dataset.another]
        self._current = self._next_inputs.pop(0).make_iterator()

    def get_next(self):
        while True:
            element = self._current.get_next()
            if element is not None or not self._next_inputs:
                return element
            self._current.close()
            self._current = self._next_inputs.pop(0).make_iterator()

    def close(self):
        self._current.close()


class ConcatenateDataset(_Transformed):
    iterator_class = _ConcatenateIterator

    def __init__(self, input_dataset, another, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        self.another = another


@register_kernel("ConcatenateDataset", CPU_ONLY)
def concatenate_dataset(ctx, input_dataset, another_dataset, *, output_types, output_shapes):
    return scalar(ConcatenateDataset(_input(input_dataset), _input(another_dataset),
                                     output_types, output_shapes))


# =============================================================================
# cache, prefetch
# =============================================================================

class _CacheIterator(_InputIterator):
    """Replays the cache once a pass completed; until then reads the input, recording it."""

    def __init__(self, dataset):
        self.dataset = dataset
        self._replay = dataset.cached
        self._position = 0
        self._recording = [] if self._replay is None else None
        self.input = dataset.input.make_iterator() if self._replay is None else None

    def get_next(self):
        if self._replay is not None:
            if self._position >= len(self._replay):
                return None
            self._position += 1
            return self._replay[self._position - 1]
        element = self.input.get_next()
        if element is None:
            self.dataset.cached = self._recording
        else:
            self._recording.append(element)
        return element

    def close(self):
        if self.input is not None:
            self.input.close()


class CacheDataset(_Transformed):
    iterator_class = _CacheIterator

    def __init__(self, input_dataset, filename, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        if filename:
            raise errors.UnimplementedError(None, None, "minitf caches datasets in memory only "
                                            "(filename=''), got filename %r" % filename)
        self.cached = None


@register_kernel("CacheDataset", CPU_ONLY)
def cache_dataset(ctx, input_dataset, filename, *, output_types, output_shapes):
    name = filename.item() if isinstance(filename, np.ndarray) else filename
    name = name.decode("utf-8") if isinstance(name, bytes) else str(name)
    return scalar(CacheDataset(_input(input_dataset), name, output_types, output_shapes))


_END = object()


class _PrefetchIterator(_InputIterator):
    """A thread of its own fills a buffer of up to `buffer_size` elements (or the error it met).

    The thread stops when the iterator is closed (re-initialized) or
    forgotten (its session gone): it holds the iterator only weakly, and
    looks between elements whether it is still there.
    """

    def __init__(self, dataset):
        super().__init__(dataset)
        self._buffer = queue.Queue(maxsize=max(dataset.buffer_size, 1))
        self._stopped = threading.Event()
        self._thread = None
        self._done = False

    @staticmethod
    def _produce(iterator_ref, buffer, stopped):
        while not stopped.is_set():
            iterator = iterator_ref()
            if iterator is None:
                return
            try:
                element = iterator.input.get_next()
            except Exception as e:  # noqa: BLE001 - handed to the consumer, in order
                element = e
            del iterator  # while waiting for room, the iterator may be forgotten
            item = _END if element is None else element
            while not stopped.is_set() and iterator_ref() is not None:
                try:
                    buffer.put(item, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if item is _END or isinstance(item, Exception):
                return

    def get_next(self):
        if self._done:
            return None
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._produce, args=(weakref.ref(self), self._buffer, self._stopped),
                daemon=True, name="minitf_prefetch")
            self._thread.start()
        item = self._buffer.get()
        if item is _END:
            self._done = True
            return None
        if isinstance(item, Exception):
            self._done = True
            raise item
        return item

    def close(self):
        self._stopped.set()
        super().close()


class PrefetchDataset(_Transformed):
    iterator_class = _PrefetchIterator

    def __init__(self, input_dataset, buffer_size, output_types, output_shapes):
        super().__init__(input_dataset, output_types, output_shapes)
        if buffer_size == -1:  # tf.data.experimental.AUTOTUNE
            buffer_size = 16
        if buffer_size < 0:
            raise invalid("buffer_size must be >= 0 or AUTOTUNE (-1)")
        self.buffer_size = buffer_size


_register("PrefetchDataset", PrefetchDataset)
