"""Kernels of the iterator ops: the iterator resource, initializing it, and getting elements.

`IteratorV2` finds or creates an `IteratorResource` in its device's
resource manager (under `shared_name`, or its node's name) and outputs its
handle. `MakeIterator` gives the resource a dataset: a new iterator, from
the start. `IteratorGetNext` returns the next element, or raises
OutOfRangeError at the end. `OneShotIterator` initializes itself the first
time it runs, by calling its `dataset_factory` function, which builds the
dataset. A string handle is the handle as text, so that one graph can
feed *which* iterator `IteratorFromStringHandleV2` reads from.

Mirrors `tensorflow/core/kernels/data/iterator_ops.cc`.
"""

import threading

import numpy as np

from minitf.framework.dataset import (DatasetBase, IteratorResource, ResourceHandle, scalar,
                                      unwrap)
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.data.captured_function import CapturedFunction
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import text

CPU_ONLY = ("CPU",)
_one_shot_lock = threading.Lock()


def _handle(ctx, container, name, output_types, output_shapes):
    """The handle of the iterator resource (container, name), created if absent."""
    container = container or ctx.resource_manager.default_container
    ctx.resource_manager.lookup_or_create(
        container, name, lambda: IteratorResource(output_types, output_shapes))
    return scalar(ResourceHandle(ctx.device.name, container, name))


def _resource(ctx, handle):
    return unwrap(handle, ResourceHandle, "iterator").lookup(ctx.device, IteratorResource)


@register_kernel("IteratorV2", CPU_ONLY, is_expensive=False)
def iterator_v2(ctx, *, shared_name, container, output_types, output_shapes):
    return _handle(ctx, container, shared_name or ctx.node_name, output_types, output_shapes)


@register_kernel("OneShotIterator", CPU_ONLY)
def one_shot_iterator(ctx, *, dataset_factory, output_types, output_shapes, container,
                      shared_name):
    handle = _handle(ctx, container, shared_name or ctx.node_name, output_types, output_shapes)
    resource = _resource(ctx, handle)
    with _one_shot_lock:
        if not resource.initialized:
            made = CapturedFunction(dataset_factory, [], ctx.device).run([])[0]
            resource.set_dataset(unwrap(made, DatasetBase, "dataset_factory's result"))
    return handle


@register_kernel("MakeIterator", CPU_ONLY)
def make_iterator(ctx, dataset, iterator):
    _resource(ctx, iterator).set_dataset(unwrap(dataset, DatasetBase, "dataset"))


@register_kernel("IteratorGetNext", CPU_ONLY)
def iterator_get_next(ctx, iterator, *, output_types, output_shapes):
    element = _resource(ctx, iterator).get_next()
    for i, (value, shape) in enumerate(zip(element, output_shapes)):
        if not shape.is_compatible_with(np.shape(value)):
            raise invalid("An element of component %d has shape %s, not compatible with the "
                          "iterator's %s" % (i, list(np.shape(value)), shape))
    return tuple(element)


@register_kernel("IteratorToStringHandle", CPU_ONLY, is_expensive=False)
def iterator_to_string_handle(ctx, resource_handle):
    handle = unwrap(resource_handle, ResourceHandle, "resource_handle")
    return np.array(handle.to_string(), dtype=object)


@register_kernel("IteratorFromStringHandleV2", CPU_ONLY, is_expensive=False)
def iterator_from_string_handle(ctx, string_handle, *, output_types, output_shapes):
    handle = ResourceHandle.from_string(text(string_handle).encode("utf-8"))
    resource = handle.lookup(ctx.device, IteratorResource)
    if output_types and [t.base_dtype for t in output_types] != [
            t.base_dtype for t in resource.output_dtypes]:
        raise invalid("Features and types mismatch: the iterator has types %s, expected %s"
                      % ([t.name for t in resource.output_dtypes],
                         [t.name for t in output_types]))
    return scalar(handle)
