"""The Kernels chapter: the NumPy (CPU) kernels, and the CuPy path beside them.

Importing this package registers every built-in kernel in the kernel
registry (`minitf/framework/kernel_registry.py`). A kernel sees only its
context (`minitf/framework/op_kernel.py`), so nothing here imports the
executor, the session or the devices.

Mirrors `tensorflow/core/kernels/`.
"""

from minitf.kernels import cpu  # noqa: F401  registers the built-in kernels
from minitf.kernels import data  # noqa: F401  registers the kernels of tf.data
