"""The histogram of a summary: TensorFlow's fixed buckets, growing by 10 % away from zero.

Every histogram TensorFlow writes shares one list of bucket limits: 0, and on
each side of it limits that start at 1e-12 and grow by a factor 1.1 up to
1e20, closed by the largest double. A value falls in the first bucket whose
limit is above it (bucket i holds [limit[i - 1], limit[i])), so small and
large values alike are told apart to within 10 %. The message then keeps
only what is there: each run of empty buckets becomes one entry, with the
limit of the run's last bucket and a count of 0. TensorBoard rebuckets
these for its charts.

The limits are computed as TensorFlow computes them (repeated
multiplication by 1.1 in doubles), so the bytes of a histogram are
TensorFlow's.

Mirrors `tensorflow/core/lib/histogram/histogram.cc` (`Histogram`,
`InitDefaultBuckets`, `EncodeToProto`).
"""

import functools
import sys

import numpy as np

DBL_MAX = sys.float_info.max


@functools.lru_cache(maxsize=None)
def default_bucket_limits():
    """-DBL_MAX, ..., -1e-12, 0, 1e-12, ..., 1e20-ish, DBL_MAX: 1551 limits, as a float64 array."""
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(DBL_MAX)
    limits = [-p for p in reversed(positive)] + [0.0] + positive
    array = np.array(limits, dtype=np.float64)
    array.flags.writeable = False
    return array


def histogram_fields(values):
    """The fields of a HistogramProto for the finite values `values` (any shape), as a dict.

    `min` and `max` of no values are DBL_MAX and -DBL_MAX, as TensorFlow
    starts them.
    """
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    limits = default_bucket_limits()
    # upper_bound: the first limit above the value (DBL_MAX itself goes in the last bucket)
    index = np.minimum(np.searchsorted(limits, values, side="right"), len(limits) - 1)
    counts = np.bincount(index, minlength=len(limits)).astype(np.float64)
    bucket_limit, bucket = _collapse_empty_runs(limits, counts)
    return {"min": float(values.min()) if values.size else DBL_MAX,
            "max": float(values.max()) if values.size else -DBL_MAX,
            "num": float(values.size), "sum": _sequential_sum(values),
            "sum_squares": _sequential_sum(values * values),
            "bucket_limit": bucket_limit, "bucket": bucket}


def _collapse_empty_runs(limits, counts):
    """The (limit, count) entries of the message: a run of empty buckets becomes its last limit."""
    bucket_limit, bucket = [], []
    i = 0
    while i < len(counts):
        end, count = limits[i], counts[i]
        i += 1
        if count <= 0.0:
            while i < len(counts) and counts[i] <= 0.0:
                end, count = limits[i], counts[i]
                i += 1
        bucket_limit.append(float(end))
        bucket.append(float(count))
    return bucket_limit, bucket


def _sequential_sum(values):
    """The sum added up one value after another, left to right, as TensorFlow's loop adds it.

    NumPy's `sum` adds pairwise, which may differ in the last bits.
    """
    return float(np.add.accumulate(values)[-1]) if values.size else 0.0
