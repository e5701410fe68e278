"""The array and string families against values recorded from the reference TensorFlow.

Each case of tests/ops/tf_reference_cases.py is built with minitf and run;
its value must equal, in dtype, shape and elements, what TensorFlow computed
for the same expression (tests/ops/data/array_string_values.json, written by
scripts/record_array_string_values.py).
"""

import json
import pathlib

import numpy as np
import pytest

import minitf as tf
from tests.ops import tf_reference_cases

RECORDED = json.loads((pathlib.Path(__file__).parent / "data"
                       / "array_string_values.json").read_text())
CASES = tf_reference_cases.cases(tf)


def test_every_case_was_recorded_and_every_record_has_a_case():
    assert set(CASES) == set(RECORDED) - {"_note"}


def _assert_same(actual, expected, where):
    if isinstance(expected, dict) and "sparse" in expected:
        assert isinstance(actual, tf.SparseTensorValue), where
        for part, part_expected in zip(actual, expected["sparse"]):
            _assert_same(part, part_expected, where)
    elif isinstance(expected, list):
        assert len(actual) == len(expected), where
        for a, e in zip(actual, expected):
            _assert_same(a, e, where)
    else:
        # A scalar string comes back as bytes, in TensorFlow as in minitf.
        array = np.array(actual, dtype=object) if isinstance(actual, bytes) else actual
        array = np.asarray(array)
        assert list(array.shape) == expected["shape"], where
        if expected["dtype"] == "string":
            assert array.dtype == object, where
            got = [b.decode("utf-8", "surrogateescape") for b in array.reshape(-1)]
            assert got == expected["value"], where
        else:
            assert array.dtype.name == expected["dtype"], where
            np.testing.assert_array_equal(array.reshape(-1), expected["value"], err_msg=where)


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_matches_tensorflow(name):
    with tf.Graph().as_default():
        fetch = CASES[name]()
        with tf.Session() as sess:
            _assert_same(sess.run(fetch), RECORDED[name], name)
