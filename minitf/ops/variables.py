"""Variables: named state that outlives a `Session.run` (TF1 reference variables).

`v = tf.Variable(initial_value, name="v")` builds four nodes, all under the
name scope `v/`:

```
v/initial_value   Const (or whatever ops compute the initial value)
v                 VariableV2: outputs a *reference* to the buffer (float32_ref)
v/Assign          Assign(v, v/initial_value): the initializer, run once
v/read            Identity(v): the snapshot that `v + 1` or `tf.matmul(x, v)` read
```

Nothing holds a value until a session runs `v.initializer` (or
`tf.global_variables_initializer()`, a NoOp that depends on every
initializer). The buffer itself lives in the resource manager of the
variable's device, so it survives from one `run` to the next and is shared
by every op that takes the reference. Reading an uninitialized variable
fails with FailedPreconditionError naming it.

The Variable object is front-end bookkeeping: it remembers these nodes,
registers itself in the graph collections (GLOBAL_VARIABLES, and
TRAINABLE_VARIABLES when trainable) and behaves like its snapshot tensor in
expressions.

`tf.Variable(variable_def=..., import_scope=...)` builds no nodes: it wraps
the existing nodes a `VariableDef` names (see `minitf/saver/meta_graph.py`),
which is how `tf.train.import_meta_graph` gives back the variables of a
graph that was saved to a file.

Differences from TensorFlow: minitf has only reference variables;
`use_resource=True` is accepted and gives the same kind of variable.

Mirrors `tensorflow/python/ops/variables.py` (RefVariable and the
collection helpers).
"""

import enum

from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_conversion import register_tensor_conversion_function
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops
from minitf.ops import state_ops

__all__ = ["Variable", "VariableSynchronization", "VariableAggregation", "global_variables",
           "local_variables", "trainable_variables", "model_variables",
           "moving_average_variables", "all_variables", "variables_initializer",
           "initialize_variables", "global_variables_initializer", "initialize_all_variables",
           "local_variables_initializer", "initialize_local_variables",
           "is_variable_initialized", "report_uninitialized_variables"]


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (kept for API compatibility)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are combined (kept for API compatibility)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


# =============================================================================
# Variable
# =============================================================================

class Variable:
    """A TF1 variable: a VariableV2 node, its initializer and its read snapshot.

    See the module docstring for the nodes it builds. `initial_value` may be
    a callable taking no arguments; it is then called inside the scope
    `<name>/Initializer`, which is how `tf.get_variable` passes initializers.
    """

    # Makes `numpy_array * variable` call Variable.__rmul__ instead of NumPy's multiply.
    __array_priority__ = 100
    # `tf.is_tensor(variable)` is True: a variable stands for its value (graph/tensor_util.py).
    is_tensor_like = True

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_variable_def(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._synchronization, self._aggregation, self._trainable = (
            _validate_synchronization_aggregation_trainable(synchronization, aggregation,
                                                            trainable, name))
        collections = _collections_for(collections, self._trainable)
        self._caching_device = caching_device
        self._constraint = constraint
        # Like TF's init_scope: a variable never waits on the control dependencies around it.
        with ops.control_dependencies(None):
            self._build(initial_value, validate_shape, caching_device, name, dtype, shape)
        ops.add_to_collections(collections, self)

    def _init_from_variable_def(self, variable_def, import_scope):
        """Wraps the nodes a VariableDef names (already in the graph): creates no op.

        `variable_def` has TF's VariableDef fields (`variable_name`,
        `initializer_name`, `snapshot_name`, `initial_value_name`, `trainable`,
        `synchronization`, `aggregation`); `import_scope` prefixes each name.
        """
        graph = ops.get_default_graph()

        def element(name):
            return graph.as_graph_element(import_scope.rstrip("/") + "/" + name
                                          if import_scope else name)

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = (element(variable_def.initial_value_name)
                               if variable_def.initial_value_name else None)
        self._snapshot = element(variable_def.snapshot_name)
        self._synchronization, self._aggregation, self._trainable = (
            _validate_synchronization_aggregation_trainable(
                variable_def.synchronization, variable_def.aggregation,
                variable_def.trainable, variable_def.variable_name))
        self._caching_device = None
        self._constraint = None

    # --- building the nodes ------------------------------------------------------
    def _build(self, initial_value, validate_shape, caching_device, name, dtype, shape):
        from_fn = callable(initial_value)
        with ops.name_scope(name, "Variable", [] if from_fn else [initial_value]) as scope:
            if from_fn:
                self._initial_value = _initial_value_from_fn(initial_value, scope, dtype)
            else:
                self._initial_value = convert_to_tensor(initial_value, name="initial_value",
                                                        dtype=dtype)
            if shape is not None:
                shape = tensor_shape.as_shape(shape)
            elif validate_shape:
                shape = self._initial_value.shape
            else:
                shape = tensor_shape.unknown_shape()
            self._variable = state_ops.variable_op_v2(
                shape, self._initial_value.dtype.base_dtype, name=scope)
            if validate_shape and not self._initial_value.shape.is_fully_defined():
                raise ValueError("initial_value must have a shape specified: %s"
                                 % self._initial_value)
            self._initializer_op = state_ops.assign(
                self._variable, self._initial_value, validate_shape=validate_shape).op
            self._snapshot = self._build_snapshot(caching_device)

    def _build_snapshot(self, caching_device):
        if caching_device is not None:
            with ops.device(caching_device):
                return array_ops.identity(self._variable, name="read")
        with ops.colocate_with(self._variable.op):
            return array_ops.identity(self._variable, name="read")

    # --- what it is -----------------------------------------------------------------
    @property
    def name(self):
        """The name of the reference tensor, e.g. "v:0"."""
        return self._variable.name

    @property
    def op(self):
        """The VariableV2 Operation."""
        return self._variable.op

    @property
    def dtype(self):
        """The reference dtype, e.g. `float32_ref`."""
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self._variable.shape

    def set_shape(self, shape):
        """Refines the static shape of the reference and of the snapshot."""
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def initializer(self):
        """The Assign Operation that stores the initial value."""
        return self._initializer_op

    @property
    def initial_value(self):
        """The Tensor the initializer assigns."""
        return self._initial_value

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.get_shape(),
                                                         self.dtype.name)

    # --- reading -----------------------------------------------------------------------
    def value(self):
        """The snapshot `<name>/read`: what ops that use the variable's value read."""
        return self._snapshot

    def read_value(self):
        """A new Identity reading the variable where it is called (under control deps, say)."""
        return array_ops.identity(self._variable, name="read")

    def _ref(self):
        """The reference tensor: what Assign and the optimizers' updates take."""
        return self._variable

    def _AsTensor(self):  # noqa: N802 - TF's name
        return self._snapshot

    def _as_graph_element(self):
        """What `sess.run(v)` fetches and `feed_dict={v: ...}` feeds: the reference tensor."""
        return self._variable

    def _as_graph_element_for_control(self):
        return self._variable.op

    def eval(self, session=None):
        """The variable's current value, computed in `session` (default: the default session)."""
        return self._variable.eval(session=session)

    def initialized_value(self):
        """The variable's value, or its initial value while it is uninitialized.

        Use it to initialize one variable from another, whatever order the
        initializers run in: `w = tf.Variable(v.initialized_value() * 2.0)`.
        A `tf.cond` on `IsVariableInitialized` picks the variable when it is
        initialized and the initial value (computed afresh) when it is not;
        it does not initialize the variable.
        """
        with ops.init_scope():
            return control_flow_ops.cond(is_variable_initialized(self), self.read_value,
                                         lambda: self.initial_value)

    def load(self, value, session=None):
        """Writes `value` into the variable by running its initializer with a fed value."""
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session "
                             "should be established")
        session.run(self.initializer, {self.initializer.inputs[1]: value})

    # --- updating ------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Builds an Assign; returns its output (the new value), or the op if not read_value."""
        assign = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return assign if read_value else assign.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        assign = state_ops.assign_add(self._variable, delta, use_locking=use_locking,
                                      name=name)
        return assign if read_value else assign.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        assign = state_ops.assign_sub(self._variable, delta, use_locking=use_locking,
                                      name=name)
        return assign if read_value else assign.op

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes the rows of an IndexedSlices into the variable."""
        _check_indexed_slices(sparse_delta)
        return state_ops.scatter_update(self._variable, sparse_delta.indices,
                                        sparse_delta.values, use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds the rows of an IndexedSlices to the variable."""
        _check_indexed_slices(sparse_delta)
        return state_ops.scatter_add(self._variable, sparse_delta.indices,
                                     sparse_delta.values, use_locking=use_locking, name=name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts the rows of an IndexedSlices from the variable."""
        _check_indexed_slices(sparse_delta)
        return state_ops.scatter_sub(self._variable, sparse_delta.indices,
                                     sparse_delta.values, use_locking=use_locking, name=name)

    def count_up_to(self, limit):
        return state_ops.count_up_to(self._variable, limit=limit)

    # --- behaving like a tensor ------------------------------------------------------------
    @staticmethod
    def _TensorConversionFunction(v, dtype=None, name=None, as_ref=False):  # noqa: N802
        """`convert_to_tensor(v)` is the snapshot; with `as_ref=True`, the reference."""
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
            raise ValueError("Incompatible type conversion requested to type '%s' for "
                             "variable of type '%s'" % (dtypes.as_dtype(dtype).name,
                                                        v.dtype.name))
        return v._ref() if as_ref else v.value()

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")


# Operators on a Variable are those of its snapshot tensor, looked up when they
# are used (the op modules install them on Tensor as they load). == and != stay
# object identity, so variables can be dict keys and set members.
_TENSOR_OPERATORS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__lt__",
    "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
    "__rxor__", "__getitem__", "__pow__", "__rpow__", "__invert__", "__neg__", "__abs__",
    "__matmul__", "__rmatmul__")


def _operator_on_snapshot(operator):
    def operator_method(self, *args):
        tensor_operator = getattr(ops.Tensor, operator, None)
        if tensor_operator is None:
            raise TypeError("Tensors do not support %s, so Variables do not either" % operator)
        return tensor_operator(self.value(), *args)

    operator_method.__name__ = operator
    return operator_method


for _operator in _TENSOR_OPERATORS:
    setattr(Variable, _operator, _operator_on_snapshot(_operator))

register_tensor_conversion_function(Variable, Variable._TensorConversionFunction)


# --- helpers of the constructor ------------------------------------------------------

def _validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable,
                                                    name):
    try:
        aggregation = VariableAggregation(
            VariableAggregation.NONE if aggregation is None else aggregation)
    except ValueError:
        raise ValueError("Invalid variable aggregation mode: %s for variable: %s"
                         % (aggregation, name)) from None
    try:
        synchronization = VariableSynchronization(
            VariableSynchronization.AUTO if synchronization is None else synchronization)
    except ValueError:
        raise ValueError("Invalid variable synchronization mode: %s for variable: %s"
                         % (synchronization, name)) from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable


def _collections_for(collections, trainable):
    if collections is None:
        collections = [ops.GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError("collections argument to Variable constructor must be a list, tuple, "
                         "or set. Got %s of type %s" % (collections, type(collections)))
    if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections = list(collections) + [ops.GraphKeys.TRAINABLE_VARIABLES]
    return collections


def _initial_value_from_fn(initial_value_fn, scope, dtype):
    """Calls the initializer under `<name>/Initializer`, its ops placed with the variable.

    The variable node does not exist yet, so `colocate_with` cannot name it;
    instead every op the call creates is tagged with the variable's
    colocation group (`loc:@<name>`) afterwards, and no device scope applies.
    """
    graph = ops.get_default_graph()
    last_id_before = graph._last_id
    with ops.name_scope("Initializer"), ops.device(None):
        value = convert_to_tensor(initial_value_fn(), name="initial_value", dtype=dtype)
    group = ["loc:@" + scope.rstrip("/")]
    for op_id in range(last_id_before + 1, graph._last_id + 1):
        op = graph._nodes_by_id[op_id]
        if "_class" not in op._attrs:
            op._set_attr("_class", group)
    return value


def _check_indexed_slices(sparse_delta):
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError("sparse_delta is not IndexedSlices: %s" % (sparse_delta,))


# =============================================================================
# Collections of variables and their initializers
# =============================================================================

def global_variables(scope=None):
    """The variables of GLOBAL_VARIABLES (every Variable unless told otherwise).

    With `scope`, only those whose name matches it (`re.match`, so a prefix).
    """
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    """Deprecated alias of `global_variables()`."""
    return global_variables()


def local_variables(scope=None):
    """The variables of LOCAL_VARIABLES: per-process state such as metric counters."""
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MODEL_VARIABLES, scope)


def trainable_variables(scope=None):
    """The variables created with `trainable=True`: what optimizers update by default."""
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def moving_average_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """One op that runs the initializers of `var_list` (a NoOp when the list is empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def initialize_variables(var_list, name="init"):
    """Deprecated alias of `variables_initializer`."""
    return variables_initializer(var_list, name=name)


def global_variables_initializer():
    """The op "init" that initializes every global variable."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    """Deprecated alias of `global_variables_initializer`."""
    return global_variables_initializer()


def local_variables_initializer():
    """The op "init" that initializes every local variable."""
    return variables_initializer(local_variables())


def initialize_local_variables():
    """Deprecated alias of `local_variables_initializer`."""
    return local_variables_initializer()


def is_variable_initialized(variable):
    """A scalar bool tensor: has `variable` been initialized?"""
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list=None):
    """An op that fails with FailedPreconditionError while a variable of `var_list` is not
    initialized (the Rank of each variable: reading an uninitialized one fails); None when
    there is no variable.

    Deprecated in TF 1.15 in favour of report_uninitialized_variables.
    """
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with ops.colocate_with(var.op):
            ranks.append(apply_op("Rank", input=var))
    if len(ranks) == 1:
        return ranks[0]
    return array_ops.stack(ranks)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables of `var_list` not yet initialized.

    `var_list` defaults to the global and local variables. An empty result
    means the model is ready; `tf.train.Supervisor` and friends poll this.
    """
    if var_list is None:
        var_list = global_variables() + local_variables()
    with ops.name_scope(name):
        if var_list:
            initialized = [state_ops.is_variable_initialized(v) for v in var_list]
        with ops.device("/cpu:0"):
            if not var_list:
                return constant_op.constant([], dtype=dtypes.string)
            uninitialized = math_ops.logical_not(array_ops.stack(initialized))
            names = constant_op.constant([v.op.name for v in var_list])
            return array_ops.boolean_mask(names, uninitialized)
