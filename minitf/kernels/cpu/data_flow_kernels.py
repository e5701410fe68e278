"""Kernels of the stacks and TensorArrays: lists of tensors that live for one step.

A loop's gradient saves each forward iteration's values on a *stack*
(`StackPushV2` in the forward loop) and takes them back in reverse order
(`StackPopV2` in the gradient loop). A *TensorArray* is an indexed list of
tensors: a loop writes one element per iteration, `stack` or `gather` make
one tensor of them afterwards.

Both are resources of the step: `StackV2` and `TensorArrayV3` create one
in the step container (`ctx.step_container`, dropped when the step ends)
and output its *handle*, a resource tensor naming it, which every other op
takes as its first input. A TensorArray's ops also pass a *flow* scalar
along: its value means nothing, its edges order the ops on one array.

Errors use TensorFlow's words: reading an element twice (the array clears
what it has read, unless `clear_after_read=False`), writing an index twice,
reading one never written, writing past the end of an array that is not
`dynamic_size`. The TensorArray of a gradient (`TensorArrayGradV3`) sums
what is written twice, and reads zeros where nothing was written.

Mirrors `tensorflow/core/kernels/stack.cc`, `tensor_array.h` and
`tensor_array_ops.cc`.
"""

import itertools

import numpy as np

from minitf.framework import buffers
from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_shape
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import on_device
from minitf.kernels.kernel_util import shape_text


# =============================================================================
# Resources of the step, named by handles
# =============================================================================

def _new_handle(ctx, resource, base_name):
    """Stores `resource` in the step container under a new name; returns its handle."""
    container = ctx.step_container
    counter = container.setdefault("_resource_ids", itertools.count())
    name = "%s_%d" % (base_name, next(counter))
    container[name] = resource
    return _handle_value(name)


def _handle_value(name):
    handle = np.empty((), dtype=object)
    handle[()] = name
    return handle


def _lookup(ctx, handle, kind):
    name = np.asarray(handle).item()
    resource = ctx.step_container.get(name)
    if not isinstance(resource, kind):
        raise errors.NotFoundError(None, None, "Resource %s of type %s does not exist in "
                                   "this step." % (name, kind.__name__))
    return resource


def _stored(value):
    """A value to keep past the kernel: a read-only buffer (a variable's) is copied."""
    return buffers.for_the_caller(value)


# =============================================================================
# Stacks
# =============================================================================

class _Stack:
    def __init__(self, name, elem_type, max_size):
        self.name = name
        self.elem_type = elem_type
        self.max_size = max_size
        self.values = []
        self.closed = False

    def check_open(self):
        if self.closed:
            raise invalid("Stack[%s] has already been closed." % self.name)


@register_kernel("StackV2", ALL_DEVICE_TYPES, is_expensive=False)
def stack_v2(ctx, max_size, *, elem_type, stack_name):
    base_name = stack_name or ctx.node_name
    stack = _Stack(base_name, elem_type, int(host_array(ctx, max_size)))
    handle = _new_handle(ctx, stack, base_name)
    stack.name = handle[()]
    return handle


@register_kernel("StackPushV2", ALL_DEVICE_TYPES, is_expensive=False)
def stack_push_v2(ctx, handle, elem, *, swap_memory):
    stack = _lookup(ctx, handle, _Stack)
    stack.check_open()
    if 0 <= stack.max_size <= len(stack.values):
        raise invalid("Stack[%s] overflowed its max_size (%d)" % (stack.name, stack.max_size))
    stack.values.append(_stored(elem))
    return elem


@register_kernel("StackPopV2", ALL_DEVICE_TYPES, is_expensive=False)
def stack_pop_v2(ctx, handle, *, elem_type):
    stack = _lookup(ctx, handle, _Stack)
    stack.check_open()
    if not stack.values:
        raise invalid("Stack[%s] is empty." % stack.name)
    return stack.values.pop()


@register_kernel("StackCloseV2", ALL_DEVICE_TYPES, is_expensive=False)
def stack_close_v2(ctx, handle):
    _lookup(ctx, handle, _Stack).closed = True


# =============================================================================
# TensorArrays
# =============================================================================

class _TensorArray:
    """The elements of one TensorArray (None where not written, or cleared)."""

    def __init__(self, name, dtype, size, element_shape, dynamic_size, clear_after_read,
                 identical_element_shapes, is_grad=False):
        self.name = name
        self.dtype = dtype
        self.elements = [None] * size
        self.written = [False] * size
        self.element_shape = element_shape
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_element_shapes = identical_element_shapes
        self.is_grad = is_grad  # a gradient's: writes add up, unwritten reads are zeros
        self.closed = False
        self.grads = {}  # source -> the gradient TensorArray's handle

    def check_open(self):
        if self.closed:
            raise invalid("TensorArray %s has already been closed." % self.name)

    def write(self, ctx, index, value):
        self.check_open()
        if index < 0:
            raise invalid("Tried to write to index %d but array is not resizeable and size "
                          "is: %d" % (index, len(self.elements)))
        if index >= len(self.elements):
            if not self.dynamic_size:
                raise invalid("TensorArray %s: Tried to write to index %d but array is not "
                              "resizeable and size is: %d" % (self.name, index,
                                                               len(self.elements)))
            grow = index + 1 - len(self.elements)
            self.elements.extend([None] * grow)
            self.written.extend([False] * grow)
        if value.dtype != self.dtype.as_numpy_dtype:
            raise invalid("TensorArray dtype is %s but Op is trying to write dtype %s"
                          % (self.dtype.name, dtypes.as_dtype(value.dtype).name))
        if not self.element_shape.is_compatible_with(value.shape):
            raise invalid("Could not write to TensorArray index %d because the value shape is "
                          "%s which is incompatible with the TensorArray's inferred element "
                          "shape: %s (consider setting infer_shape=False)."
                          % (index, shape_text(value.shape),
                             _shape_text(self.element_shape)))
        if self.identical_element_shapes:
            self.element_shape = tensor_shape.TensorShape(value.shape)
        if self.written[index]:
            if not self.is_grad:
                raise invalid("Could not write to TensorArray index %d because it has already "
                              "been written to." % index)
            existing = self.elements[index]
            if existing.shape != value.shape:
                raise invalid("Could not aggregate to TensorArray index %d because the existing "
                              "shape is %s but the new input shape is %s."
                              % (index, shape_text(existing.shape), shape_text(value.shape)))
            value = ctx.xp.add(existing, value)
        self.elements[index] = _stored(value)
        self.written[index] = True

    def read(self, ctx, index):
        self.check_open()
        size = len(self.elements)
        if not 0 <= index < size:
            raise invalid("Tried to read from index %d but array size is: %d" % (index, size))
        value = self.elements[index]
        if value is None:
            if self.is_grad:
                return self._zeros(ctx, index)
            if self.written[index]:
                raise invalid("Could not read index %d twice because it was cleared after a "
                              "previous read (perhaps try setting clear_after_read = false?)."
                              % index)
            raise invalid("Could not read from TensorArray index %d because it has not yet "
                          "been written to." % index)
        if self.clear_after_read and not self.is_grad:
            self.elements[index] = None
        return value

    def _zeros(self, ctx, index):
        if not self.element_shape.is_fully_defined():
            raise invalid(
                "TensorArray %s: Could not read from TensorArray index %d. Furthermore, the "
                "element shape is not fully defined: %s. It is possible you are working with "
                "a resizeable TensorArray and stop_gradients is not allowing the gradients to "
                "be written. If you set the full element_shape property on the forward "
                "TensorArray, the proper all-zeros tensor will be returned instead of "
                "incurring this error." % (self.name, index, _shape_text(self.element_shape)))
        return ctx.xp.zeros(self.element_shape.as_list(), self.dtype.as_numpy_dtype)


def _shape_text(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


@register_kernel("TensorArrayV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_v3(ctx, size, *, dtype, element_shape, dynamic_size, clear_after_read,
                    identical_element_shapes, tensor_array_name):
    size = int(host_array(ctx, size))
    if size < 0:
        raise invalid("Size should be >= 0.")
    base_name = tensor_array_name or ctx.node_name
    array = _TensorArray(base_name, dtype, size, element_shape, dynamic_size, clear_after_read,
                         identical_element_shapes)
    handle = _new_handle(ctx, array, base_name)
    array.name = handle[()]
    return handle, on_device(ctx, np.asarray(0.0, np.float32))


@register_kernel("TensorArrayGradV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_grad_v3(ctx, handle, flow_in, *, source):
    """The gradient TensorArray of `handle` for `source`: one per (array, source), created
    on first use, as long as the array is now; it sums what is written twice."""
    array = _lookup(ctx, handle, _TensorArray)
    array.check_open()
    if source not in array.grads:
        grad = _TensorArray("%s@%s" % (array.name, source), array.dtype, len(array.elements),
                            array.element_shape, False, False, array.identical_element_shapes,
                            is_grad=True)
        name = grad.name
        ctx.step_container[name] = grad
        array.grads[source] = _handle_value(name)
    return array.grads[source], flow_in


@register_kernel("TensorArrayWriteV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_write_v3(ctx, handle, index, value, flow_in):
    _lookup(ctx, handle, _TensorArray).write(ctx, int(host_array(ctx, index)), value)
    return flow_in


@register_kernel("TensorArrayReadV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_read_v3(ctx, handle, index, flow_in, *, dtype):
    return _lookup(ctx, handle, _TensorArray).read(ctx, int(host_array(ctx, index)))


@register_kernel("TensorArrayGatherV3", ALL_DEVICE_TYPES)
def tensor_array_gather_v3(ctx, handle, indices, flow_in, *, dtype, element_shape):
    array = _lookup(ctx, handle, _TensorArray)
    indices = host_array(ctx, indices).reshape(-1)
    if indices.size == 0:
        return _empty(ctx, array, element_shape, "packing")
    values = [array.read(ctx, int(i)) for i in indices]
    for index, value in zip(indices, values):
        if value.shape != values[0].shape:
            raise invalid("TensorArray has inconsistent shapes.  Index 0 has shape: %s but "
                          "index %d has shape: %s" % (shape_text(values[0].shape), index,
                                                      shape_text(value.shape)))
    return ctx.xp.stack(values)


def _empty(ctx, array, element_shape, what):
    """The value of gathering or concatenating no elements: needs a fully known shape."""
    shape = array.element_shape.merge_with(element_shape) if element_shape.ndims is not None \
        else array.element_shape
    if not shape.is_fully_defined():
        raise invalid("TensorArray has size zero, but element shape %s is not fully defined. "
                      "Currently only static shapes are supported when %s zero-size "
                      "TensorArrays." % (_shape_text(shape), what))
    return ctx.xp.zeros([0] + shape.as_list(), array.dtype.as_numpy_dtype)


@register_kernel("TensorArrayScatterV3", ALL_DEVICE_TYPES)
def tensor_array_scatter_v3(ctx, handle, indices, value, flow_in):
    array = _lookup(ctx, handle, _TensorArray)
    indices = host_array(ctx, indices).reshape(-1)
    if value.ndim == 0 or value.shape[0] != indices.size:
        raise invalid("Expected len(indices) == values.shape[0], but saw: %d vs. %d"
                      % (indices.size, value.shape[0] if value.ndim else 0))
    for row, index in enumerate(indices):
        array.write(ctx, int(index), value[row])
    return flow_in


@register_kernel("TensorArrayConcatV3", ALL_DEVICE_TYPES)
def tensor_array_concat_v3(ctx, handle, flow_in, *, dtype, element_shape_except0):
    array = _lookup(ctx, handle, _TensorArray)
    values = [array.read(ctx, i) for i in range(len(array.elements))]
    for i, value in enumerate(values):
        if value.ndim == 0:
            raise invalid("Concat saw a scalar shape at index %d but requires at least "
                          "vectors." % i)
    lengths = np.array([v.shape[0] for v in values], np.int64)
    if not values:
        shape = tensor_shape.TensorShape([None]).concatenate(element_shape_except0)
        if element_shape_except0.ndims is None or not element_shape_except0.is_fully_defined():
            raise invalid("TensorArray has size zero, but element_shape_except0 %s is not "
                          "fully defined. Currently only static shapes are supported when "
                          "concatenating zero-size TensorArrays."
                          % _shape_text(element_shape_except0))
        return (ctx.xp.zeros([0] + shape.as_list()[1:], array.dtype.as_numpy_dtype),
                on_device(ctx, lengths))
    return ctx.xp.concatenate(values, axis=0), on_device(ctx, lengths)


@register_kernel("TensorArraySplitV3", ALL_DEVICE_TYPES)
def tensor_array_split_v3(ctx, handle, value, lengths, flow_in):
    array = _lookup(ctx, handle, _TensorArray)
    lengths = host_array(ctx, lengths).reshape(-1)
    if value.ndim == 0:
        raise invalid("Expected value to be at least a vector, but received shape: []")
    if int(lengths.sum()) != value.shape[0]:
        raise invalid("Expected sum of lengths to be equal to values.shape[0], but sum of "
                      "lengths is %d and value's shape is: %s"
                      % (int(lengths.sum()), shape_text(value.shape)))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for index, (begin, end) in enumerate(zip(offsets[:-1], offsets[1:])):
        array.write(ctx, index, value[int(begin):int(end)])
    return flow_in


@register_kernel("TensorArraySizeV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_size_v3(ctx, handle, flow_in):
    return on_device(ctx, np.asarray(len(_lookup(ctx, handle, _TensorArray).elements), np.int32))


@register_kernel("TensorArrayCloseV3", ALL_DEVICE_TYPES, is_expensive=False)
def tensor_array_close_v3(ctx, handle):
    _lookup(ctx, handle, _TensorArray).closed = True
