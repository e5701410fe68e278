"""Records what the reference TensorFlow computes, and the nodes it builds, for tf.sparse.

Run by hand with the reference TensorFlow:
    /work/tfref/bin/python scripts/record_sparse_reference.py
It builds every expression of tests/ops/sparse_reference_cases.py with
`tensorflow.compat.v1` in graph mode, runs it, and writes its value and the
names of the nodes it built to tests/ops/data/sparse_reference.json, which
tests/ops/test_sparse_module.py compares minitf with.
"""

import importlib.util
import json
import pathlib

import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "ops" / "sparse_reference_cases.py"
OUTPUT = ROOT / "tests" / "ops" / "data" / "sparse_reference.json"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    tf.disable_eager_execution()
    as_json = _load(ROOT / "scripts" / "record_array_string_values.py", "record").as_json
    cases = _load(CASES, "sparse_reference_cases").cases(tf)
    records = {"_note": "Written by scripts/record_sparse_reference.py with TensorFlow %s "
                        "(tensorflow.compat.v1, graph mode)." % tf.__version__}
    for name, build in cases.items():
        with tf.Graph().as_default() as graph:
            fetch = build()
            nodes = [op.name for op in graph.get_operations()]
            with tf.Session() as sess:
                records[name] = {"value": as_json(sess.run(fetch)), "nodes": nodes}
    OUTPUT.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
