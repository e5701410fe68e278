"""PNG encoding: how an image summary stores its pictures, as TensorFlow's libpng writes them.

A PNG file is an 8-byte signature and a list of *chunks*, each its length,
a 4-letter type, its data and a CRC-32 of type and data:

    IHDR   width, height, bit depth 8, colour type (grey, grey+alpha, RGB,
           RGBA), compression 0, filter 0, interlace 0
    IDAT   the pixels, compressed with zlib's deflate (one or more chunks)
    IEND   nothing: the end

Before compression each row of bytes is *filtered*: a filter byte, then the
row written as differences from its neighbours (none, the byte to the left,
the byte above, their average, or Paeth's predictor), which compress better
than the raw bytes. Like libpng, the encoder tries all five on each row and
keeps the one whose bytes, read as signed numbers, have the smallest sum of
absolute values. The zlib settings are libpng's as TensorFlow configures it:
level 6, memory level 9, the "filtered" strategy, and a window no larger
than the image needs; IDAT chunks hold 8192 bytes each. So the bytes are
the ones TensorFlow writes (with the same zlib).

The compression is zlib's (Python's standard `zlib`), as are the chunks'
CRC-32s; this module only arranges bytes.

Mirrors `tensorflow/core/lib/png/png_io.cc` (`WriteImageToBuffer`) and the
parts of libpng it calls (`pngwutil.c`: `png_write_find_filter`,
`png_deflate_claim`, `optimize_cmf`).
"""

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
_IDAT_SIZE = 8192                          # libpng's PNG_ZBUF_SIZE
_MEMORY_LEVEL = 9                          # TensorFlow's MAX_MEM_LEVEL


def encode_png(image):
    """The PNG bytes of a uint8 image of shape [height, width, channels], channels 1 to 4."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    filtered = filter_rows(image.reshape(height, width * channels), channels)
    compressed = _deflate(filtered)
    chunks = [_chunk(b"IHDR", header)]
    chunks += [_chunk(b"IDAT", compressed[i:i + _IDAT_SIZE])
               for i in range(0, len(compressed), _IDAT_SIZE)]
    chunks.append(_chunk(b"IEND", b""))
    return SIGNATURE + b"".join(chunks)


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


# --- filtering -----------------------------------------------------------------------

def filter_rows(rows, bpp):
    """Each row preceded by its filter byte and filtered, the filter chosen as libpng chooses.

    `rows` is [height, row_bytes] uint8; `bpp` the bytes per pixel. Returns the bytes.
    """
    raw = rows.astype(np.int16)
    above = np.vstack([np.zeros((1, raw.shape[1]), np.int16), raw[:-1]])
    left = np.hstack([np.zeros((raw.shape[0], bpp), np.int16), raw[:, :-bpp]])
    upper_left = np.hstack([np.zeros((raw.shape[0], bpp), np.int16), above[:, :-bpp]])
    candidates = np.stack([                       # in libpng's order: None, Sub, Up, Avg, Paeth
        raw, raw - left, raw - above, raw - (left + above) // 2,
        raw - _paeth(left, above, upper_left)]) & 0xFF
    signed_size = np.where(candidates < 128, candidates, 256 - candidates).sum(axis=2)
    choice = np.argmin(signed_size, axis=0)       # the first of equal sums, as libpng keeps it
    chosen = candidates[choice, np.arange(raw.shape[0])]
    return np.hstack([choice[:, None], chosen]).astype(np.uint8).tobytes()


def _paeth(a, b, c):
    """Paeth's predictor: of left, above and upper-left, the one nearest to left + above - upper-left."""
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


# --- compression ---------------------------------------------------------------------

def _deflate(data):
    """zlib's stream of `data` with libpng's settings: its window shrunk to what the data needs."""
    window_bits = 15
    if len(data) <= 16384:
        half_window = 1 << (window_bits - 1)
        while len(data) + 262 <= half_window:
            half_window >>= 1
            window_bits -= 1
    compressor = zlib.compressobj(6, zlib.DEFLATED, max(window_bits, 9), _MEMORY_LEVEL,
                                  zlib.Z_FILTERED)
    stream = bytearray(compressor.compress(data) + compressor.flush())
    _optimize_cmf(stream, len(data))
    return bytes(stream)


def _optimize_cmf(stream, data_size):
    """Rewrites the zlib header to announce the smallest window that holds the data (libpng's)."""
    if data_size > 16384:
        return
    cmf = stream[0]
    if (cmf & 0x0F) != 8 or (cmf & 0xF0) > 0x70:
        return
    cinfo = cmf >> 4
    half_window = 1 << (cinfo + 7)
    if data_size > half_window:
        return
    while True:
        half_window >>= 1
        cinfo -= 1
        if not (cinfo > 0 and data_size <= half_window):
            break
    cmf = (cmf & 0x0F) | (cinfo << 4)
    flags = stream[1] & 0xE0
    flags += 0x1F - ((cmf << 8) + flags) % 0x1F
    stream[0], stream[1] = cmf, flags
