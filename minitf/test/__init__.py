"""`tf.test`: TestCase, main and the gradient checker.

Only assembles the namespace: TestCase and its helpers are defined beside it
(`minitf/test/test_util.py`), the gradient checker in the Gradients chapter
(`minitf/autodiff/gradient_checker.py`). Mirrors TF's `tf.compat.v1.test`
module.

A name of TF 1.15's `tf.test` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.autodiff.gradient_checker import compute_gradient, compute_gradient_error  # noqa: F401
from minitf.test.test_util import (  # noqa: F401
                                   TestCase,
                                   get_temp_dir,
                                   gpu_device_name,
                                   is_built_with_cuda,
                                   is_built_with_gpu_support,
                                   is_built_with_rocm,
                                   is_gpu_available,
                                   main,
)

__all__ = ["TestCase", "compute_gradient", "compute_gradient_error", "get_temp_dir",
           "gpu_device_name", "is_built_with_cuda", "is_built_with_gpu_support",
           "is_built_with_rocm", "is_gpu_available", "main"]


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.test", __name__, name)
