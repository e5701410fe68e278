"""`tf.app.run`: a TF1 script's entry point, `main(argv)` and exit with what it returns.

A TF1 script ends with

    if __name__ == "__main__":
        tf.app.run()

which calls the script's `main(argv)` (or the `main` given) and exits the
process with its return value, as `sys.exit` does: None or 0 is success.
TensorFlow parses the command line with absl's flags first and hands `main`
the arguments no flag took; minitf leaves absl's flags out (`tf.app.flags`,
docs/coverage.md), so `main` gets `argv` (by default `sys.argv`) whole.

Mirrors `tensorflow/python/platform/app.py` (and `absl.app.run` under it).
"""

import sys

from minitf.graph import tf1_api as _tf1_api

__all__ = ["run"]


def run(main=None, argv=None):
    """Calls `main(argv)` (default: the `main` of the script being run) and exits with its
    value."""
    main = main or sys.modules["__main__"].main
    sys.exit(main(sys.argv if argv is None else argv))


def __getattr__(name):
    """Called for a name this module lacks: `flags` gets the reason minitf leaves it out."""
    raise _tf1_api.missing_name_error("tf.app", __name__, name)
