"""Records what TensorFlow computes and names for the tf.nn cases of the tests.

    /path/to/tf-venv/bin/python scripts/record_nn_reference.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/ops/data/nn_reference.json`, and never need TensorFlow. The cases
are those of `tests/ops/nn_cases.py`, built in graph mode with TF1's
behaviour (`disable_v2_behavior`).
"""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ops"))
import nn_cases  # noqa: E402


class _Overridden:
    """`module` with some attributes replaced."""

    def __init__(self, module, **overrides):
        self._module = module
        self._overrides = overrides

    def __getattr__(self, name):
        if name in self._overrides:
            return self._overrides[name]
        return getattr(self._module, name)


def _with_tf1_cells(tf):
    """tf.compat.v1 whose `nn.rnn_cell` is TensorFlow's own module of the TF 1 cells: with
    Keras 3 installed, tf.compat.v1.nn.rnn_cell refuses to load them."""
    from tensorflow.python.ops import rnn_cell  # noqa: PLC0415 - needs TensorFlow, run by hand
    return _Overridden(tf, nn=_Overridden(tf.nn, rnn_cell=rnn_cell))


def main():
    tf.disable_v2_behavior()
    tf_with_cells = _with_tf1_cells(tf)
    cases = {name: nn_cases.run_case(tf_with_cells, name) for name in sorted(nn_cases.CASES)}
    out = ROOT / "tests" / "ops" / "data" / "nn_reference.json"
    out.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases}, indent=0)
                   + "\n")


if __name__ == "__main__":
    main()
