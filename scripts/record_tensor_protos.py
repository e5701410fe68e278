"""Records the bytes TensorFlow's make_tensor_proto gives for a set of values.

    /path/to/tf-venv/bin/python scripts/record_tensor_protos.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/graph/data/tensor_protos.json`, and never need TensorFlow. Each case
is a value (a Python value, or a list made into an array of `numpy_dtype`),
the `shape` argument if any, and the serialized TensorProto in hex.
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

CASES = [
    {"value": 1.0}, {"value": 3}, {"value": -7}, {"value": 2 ** 40}, {"value": True},
    {"value": "ab"}, {"value": ["a", "bc", ""]}, {"value": [1, 2, 3]},
    {"value": [[1.5, 2.5], [-3.0, 0.25]]}, {"value": [[True, False]]},
    {"value": [1, 2], "numpy_dtype": "int64"}, {"value": 2.0, "numpy_dtype": "float32"},
    {"value": [1, 0, 1], "numpy_dtype": "bool"}, {"value": [1, 0, 1], "numpy_dtype": "uint16"},
    {"value": [1, 0, 1], "numpy_dtype": "uint32"}, {"value": [1, 0, 1], "numpy_dtype": "uint64"},
    {"value": [1, 0, 1], "numpy_dtype": "int8"}, {"value": [1, 0, 1], "numpy_dtype": "int16"},
    {"value": [1, 2, 255], "numpy_dtype": "uint8"},
    {"value": [0.5, -2.0], "numpy_dtype": "float16"},
    {"value": 5.0, "numpy_dtype": "float16"}, {"value": 7, "numpy_dtype": "uint32"},
    {"value": 7, "numpy_dtype": "uint64"}, {"value": 7, "numpy_dtype": "int16"},
    {"value": [[1.0]], "numpy_dtype": "float64"}, {"value": [], "numpy_dtype": "float32"},
    {"value": 0.5, "shape": [2, 2]}, {"value": [1, 2], "shape": [4]},
    {"value": [[1, 2]], "shape": [2]}, {"value": [1, 2, 3, 4], "shape": [2, 2]},
]


def main():
    for case in CASES:
        value = case["value"]
        if "numpy_dtype" in case:
            value = np.array(value, dtype=case["numpy_dtype"])
        proto = tf.make_tensor_proto(value, shape=case.get("shape"))
        case["hex"] = proto.SerializeToString().hex()
    out = pathlib.Path(__file__).resolve().parent.parent / "tests/graph/data/tensor_protos.json"
    out.write_text(json.dumps({"tensorflow": tf.__version__, "cases": CASES}, indent=1) + "\n")


if __name__ == "__main__":
    main()
