"""Kernels of the fused nodes the remapper writes: a contraction, its bias, its activation.

`_FusedMatMul` and `_FusedConv2D` compute what MatMul (or Conv2D), then
BiasAdd, then Relu would, in one kernel: the product is a new array that
no one else has seen yet, so the bias and the activation are applied to it
in place instead of each making an array of its own. The numbers are those
of the three kernels one after the other, bit for bit: the same product,
the same additions, the same maximum.

The remapper (`minitf/session/remapper.py`) writes these nodes into the
session's partitions; a client never builds one.

Mirrors the CPU kernels of `tensorflow/core/kernels/matmul_op_fused.cc` and
`conv_ops_fused_impl.h`.
"""

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.cpu.math_kernels import matmul
from minitf.kernels.cpu.nn_kernels import conv2d
from minitf.kernels.kernel_util import invalid

# What each fused op does to the product, in place.
_IN_PLACE = {
    "Relu": lambda xp, output: xp.maximum(output, 0, out=output),
    "Relu6": lambda xp, output: xp.minimum(xp.maximum(output, 0, out=output), 6, out=output),
}


def _apply_fused_ops(xp, output, args, fused_ops):
    """`output` after the bias (args[0]) and the activation that `fused_ops` name."""
    if not fused_ops or fused_ops[0] != "BiasAdd" or len(args) != 1:
        raise invalid("Unsupported fusion: %s with %d arguments" % (list(fused_ops), len(args)))
    bias = args[0]
    if bias.ndim != 1 or bias.shape[0] != output.shape[-1]:
        raise invalid("Must provide as many biases as the last dimension of the input tensor: "
                      "%s vs. %s" % (list(bias.shape), list(output.shape)))
    output += bias
    for op in fused_ops[1:]:
        activation = _IN_PLACE.get(op)
        if activation is None:
            raise invalid("Unsupported fusion: %s" % list(fused_ops))
        activation(xp, output)
    return output


@register_kernel("_FusedMatMul", ALL_DEVICE_TYPES)
def fused_matmul(ctx, a, b, *args, transpose_a, transpose_b, fused_ops):
    """MatMul, then BiasAdd (+ Relu) on the new product in place."""
    product = matmul(ctx, a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return _apply_fused_ops(ctx.xp, product, args, fused_ops)


@register_kernel("_FusedConv2D", ALL_DEVICE_TYPES)
def fused_conv2d(ctx, input, filter, *args, strides, padding,  # noqa: A002
                 explicit_paddings, data_format, dilations, fused_ops):
    """Conv2D (NHWC), then BiasAdd (+ Relu) on the new output in place."""
    if data_format != "NHWC":
        raise invalid("_FusedConv2D supports NHWC only, got %s" % data_format)
    output = conv2d(ctx, input, filter, strides=strides, padding=padding,
                    explicit_paddings=explicit_paddings, data_format=data_format,
                    dilations=dilations)
    return _apply_fused_ops(ctx.xp, output, args, fused_ops)
