"""tf.nn against TensorFlow: the cases of `nn_cases.py`, their values and their node names.

`data/nn_reference.json` holds what TensorFlow computed and named for each
case (written by `scripts/record_nn_reference.py`); minitf builds and runs
the same cases here. Node names are compared as the list of (name, type) of
the ops a case adds, in the order they were created, leaving out the
gradient ops (their values are compared) and reading two spellings of
TensorFlow 2.x as TF 1.15's (`_as_tf1`).
"""

import json
import pathlib

import numpy as np
import pytest

import minitf as tf
import nn_cases

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "nn_reference.json")
                       .read_text())["cases"]


def test_every_case_was_recorded():
    assert sorted(REFERENCE) == sorted(nn_cases.CASES)


@pytest.mark.parametrize("name", sorted(nn_cases.CASES))
def test_values_match_tensorflow(name):
    got = nn_cases.run_case(tf, name)["values"]
    expected = REFERENCE[name]["values"]
    assert len(got) == len(expected)
    spec = nn_cases.CASES[name]
    for i, (g, e) in enumerate(zip(got, expected)):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, "output %d" % i
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=spec["rtol"], atol=spec["atol"],
                                       err_msg="output %d" % i)
        else:
            np.testing.assert_array_equal(g, e, err_msg="output %d" % i)


def _as_tf1(nodes):
    """(name, type) pairs as TF 1.15 spells them, gradient ops left out.

    TensorFlow 2.x builds `tf.add` as AddV2 (TF 1.15: Add) and names the
    constant shape of `ones_like` `.../Shape/shape_as_tensor` (TF 1.15: `.../Shape`).
    The TensorArraySizeV3 op with which TF 1.15 (and minitf) asks a
    TensorArray's size in `stack` is left out: TensorFlow 2.x uses the size
    it was made with.
    """
    return [[name.replace("/shape_as_tensor", ""), "Add" if op_type == "AddV2" else op_type]
            for name, op_type in nodes if not name.startswith("gradients")
            and not name.endswith("TensorArrayStack/TensorArraySizeV3")]


@pytest.mark.parametrize("name", sorted(n for n, c in nn_cases.CASES.items()
                                        if c["same_nodes"]))
def test_node_names_match_tensorflow(name):
    got = _as_tf1(nn_cases.run_case(tf, name)["nodes"])
    expected = _as_tf1(REFERENCE[name]["nodes"])
    if nn_cases.CASES[name]["same_nodes"] == "names":
        got, expected = [n for n, _ in got], [n for n, _ in expected]
    assert got == expected
