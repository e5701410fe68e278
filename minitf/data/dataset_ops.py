"""`tf.data.Dataset`: a pipeline of elements, built as ops in the graph.

A Dataset object is a thin Python handle on one tensor: the `variant`
output of a dataset op (`TensorSliceDataset`, `MapDataset`, ...), and the
structure of its elements (`minitf/data/structure.py`). Every
transformation adds one op whose input is the previous dataset's tensor,
so a pipeline is a chain of ops in the graph, like any other computation,
and it runs where the session runs it. Running those ops makes *datasets*
(descriptions); an iterator (`minitf/data/iterator_ops.py`) makes elements.

The functions given to `map`, `filter`, `flat_map` and `interleave` are
traced once, here, into FunctionDefs that the dataset op keeps as attrs
(`structure.trace`); the tensors they capture become the op's inputs.

Mirrors `tensorflow/python/data/ops/dataset_ops.py` (TF 1.15: `DatasetV1`,
with `make_one_shot_iterator` and `make_initializable_iterator`).
"""

import itertools

import numpy as np

from minitf.data import iterator_ops
from minitf.data import options as options_lib
from minitf.data import structure
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import random_seed
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import script_ops

__all__ = ["Dataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]

AUTOTUNE = -1  # tf.data.experimental.AUTOTUNE: let the runtime pick
INFINITE_CARDINALITY = -1  # what a dataset that never ends counts as (`repeat()`)
UNKNOWN_CARDINALITY = -2  # what a dataset whose length depends on its data counts as (`filter`)


def _int64(value, name):
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


class Dataset(structure.HasElementSpec):
    """A sequence of elements, each a structure of tensors; see the module docstring."""

    def __init__(self, variant_tensor, element_spec, options=None):
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec
        self._options = options

    def _derived(self, op_type, element_spec=None, **inputs):
        """A dataset made by one op from this one: `op_type(input_dataset=self, **inputs)`."""
        spec = self._element_spec if element_spec is None else element_spec
        flat = {"output_types": structure.flat_types(spec),
                "output_shapes": structure.flat_shapes(spec)}
        variant = apply_op(op_type, input_dataset=self._variant_tensor, **inputs, **flat)
        return Dataset(variant, spec, self._options)

    def __repr__(self):
        shapes = structure.map_structure(str, self.output_shapes)
        return "<Dataset shapes: %s, types: %s>" % (shapes, self.output_types)

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is "
                           "enabled.")

    # --- sources ----------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        """One element: `tensors` (a structure of tensors)."""
        with ops.name_scope("tensors"):
            element = structure.normalize_element(tensors)
        spec = structure.spec_of(element)
        variant = apply_op("TensorDataset", components=structure.to_flat_tensors(element),
                           output_shapes=structure.flat_shapes(spec))
        return Dataset(variant, spec)

    @staticmethod
    def from_tensor_slices(tensors):
        """One element per row of `tensors` (their first dimensions must agree)."""
        with ops.name_scope("tensors"):
            element = structure.normalize_element(tensors)
        slices = structure.map_structure(_slice_spec, structure.spec_of(element))
        flat = structure.flatten(element)
        if any(isinstance(t, sparse_tensor.SparseTensor) for t in flat):
            raise NotImplementedError("minitf's from_tensor_slices slices dense tensors only")
        _check_same_first_dimension(flat)
        variant = apply_op("TensorSliceDataset", components=flat,
                           output_shapes=structure.flat_shapes(slices))
        return Dataset(variant, slices)

    @staticmethod
    def range(*args):
        """`range(stop)`, `range(start, stop)` or `range(start, stop, step)` as int64 scalars."""
        start, step = 0, 1
        if len(args) == 1:
            (stop,) = args
        elif len(args) == 2:
            start, stop = args
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError("Invalid arguments to RangeDataset: %s" % (args,))
        spec = structure.ComponentSpec(dtypes.int64, [])
        variant = apply_op("RangeDataset", start=_int64(start, "start"),
                           stop=_int64(stop, "stop"), step=_int64(step, "step"),
                           output_types=[dtypes.int64], output_shapes=[spec.shape])
        return Dataset(variant, spec)

    @staticmethod
    def zip(datasets):
        """Elements combined from a structure of datasets, until the shortest ends."""
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure "
                                "of `Dataset` objects.")
        spec = structure.pack_sequence_as(datasets, [d._element_spec for d in flat])
        variant = apply_op("ZipDataset", input_datasets=[d._variant_tensor for d in flat],
                           output_types=structure.flat_types(spec),
                           output_shapes=structure.flat_shapes(spec))
        return Dataset(variant, spec)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """Elements from a Python generator, called through `tf.py_func` on every pass.

        `generator` is a callable returning an iterator (called with `args`,
        evaluated, if given); each of its values must match `output_types`.
        """
        return _from_generator(generator, output_types, output_shapes, args)

    # --- transformations --------------------------------------------------------------------
    def concatenate(self, dataset):
        """This dataset's elements, then `dataset`'s (same types and structure)."""
        structure.assert_same_structure(self._element_spec, dataset._element_spec)
        mine, theirs = structure.flatten(self._element_spec), structure.flatten(
            dataset._element_spec)
        if [c.dtype for c in mine] != [c.dtype for c in theirs]:
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (self.output_types, dataset.output_types))
        spec = structure.pack_sequence_as(self._element_spec, [
            structure.ComponentSpec(a.dtype, a.shape.most_specific_compatible_shape(b.shape),
                                    a.is_sparse) for a, b in zip(mine, theirs)])
        return self._derived("ConcatenateDataset", spec, another_dataset=dataset._variant_tensor)

    def map(self, map_func, num_parallel_calls=None):
        """`map_func` applied to every element (tuples unpacked into arguments)."""
        function = structure.trace(map_func, self._element_spec, "Dataset_map")
        if num_parallel_calls is None:
            return self._derived("MapDataset", function.output_spec, f=function.function_def,
                                 other_arguments=function.captured_inputs)
        return self._derived("ParallelMapDataset", function.output_spec,
                             f=function.function_def, other_arguments=function.captured_inputs,
                             num_parallel_calls=convert_to_tensor(
                                 num_parallel_calls, dtype=dtypes.int32,
                                 name="num_parallel_calls"))

    def filter(self, predicate):
        """The elements for which `predicate` returns a scalar `True`."""
        function = structure.trace(predicate, self._element_spec, "Dataset_filter")
        out = structure.flatten(function.output_spec)
        if len(out) != 1 or out[0].dtype != dtypes.bool or out[0].shape.ndims not in (0, None):
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        return self._derived("FilterDataset", predicate=function.function_def,
                             other_arguments=function.captured_inputs)

    def _dataset_function(self, map_func, transformation):
        """Traces a function that returns a Dataset; its result is that dataset's tensor."""
        returned = []

        def returns_variant(*args):
            dataset = map_func(*args)
            if not isinstance(dataset, Dataset):
                raise TypeError("`map_func` must return a `Dataset` object.")
            returned.append(dataset)
            return dataset._variant_tensor

        function = structure.trace(returns_variant, self._element_spec, transformation)
        return function, returned[0]._element_spec

    def flat_map(self, map_func):
        """The elements of the dataset `map_func` returns for each element, one after another."""
        function, spec = self._dataset_function(map_func, "Dataset_flat_map")
        return self._derived("FlatMapDataset", spec, f=function.function_def,
                             other_arguments=function.captured_inputs)

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """Like flat_map, but `cycle_length` datasets at once, `block_length` elements each in turn.

        `num_parallel_calls` is accepted; minitf reads the datasets on one
        thread, in the same (deterministic) order.
        """
        function, spec = self._dataset_function(map_func, "Dataset_interleave")
        if cycle_length == AUTOTUNE:
            cycle_length = 2
        return self._derived("InterleaveDataset", spec, f=function.function_def,
                             other_arguments=function.captured_inputs,
                             cycle_length=_int64(cycle_length, "cycle_length"),
                             block_length=_int64(block_length, "block_length"))

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked into batches of `batch_size` (the last may be smaller)."""
        known = _batch_dimension(batch_size, drop_remainder)
        spec = structure.map_structure(lambda c: c.batched(known), self._element_spec)
        return self._derived("BatchDatasetV2", spec, batch_size=_int64(batch_size, "batch_size"),
                             drop_remainder=convert_to_tensor(drop_remainder, dtypes.bool,
                                                              name="drop_remainder"))

    def padded_batch(self, batch_size, padded_shapes, padding_values=None,
                     drop_remainder=False):
        """Batches of elements padded to `padded_shapes` (-1 or None: the longest in the batch)."""
        structure.assert_same_structure(self._element_spec, padded_shapes)
        components = structure.flatten(self._element_spec)
        shapes = [tensor_shape.as_shape(s) for s in structure.flatten(padded_shapes)]
        values = ([None] * len(components) if padding_values is None
                  else structure.flatten(padding_values))
        pad_tensors, shape_tensors, padded_specs = [], [], []
        known = _batch_dimension(batch_size, drop_remainder)
        for i, (component, shape, value) in enumerate(zip(components, shapes, values)):
            if component.is_sparse:
                raise TypeError("padded_batch does not support SparseTensor components")
            if not shape.is_compatible_with(component.shape):
                raise ValueError("The padded shape %s is not compatible with the corresponding "
                                 "input component shape %s." % (shape, component.shape))
            shape_tensors.append(constant([-1 if d is None else d for d in shape.as_list()],
                                          dtypes.int64, name="padded_shape_%d" % i))
            default = b"" if component.dtype == dtypes.string else 0
            pad_tensors.append(convert_to_tensor(default if value is None else value,
                                                 dtype=component.dtype, name="padding_value"))
            padded_specs.append(structure.ComponentSpec(component.dtype, shape).batched(known))
        spec = structure.pack_sequence_as(self._element_spec, padded_specs)
        variant = apply_op("PaddedBatchDatasetV2", input_dataset=self._variant_tensor,
                           batch_size=_int64(batch_size, "batch_size"),
                           padded_shapes=shape_tensors, padding_values=pad_tensors,
                           drop_remainder=convert_to_tensor(drop_remainder, dtypes.bool,
                                                            name="drop_remainder"),
                           output_shapes=structure.flat_shapes(spec))
        return Dataset(variant, spec)

    def unbatch(self):
        """Each batch split into its rows: the inverse of `batch`."""
        spec = structure.map_structure(lambda c: c.unbatched(), self._element_spec)
        return self._derived("UnbatchDataset", spec)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """The elements in a random order, drawn from a buffer of `buffer_size` of them.

        With a seed (or a graph seed, `tf.set_random_seed`) the order repeats
        from run to run; `reshuffle_each_iteration` (default True) draws a
        new order for every pass.
        """
        seed, seed2 = random_seed.get_seed(seed)
        return self._derived(
            "ShuffleDataset", buffer_size=_int64(buffer_size, "buffer_size"),
            seed=_int64(seed or 0, "seed"), seed2=_int64(seed2 or 0, "seed2"),
            reshuffle_each_iteration=(True if reshuffle_each_iteration is None
                                      else reshuffle_each_iteration))

    def repeat(self, count=None):
        """The elements `count` times over (forever when None or -1)."""
        return self._derived("RepeatDataset", count=_int64(-1 if count is None else count,
                                                           "count"))

    def take(self, count):
        """The first `count` elements (all when -1)."""
        return self._derived("TakeDataset", count=_int64(count, "count"))

    def skip(self, count):
        """The elements after the first `count` (none when -1)."""
        return self._derived("SkipDataset", count=_int64(count, "count"))

    def prefetch(self, buffer_size):
        """The same elements, computed up to `buffer_size` ahead on a thread of their own."""
        return self._derived("PrefetchDataset", buffer_size=_int64(buffer_size, "buffer_size"))

    def cache(self, filename=""):
        """The same elements; the first complete pass is kept in memory and replayed after."""
        return self._derived("CacheDataset", filename=convert_to_tensor(
            filename, dtypes.string, name="filename"))

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError("`transformation_func` must return a Dataset. Got %s." % dataset)
        return dataset

    # --- iterators (TF 1.x) -------------------------------------------------------------------
    # --- options --------------------------------------------------------------------------
    def options(self):
        """The `tf.data.Options` set on this dataset or the one it was made from."""
        return self._options if self._options is not None else options_lib.Options()

    def with_options(self, options):
        """This dataset, with `options` merged over those it has (a new Dataset object)."""
        return Dataset(self._variant_tensor, self._element_spec, self.options().merge(options))

    def make_one_shot_iterator(self):
        """An iterator that needs no initializer; see `tf.data.make_one_shot_iterator`."""
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator started (and restarted) by running its `initializer`."""
        return iterator_ops.make_initializable_iterator(self, shared_name)


def _slice_spec(component):
    if component.shape.ndims == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    return structure.ComponentSpec(component.dtype, component.shape[1:]
                                   if component.shape.ndims is not None
                                   else tensor_shape.unknown_shape())


def _check_same_first_dimension(tensors):
    first = None
    for tensor in tensors:
        dim = tensor.shape[0] if tensor.shape.ndims else None
        dim = tensor_shape.dimension_value(dim) if dim is not None else None
        if dim is None:
            continue
        if first is not None and dim != first:
            raise ValueError("Dimensions %d and %d are not compatible" % (first, dim))
        first = dim


def _batch_dimension(batch_size, drop_remainder):
    """The static batch dimension: known only when every batch is full."""
    if drop_remainder is not True:
        return None
    value = tensor_util.constant_value(batch_size) if isinstance(batch_size, ops.Tensor) \
        else batch_size
    return None if value is None else int(value)


# =============================================================================
# from_generator: a Python generator behind three traced functions
# =============================================================================

class _GeneratorState:
    """The generator's live iterators, by id: one per pass over the dataset."""

    def __init__(self, generator):
        self._generator = generator
        self._args = {}
        self._iterators = {}
        self._ids = itertools.count()

    def start(self, *args):
        iterator_id = next(self._ids)
        self._args[iterator_id] = args
        return np.int64(iterator_id)

    def next_element(self, iterator_id):
        iterator_id = int(iterator_id)
        if iterator_id not in self._iterators:
            self._iterators[iterator_id] = iter(self._generator(*self._args.pop(iterator_id)))
        return next(self._iterators[iterator_id])  # StopIteration ends the pass

    def finish(self, iterator_id):
        self._iterators.pop(int(iterator_id), None)
        return np.int64(0)


def _from_generator(generator, output_types, output_shapes, args):
    if not callable(generator):
        raise TypeError("`generator` must be callable.")
    spec = structure.spec_from_types(output_types, output_shapes)
    flat_types = [c.dtype for c in structure.flatten(spec)]
    flat_shapes = [c.shape for c in structure.flatten(spec)]
    state = _GeneratorState(generator)
    arg_tensors = [] if args is None else [convert_to_tensor(a, name="generator_arg")
                                           for a in args]

    def element_of(iterator_id):
        def next_values(iterator_id):
            values = structure.flatten(_as_tuple_structure(state.next_element(iterator_id),
                                                           output_types))
            checked = []
            for value, dtype, shape in zip(values, flat_types, flat_shapes):
                array = np.asarray(value, dtype=dtype.as_numpy_dtype)
                if not shape.is_compatible_with(array.shape):
                    raise ValueError("`generator` yielded an element of shape %s where an "
                                     "element of shape %s was expected." % (
                                         list(array.shape), shape))
                checked.append(array)
            return checked

        flat = script_ops.py_func(next_values, [iterator_id], flat_types, stateful=True)
        for tensor, shape in zip(flat, flat_shapes):
            tensor.set_shape(shape)
        return structure.pack_sequence_as(spec, flat)

    def generator_dataset(_):
        init = structure.trace(lambda: script_ops.py_func(state.start, arg_tensors,
                                                          dtypes.int64, stateful=True),
                               None, "Dataset_from_generator_init")
        next_fn = structure.trace(element_of, structure.ComponentSpec(dtypes.int64, []),
                                  "Dataset_from_generator_next")
        finalize = structure.trace(lambda i: script_ops.py_func(state.finish, [i], dtypes.int64,
                                                                stateful=True),
                                   structure.ComponentSpec(dtypes.int64, []),
                                   "Dataset_from_generator_finalize")
        variant = apply_op(
            "GeneratorDataset", init_func_other_args=init.captured_inputs,
            next_func_other_args=next_fn.captured_inputs,
            finalize_func_other_args=finalize.captured_inputs, init_func=init.function_def,
            next_func=next_fn.function_def, finalize_func=finalize.function_def,
            output_types=structure.flat_types(spec), output_shapes=structure.flat_shapes(spec))
        return Dataset(variant, spec)

    return Dataset.from_tensors(np.int64(0)).flat_map(generator_dataset)


def _as_tuple_structure(value, output_types):
    """A generator's value in the structure of `output_types` (a list stands for a tuple)."""
    if isinstance(output_types, tuple) and isinstance(value, list):
        return tuple(value)
    return value
