"""Moving averages of variables: `tf.train.ExponentialMovingAverage`.

A shadow variable follows each variable it averages. Every run of the op
`ema.apply(var_list)` returns moves each shadow a step towards its
variable:

    shadow -= (1 - decay) * (shadow - variable)

The shadows are slots of their variables (`w/ExponentialMovingAverage`,
`minitf/train/slot_creator.py`), start at the variable's initial value, and
are not trainable. With `num_updates` (say the global step), the decay is
`min(decay, (1 + num_updates) / (10 + num_updates))`: the average moves
fast at first. Evaluation usually restores the variables from their
averages: `tf.train.Saver(ema.variables_to_restore())` maps each shadow's
name to the variable it averages.

A tensor that is not a variable can be averaged too; its shadow starts at
zero, and with `zero_debias` the average is divided by
`1 - decay ** steps` (a second shadow, `biased`, and a step count,
`local_step`, carry what that takes), as Adam does.

Mirrors `tensorflow/python/training/moving_averages.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import control_flow_ops
from minitf.ops import init_ops
from minitf.ops import math_ops
from minitf.ops import state_ops
from minitf.ops import variable_scope
from minitf.ops import variables
from minitf.train import slot_creator

__all__ = ["ExponentialMovingAverage"]

# TF's list has bfloat16 too, which minitf lacks.
_AVERAGED_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """The op that moves `variable` towards `value`: `variable -= (1 - decay) * (variable - value)`.

    With `zero_debias`, `variable` is taken to start at zero and gets the
    average divided by `1 - decay ** steps` (Kingma and Ba's Adam, section 3).
    """
    with ops.name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _unique_scope_name(name):
    """`name`, or `name_1`, ...: the first not yet taken by a global variable in this scope."""
    prefix = variable_scope.get_variable_scope().name
    taken = {v.op.name for v in variables.global_variables()}
    full = lambda n: prefix + "/" + n if prefix else n  # noqa: E731
    candidate, index = name, 0
    while full(candidate) in taken:
        index += 1
        candidate = "%s_%d" % (name, index)
    return candidate


def _zero_debias(unbiased_var, value, decay):
    """Keeps the biased average and a step count beside `unbiased_var`; sets it to their ratio.

    `decay` here is `1 - decay` of the caller.
    """
    with variable_scope.variable_scope(unbiased_var.op.name, values=[unbiased_var, value, decay]):
        with ops.colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(
                _unique_scope_name("biased"), initializer=init_ops.zeros_initializer(),
                shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
                trainable=False)
            local_step = variable_scope.get_variable(
                _unique_scope_name("local_step"), shape=[], trainable=False,
                dtype=unbiased_var.dtype.base_dtype,
                initializer=init_ops.zeros_initializer())
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = state_ops.assign_add(local_step, 1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=ops.get_name_scope() + "/")


class ExponentialMovingAverage:
    """Shadow variables that follow variables (or tensors) with exponential decay.

        ema = tf.train.ExponentialMovingAverage(decay=0.999)
        with tf.control_dependencies([train_op]):
            train_op = ema.apply(tf.trainable_variables())
        ema.average(w)              # w's shadow variable
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Makes the missing shadows; returns the op that moves every shadow one step."""
        if var_list is None:
            var_list = variables.trainable_variables()
        zero_debias = set()
        for var in var_list:
            if var.dtype.base_dtype not in _AVERAGED_DTYPES:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var not in self._averages:
                self._averages[var] = self._shadow(var)
                if not isinstance(var, variables.Variable) and self._zero_debias:
                    zero_debias.add(var)
        with ops.name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [assign_moving_average(self._averages[var], var, decay,
                                             zero_debias=var in zero_debias)
                       for var in var_list]
            return control_flow_ops.group(*updates, name=scope)

    def _shadow(self, var):
        """A variable's shadow starts at its initial value; a tensor's at zero."""
        if isinstance(var, variables.Variable):
            with ops.device(var.device):
                initial = var.initialized_value()
            ops.add_to_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            return slot_creator.create_slot(var, initial, self.name, colocate_with_primary=True)
        return slot_creator.create_zeros_slot(
            var, self.name,
            colocate_with_primary=var.op.type in ("Variable", "VariableV2", "VarHandleOp"))

    def average(self, var):
        """The shadow variable of `var`, or None when it has none."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name the shadow of `var` has (or will have): what a Saver saves it under."""
        if var in self._averages:
            return self._averages[var].op.name
        return ops.get_default_graph().unique_name(var.op.name + "/" + self.name,
                                                   mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{name in the checkpoint: variable}: averaged variables from their shadows' names,
        every other global variable from its own."""
        if moving_avg_variables is None:
            moving_avg_variables = (variables.trainable_variables()
                                    + variables.moving_average_variables())
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in moving_avg_variables}
        averaged_names = {v.name for v in moving_avg_variables}
        for v in variables.global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
