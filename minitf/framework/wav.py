"""WAV encoding: how an audio summary stores its sounds, 16-bit samples in a RIFF file.

The file is a 44-byte header and the samples:

    "RIFF" <size of the rest> "WAVE"
    "fmt " 16  format 1 (PCM), channels, sample rate, bytes per second,
               bytes per frame, 16 bits per sample
    "data" <size of the samples>  the samples, frame after frame, each
               channel's sample of a frame in turn, int16 little-endian

A sample in [-1, 1] becomes round(x * 32768), rounded half away from zero
in single precision, clipped to [-32768, 32767].

Mirrors `tensorflow/core/lib/wav/wav_io.cc` (`EncodeAudioAsS16LEWav`).
"""

import struct

import numpy as np

_HEADER = struct.Struct("<4sI4s4sIHHIIHH4sI")


def encode_wav(samples, sample_rate):
    """The WAV bytes of float samples shaped [frames, channels] at `sample_rate` Hz (an int)."""
    samples = np.asarray(samples, dtype=np.float32)
    frames, channels = samples.shape
    data = float_to_int16(samples).astype("<i2").tobytes()
    header = _HEADER.pack(b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, channels,
                          sample_rate, sample_rate * channels * 2, channels * 2, 16,
                          b"data", len(data))
    return header + data


def float_to_int16(samples):
    """roundf(x * 32768) clipped to int16, as TensorFlow computes it (NaN gives 0).

    Scaling by 2**15 is exact in float32; the rounding (half away from zero)
    is done in float64, where `|x| + 0.5` is exact for every float32 x.
    """
    scaled = (samples * np.float32(1 << 15)).astype(np.float64)
    rounded = np.copysign(np.floor(np.abs(scaled) + 0.5), scaled)
    return np.clip(np.nan_to_num(rounded, nan=0.0), -32768, 32767).astype(np.int16)
