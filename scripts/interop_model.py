"""The values of the model that minitf and TensorFlow each save for the other to read.

Shared by `scripts/record_tf_checkpoint.py` (run with TensorFlow) and
`scripts/write_minitf_model.py` (run with minitf): NumPy only, dtypes by name.
"""

import numpy as np

X = np.array([[1.0, 2.0], [0.5, -1.0], [-2.0, 0.0], [3.0, 1.0]], np.float32)
Y = np.array([[1.0], [0.0], [-1.0], [2.0]], np.float32)

# One extra variable of each dtype both have: {name: (value, dtype name)}.
EXTRAS = {
    "f16": (np.array([1.5, -2.25, 65504.0], np.float16), "float16"),
    "f64": (np.array(np.pi), "float64"),
    "i8": (np.array([-128, 0, 127], np.int8), "int8"),
    "i16": (np.array([[-32768], [32767]], np.int16), "int16"),
    "i32": (np.array(-7, np.int32), "int32"),
    "u8": (np.array([0, 255], np.uint8), "uint8"),
    "u16": (np.array([65535, 1], np.uint16), "uint16"),
    "flag": (np.array([[True, False], [False, True]]), "bool"),
    "words": (np.array([[b"", b"a\x00b"], ["h\u00e9llo".encode(), b"x" * 300]], dtype=object),
              "string"),
    "empty": (np.zeros((0, 3), np.float32), "float32"),
}
