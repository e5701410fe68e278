"""Records the Summary bytes TensorFlow's summary ops output for the cases of the summaries' tests.

    /path/to/tf-venv/bin/python scripts/record_summary_reference.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/summary/data/summary_reference.json`, and never need TensorFlow.
The cases are those of `tests/summary/summary_cases.py`: scalars, histograms
(TensorFlow's buckets), images (the PNG bytes), sounds (the WAV bytes), text
and tensors, merged; each recorded with its node's name and op type. Graph
mode is used (`disable_eager_execution`), as in TF 1.15.
"""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "summary"))
import summary_cases  # noqa: E402


def main():
    tf.disable_eager_execution()
    record = {"tensorflow": tf.__version__, "cases": summary_cases.run_cases(tf),
              "histogram_nan_message": summary_cases.histogram_nan_message(tf),
              "duplicate_tag_message": summary_cases.duplicate_tag_message(tf)}
    out = ROOT / "tests" / "summary" / "data" / "summary_reference.json"
    out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
