"""The switches between TensorFlow 1 and 2 behaviour, as TF 1.15 programs call them.

TF 1.15 could already be told to behave like TF 2, one feature at a time,
and a TF 1.15 program run on TF 2 says the opposite at its start:
`tf.compat.v1.disable_eager_execution()`, `disable_v2_behavior()`. minitf
*is* TF 1.15's graph mode, so the switches towards TF 1 are no-ops, and
those towards TF 2 are, each as it fits:

* eager execution (`enable_eager_execution`, `enable_v2_behavior`): a
  ValueError, because minitf has no eager mode: every op builds a node;
* resource variables, control flow v2, tensor equality: recorded (the
  `*_enabled` functions report them), with the same results as before:
  minitf's variables are reference variables either way (`use_resource=True`
  is accepted and gives the same kind), its `tf.cond` and `tf.while_loop`
  build TF 1's Switch and Merge nodes, which compute the same values, and in
  graph mode TensorFlow itself keeps `==` the identity of tensors;
* TF 2's shapes (`enable_v2_tensorshape`, where `shape[0]` is an int): a
  ValueError, because minitf's shapes hold TF 1's `Dimension`s and code that
  expected ints would go wrong later, far from the cause
  (`tf.compat.dimension_value` reads both).

Mirrors `tensorflow/python/compat/v2_compat.py` and the switches TF keeps
beside what they switch (`ops.py`, `variable_scope.py`,
`control_flow_v2_toggles.py`, `tensor_shape.py`).
"""

__all__ = ["executing_eagerly", "executing_eagerly_outside_functions",
           "enable_eager_execution", "disable_eager_execution", "enable_v2_behavior",
           "disable_v2_behavior", "enable_resource_variables", "disable_resource_variables",
           "resource_variables_enabled", "enable_control_flow_v2", "disable_control_flow_v2",
           "control_flow_v2_enabled", "enable_tensor_equality", "disable_tensor_equality",
           "enable_v2_tensorshape", "disable_v2_tensorshape"]

_GRAPH_MODE_ONLY = ("minitf is TensorFlow 1.15's graph mode and has no eager execution: "
                    "build a graph and run it in a tf.Session")

# What the recorded switches say; TF 1.15's defaults.
_enabled = {"resource_variables": False, "control_flow_v2": False, "tensor_equality": False}


def executing_eagerly():
    """False: minitf only builds graphs (ops return symbolic tensors)."""
    return False


def executing_eagerly_outside_functions():
    """False, as in TF 1.15 graph mode."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Raises ValueError: minitf has no eager mode."""
    raise ValueError("tf.enable_eager_execution: %s." % _GRAPH_MODE_ONLY)


def disable_eager_execution():
    """A no-op: minitf always builds graphs."""


def enable_v2_behavior():
    """Raises ValueError: TF 2's behaviour starts with eager execution, which minitf lacks."""
    raise ValueError("tf.enable_v2_behavior: %s." % _GRAPH_MODE_ONLY)


def disable_v2_behavior():
    """TF 1.15's behaviour, which minitf has: turns the recorded switches back to TF 1."""
    disable_resource_variables()
    disable_control_flow_v2()
    disable_tensor_equality()
    disable_v2_tensorshape()


def enable_resource_variables():
    """Recorded; minitf's variables stay reference variables (see the module docstring)."""
    _enabled["resource_variables"] = True


def disable_resource_variables():
    _enabled["resource_variables"] = False


def resource_variables_enabled():
    """Whether `enable_resource_variables` was called last (False by default, as in TF 1.15)."""
    return _enabled["resource_variables"]


def enable_control_flow_v2():
    """Recorded; tf.cond and tf.while_loop still build Switch and Merge nodes."""
    _enabled["control_flow_v2"] = True


def disable_control_flow_v2():
    _enabled["control_flow_v2"] = False


def control_flow_v2_enabled():
    """Whether `enable_control_flow_v2` was called last (False by default)."""
    return _enabled["control_flow_v2"]


def enable_tensor_equality():
    """Recorded; in graph mode `==` stays the identity of tensors, as in TensorFlow."""
    _enabled["tensor_equality"] = True


def disable_tensor_equality():
    _enabled["tensor_equality"] = False


def enable_v2_tensorshape():
    """Raises ValueError: minitf's shapes are TF 1's, whose dimensions are `Dimension`s."""
    raise ValueError("tf.enable_v2_tensorshape: minitf's TensorShape is TensorFlow 1.15's, "
                     "whose elements are Dimension objects (shape[0].value); "
                     "tf.compat.dimension_value(shape[0]) reads them as ints")


def disable_v2_tensorshape():
    """A no-op: minitf's shapes are TF 1's."""
