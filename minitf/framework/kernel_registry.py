"""The kernel registry: which function computes an op on which device type.

A kernel is a plain function registered for an (op type, device type) pair:

    @register_kernel("MatMul", device_types=("CPU", "GPU"))
    def matmul(ctx, a, b, *, transpose_a, transpose_b):
        ...

It receives the op's inputs as arrays, the attrs it names as keyword-only
arguments (only those: a kernel asks for what it uses), and `ctx`, the
OpKernelContext (device, array module `ctx.xp`, resource manager, step).
It returns the output, or a tuple of outputs for an op with several.
A kernel registered for both CPU and GPU is written once against `ctx.xp`.

An *async* kernel (a Recv waiting for its tensor) instead receives a `done`
callback as the keyword `done` and calls `done(outputs)` or `done(error=e)`
later, so that waiting never blocks a thread.

Mirrors `tensorflow/core/framework/op_kernel.h` (REGISTER_KERNEL_BUILDER,
OpKernel, AsyncOpKernel) and `kernel_def.proto`.
"""

import inspect

from minitf.graph import errors

# Kernels written against `ctx.xp` serve both device types: register them for these.
ALL_DEVICE_TYPES = ("CPU", "GPU")

_KERNELS = {}


class KernelDef:
    """A registered kernel: its function and what the executor needs to call it."""

    def __init__(self, fn, op_type, device_type, is_async, is_expensive, forwards_inputs=False):
        self.fn = fn
        self.op_type = op_type
        self.device_type = device_type
        self.is_async = is_async
        self.is_expensive = is_expensive
        self.forwards_inputs = forwards_inputs
        self.attr_names, self.takes_all_attrs = _keyword_names(fn)

    def attr_kwargs(self, attrs):
        """The keyword arguments to call the kernel with, from the node's attrs."""
        if self.takes_all_attrs:
            return {k: v for k, v in attrs.items() if not k.startswith("_")}
        missing = [n for n in self.attr_names if n not in attrs and n != "done"]
        if missing:
            raise errors.InvalidArgumentError(
                None, None, "Kernel for %s asks for attrs %s that the node does not have"
                % (self.op_type, missing))
        return {n: attrs[n] for n in self.attr_names if n != "done"}

    def __repr__(self):
        return "<kernel %s on %s: %s>" % (self.op_type, self.device_type, self.fn.__name__)


def _keyword_names(fn):
    params = inspect.signature(fn).parameters.values()
    names = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    return names, takes_all


def register_kernel(op_type, device_types=("CPU",), is_async=False, is_expensive=True,
                    forwards_inputs=False):
    """Decorator registering `fn` as the kernel of `op_type` on each device type.

    `is_expensive=False` marks ops cheap enough for the executor to run inline
    rather than hand to another thread. `forwards_inputs=True` says the
    kernel may write its output into an input buffer the executor lets it
    have (`OpKernelContext.forward_input`).
    """
    if isinstance(device_types, str):
        device_types = (device_types,)

    def decorate(fn):
        for device_type in device_types:  # check them all first: register all or none
            _check_not_registered(op_type, device_type)
        for device_type in device_types:
            _KERNELS[(op_type, device_type)] = KernelDef(fn, op_type, device_type, is_async,
                                                         is_expensive, forwards_inputs)
        return fn

    return decorate


def _check_not_registered(op_type, device_type):
    existing = _KERNELS.get((op_type, device_type))
    if existing is not None:
        raise ValueError("A kernel for %s on %s is already registered (%s in %s)"
                         % (op_type, device_type, existing.fn.__qualname__,
                            existing.fn.__module__))


def find_kernel(op_type, device_type):
    """The KernelDef for (op type, device type); NotFoundError when there is none."""
    kernel = _KERNELS.get((op_type, device_type))
    if kernel is None:
        available = sorted(d for (o, d) in _KERNELS if o == op_type)
        raise errors.NotFoundError(
            None, None, "No registered '%s' OpKernel for %s devices. Registered devices: [%s]"
            % (op_type, device_type, ", ".join(available)))
    return kernel


def unregister_kernel(op_type, device_type):
    """Removes a registration; used only to undo an op library that failed to load."""
    _KERNELS.pop((op_type, device_type), None)


def has_kernel(op_type, device_type):
    return (op_type, device_type) in _KERNELS


def registered_kernels():
    return dict(_KERNELS)
