"""`tf.compat.forward_compatible`: has the window for a graph's older readers passed?

A program that writes a graph may be newer than the one that reads it.
TensorFlow guards a change in how an op is built with a date: until
`forward_compatible(year, month, day)` is true, the old way is built, so
that readers built before that date can still run the graph. The answer
compares the date with the horizon, the date of the library itself;
`forward_compatibility_horizon` moves the horizon for a test, and the
environment variable `TF_FORWARD_COMPATIBILITY_DELTA_DAYS` moves it for a
whole process.

minitf writes and reads its graphs with the same code, so none of its ops
waits on a date; the horizon is the day TF 1.15.0 was released.

Mirrors `tensorflow/python/compat/compat.py`.
"""

import contextlib
import datetime
import logging
import os

__all__ = ["forward_compatible", "forward_compatibility_horizon"]

HORIZON = datetime.date(2019, 10, 16)
DELTA_DAYS_VARIABLE = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"

_horizon = HORIZON


def _set_horizon(date=None):
    """Moves the horizon to `date`, or back to HORIZON (plus the environment's delta)."""
    global _horizon
    if date is None:
        date = HORIZON + datetime.timedelta(days=int(os.environ.get(DELTA_DAYS_VARIABLE) or 0))
    if date < HORIZON:
        logging.getLogger("tensorflow").warning(
            "Trying to set the forward compatibility date to the past date %s. This will be "
            "ignored by TensorFlow.", date)
        return
    _horizon = date


_set_horizon()


def forward_compatible(year, month, day):
    """True when the horizon is past (year, month, day): readers of that date are gone."""
    return _horizon > datetime.date(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within the block, the horizon is (year, month, day): for testing a gated change."""
    try:
        _set_horizon(datetime.date(year, month, day))
        yield
    finally:
        _set_horizon()
