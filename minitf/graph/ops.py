"""Graph, Operation and Tensor: the objects a TF1 program builds.

Calling `tf.matmul(a, b)` runs no arithmetic. It adds an `Operation` (a node)
to the default `Graph` and returns a `Tensor`: a symbolic handle to one output
of that node, to be computed later by a Session. This module holds those
three classes and the context managers that shape what gets built: name
scopes, control dependencies, device scopes, containers and colocation.

Mirrors `tensorflow/python/framework/ops.py`.
"""

import contextlib
import linecache
import os
import re
import sys
import threading

from minitf.framework import common_shapes
from minitf.framework import op_def as op_def_lib
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import tensor_shape
from minitf.graph.device_spec import DeviceSpec
from minitf.graph.device_spec import merge_device

# A node name may not start with '_', '-' or '/'; a nested scope name may.
_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")
_MINITF_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _TensorLike:
    """Base of what stands for a value in the graph: Tensor, SparseTensor, IndexedSlices."""


# =============================================================================
# Tensor
# =============================================================================

class Tensor(_TensorLike):
    """A symbolic handle to one output of an Operation.

    It holds no value. `op` produced it, `value_index` says which output it is,
    `name` is `"<op name>:<index>"`. Its `dtype` is fixed; its static `shape`
    may be partly unknown, and `set_shape` may refine it.
    """

    # Makes `numpy_array + tensor` call Tensor.__radd__ instead of NumPy's add.
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = tensor_shape.unknown_shape()
        self._consumers = []

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._value_index)

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape with `shape`; ValueError when the two contradict."""
        self._shape = common_shapes.merge_shapes(self._shape, tensor_shape.as_shape(shape))

    def consumers(self):
        """The Operations that take this tensor as a (data) input."""
        return list(self._consumers)

    def _as_node_def_input(self):
        return graph_def_lib.tensor_name(self._op.name, self._value_index)

    def eval(self, feed_dict=None, session=None):
        """Runs the graph to compute this tensor in `session` (default: the default session)."""
        return _run_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self._dtype.name)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
            "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such "
            "as tf.cond to execute subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        raise TypeError(
            "Tensor objects are only iterable when eager execution is enabled. To iterate "
            "over this tensor use tf.map_fn.")

    def __len__(self):
        raise TypeError(
            "len is not well defined for symbolic Tensors. (%s) Please call `x.shape` rather "
            "than `len(x)` for shape information." % self.name)

    @staticmethod
    def _override_operator(operator, func):
        """Installs `func` as `Tensor.<operator>`; the math ops module calls this."""
        setattr(Tensor, operator, func)


# =============================================================================
# Operation
# =============================================================================

class Operation:
    """A node in the graph: an op type applied to input tensors, with attrs.

    Created by `Graph.create_op`, which every op constructor ends up calling.
    It remembers the user's source line that created it (`traceback`), so
    errors at run time can point back to the program.
    """

    def __init__(self, graph, name, op_type, inputs, output_types, attrs, op_def,
                 control_inputs=(), device=""):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = list(inputs)
        self._attrs = dict(attrs)
        self._op_def = op_def
        self._control_inputs = []
        self._device = device or ""
        self._outputs = [Tensor(self, i, t) for i, t in enumerate(output_types)]
        self._id = None
        self._control_outputs = []
        self._traceback = _user_stack()
        self._original_op = None
        # The cond branch or loop body the op was made in (None outside any).
        self._control_flow_context = graph._get_control_flow_context()
        for control in control_inputs:
            self._add_control_input(control)

    # --- identity and structure -------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return tuple(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    def values(self):
        """The outputs as a tuple."""
        return tuple(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def op_def(self):
        return self._op_def

    @property
    def device(self):
        return self._device

    @property
    def traceback(self):
        """The user's stack when the op was created: (file, line, function) tuples.

        Outermost frame first; the last one is the line that created the op.
        Frames inside minitf itself are left out. (TF adds the source text as
        a fourth item; `op_error_with_context` looks it up when it is needed.)
        """
        return list(self._traceback)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self._type)

    def __str__(self):
        return graph_def_lib.format_node(self.node_def)

    # --- attrs --------------------------------------------------------------
    def get_attr(self, name):
        """The value of attr `name`; ValueError when the op has no such attr."""
        if name not in self._attrs:
            raise ValueError("Operation '%s' has no attr named '%s'." % (self._name, name))
        return self._attrs[name]

    def _set_attr(self, name, value):
        self._attrs[name] = value
        self._edited()

    def _edited(self):
        """Counts an edit of this op in its graph, once it is in one (see `Graph.edit_count`)."""
        if self._id is not None:
            self._graph._record_edit(self)

    @property
    def node_def(self):
        """This op as a NodeDef: inputs `"x"`, `"x:1"`, control inputs `"^x"` last."""
        return graph_def_lib.NodeDef(
            self._name, self._type,
            [t._as_node_def_input() for t in self._inputs]
            + ["^" + op.name for op in self._control_inputs],
            self._device, self._attrs)

    def colocation_groups(self):
        """The `loc:@name` groups this op must share a device with (at least its own)."""
        groups = [c for c in self._attrs.get("_class", []) if c.startswith("loc:@")]
        return groups or ["loc:@" + self._name]

    # --- edits (graph-editing code and the gradient machinery use these) ----
    def _set_device(self, device):
        self._device = device.to_string() if isinstance(device, DeviceSpec) else (device or "")
        self._edited()

    def _add_control_input(self, op):
        if isinstance(op, Tensor):
            op = op.op
        if not isinstance(op, Operation):
            raise TypeError("op must be an Operation: %s" % (op,))
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)
            self._edited()

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _remove_all_control_inputs(self):
        for op in self._control_inputs:
            op._control_outputs.remove(self)
        self._control_inputs = []
        self._edited()

    def _update_input(self, index, tensor):
        """Rewires data input `index` to read `tensor` instead.

        As in TF, the new tensor's static shape must be compatible with the old
        one's. Unlike TF, its dtype must also match (TF would build a graph
        that fails later).
        """
        if not isinstance(tensor, Tensor):
            raise TypeError("tensor must be a Tensor: %s" % (tensor,))
        _assert_same_graph(self, tensor)
        if not 0 <= index < len(self._inputs):
            raise errors.OutOfRangeError(
                None, self, "Cannot update edge. Input index [%d] is greater than the number "
                "of total inputs [%d]." % (index, len(self._inputs)))
        old = self._inputs[index]
        if not old.shape.is_compatible_with(tensor.shape):
            raise errors.InvalidArgumentError(
                None, self, "Cannot update edge, incompatible shapes: %s and %s."
                % (common_shapes.shape_text(tensor.shape), common_shapes.shape_text(old.shape)))
        if old.dtype.base_dtype != tensor.dtype.base_dtype:
            raise TypeError("Cannot update input %d of %s from %s to %s" % (
                index, self._name, old.dtype.name, tensor.dtype.name))
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._edited()

    def _get_control_flow_context(self):
        """The cond branch or loop body (a ControlFlowContext) this op belongs to, or None."""
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    def run(self, feed_dict=None, session=None):
        """Runs this op (for its side effects) in `session` or the default session."""
        _run_using_default_session(self, feed_dict, self.graph, session)

    def _user_line(self):
        """`file:line` of the user's code that created this op, for error messages."""
        if not self._traceback:
            return "<unknown>"
        filename, lineno = self._traceback[-1][:2]
        return "%s:%d" % (filename, lineno)


def _user_stack(limit=8):
    """The frames outside minitf itself, outermost first, the line that made the op last."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None and len(frames) < limit:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_MINITF_DIR + os.sep):
            frames.append((filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames


# =============================================================================
# Graph
# =============================================================================

class GraphKeys:
    """Standard names of the graph's collections."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    _SUMMARY_COLLECTION = "_SUMMARY_V2"
    _STREAMING_MODEL_PORTS = "streaming_model_ports"
    # The collections that hold variables (a Saver or an initializer looks in these).
    _VARIABLE_COLLECTIONS = [
        GLOBAL_VARIABLES, LOCAL_VARIABLES, METRIC_VARIABLES, MODEL_VARIABLES,
        TRAINABLE_VARIABLES, MOVING_AVERAGE_VARIABLES, CONCATENATED_VARIABLES,
        TRAINABLE_RESOURCE_VARIABLES,
    ]
    VARIABLES = GLOBAL_VARIABLES  # the deprecated TF 0.x name


class _ControlDependenciesController:
    """One `with g.control_dependencies(...)` block: its control inputs, the ops made inside.

    `control_inputs=None` starts a new, empty stack: outer blocks do not apply
    inside it, and neither does an enclosing cond branch or loop body (its
    control-flow context).
    """

    def __init__(self, graph, control_inputs):
        self._graph = graph
        self.control_inputs = control_inputs if control_inputs is not None else []
        self.clears_outer = control_inputs is None
        self.ops_created_inside = set()
        self._saved_stack = None
        self._saved_context = None

    def __enter__(self):
        if self.clears_outer:
            self._saved_stack = self._graph._control_dependencies_stack
            self._graph._control_dependencies_stack = []
            self._saved_context = self._graph._get_control_flow_context()
            self._graph._set_control_flow_context(None)
        self._graph._control_dependencies_stack.append(self)

    def __exit__(self, *exc):
        self._graph._control_dependencies_stack.pop()
        if self.clears_outer:
            self._graph._control_dependencies_stack = self._saved_stack
            self._graph._set_control_flow_context(self._saved_context)


class Graph:
    """A dataflow graph: Operations (nodes) connected by Tensors (edges).

    Besides its nodes, a graph keeps the state of graph construction: the
    current name scope, control-dependency, device, container and colocation
    scopes, the collections, a version counter that grows as ops are added
    (a Session sends only the nodes added since its last run), and an edit
    count that grows as ops already in the graph change (a Session resends
    the graph when an op it was sent has changed).
    """

    def __init__(self):
        self._lock = threading.RLock()
        self._nodes_by_name = {}
        self._nodes_by_id = {}
        self._next_id_counter = 0
        self._names_in_use = {}
        self._name_stack = ""
        self._control_dependencies_stack = []
        self._device_function_stack = []
        self._colocation_stack = []
        self._container = ""
        self._collections = {}
        self._finalized = False
        self._seed = None
        self._gradient_override_map = {}
        self._unfeedable_tensors = set()
        self._unfetchable_ops = set()
        self._edited_op_ids = []  # the id of the op of each edit, in order
        self._control_flow_context = None  # the cond branch or loop body being built

    # --- default graph ----------------------------------------------------
    def as_default(self):
        """Makes this the default graph inside a `with` block."""
        return _default_graph_stack.get_controller(self)

    # --- naming -------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """`name` under the current scope, made unique: add, add_1, add_2, ...

        Names are compared case-insensitively ("add" then "Add" gives "Add_1").
        With `mark_as_used=False` the name is only predicted, not reserved.
        """
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count > 0:
            # "foo_1" may already be taken by a user who asked for it explicitly.
            base_key = key
            while key in self._names_in_use:
                key = "%s_%d" % (base_key, count)
                count += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = "%s_%d" % (name, count - 1)
        return name

    def get_name_scope(self):
        """The current name scope, without a trailing '/' ("" at the top)."""
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope; yields the scope string with a trailing '/'.

        `None` or `""` goes back to the top level; a name ending in '/' is
        taken as an absolute scope, reused as it is (this is how a scope
        string that `name_scope` yielded is re-entered); any other name is
        made unique under the current scope (`foo`, then `foo_1`).
        """
        if name:
            name = _scope_name_as_str(name)
            # At the top a scope becomes a node-name prefix, so the stricter rule applies.
            pattern = _VALID_SCOPE_NAME if self._name_stack else _VALID_OP_NAME
            if not pattern.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
        old_stack = self._name_stack
        if not name:
            new_stack = ""
        elif name[-1] == "/":
            new_stack = name[:-1]
        else:
            new_stack = self.unique_name(name)
        self._name_stack = new_stack
        try:
            yield "" if not new_stack else new_stack + "/"
        finally:
            self._name_stack = old_stack

    # --- scopes that shape new ops -----------------------------------------
    def _get_control_flow_context(self):
        """The cond branch or loop body new ops go into (a ControlFlowContext), or None."""
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    def control_dependencies(self, control_inputs):
        """Ops created inside run only after `control_inputs`; `None` clears outer blocks.

        `control_inputs` may hold Operations, Tensors (their op is used) and
        names. An op already required by an enclosing block is not repeated.
        """
        if control_inputs is None:
            return _ControlDependenciesController(self, None)
        control_ops = []
        current = self._current_control_dependencies()
        for c in control_inputs:
            c = self._as_control_input(c)
            if c not in current:
                control_ops.append(c)
                current.add(c)
        return _ControlDependenciesController(self, control_ops)

    def _as_control_input(self, c):
        if hasattr(c, "_as_graph_element_for_control"):
            c = c._as_graph_element_for_control()
        elif isinstance(c, _TensorLike) and not isinstance(c, Tensor):
            c = c.op  # a SparseTensor or IndexedSlices
        c = self.as_graph_element(c)
        if isinstance(c, Tensor):
            c = c.op
        if not isinstance(c, Operation):
            raise TypeError("Control input must be Operation or Tensor: %s" % (c,))
        return c

    def _current_control_dependencies(self):
        """Every op that the enclosing control_dependencies blocks require."""
        return {op for controller in self._control_dependencies_stack
                for op in controller.control_inputs}

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Requests a device for the ops created inside the block.

        Takes a device string or DeviceSpec (merged field by field under the
        requests of inner scopes), a function `op -> device string` (called
        for each new op), or None (ignore every enclosing device scope).
        """
        if isinstance(device_name_or_function, (str, DeviceSpec)):
            device_name_or_function = merge_device(device_name_or_function)  # validates now
        elif device_name_or_function is not None and not callable(device_name_or_function):
            raise TypeError("device() takes a device string, a DeviceSpec, a function or "
                            "None, not %r" % (device_name_or_function,))
        self._device_function_stack.append(device_name_or_function)
        try:
            yield
        finally:
            self._device_function_stack.pop()

    @contextlib.contextmanager
    def container(self, container_name):
        """Stateful ops created inside keep their state in this resource container."""
        old = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = old

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside go on the same device as `op`.

        They get the `_class` attr `["loc:@<op's group>"]` and `op`'s device;
        enclosing device scopes are ignored inside the block. `op=None` with
        `ignore_existing=True` clears the enclosing colocation instead.
        """
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing "
                             "is not True")
        op = _as_operation(op) if op is not None else None
        old_colocation, old_devices = self._colocation_stack, self._device_function_stack
        self._device_function_stack = []
        if ignore_existing:
            self._colocation_stack = []
        if op is not None:
            self._colocation_stack = self._colocation_stack + [op]
        try:
            yield
        finally:
            self._colocation_stack, self._device_function_stack = old_colocation, old_devices

    def _colocate_with_for_gradient(self, op, gradient_uid, ignore_existing=False):
        """The gradient machinery's entry to `colocate_with` (minitf keeps no gradient uid)."""
        return self.colocate_with(op, ignore_existing)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Within the block, ops of type K use the gradient registered as op_type_map[K]."""
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # --- adding ops ---------------------------------------------------------
    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None,
                  attrs=None, op_def=None, compute_shapes=True, compute_device=True):
        """Adds an Operation to the graph and returns it.

        `name` is made unique under the current name scope, unless it ends
        with '/' (then it is the exact name, as `name_scope` yields it). The
        current control-dependency, device, colocation and container scopes
        are applied, and the op's shape function sets its outputs' shapes.
        """
        self._check_not_finalized()
        inputs = list(inputs)
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError("Input #%d is not a tensor: %s" % (i, t))
            if t.graph is not self:
                inputs[i] = self._capture(t, name or op_type)
        if op_def is None:
            op_def = op_def_lib.get_op_def(op_type)
        attrs = dict(attrs or {})
        if dtypes is None:
            dtypes = op_def.output_dtypes(op_def.attrs_with_defaults(attrs))
        with self._lock:
            name = self._name_for_new_op(name or op_type)
            control_inputs = self._control_dependencies_for_inputs({t.op for t in inputs})
            op = Operation(self, name, op_type, inputs, dtypes, attrs, op_def, control_inputs)
            self._create_op_helper(op, compute_device)
            if compute_shapes:
                _set_output_shapes(op)
            self._add_op(op)
            self._control_flow_post_processing(op)
        return op

    @staticmethod
    def _control_flow_post_processing(op):
        """A new op in a cond branch or loop body joins it (TF's Operation method of this name).

        Each input made inside a cond or loop must be usable where the op is
        (its context checks), and the op's own context takes the op in: it
        routes inputs from outside through a Switch or an Enter, and adds
        the control edges that keep the op inside (`add_op`).
        """
        for tensor in op._inputs:
            input_context = tensor.op._control_flow_context
            if input_context is not None:
                input_context.check_input_from_valid_context(op, tensor.op)
        if op._control_flow_context is not None:
            op._control_flow_context.add_op(op)

    def _name_for_new_op(self, name):
        """The node name: `name` made unique, or taken as it is when it ends with '/'."""
        name = name[:-1] if name.endswith("/") else self.unique_name(name)
        if not _VALID_OP_NAME.match(name):
            raise ValueError("'%s' is not a valid node name" % name)
        if name in self._nodes_by_name:
            raise ValueError("Duplicate node name in graph: '%s'" % name)
        return name

    def _control_dependencies_for_inputs(self, input_ops):
        """Control inputs from the enclosing blocks that the inputs do not already imply.

        A block is skipped when one of the inputs was created inside it (that
        input already waits for the block's ops), and an op that is also a
        data input is not added again as a control input.
        """
        result = []
        for controller in self._control_dependencies_stack:
            if input_ops & controller.ops_created_inside:
                continue
            for op in controller.control_inputs:
                if op not in input_ops and op not in result:
                    result.append(op)
        return result

    def _record_op_seen_by_control_dependencies(self, op):
        for controller in self._control_dependencies_stack:
            controller.ops_created_inside.add(op)

    def _create_op_helper(self, op, compute_device=True):
        """Applies the scopes in force to a new op: TF's Graph._create_op_helper."""
        if op.type in self._gradient_override_map:
            op._set_attr("_gradient_op_type", self._gradient_override_map[op.type])
        self._record_op_seen_by_control_dependencies(op)
        if compute_device:
            self._apply_device_functions(op)
        if self._colocation_stack:
            self._apply_colocation(op)
        if self._container and op.op_def.is_stateful and "container" in op.op_def.attrs:
            if not op._attrs.get("container"):
                op._set_attr("container", self._container)

    def _apply_device_functions(self, op):
        """Runs the device scopes on `op`, innermost first; a None scope stops the walk.

        A string scope only fills in fields the op's device leaves unset, so
        the innermost request wins field by field; a function's result replaces
        the device outright.
        """
        for device_fn in reversed(self._device_function_stack):
            if device_fn is None:
                break
            device = device_fn(op)
            if isinstance(device, DeviceSpec):
                device = device.to_string()
            if not isinstance(device, str):
                raise TypeError("A device function must return a device string or a "
                                "DeviceSpec, got %r for op '%s'" % (device, op.name))
            op._set_device(device)

    def _apply_colocation(self, op):
        groups = set()
        for colocated in self._colocation_stack:
            groups.update(colocated.colocation_groups())
            if colocated.device:
                op._set_device(colocated.device)
        op._set_attr("_class", sorted(groups))

    def _add_op(self, op):
        op._id = self._next_id()
        self._nodes_by_name[op.name] = op
        self._nodes_by_id[op._id] = op
        for t in op._inputs:
            t._consumers.append(op)

    def _remove_new_ops(self, new_ops):
        """Takes back the newest ops (a failed import); nothing else may use them yet."""
        with self._lock:
            for op in reversed(new_ops):
                for t in op._inputs:
                    t._consumers.remove(op)
                for control in op._control_inputs:
                    control._control_outputs.remove(op)
                del self._nodes_by_name[op.name]
                del self._nodes_by_id[op._id]
            if new_ops:
                self._next_id_counter = min(op._id for op in new_ops) - 1

    def _next_id(self):
        """A new op id: ids are 1, 2, 3, ... in creation order."""
        self._next_id_counter += 1
        return self._next_id_counter

    def _record_edit(self, op):
        self._edited_op_ids.append(op._id)

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def finalize(self):
        """Makes the graph read-only: adding an op afterwards raises RuntimeError."""
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def _unsafe_unfinalize(self):
        self._finalized = False

    # --- looking things up ---------------------------------------------------
    @property
    def version(self):
        """Grows by one with every op added: the id of the newest op (0 when empty)."""
        return self._next_id_counter

    @property
    def _last_id(self):
        return self._next_id_counter

    @property
    def edit_count(self):
        """How many edits ops already in the graph have had (0 for a graph only grown).

        An edit changes an op's NodeDef after the op was added: an attr, its
        device, a control input added or removed, a data input rewired. With
        `oldest_op_id_edited_since`, this is how a Session tells whether the
        nodes it already sent to its runtime are still the graph's.
        """
        return len(self._edited_op_ids)

    def oldest_op_id_edited_since(self, edit_count):
        """The id of the oldest op edited after the graph's `edit_count` was `edit_count`.

        Op ids count up from 1 in creation order, as `version` does, so an op
        whose id is at most the version a session has sent is one it has
        sent. None when no op was edited since.
        """
        return min(self._edited_op_ids[edit_count:], default=None)

    @property
    def seed(self):
        """The graph-level random seed (`tf.set_random_seed`), or None."""
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    def get_operations(self):
        """Every op of the graph, in creation order."""
        with self._lock:
            return [self._nodes_by_id[i] for i in sorted(self._nodes_by_id)]

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s."
                            % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s."
                            % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def _get_operation_by_name_unsafe(self, name):
        return self._nodes_by_name[name]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a name, Tensor or Operation to the element of this graph it denotes.

        Names: "op" is an Operation, "op:0" a Tensor. A wrong kind or an
        element of another graph is a ValueError, a missing name a KeyError.
        """
        with self._lock:
            return self._as_graph_element_locked(obj, allow_tensor, allow_operation)

    def _as_graph_element_locked(self, obj, allow_tensor, allow_operation):
        if allow_tensor and allow_operation:
            kinds = "Tensor or Operation"
        elif allow_tensor:
            kinds = "Tensor"
        elif allow_operation:
            kinds = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        if hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, kinds)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % obj)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj)
            return obj
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, kinds))

    def _element_by_name(self, name, allow_tensor, allow_operation, kinds):
        tensor_name_form = ' Tensor names must be of the form "<op_name>:<output_index>".'
        if ":" in name and allow_tensor:
            op_name, _, index_text = name.partition(":")
            try:
                index = int(index_text)
            except ValueError:
                raise ValueError("The name %r looks a like a Tensor name, but is not a valid "
                                 "one.%s" % (name, tensor_name_form)) from None
            if op_name not in self._nodes_by_name:
                raise KeyError("The name %r refers to a Tensor which does not exist. The "
                               "operation, %r, does not exist in the graph." % (name, op_name))
            op = self._nodes_by_name[op_name]
            if not 0 <= index < len(op.outputs):
                raise KeyError("The name %r refers to a Tensor which does not exist. The "
                               "operation, %r, exists but only has %d outputs."
                               % (name, op_name, len(op.outputs)))
            return op.outputs[index]
        if ":" in name:
            raise ValueError("Name %r appears to refer to a Tensor, not a %s." % (name, kinds))
        if not allow_operation:
            if name in self._nodes_by_name:
                raise ValueError("The name %r refers to an Operation, not a %s.%s"
                                 % (name, kinds, tensor_name_form))
            raise ValueError("The name %r looks like an (invalid) Operation name, not a %s.%s"
                             % (name, kinds, tensor_name_form))
        if name not in self._nodes_by_name:
            raise KeyError("The name %r refers to an Operation not in the graph." % name)
        return self._nodes_by_name[name]

    # --- GraphDef -------------------------------------------------------------
    def as_graph_def(self, from_version=None, add_shapes=False):
        """The graph as data: the NodeDefs of the ops, in creation order.

        With `from_version`, only the ops added after `graph.version` had that
        value (a Session sends just those: TF's Extend). With `add_shapes`,
        each node gets an `_output_shapes` attr with its outputs' static shapes.
        The GraphDef's `version` is the graph's version when it was made.
        """
        with self._lock:
            nodes = []
            for op in self.get_operations():
                if from_version is not None and op._id <= from_version:
                    continue
                node = op.node_def
                if add_shapes:
                    node.attr["_output_shapes"] = [t.shape for t in op.outputs]
                nodes.append(node)
            return graph_def_lib.GraphDef(nodes, self.version)

    # --- collections ---------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Adds `value` to each collection in `names` once (a string names one collection)."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        """The collection's list itself (created empty if missing): edits change the graph's."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of the collection; with `scope`, only items whose name matches it (re.match).

        Items without a `name` attribute are left out when filtering by scope.
        """
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [item for item in items
                if isinstance(getattr(item, "name", None), str) and pattern.match(item.name)]

    def get_all_collection_keys(self):
        """The names of the collections (string keys) the graph holds, empty ones included."""
        with self._lock:
            return [k for k in self._collections if isinstance(k, str)]

    def clear_collection(self, name):
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    @property
    def collections(self):
        return list(self._collections)

    # --- feeding and fetching policy ---------------------------------------------
    def prevent_feeding(self, tensor):
        self._unfeedable_tensors.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable_tensors

    def prevent_fetching(self, op):
        self._unfetchable_ops.add(op)

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable_ops

    @property
    def building_function(self):
        return False

    def _capture(self, tensor, op_name):
        """A tensor of another graph as an input here: an error, except in a function's graph."""
        raise ValueError("Tensor %s must be from the same graph as the op being created (%s)."
                         % (tensor.name, op_name))


def _scope_name_as_str(name):
    if isinstance(name, bytes):
        return name.decode("utf-8")
    if not isinstance(name, str):
        raise TypeError("name for name_scope must be a string, not %s." % type(name).__name__)
    return name


def _set_output_shapes(op):
    """Runs the op's shape function; its ValueError names the node and input shapes."""
    shape_fn = op.op_def.shape_fn
    if shape_fn is None:
        return
    try:
        shapes = shape_fn(op)
    except (ValueError, TypeError) as e:
        input_shapes = ", ".join(common_shapes.shape_text(t.shape) for t in op.inputs)
        raise type(e)("%s for '%s' (op: '%s') with input shapes: %s." % (
            str(e).rstrip("."), op.name, op.type, input_shapes)) from None
    if shapes is None:
        return
    for tensor, shape in zip(op.outputs, shapes):
        tensor._shape = tensor_shape.as_shape(shape)


def _as_operation(op_or_tensor):
    """The Operation behind an Operation, a Tensor or a Variable (what colocate_with takes)."""
    if isinstance(op_or_tensor, Tensor):
        return op_or_tensor.op
    if hasattr(op_or_tensor, "_as_graph_element"):
        return _as_operation(op_or_tensor._as_graph_element())
    if isinstance(op_or_tensor, Operation):
        return op_or_tensor
    raise TypeError("Expected an Operation or Tensor, got %r" % (op_or_tensor,))


def _assert_same_graph(original_item, item):
    if original_item.graph is not item.graph:
        raise ValueError("%s must be from the same graph as %s." % (item, original_item))


# =============================================================================
# The default graph and the default session
# =============================================================================

class _DefaultStack(threading.local):
    """A per-thread stack of defaults, entered with `get_controller`."""

    def __init__(self):
        super().__init__()
        self.stack = []

    def get_default(self):
        return self.stack[-1] if self.stack else None

    @contextlib.contextmanager
    def get_controller(self, default):
        self.stack.append(default)
        try:
            yield default
        finally:
            if self.stack and self.stack[-1] is default:
                self.stack.pop()
            elif default in self.stack:
                self.stack.remove(default)


class _DefaultGraphStack(_DefaultStack):
    """Like _DefaultStack, but with a global graph underneath when nothing is entered."""

    _global_default_graph = None

    def get_default(self):
        graph = super().get_default()
        if graph is not None:
            return graph
        if _DefaultGraphStack._global_default_graph is None:
            _DefaultGraphStack._global_default_graph = Graph()
        return _DefaultGraphStack._global_default_graph

    def reset(self):
        _DefaultGraphStack._global_default_graph = None


_default_graph_stack = _DefaultGraphStack()
_default_session_stack = _DefaultStack()


def get_default_graph():
    """The graph new ops go into: the innermost `as_default()` graph, else a global one."""
    return _default_graph_stack.get_default()


def reset_default_graph():
    """Replaces the global default graph with a new, empty one.

    Only allowed outside every `with g.as_default():` block (AssertionError otherwise).
    """
    if _default_graph_stack.stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
            "cleared graph, exit the nesting and create a new graph.")
    _default_graph_stack.reset()


def get_default_session():
    return _default_session_stack.get_default()


def default_session(session):
    return _default_session_stack.get_controller(session)


def _run_using_default_session(fetch, feed_dict, graph, session):
    """`tensor.eval()` / `op.run()`: runs `fetch` in `session` or the default session."""
    is_op = isinstance(fetch, Operation)
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                "Cannot execute operation using `run()`: No default session is registered. "
                "Use `with sess.as_default():` or pass an explicit session to "
                "`run(session=sess)`" if is_op else
                "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        if session.graph is not graph:
            raise ValueError(
                "Cannot use the default session to execute operation: the operation's graph "
                "is different from the session's graph. Pass an explicit session to "
                "run(session=sess)." if is_op else
                "Cannot use the default session to evaluate tensor: the tensor's graph is "
                "different from the session's graph. Pass an explicit session to "
                "`eval(session=sess)`.")
    elif session.graph is not graph:
        raise ValueError(
            "Cannot use the given session to execute operation: the operation's graph is "
            "different from the session's graph." if is_op else
            "Cannot use the given session to evaluate tensor: the tensor's graph is different "
            "from the session's graph.")
    return session.run(fetch, feed_dict)


# =============================================================================
# Module-level scope functions (tf.name_scope, tf.control_dependencies, ...)
# =============================================================================

def _as_graph_element_or_none(value):
    """The Tensor/Operation/SparseTensor `value` stands for, or None for plain values."""
    if isinstance(value, (Operation, _TensorLike)):
        return value
    if hasattr(value, "_as_graph_element"):
        return value._as_graph_element()
    return None


def _get_graph_from_inputs(values):
    """The graph of the graph elements among `values` (the default graph if none).

    ValueError when they come from different graphs.
    """
    current = get_default_graph()
    if current.building_function:  # a function's graph captures the tensors of outer graphs
        return current
    original = None
    for value in values or ():
        element = _as_graph_element_or_none(value)
        if element is None:
            continue
        if original is None:
            original = element
        else:
            _assert_same_graph(original, element)
    return original.graph if original is not None else get_default_graph()


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """`tf.name_scope(name, default_name, values)`: opens a scope in the inputs' graph.

    The scope is `name`, or `default_name` when `name` is None, made unique
    (a name ending in '/' is reused as it is). `values` decides the graph:
    the graph of its tensors, which must all be from the same one.
    `tf.name_scope(None)` goes back to the top level.
    """
    scope_name = name if name is not None else default_name
    if scope_name is None and values is not None:
        raise ValueError("At least one of name (%s) and default_name (%s) must be provided."
                         % (name, default_name))
    graph = _get_graph_from_inputs(values)
    with graph.as_default(), graph.name_scope(scope_name) as scope:
        yield scope


@contextlib.contextmanager
def op_scope(values, name, default_name=None):
    """Deprecated since TF 0.11: `name_scope(name, default_name, values)`, arguments reordered."""
    with name_scope(name, default_name=default_name, values=values) as scope:
        yield scope


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def container(container_name):
    return get_default_graph().container(container_name)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


@contextlib.contextmanager
def init_scope():
    """Ops created inside ignore the enclosing control_dependencies blocks.

    For one-time set-up ops (a variable's initializer, an optimizer's slots)
    built while some `tf.control_dependencies` is open. The name scope stays.
    """
    graph = get_default_graph()
    scope = graph.get_name_scope()
    with graph.as_default(), graph.name_scope(scope + "/" if scope else None), \
            graph.control_dependencies(None):
        yield


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def get_name_scope():
    return get_default_graph().get_name_scope()


def op_error_with_context(error, graph):
    """`error` with the user's lines that created its node appended (when known)."""
    node_name = getattr(error, "_node_name", None)
    if node_name is None or graph is None or node_name not in graph._nodes_by_name:
        return error
    op = graph._nodes_by_name[node_name]
    frames = "\n".join('  File "%s", line %d, in %s\n    %s' % (
        filename, lineno, function, linecache.getline(filename, lineno).strip())
        for filename, lineno, function in op.traceback)
    message = "%s\n\nCaused by op %r, defined at:\n%s" % (error.message, op.name, frames)
    new = type(error)(error.node_def, op, message)
    new._node_name = node_name
    return new


errors.OpError._node_name = None
