"""`tf.user_ops`: where TensorFlow's example user op lives.

`my_fact()` builds a Fact op, which gives the string "0! == 1". Ops of your
own come from `tf.load_op_library` (the Ops chapter).

Mirrors `tensorflow/python/user_ops/user_ops.py`.
"""

from minitf.graph.op_def_library import apply_op


def my_fact():
    """Example of overriding the generated code for an Op."""
    return apply_op("Fact")
