"""tf.TensorArray: a list of tensors that a loop fills, one element per iteration.

    ta = tf.TensorArray(tf.float32, size=n)
    _, ta = tf.while_loop(lambda i, ta: i < n,
                          lambda i, ta: (i + 1, ta.write(i, f(i))), [0, ta])
    result = ta.stack()                       # [n, ...]

A TensorArray is a handle to an array that lives in the step (made by a
`TensorArrayV3` op) plus a *flow*: a float scalar whose only job is to
order the ops on the array. Every write returns a new TensorArray object
with the write's flow, so writes and reads happen in the order the program
says; a loop carries a TensorArray as its flow (`tf.while_loop` converts
it). `read`, `gather`, `stack` and `concat` read elements; `write`,
`scatter`, `unstack` and `split` write them; `size` counts them; with
`dynamic_size=True` a write past the end grows the array. Elements read
once are cleared, unless `clear_after_read=False`.

The static element shape is inferred from the writes (`infer_shape`) and
shared by every TensorArray object of one array. The array's ops go on the
device of the first tensor written to it (`colocate_with_first_write_call`).
The gradient of a TensorArray op reads or writes the array's gradient
TensorArray (`grad`, `minitf/autodiff/tensor_array_grad.py`).

Mirrors `tensorflow/python/ops/tensor_array_ops.py` (TF 1.15's
`_GraphTensorArray`, which graph mode uses).
"""

import contextlib
import logging

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops

_logger = logging.getLogger("minitf")

__all__ = ["TensorArray"]


class TensorArray:
    """A list of `dtype` tensors in the step: see the module docstring."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot construct with both handle and tensor_array_name")
        if handle is not None and not isinstance(handle, ops.Tensor):
            raise TypeError("Handle must be a Tensor")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and clear_after_read is not None:
            raise ValueError("Cannot provide both a handle and clear_after_read at the same "
                             "time")
        clear_after_read = True if clear_after_read is None else clear_after_read
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        # The tensors the array's ops are colocated with: the first one written.
        self._colocate_with = [] if colocate_with_first_write_call else None
        # A list of one, shared by every TensorArray object of this array.
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._infer_shape = infer_shape
        with ops.name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return

            def create():
                return apply_op("TensorArrayV3", name=scope, size=size, dtype=self._dtype,
                                element_shape=self._element_shape[0],
                                identical_element_shapes=infer_shape,
                                dynamic_size=self._dynamic_size,
                                clear_after_read=clear_after_read,
                                tensor_array_name=tensor_array_name or "")

            if colocate_with_first_write_call:
                # No device now: the first write decides it.
                with ops.device(None), ops.colocate_with(None, ignore_existing=True):
                    self._handle, self._flow = create()
            else:
                self._handle, self._flow = create()

    @property
    def flow(self):
        """The flow tensor: the edge that orders the ops on this array."""
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def element_shape(self):
        """The static shape of the elements, as far as known."""
        return self._element_shape[0]

    def _merge_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError("Inconsistent shapes: saw %s but expected %s (and infer_shape=True)"
                             % (shape, self.element_shape))
        self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        """Colocates the ops built inside with the first tensor ever written to the array."""
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with ops.colocate_with(self._colocate_with[0]):
            yield

    def identity(self):
        """This array with a new flow: an Identity of the flow."""
        return build_ta_with_new_flow(self, array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient TensorArray of this array for `source` (one per gradients() call)."""
        if flow is None:
            flow = self.flow
        with ops.name_scope(name, "TensorArrayGrad", [self._handle]):
            with ops.colocate_with(self._handle):
                g_handle, _ = apply_op("TensorArrayGradV3", name=name, handle=self._handle,
                                       flow_in=flow, source=source)
                with ops.control_dependencies([g_handle]):
                    flow = array_ops.identity(flow, name="gradient_flow")
                g = TensorArray(dtype=self._dtype, handle=g_handle, flow=flow,
                                infer_shape=self._infer_shape,
                                colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def read(self, index, name=None):
        """The element at `index` (cleared from the array unless clear_after_read=False)."""
        value = apply_op("TensorArrayReadV3", name=name, handle=self._handle, index=index,
                         flow_in=self._flow, dtype=self._dtype)
        value.set_shape(self.element_shape)
        return value

    def write(self, index, value, name=None):
        """The array with `value` written at `index`: a new TensorArray (use its result)."""
        with ops.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            if self._infer_shape:
                self._merge_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayWriteV3", name=name, handle=self._handle,
                                    index=index, value=value, flow_in=self._flow)
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name=None):
        """All the elements, stacked into one tensor along a new first dimension."""
        with ops.colocate_with(self._handle):
            with ops.name_scope(name, "TensorArrayStack", [self._handle]):
                return self.gather(math_ops.range(0, self.size()), name=name)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        value = apply_op("TensorArrayGatherV3", name=name, handle=self._handle,
                         indices=indices, flow_in=self._flow, dtype=self._dtype,
                         element_shape=self.element_shape)
        if self.element_shape.ndims is not None:
            value.set_shape([None] + self.element_shape.as_list())
        return value

    def concat(self, name=None):
        """All the elements, concatenated along their first dimension."""
        value, _ = apply_op("TensorArrayConcatV3", name=name, handle=self._handle,
                            flow_in=self._flow, dtype=self._dtype,
                            element_shape_except0=self.element_shape[1:])
        if self.element_shape.ndims is not None:
            value.set_shape([None] + self.element_shape.as_list()[1:])
        return value

    def unstack(self, value, name=None):
        """The array with the rows of `value` written as its elements 0, 1, ..."""
        with ops.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=math_ops.range(0, num_elements), value=value,
                                name=name)

    def scatter(self, indices, value, name=None):
        """The array with row i of `value` written at `indices[i]`."""
        with ops.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._merge_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayScatterV3", name=name, handle=self._handle,
                                    indices=indices, value=value, flow_in=self._flow)
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value, lengths, name=None):
        """The array with `value` cut along its first dimension into pieces of `lengths`."""
        with ops.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths_64 = math_ops.cast(lengths, dtypes.int64)
                known_lengths = tensor_util.constant_value(lengths_64)
                if (value.shape.ndims is not None and known_lengths is not None
                        and known_lengths.size and known_lengths.max() == known_lengths.min()):
                    self._merge_element_shape(tensor_shape.TensorShape(
                        [int(known_lengths.reshape(-1)[0])]).concatenate(value.shape[1:]))
                flow_out = apply_op("TensorArraySplitV3", name=name, handle=self._handle,
                                    value=value, lengths=lengths_64, flow_in=self._flow)
            return build_ta_with_new_flow(self, flow_out)

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        return apply_op("TensorArraySizeV3", name=name, handle=self._handle, flow_in=self.flow)

    def close(self, name=None):
        """An op that closes the array: later ops on it fail."""
        return apply_op("TensorArrayCloseV3", name=name, handle=self._handle)


def build_ta_with_new_flow(old_ta, flow):
    """A TensorArray object of the same array as `old_ta`, with the flow `flow`."""
    new_ta = TensorArray(dtype=old_ta.dtype, handle=old_ta.handle, flow=flow,
                         infer_shape=old_ta._infer_shape,
                         colocate_with_first_write_call=old_ta._colocate_with_first_write_call)
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._colocate_with = old_ta._colocate_with
    new_ta._element_shape = old_ta._element_shape  # shared
    return new_ta


def _check_dtypes(value, dtype):
    if value.dtype != dtype:
        _logger.error("Error: Input value %s has dtype %s, but expected dtype %s.  This leads "
                      "to undefined behavior and will be an error in future versions of "
                      "TensorFlow.", value, value.dtype, dtype)
