"""Kernels that move blocks of space: into the batch, into the depth, into patches.

Each is a reshape, a transpose and a reshape (plus padding or cropping):

- SpaceToBatchND pads the M spatial dimensions, cuts each into blocks of
  `block_shape`, and sends the position inside the block to the batch:
  [batch, h, w, c] with a 2x2 block becomes [4 * batch, h / 2, w / 2, c],
  the first quarter of the batch holding every top-left pixel. It is how
  TensorFlow runs an atrous (dilated) convolution as an ordinary one.
  BatchToSpaceND undoes it, then crops.
- SpaceToDepth sends each block x block patch of pixels to the channels;
  DepthToSpace undoes it (sub-pixel upsampling).
- ExtractImagePatches (and ExtractVolumePatches, in 3-D) lays out every
  window a convolution would see as one row of the depth: the result is
  [batch, out_rows, out_cols, ksize_rows * ksize_cols * depth].

Written once against `ctx.xp`, for the CPU and a GPU alike.

Mirrors `tensorflow/core/kernels/spacetobatch_op.cc`, `batchtospace_op.cc`,
`spacetodepth_op.cc`, `depthtospace_op.cc`, `extract_image_patches_op.cc` and
`extract_volume_patches_op.cc`.
"""

import math

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


def _block_and_pairs(ctx, value, block_shape, pairs, what):
    """block_shape as ints and `pairs` (paddings or crops) as [before, after] per block dim."""
    block = np.asarray(host_array(ctx, block_shape)).astype(np.int64)
    pairs = np.asarray(host_array(ctx, pairs)).astype(np.int64)
    if block.ndim != 1:
        raise invalid("block_shape must be one-dimensional, got shape %s"
                      % shape_text(block.shape))
    if pairs.shape != (len(block), 2):
        raise invalid("%s should have shape [%d, 2] instead of %s"
                      % (what, len(block), shape_text(pairs.shape)))
    if value.ndim < 1 + len(block):
        raise invalid("input rank should be >= %d instead of %d" % (1 + len(block), value.ndim))
    if np.any(block < 1):
        raise invalid("All values in block_shape must be positive, got value, %s"
                      % block.tolist())
    if np.any(pairs < 0):
        raise invalid("All values in %s must be non-negative, got value, %s"
                      % (what, pairs.tolist()))
    return block.tolist(), pairs.tolist()


@register_kernel("SpaceToBatchND", ALL_DEVICE_TYPES)
def space_to_batch_nd(ctx, value, block_shape, paddings):
    xp = ctx.xp
    block, pads = _block_and_pairs(ctx, value, block_shape, paddings, "paddings")
    m = len(block)
    padded = xp.pad(value, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (value.ndim - 1 - m))
    batch, rest = value.shape[0], tuple(value.shape[1 + m:])
    split_shape = [batch]
    for i, b in enumerate(block):
        size = padded.shape[1 + i]
        if size % b:
            raise invalid("padded_shape[%d]=%d is not divisible by block_shape[%d]=%d"
                          % (i, size, i, b))
        split_shape += [size // b, b]
    split = xp.reshape(padded, tuple(split_shape) + rest)
    # [batch, s1, b1, ..., sM, bM, rest] -> [b1, ..., bM, batch, s1, ..., sM, rest]
    order = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
             + list(range(1 + 2 * m, split.ndim)))
    moved = xp.transpose(split, order)
    return xp.reshape(moved, (batch * math.prod(block),)
                      + tuple(split_shape[1 + 2 * i] for i in range(m)) + rest)


@register_kernel("BatchToSpaceND", ALL_DEVICE_TYPES)
def batch_to_space_nd(ctx, value, block_shape, crops):
    xp = ctx.xp
    block, crops = _block_and_pairs(ctx, value, block_shape, crops, "crops")
    m = len(block)
    blocks = math.prod(block)
    if value.shape[0] % blocks:
        raise invalid("Input batch dimension (%d) is not divisible by product of block sizes "
                      "(%d)" % (value.shape[0], blocks))
    batch = value.shape[0] // blocks
    spatial, rest = tuple(value.shape[1:1 + m]), tuple(value.shape[1 + m:])
    for i, (size, b, (before, after)) in enumerate(zip(spatial, block, crops)):
        if before + after > size * b:
            raise invalid("crops must be less than the uncropped size: crops[%d] = [%d, %d] "
                          "for a dimension of %d" % (i, before, after, size * b))
    split = xp.reshape(value, tuple(block) + (batch,) + spatial + rest)
    # [b1, ..., bM, batch, s1, ..., sM, rest] -> [batch, s1, b1, ..., sM, bM, rest]
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(1 + 2 * m, split.ndim))
    joined = xp.reshape(xp.transpose(split, order),
                        (batch,) + tuple(s * b for s, b in zip(spatial, block)) + rest)
    index = (slice(None),) + tuple(slice(before, s * b - after)
                                   for (before, after), s, b in zip(crops, spatial, block))
    return joined[index]


# =============================================================================
# SpaceToDepth, DepthToSpace
# =============================================================================

def _as_nhwc(ctx, value, data_format):
    if value.ndim != 4:
        raise invalid("Input rank should be: 4 instead of: %d" % value.ndim)
    if data_format == "NCHW_VECT_C":
        raise errors.UnimplementedError(None, None, "NCHW_VECT_C is not supported by minitf")
    return ctx.xp.transpose(value, (0, 2, 3, 1)) if data_format == "NCHW" else value


def _from_nhwc(ctx, value, data_format):
    return ctx.xp.transpose(value, (0, 3, 1, 2)) if data_format == "NCHW" else value


@register_kernel("SpaceToDepth", ALL_DEVICE_TYPES)
def space_to_depth(ctx, value, *, block_size, data_format):
    """Each block x block patch of pixels becomes one pixel of block * block * depth channels."""
    xp, b = ctx.xp, block_size
    nhwc = _as_nhwc(ctx, value, data_format)
    n, h, w, c = nhwc.shape
    if h % b or w % b:
        raise invalid("Image height %d and width %d should be divisible by block_size: %d"
                      % (h, w, b))
    patches = xp.transpose(xp.reshape(nhwc, (n, h // b, b, w // b, b, c)), (0, 1, 3, 2, 4, 5))
    return _from_nhwc(ctx, xp.reshape(patches, (n, h // b, w // b, b * b * c)), data_format)


@register_kernel("DepthToSpace", ALL_DEVICE_TYPES)
def depth_to_space(ctx, value, *, block_size, data_format):
    """Each pixel's channels, in groups of depth / block**2, spread over a block x block patch."""
    xp, b = ctx.xp, block_size
    nhwc = _as_nhwc(ctx, value, data_format)
    n, h, w, c = nhwc.shape
    if c % (b * b):
        raise invalid("Input depth dimension %d should be divisible by: %d" % (c, b * b))
    pixels = xp.transpose(xp.reshape(nhwc, (n, h, w, b, b, c // (b * b))), (0, 1, 3, 2, 4, 5))
    return _from_nhwc(ctx, xp.reshape(pixels, (n, h * b, w * b, c // (b * b))), data_format)


# =============================================================================
# ExtractImagePatches, ExtractVolumePatches
# =============================================================================

def _check_across_space(values, what):
    if values[0] != 1 or values[-1] != 1:
        raise errors.UnimplementedError(None, None, "Only support %s across space." % what)


def _extract_patches(ctx, value, ksizes, strides, rates, padding):
    """[batch, out positions..., taps * depth]: every window, its taps in row-major order."""
    xp = ctx.xp
    spatial = value.ndim - 2
    sizes, steps, gaps = ksizes[1:-1], strides[1:-1], rates[1:-1]
    windows = [k + (k - 1) * (r - 1) for k, r in zip(sizes, gaps)]
    pads, outs = [], []
    for size, window, step in zip(value.shape[1:-1], windows, steps):
        if padding == "VALID":
            out = (size - window) // step + 1 if size >= window else 0
            pads.append((0, 0))
        else:
            out = -(-size // step)
            total = max((out - 1) * step + window - size, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(out)
    padded = xp.pad(value, [(0, 0)] + pads + [(0, 0)])
    taps = []
    for tap in np.ndindex(*sizes):
        index = tuple(slice(t * r, t * r + (o - 1) * s + 1, s) if o else slice(0, 0)
                      for t, r, o, s in zip(tap, gaps, outs, steps))
        taps.append(padded[(slice(None),) + index + (slice(None),)])
    stacked = xp.stack(taps, axis=1 + spatial)  # [batch, outs..., taps, depth]
    return xp.reshape(stacked, (value.shape[0],) + tuple(outs) + (len(taps) * value.shape[-1],))


@register_kernel("ExtractImagePatches", ALL_DEVICE_TYPES)
def extract_image_patches(ctx, images, *, ksizes, strides, rates, padding):
    if images.ndim != 4:
        raise invalid("input must be 4-dimensional, got %s" % shape_text(images.shape))
    for values, what in ((ksizes, "ksizes"), (strides, "strides"), (rates, "rates")):
        _check_across_space(values, what)
    return _extract_patches(ctx, images, ksizes, strides, rates, padding)


@register_kernel("ExtractVolumePatches", ALL_DEVICE_TYPES)
def extract_volume_patches(ctx, volumes, *, ksizes, strides, padding):
    if volumes.ndim != 5:
        raise invalid("input must be 5-dimensional, got %s" % shape_text(volumes.shape))
    for values, what in ((ksizes, "ksizes"), (strides, "strides")):
        _check_across_space(values, what)
    return _extract_patches(ctx, volumes, ksizes, strides, [1] * 5, padding)
