"""Gradient functions of the TensorArray ops: reads and writes swap places.

The gradient of a TensorArray is a second TensorArray of the same size,
its *gradient array* (`TensorArray.grad(source)`, a TensorArrayGradV3 op):
the gradient of a read of element i is a write of the incoming gradient at
i into the gradient array, and the gradient of a write is a read from it
(gather and scatter, concat and split likewise). Writes to a gradient
array at the same index add up, and an element never written reads as
zeros.

The gradient arrives along the *flow*: every op on an array takes a flow
input and the writes give one, a float scalar, so `tf.gradients` follows
it like any float tensor, and a write's gradient function gets the flow of
the gradient array as its "gradient". `source`, the name scope of the
`tf.gradients` call, keeps two gradient computations of one forward array
apart.

Mirrors `tensorflow/python/ops/tensor_array_grad.py`.
"""

from minitf.autodiff.registry import NotDifferentiable
from minitf.autodiff.registry import RegisterGradient
from minitf.graph import ops
from minitf.ops import array_ops
from minitf.ops import tensor_array_ops

for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3",
                 "TensorArrayCloseV3"):
    NotDifferentiable(_op_type)


def _get_grad_source(op_or_tensor):
    """The name scope of the `tf.gradients` call that built `op_or_tensor` ("gradients")."""
    name_tokens = op_or_tensor.name.split("/")
    grad_pos = [i for i, x in enumerate(name_tokens) if x.startswith("gradients")]
    if not grad_pos:
        raise ValueError("Expected op/tensor name to start with gradients (excluding scope), "
                         "got: %s" % op_or_tensor.name)
    return "/".join(name_tokens[:grad_pos[-1] + 1])


def _gradient_array(op, dtype_attr, flow, source_of):
    """The gradient TensorArray of `op`'s array, for the gradients call `source_of` is in."""
    forward = tensor_array_ops.TensorArray(dtype=op.get_attr(dtype_attr), handle=op.inputs[0],
                                           flow=flow, colocate_with_first_write_call=False)
    return forward.grad(source=_get_grad_source(source_of), flow=flow)


def _written_back(op, grad, flow, write):
    """The flow of the gradient array after `write(gradient array)`, for a read of the
    forward array. `flow` is the forward flow: the gradient array is made once the
    forward array is complete (its size final)."""
    return write(_gradient_array(op, "dtype", flow, grad)).flow


def _read_back(op, flow, read):
    """(`read(gradient array)`, the flow) for a write of the forward array, after the write."""
    flow_out = array_ops.identity(op.outputs[0], "flow_out")
    with ops.control_dependencies([flow_out]):
        flow = array_ops.identity(flow, "write_barrier")
    return read(_gradient_array(op, "T", flow, flow)), flow


@RegisterGradient("TensorArrayReadV3")
def _tensor_array_read_grad(op, grad):
    return [None, None, _written_back(op, grad, op.inputs[2],
                                      lambda g: g.write(op.inputs[1], grad))]


@RegisterGradient("TensorArrayGatherV3")
def _tensor_array_gather_grad(op, grad):
    return [None, None, _written_back(op, grad, op.inputs[2],
                                      lambda g: g.scatter(op.inputs[1], grad))]


@RegisterGradient("TensorArrayConcatV3")
def _tensor_array_concat_grad(op, grad, unused_lengths_grad):
    return [None, _written_back(op, grad, op.inputs[1],
                                lambda g: g.split(grad, lengths=op.outputs[1]))]


@RegisterGradient("TensorArrayWriteV3")
def _tensor_array_write_grad(op, flow):
    grad, flow = _read_back(op, flow, lambda g: g.read(op.inputs[1]))
    return [None, None, grad, flow]


@RegisterGradient("TensorArrayScatterV3")
def _tensor_array_scatter_grad(op, flow):
    grad, flow = _read_back(op, flow, lambda g: g.gather(op.inputs[1]))
    return [None, None, grad, flow]


@RegisterGradient("TensorArraySplitV3")
def _tensor_array_split_grad(op, flow):
    grad, flow = _read_back(op, flow, lambda g: g.concat())
    return [None, grad, None, flow]
