"""`tf.data.Iterator`: reads a dataset's elements into the graph, one `sess.run` at a time.

An Iterator is a handle on a *resource*, an iterator that lives in its
device's resource manager and outlives steps (`minitf/framework/dataset.py`):

- `make_initializable_iterator(dataset)` adds an `IteratorV2` op (the
  resource) and a `MakeIterator` op, its `initializer`: running it points
  the iterator at the dataset, from the start; fed placeholders in the
  dataset's ops take their values then;
- `make_one_shot_iterator(dataset)` needs no initializer: the ops that
  build the dataset are copied into a FunctionDef, `dataset_factory`, that
  the `OneShotIterator` kernel runs the first time (so the dataset may not
  depend on placeholders or variables);
- `Iterator.from_structure(types, shapes)` makes an iterator of no dataset
  yet; `make_initializer(dataset)` gives it one, and the same iterator can
  read a training set and then a validation set;
- `Iterator.from_string_handle(handle, types, shapes)` reads from whichever
  iterator the fed `string_handle()` names.

`get_next()` adds an `IteratorGetNext` op: each run of it advances the
iterator; at the end it raises OutOfRangeError, and again on every later
run, until the iterator is initialized again.

Mirrors `tensorflow/python/data/ops/iterator_ops.py` and the iterator
parts of `dataset_ops.py` (TF 1.15).
"""

from minitf.data import structure
from minitf.graph import dtypes
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor

__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes", "get_output_classes"]


class Iterator(structure.HasElementSpec):
    """The elements of a dataset, one per run of `get_next()`; see the module docstring."""

    def __init__(self, iterator_resource, initializer, element_spec):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._element_spec = element_spec

    # --- making one ------------------------------------------------------------------------
    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An iterator of this element structure, not yet bound to a dataset."""
        spec = structure.spec_from_types(output_types, output_shapes, output_classes)
        resource = apply_op("IteratorV2", shared_name=shared_name or "", container="",
                            output_types=structure.flat_types(spec),
                            output_shapes=structure.flat_shapes(spec))
        return Iterator(resource, None, spec)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that reads from the iterator whose `string_handle()` is fed."""
        spec = structure.spec_from_types(output_types, output_shapes, output_classes)
        handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        resource = apply_op("IteratorFromStringHandleV2", string_handle=handle,
                            output_types=structure.flat_types(spec),
                            output_shapes=structure.flat_shapes(spec))
        return Iterator(resource, None, spec)

    # --- using one -------------------------------------------------------------------------
    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that points this iterator at `dataset` (same structure), from the start."""
        structure.assert_same_structure(self._element_spec, dataset.element_spec)
        mine = structure.flatten(self._element_spec)
        theirs = structure.flatten(dataset.element_spec)
        for a, b in zip(mine, theirs):
            if a.dtype != b.dtype or a.is_sparse != b.is_sparse:
                raise TypeError("Expected output types %s but got dataset with output types %s."
                                % (self.output_types, dataset.output_types))
            if not a.shape.is_compatible_with(b.shape):
                raise TypeError("Expected output shapes compatible with %s but got dataset "
                                "with output shapes %s." % (self.output_shapes,
                                                            dataset.output_shapes))
        with ops.name_scope(name, "make_initializer"):
            return apply_op("MakeIterator", dataset=dataset._variant_tensor,
                            iterator=self._iterator_resource)

    def get_next(self, name=None):
        """The next element, a structure of tensors; OutOfRangeError when the dataset is done."""
        flat = apply_op("IteratorGetNext", iterator=self._iterator_resource,
                        output_types=structure.flat_types(self._element_spec),
                        output_shapes=structure.flat_shapes(self._element_spec), name=name)
        flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
        return structure.from_flat_tensors(self._element_spec, flat)

    def string_handle(self, name=None):
        """A scalar string naming this iterator, to feed to `from_string_handle`."""
        return apply_op("IteratorToStringHandle", resource_handle=self._iterator_resource,
                        name=name)


def make_initializable_iterator(dataset, shared_name=None):
    """An iterator of `dataset` that `sess.run(iterator.initializer)` starts and restarts."""
    resource = apply_op("IteratorV2", shared_name=shared_name or "", container="",
                        output_types=structure.flat_types(dataset.element_spec),
                        output_shapes=structure.flat_shapes(dataset.element_spec))
    initializer = apply_op("MakeIterator", dataset=dataset._variant_tensor, iterator=resource)
    return Iterator(resource, initializer, dataset.element_spec)


def make_one_shot_iterator(dataset):
    """An iterator of `dataset` that starts by itself on its first `get_next`; reads it once."""
    factory = _dataset_factory(dataset)
    resource = apply_op("OneShotIterator", dataset_factory=factory,
                        output_types=structure.flat_types(dataset.element_spec),
                        output_shapes=structure.flat_shapes(dataset.element_spec))
    return Iterator(resource, None, dataset.element_spec)


def _dataset_factory(dataset):
    """The ops that build `dataset`, copied into a FunctionDef that returns its variant.

    TensorFlow captures them "by value" the same way; a placeholder or a
    variable among them could not be copied, so it is a ValueError.
    """
    variant = dataset._variant_tensor
    needed, stack = {}, [variant.op]
    while stack:
        op = stack.pop()
        if op.name in needed:
            continue
        if op.type.startswith("Placeholder") or any(t.dtype.is_ref_dtype for t in op.outputs):
            raise ValueError("Failed to create a one-shot iterator for a dataset. "
                             "`Dataset.make_one_shot_iterator()` does not support datasets that "
                             "capture stateful objects, such as a `Variable` or a placeholder "
                             "(here %s, type %s). Use make_initializable_iterator() instead."
                             % (op.name, op.type))
        needed[op.name] = op
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    nodes = [op.node_def for op in sorted(needed.values(), key=lambda o: o._id)]
    nodes.append(graph_def_lib.NodeDef("dataset_factory_retval", "_Retval", [
        graph_def_lib.tensor_name(variant.op.name, variant.value_index)], "",
        {"T": dtypes.variant, "index": 0}))
    return graph_def_lib.FunctionDef("_make_dataset_%s" % variant.op.name.replace("/", "_"),
                                     nodes)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes
