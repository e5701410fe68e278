"""Session configs of the test suite.

Tests that watch kernels run (on which device, on which thread, how
often) turn constant folding off, as TensorFlow's own tests do
(`test_util.prepare_config`): a graph of constants is otherwise computed
once, on the host, when the session builds its executors, and the kernels
under test never run in a step.
"""

import minitf as tf


def without_folding(**config_fields):
    """A ConfigProto with these fields and constant folding off (`OptimizerOptions.L0`)."""
    options = tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
    return tf.ConfigProto(graph_options=tf.GraphOptions(optimizer_options=options),
                          **config_fields)
