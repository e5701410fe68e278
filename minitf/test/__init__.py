"""`tf.test`: TestCase, main, the gradient checker and a test's other helpers.

Only assembles the namespace: TestCase and its helpers are defined beside it
(`minitf/test/test_util.py`; `graph_def_diff.py` compares GraphDefs,
`stubout.py` swaps attributes for a test, `benchmark.py` times ops,
`local_cluster.py` starts a cluster's servers in the test's process;
`tf.test.mock` is Python's `unittest.mock`), the gradient checker in the Gradients chapter
(`minitf/autodiff/gradient_checker.py`). Mirrors TF's `tf.compat.v1.test`
module.

A name of TF 1.15's `tf.test` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from unittest import mock  # noqa: F401 - tf.test.mock is Python's

from minitf.graph import tf1_api as _tf1_api
from minitf.autodiff.gradient_checker import compute_gradient, compute_gradient_error  # noqa: F401
from minitf.test.benchmark import Benchmark, benchmark_config  # noqa: F401
from minitf.test.graph_def_diff import assert_equal_graph_def  # noqa: F401
from minitf.test.local_cluster import create_local_cluster  # noqa: F401
from minitf.test.stubout import StubOutForTesting  # noqa: F401
from minitf.test.test_util import (  # noqa: F401
                                   TestCase,
                                   get_temp_dir,
                                   gpu_device_name,
                                   is_built_with_cuda,
                                   is_built_with_gpu_support,
                                   is_built_with_rocm,
                                   is_built_with_xla,
                                   is_gpu_available,
                                   main,
)

__all__ = ["TestCase", "compute_gradient", "compute_gradient_error", "get_temp_dir",
           "gpu_device_name", "is_built_with_cuda", "is_built_with_gpu_support",
           "is_built_with_rocm", "is_built_with_xla", "is_gpu_available", "main", "mock",
           "StubOutForTesting", "assert_equal_graph_def", "Benchmark", "benchmark_config",
           "create_local_cluster"]


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.test", __name__, name)
