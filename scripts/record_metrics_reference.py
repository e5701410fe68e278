"""Records what TensorFlow's tf.metrics name and compute for the cases of the metrics' tests.

    /path/to/tf-venv/bin/python scripts/record_metrics_reference.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/metrics/data/metrics_reference.json`, and never need TensorFlow.
The metrics and their batches are those of `tests/metrics/metrics_cases.py`;
TF1's reference variables are used (`disable_v2_behavior`), as in TF 1.15.
The file also holds the messages of failing `tf.Assert`s on a few tensors
(`metrics_cases.ASSERT_DATA`), which show how TensorFlow prints a tensor.
"""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "metrics"))
import metrics_cases  # noqa: E402


def main():
    tf.disable_v2_behavior()
    cases = {name: metrics_cases.run_case(tf, name) for name in sorted(metrics_cases.CASES)}
    messages = [metrics_cases.assert_message(tf, *data) for data in metrics_cases.ASSERT_DATA]
    out = ROOT / "tests" / "metrics" / "data" / "metrics_reference.json"
    out.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases,
                               "assert_messages": messages}, indent=1) + "\n")


if __name__ == "__main__":
    main()
