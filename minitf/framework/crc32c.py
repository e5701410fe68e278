"""CRC-32C, the checksum of TensorFlow's files, and the "mask" that TensorFlow stores it under.

CRC-32C (Castagnoli's polynomial, as in iSCSI and ext4) guards every byte
TensorFlow writes in its own formats: each block of a checkpoint's index
table, each tensor of its data files (`tensor_bundle.py`), each record of a
TFRecord file. Computing it is the job of `google-crc32c`, Google's library
(the CPU's CRC32 instruction where there is one); this module adds what
TensorFlow adds on top:

- `extend(crc, data)` continues a checksum over more bytes, so that one
  checksum can cover pieces written one after another;
- `mask(crc)` is what gets *stored*. A file full of checksums may itself be
  checksummed (a data block holding CRCs, say), and the CRC of bytes that
  embed their own CRC behaves badly; so TensorFlow stores the CRC rotated
  right by 15 bits plus a constant, and `unmask` undoes that on reading.

`google-crc32c` is imported the first time a checksum is computed, never
by `import minitf`.

Mirrors `tensorflow/core/lib/hash/crc32c.h` (Value, Extend, Mask, Unmask).
"""

_MASK_DELTA = 0xA282EAD8
_UINT32 = 0xFFFFFFFF


_library = None  # google_crc32c, once a checksum has been asked for


def _crc32c():
    global _library
    if _library is None:
        import google_crc32c  # noqa: PLC0415 - the C library is loaded only when used
        _library = google_crc32c
    return _library


def value(data):
    """The CRC-32C of `data` (bytes-like)."""
    return _crc32c().value(data if isinstance(data, bytes) else bytes(data))


def extend(crc, data):
    """The CRC-32C of the bytes `crc` covers followed by `data`."""
    return _crc32c().extend(crc, data if isinstance(data, bytes) else bytes(data))


def value_of_bytes():
    """The library's own function behind `value`, for `bytes` only.

    For a loop over many small pieces (the records of a TFRecord file),
    where a Python call around each checksum costs more than the checksum.
    """
    return _crc32c().value


def masked_value(data):
    """`mask(value(data))` in one call: TFRecord checks one for every record it reads."""
    crc = _crc32c().value(data if isinstance(data, bytes) else bytes(data))
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _UINT32


def mask(crc):
    """The stored form of `crc`: rotated right by 15 bits, plus a constant (mod 2**32)."""
    rotated = ((crc >> 15) | (crc << 17)) & _UINT32
    return (rotated + _MASK_DELTA) & _UINT32


def unmask(masked_crc):
    """The CRC that `mask` turned into `masked_crc`."""
    rotated = (masked_crc - _MASK_DELTA) & _UINT32
    return ((rotated >> 17) | (rotated << 15)) & _UINT32
