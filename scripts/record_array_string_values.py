"""Records what the reference TensorFlow computes for the array and string cases.

Run by hand with the reference TensorFlow:
    /work/tfref/bin/python scripts/record_array_string_values.py
It builds every expression of tests/ops/tf_reference_cases.py with
`tensorflow.compat.v1` in graph mode, runs it, and writes the values to
tests/ops/data/array_string_values.json, which
tests/ops/test_array_string_reference.py compares minitf with.
"""

import importlib.util
import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "ops" / "tf_reference_cases.py"
OUTPUT = ROOT / "tests" / "ops" / "data" / "array_string_values.json"


def as_json(value):
    """A fetched value as JSON: arrays as {dtype, value}, bytes as UTF-8 text (or code units)."""
    if isinstance(value, tf.SparseTensorValue):
        return {"sparse": [as_json(value.indices), as_json(value.values),
                           as_json(value.dense_shape)]}
    if isinstance(value, (tuple, list)):
        return [as_json(v) for v in value]
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind == "S":
        flat = [b.decode("utf-8", "surrogateescape") for b in array.reshape(-1)]
        return {"dtype": "string", "shape": list(array.shape), "value": flat}
    return {"dtype": array.dtype.name, "shape": list(array.shape),
            "value": array.reshape(-1).tolist()}


def main():
    tf.disable_eager_execution()
    spec = importlib.util.spec_from_file_location("tf_reference_cases", CASES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    values = {"_note": "Written by scripts/record_array_string_values.py with TensorFlow %s "
                       "(tensorflow.compat.v1, graph mode)." % tf.__version__}
    for name, build in module.cases(tf).items():
        with tf.Graph().as_default():
            fetch = build()
            with tf.Session() as sess:
                values[name] = as_json(sess.run(fetch))
    OUTPUT.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
