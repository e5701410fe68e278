"""`tf.distribute`: only `Server`, the name TensorFlow 2 gives `tf.train.Server`.

Mirrors the `tf.distribute.Server` export of
`tensorflow/python/training/server_lib.py`.
"""

from minitf.distributed.server_lib import Server  # noqa: F401

__all__ = ["Server"]
