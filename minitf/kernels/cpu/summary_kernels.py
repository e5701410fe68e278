"""The summary kernels: a tag and a tensor in, the bytes of a `Summary` message out.

Each kernel builds a `Summary` (`minitf/proto/summary.proto`) and returns
its bytes as a string scalar:

- ScalarSummary: one value per tag, `simple_value` the number as a float;
- HistogramSummary: the values bucketed as TensorFlow buckets them
  (`minitf/framework/histogram.py`); a NaN or an infinity fails the step;
- ImageSummary: up to `max_images` images of a [batch, height, width,
  channels] tensor, each a PNG (`minitf/framework/png.py`); float images
  are scaled into 0..255 first;
- AudioSummaryV2: up to `max_outputs` sounds of a [batch, frames(,
  channels)] tensor, each a WAV file (`minitf/framework/wav.py`);
- TensorSummaryV2: the whole tensor as a TensorProto, with the metadata
  that says which TensorBoard plugin reads it (the text plugin for
  `tf.summary.text`);
- MergeSummary: the values of several summaries in one, a tag at most once.

The messages are made with the protobuf runtime, which this module imports
when a summary runs: `import minitf` needs NumPy alone.

Mirrors `tensorflow/core/kernels/summary_op.cc`, `summary_image_op.cc`,
`summary_audio_op.cc` and `summary_tensor_op.cc`.
"""

import numpy as np

from minitf.framework import histogram, png, wav
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.kernels.kernel_util import invalid, shape_text, text, texts


def _summary_pb2():
    from minitf.proto import summary_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    return summary_pb2


def _serialized(summary):
    return np.array(summary.SerializeToString(), dtype=object)


def _single_tag(tags):
    """` (tag 'x')` when there is one tag, to say which summary failed; else nothing."""
    return " (tag '%s')" % text(tags.reshape(-1)[0]) if tags.size == 1 else ""


def _scalar_tag(tag, what="Tags"):
    if np.ndim(tag) != 0:
        raise invalid("%s must be a scalar" % what)
    return text(tag)


# =============================================================================
# Numbers and histograms
# =============================================================================

@register_kernel("ScalarSummary", "CPU")
def scalar_summary(ctx, tags, values, *, T):  # noqa: N803 - the attr's name
    del ctx, T
    tags, values = np.asarray(tags, dtype=object), np.asarray(values)
    if tags.shape != values.shape:
        raise invalid("tags and values not the same shape: %s != %s%s"
                      % (shape_text(tags.shape), shape_text(values.shape), _single_tag(tags)))
    summary = _summary_pb2().Summary()
    for tag, value in zip(texts(tags), values.reshape(-1)):
        summary.value.add(tag=tag, simple_value=float(value))
    return _serialized(summary)


@register_kernel("HistogramSummary", "CPU")
def histogram_summary(ctx, tag, values, *, T):  # noqa: N803 - the attr's name
    del ctx, T
    tag = _scalar_tag(tag)
    values = np.asarray(values).astype(np.float64).reshape(-1)
    if not np.all(np.isfinite(values)):
        raise invalid("Nan in summary histogram for: %s" % tag)
    summary_pb2 = _summary_pb2()
    summary = summary_pb2.Summary()
    summary.value.add(tag=tag, histo=summary_pb2.HistogramProto(
        **histogram.histogram_fields(values)))
    return _serialized(summary)


# =============================================================================
# Images
# =============================================================================

_ZERO_THRESHOLD = np.float32(1e-6)


@register_kernel("ImageSummary", "CPU")
def image_summary(ctx, tag, tensor, *, max_images, T, bad_color):  # noqa: N803 - the attr's name
    del ctx, T
    tag = _scalar_tag(tag)
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise invalid("Tensor must be 4-D with last dim 1, 3, or 4, not %s"
                      % shape_text(tensor.shape))
    batch, height, width, depth = tensor.shape
    bad_color = np.asarray(bad_color, dtype=np.uint8).reshape(-1)
    if tensor.dtype != np.uint8 and bad_color.size < depth:
        raise invalid("expected depth <= bad_color.size, got depth = %d, bad_color.size = %d"
                      % (depth, bad_color.size))
    summary = _summary_pb2().Summary()
    for i in range(min(max_images, batch)):
        image = tensor[i] if tensor.dtype == np.uint8 else normalize_float_image(
            tensor[i], bad_color[:depth])
        summary.value.add(
            tag="%s/image/%d" % (tag, i) if max_images > 1 else "%s/image" % tag,
            image=_summary_pb2().Summary.Image(
                height=height, width=width, colorspace=depth,
                encoded_image_string=png.encode_png(image) if image.size else b""))
    return _serialized(summary)


def normalize_float_image(image, bad_color):
    """A float image [h, w, c] as uint8, as TensorFlow scales it.

    Only non-negative values: multiplied by 255 / max. Negative values too:
    multiplied by 127 / max |value| and shifted by 128, so that 0 is grey. A
    pixel with a non-finite channel takes `bad_color`; the others set the
    range. The arithmetic is the image's own precision, the cast truncates.
    """
    dtype = image.dtype.type
    pixels = image.reshape(-1, image.shape[-1])
    finite = np.all(np.isfinite(pixels), axis=1)
    good = pixels[finite].astype(np.float32)
    low = good.min() if good.size else np.float32(np.inf)
    high = good.max() if good.size else np.float32(-np.inf)
    if low < 0:
        largest = max(abs(low), abs(high))
        scale = dtype(0.0 if largest < _ZERO_THRESHOLD else np.float32(127.0) / largest)
        offset = dtype(128.0)
    else:
        scale = dtype(0.0 if high < _ZERO_THRESHOLD else np.float32(255.0) / high)
        offset = dtype(0.0)
    out = np.empty(pixels.shape, np.uint8)
    with np.errstate(invalid="ignore"):
        out[finite] = (pixels[finite] * scale + offset).astype(np.uint8)
    out[~finite] = bad_color
    return out.reshape(image.shape)


# =============================================================================
# Sounds
# =============================================================================

@register_kernel("AudioSummaryV2", "CPU")
def audio_summary_v2(ctx, tag, tensor, sample_rate, *, max_outputs):
    del ctx
    tag = _scalar_tag(tag, "Tag")
    tensor = np.asarray(tensor, dtype=np.float32)
    if tensor.ndim not in (2, 3):
        raise invalid("Tensor must be 3-D or 2-D, got: %s" % shape_text(tensor.shape))
    if np.ndim(sample_rate) != 0:
        raise invalid("sample_rate must be rank-0 or contain a single value")
    sample_rate = np.float32(sample_rate)
    if not sample_rate > 0.0:
        raise invalid("sample_rate must be > 0")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    sounds = tensor.reshape(batch, frames, channels)
    rate = max(int(np.rint(sample_rate)), 1)   # lrintf: to the nearest, halves to even
    summary = _summary_pb2().Summary()
    for i in range(min(max_outputs, batch)):
        summary.value.add(
            tag="%s/audio/%d" % (tag, i) if max_outputs > 1 else "%s/audio" % tag,
            audio=_summary_pb2().Summary.Audio(
                sample_rate=float(sample_rate), num_channels=channels, length_frames=frames,
                content_type="audio/wav", encoded_audio_string=wav.encode_wav(sounds[i], rate)))
    return _serialized(summary)


# =============================================================================
# Tensors, and merging
# =============================================================================

@register_kernel("TensorSummaryV2", "CPU")
def tensor_summary_v2(ctx, tag, tensor, serialized_summary_metadata, *, T):  # noqa: N803
    del ctx
    summary = _summary_pb2().Summary()
    value = summary.value.add(tag=text(tag), tensor=tensor_as_proto(tensor, T))
    value.metadata.ParseFromString(np.asarray(serialized_summary_metadata, dtype=object).item())
    return _serialized(summary)


def tensor_as_proto(value, dtype):
    """A tensor as TensorFlow's kernel stores it: numbers in `tensor_content`, strings apart."""
    from minitf.proto import tensor_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    value = np.asarray(value)
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    for size in value.shape:
        proto.tensor_shape.dim.add(size=size)
    if dtype == dtypes.string:
        proto.string_val.extend(
            v if isinstance(v, bytes) else str(v).encode("utf-8") for v in value.reshape(-1))
    else:
        little_endian = value.astype(value.dtype.newbyteorder("<"), copy=False)
        proto.tensor_content = np.ascontiguousarray(little_endian).tobytes()
    return proto


@register_kernel("MergeSummary", "CPU")
def merge_summary(ctx, *inputs, N):  # noqa: N803 - the attr's name
    del ctx, N
    summary_pb2 = _summary_pb2()
    merged, tags = summary_pb2.Summary(), set()
    for serialized in (s for inp in inputs for s in np.asarray(inp, dtype=object).reshape(-1)):
        one = summary_pb2.Summary()
        try:
            one.ParseFromString(serialized)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError, whatever its class
            raise invalid("Could not parse one of the summary inputs") from None
        for value in one.value:
            if value.tag and value.tag in tags:
                raise invalid("Duplicate tag %s found in summary inputs" % value.tag)
            tags.add(value.tag)
            merged.value.add().CopyFrom(value)
    return _serialized(merged)
