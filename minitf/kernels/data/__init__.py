"""The kernels of tf.data: datasets, their iterators, and the functions they run.

Importing this package registers them. Datasets and iterators are objects
of `minitf/framework/dataset.py`; these kernels make them.

Mirrors `tensorflow/core/kernels/data/`.
"""

from minitf.kernels.data import iterator_kernels  # noqa: F401
from minitf.kernels.data import source_datasets  # noqa: F401
from minitf.kernels.data import transformation_datasets  # noqa: F401
