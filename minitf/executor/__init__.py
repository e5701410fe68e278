"""The Executor chapter: the scheduling loop, thread pool and step stats.

Mirrors `tensorflow/core/common_runtime/executor.cc`.
"""

from minitf.executor.executor import Executor  # noqa: F401
from minitf.executor import function  # noqa: F401  registers how a kernel runs control flow
