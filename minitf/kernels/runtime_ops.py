"""The kernels of the runtime's own ops: _Arg, _Retval, _Send and _Recv.

Users never write these ops; the session adds them (their OpDefs are in
`minitf/framework/op_defs/function.py` and `sendrecv.py`). `_Arg` brings a fed value
into the graph and `_Retval` takes a fetched value out, through the step's
*call frame*. `_Send` and `_Recv` carry a tensor across a device boundary
through the step's Rendezvous; they are the only place where a value is
copied between host and device memory. In a loop, the key names the frame
and iteration the pair runs in (`ctx.frame_iter`), so each iteration's
_Send meets that iteration's _Recv; and a dead tensor travels as such: the
_Send runs even on a dead input, and its _Recv gives a dead output. A fed array reaches kernels, and a
fetched one leaves, by the rule of `minitf/framework/buffers.py`: the
caller never shares a buffer with the step.

Mirrors `tensorflow/core/kernels/function_ops.cc` and `sendrecv_ops.cc`.
"""

from minitf.framework import buffers
from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.rendezvous import create_key


@register_kernel("_Arg", ALL_DEVICE_TYPES, is_expensive=False)
def arg(ctx, *, index):
    # On the host, the caller's own array: kernels see it read-only, a fetch copies it.
    return buffers.read_only_view(ctx.device.copy_to_device(ctx.call_frame.args[index]))


@register_kernel("_Retval", ALL_DEVICE_TYPES, is_expensive=False)
def retval(ctx, value, *, index):
    # A read-only array is (a view of) a buffer that outlives the step: copied.
    ctx.call_frame.set_retval(index, ctx.device.copy_to_host(buffers.for_the_caller(value)))


def _key(ctx, send_device, incarnation, recv_device, tensor_name):
    return "%d;%s" % (ctx.step_id, create_key(send_device, incarnation, recv_device,
                                              tensor_name, ctx.frame_iter))


@register_kernel("_Send", ALL_DEVICE_TYPES, is_expensive=False)
def send(ctx, value, *, tensor_name, send_device, send_device_incarnation, recv_device):
    key = _key(ctx, send_device, send_device_incarnation, recv_device, tensor_name)
    if ctx.is_input_dead:
        ctx.rendezvous.send(key, None, is_dead=True)
    else:
        ctx.rendezvous.send(key, ctx.device.copy_to_host(value))


@register_kernel("_Recv", ALL_DEVICE_TYPES, is_async=True, is_expensive=False)
def recv(ctx, *, tensor_name, send_device, send_device_incarnation, recv_device, done):
    key = _key(ctx, send_device, send_device_incarnation, recv_device, tensor_name)
    device = ctx.device

    def received(error, value, is_dead):
        if error is not None:
            done(error=error)
        elif is_dead:
            done(None)  # a dead output: the executor makes the _Recv a dead node
        else:
            done(device.copy_to_device(value))

    ctx.rendezvous.recv_async(key, received)
