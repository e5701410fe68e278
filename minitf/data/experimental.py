"""`tf.data.experimental`: AUTOTUNE and the transformations TF 1.15 kept here.

Each transformation is a function of a dataset, for `dataset.apply(...)`.

Mirrors `tensorflow/python/data/experimental/ops/` (batching.py,
shuffle_ops.py, interleave_ops.py).
"""

from minitf.data.dataset_ops import AUTOTUNE  # noqa: F401

__all__ = ["AUTOTUNE", "map_and_batch", "shuffle_and_repeat", "unbatch", "parallel_interleave"]


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`map(map_func)` then `batch(batch_size)`, as one transformation."""
    def apply(dataset):
        return dataset.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)
    return apply


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`shuffle(buffer_size, seed)` then `repeat(count)`: a new order each pass."""
    def apply(dataset):
        return dataset.shuffle(buffer_size, seed).repeat(count)
    return apply


def unbatch():
    def apply(dataset):
        return dataset.unbatch()
    return apply


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """`interleave(map_func, cycle_length, block_length)`, in its deterministic order."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length, block_length)
    return apply
