"""`tf.queue`: the queues under their `tf.queue.*` names.

Every class here is defined in `minitf/ops/data_flow_ops.py`; TF 1.15
exports them twice, as `tf.FIFOQueue` and `tf.queue.FIFOQueue`.

Mirrors the `tf.queue` namespace of TF 1.15.
"""

from minitf.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, PriorityQueue,  # noqa: F401
                                      QueueBase, RandomShuffleQueue)
