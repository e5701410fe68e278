"""DatasetBase and IteratorBase: what a dataset is to the runtime, and the iterator resource.

A dataset op's kernel does not produce data. It produces a *dataset*: an
immutable description (the tensors to slice, the input dataset and the
function to map it with, ...) that travels along the graph's edges as a
`variant` scalar. Only an iterator produces elements: `make_iterator`
creates one, and each `get_next` returns the next element, a list of
arrays (one per component), or None at the end of the sequence.

Datasets are chained: a map dataset holds its input dataset, and its
iterator holds its input's iterator. Pulling an element from the last
iterator pulls through the chain.

The iterator users see (`tf.data.Iterator`) is a *resource*: an
`IteratorResource` in the resource manager of its device, holding the
current iterator of whatever dataset `MakeIterator` last gave it. It
outlives steps: every `sess.run(next_element)` advances it.
A `ResourceHandle` names a resource (device, container, name); it is what
flows along a `resource` edge, and what a string handle encodes.

Mirrors `tensorflow/core/framework/dataset.h` (DatasetBase, IteratorBase,
IteratorContext), `resource_handle.h` and
`tensorflow/core/kernels/data/iterator_ops.h` (IteratorResource).
"""

import json
import threading

import numpy as np

from minitf.graph import errors


def scalar(value):
    """A Python object as the 0-d object array a `variant` or `resource` tensor holds."""
    array = np.empty((), dtype=object)
    array[()] = value
    return array


def unwrap(array, expected_type, what):
    """The object inside a 0-d variant/resource tensor; InvalidArgumentError if it is not one."""
    value = array[()] if isinstance(array, np.ndarray) and array.shape == () else array
    if not isinstance(value, expected_type):
        raise errors.InvalidArgumentError(None, None, "%s must be a scalar %s, got %r" % (
            what, expected_type.__name__, type(value).__name__))
    return value


class DatasetBase:
    """A dataset: knows its element's dtypes and static shapes, and makes iterators."""

    def __init__(self, output_dtypes, output_shapes):
        self.output_dtypes = list(output_dtypes)
        self.output_shapes = list(output_shapes)

    def make_iterator(self):
        raise NotImplementedError

    def __repr__(self):
        return "<%s>" % type(self).__name__


class IteratorBase:
    """Produces the elements of one dataset, one `get_next()` at a time."""

    def get_next(self):
        """The next element as a list of arrays, or None once the sequence has ended."""
        raise NotImplementedError

    def get_next_values(self, limit):
        """Up to `limit` next elements as plain Python values, or None if this iterator can't.

        A fast path for batching: an iterator whose elements are single
        scalars it already holds as Python values (the records of a file)
        returns a list of them (fewer than `limit` only at the end), so a
        batch becomes one array without a 0-d array per element. Every
        other iterator answers None and is read with `get_next`.
        """
        return None

    def close(self):
        """Stops any background work (a prefetching thread); the iterator is not used after."""


class ResourceHandle:
    """Names a resource: the device that holds it, and its (container, name) there."""

    __slots__ = ("device", "container", "name")

    def __init__(self, device, container, name):
        self.device, self.container, self.name = device, container, name

    def to_string(self):
        """The handle as text (a string handle); no code runs when it is parsed back."""
        return json.dumps({"device": self.device, "container": self.container,
                           "name": self.name}, sort_keys=True).encode("utf-8")

    @classmethod
    def from_string(cls, data):
        try:
            fields = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
            return cls(str(fields["device"]), str(fields["container"]), str(fields["name"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise errors.InvalidArgumentError(
                None, None, "Could not parse an iterator string handle: %r" % (data,)) from None

    def lookup(self, device, resource_type):
        """The resource this handle names, on `device`; NotFoundError when there is none."""
        if self.device != device.name:
            raise errors.InvalidArgumentError(
                None, None, "Trying to access resource %s located in device %s from device %s"
                % (self.name, self.device, device.name))
        resource = device.resource_manager.lookup(self.container, self.name)
        if not isinstance(resource, resource_type):
            raise errors.NotFoundError(None, None, "Resource %s/%s does not exist."
                                       % (self.container, self.name))
        return resource

    def __repr__(self):
        return "ResourceHandle(%s, %s/%s)" % (self.device, self.container, self.name)


class IteratorResource:
    """The state of one `tf.data.Iterator`: the current iterator of its current dataset.

    `set_dataset` (the MakeIterator kernel) starts over; `get_next` (the
    IteratorGetNext kernel) advances. Once the sequence has ended every
    `get_next` raises OutOfRangeError again, until the next `set_dataset`.
    """

    def __init__(self, output_dtypes, output_shapes):
        self.output_dtypes = list(output_dtypes)
        self.output_shapes = list(output_shapes)
        self._iterator = None
        self._ended = False
        self._lock = threading.Lock()

    def set_dataset(self, dataset):
        self._check_compatible(dataset)
        iterator = dataset.make_iterator()
        with self._lock:
            previous, self._iterator, self._ended = self._iterator, iterator, False
        if previous is not None:
            previous.close()

    def _check_compatible(self, dataset):
        if [t.base_dtype for t in dataset.output_dtypes] != [t.base_dtype for t in
                                                             self.output_dtypes]:
            raise errors.InvalidArgumentError(
                None, None, "The given dataset's types (%s) do not match the iterator's (%s)."
                % (_names(dataset.output_dtypes), _names(self.output_dtypes)))
        for mine, theirs in zip(self.output_shapes, dataset.output_shapes):
            if not mine.is_compatible_with(theirs):
                raise errors.InvalidArgumentError(
                    None, None, "The given dataset's shapes (%s) are not compatible with the "
                    "iterator's (%s)." % (list(dataset.output_shapes), list(self.output_shapes)))

    def get_next(self):
        with self._lock:
            if self._iterator is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been "
                    "initialized. Ensure that you have run the initializer operation for this "
                    "iterator before getting the next element.")
            element = None if self._ended else self._iterator.get_next()
            self._ended = element is None
        if element is None:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        return element

    @property
    def initialized(self):
        return self._iterator is not None


def _names(types):
    return ", ".join(t.name for t in types)
