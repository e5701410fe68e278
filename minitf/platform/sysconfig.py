"""`tf.sysconfig`: where a C++ op library finds TensorFlow's headers and library.

TensorFlow's answers point into its installed package (`include/` and the
`libtensorflow_framework.so` beside it) and give the flags to compile and
link an op against them. minitf has no C++: its op libraries are Python
files run by `tf.load_op_library`, which import `minitf.framework`. So
`get_include()` names the directory of `minitf.framework` (where
`register_op` and `register_kernel` are), `get_lib()` the minitf package,
and the flags are the `-I`/`-L` ones a build would pass for them, with the
ABI macro TensorFlow adds.

Mirrors `tensorflow/python/platform/sysconfig.py`.
"""

import os

from minitf.graph.versions import (COMPILER_VERSION, CXX11_ABI_FLAG, CXX_VERSION,  # noqa: F401
                                   MONOLITHIC_BUILD)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def get_include():
    """The directory an op library's imports come from: minitf/framework."""
    return os.path.join(_PACKAGE_DIR, "framework")


def get_lib():
    """The directory of the minitf package."""
    return _PACKAGE_DIR


def get_compile_flags():
    """The flags to compile an op library with: the include directory and the ABI macro."""
    return ["-I%s" % get_include(), "-D_GLIBCXX_USE_CXX11_ABI=%d" % CXX11_ABI_FLAG,
            "-DEIGEN_MAX_ALIGN_BYTES=64"]


def get_link_flags():
    """The flags to link an op library with: the library directory."""
    return ["-L%s" % get_lib()]


def get_build_info():
    """What TensorFlow was built with; for minitf, the compiler of the Python running it."""
    return {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False,
            "compiler_version": COMPILER_VERSION}
