"""`tf.metrics`: streaming evaluation metrics, each a (value, update_op) pair.

Everything is in `metrics_impl.py`.

Mirrors `tensorflow/python/ops/metrics.py`.
"""

from minitf.metrics.metrics_impl import *  # noqa: F401,F403
from minitf.metrics.metrics_impl import __all__  # noqa: F401
