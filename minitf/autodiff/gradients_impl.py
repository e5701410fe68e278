"""tf.gradients: backpropagation as more graph.

`tf.gradients(ys, xs)` runs nothing. It walks the graph backwards from `ys`
to `xs` and, for every op on the way, calls that op's registered gradient
function, which adds the ops computing the gradients of the op's inputs
from the gradients of its outputs. The result is a set of new tensors in the
same graph, under a `gradients/` name scope (`gradients/MatMul_grad/MatMul`).

The walk:

1. find the ops *between* `xs` and `ys`: reachable forward from xs along
   floating-point tensors (an integer tensor carries no gradient, so the
   walk is cut there) and backward from ys;
2. give each of them a *pending count*: how many of its consumers, among
   those ops, still have to send it a gradient;
3. start from `ys` (gradient `grad_ys`, ones by default); an op is processed
   once all of its consumers have sent their gradients, so that gradients
   arriving along several paths (fan-out, skip connections) are summed
   first (one AddN) and sent on once. Visiting ops in plain breadth-first
   order instead would send partial sums — the classic bug of TF clones.

Conds and loops need more (`control_flow_state.py`, `control_flow_grad.py`):
a loop's gradient is a loop of its own, built while the walk goes through
the forward loop; the gradient function of an op in a loop runs in that
gradient loop's context; a loop's Exits are processed all at once (those
the ys do not use get zero gradients), and a loop's Switch is visited
twice, once from its Exit and once from the body.

A gradient that is an IndexedSlices (from a gather or embedding lookup)
stays sparse: several of them are summed by concatenating their rows, and
one becomes a dense tensor only when an op that needs a dense input (a
dense gradient to add, a gradient function doing arithmetic) receives it.

`tf.hessians` differentiates each gradient element once more, in a while
loop over the elements.

Mirrors `tensorflow/python/ops/gradients_util.py` (_GradientsHelper) and
`gradients_impl.py` (gradients, hessians).
"""

import collections
import contextlib
import enum

from minitf.autodiff import control_flow_state
from minitf.autodiff import registry
from minitf.graph import dtypes
from minitf.graph.constant_op import constant
from minitf.graph import ops
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.tensor_conversion import (convert_to_tensor,
                                            register_tensor_conversion_function)
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import control_flow_util
from minitf.ops import math_ops
from minitf.ops import tensor_array_ops

__all__ = ["AggregationMethod", "UnconnectedGradients", "gradients", "hessians"]


class AggregationMethod:
    """How the gradients arriving at one tensor along several paths are summed.

    ADD_N (the DEFAULT) sums them with one AddN op. The EXPERIMENTAL_ ones
    add them pairwise, a chain of two-input AddN ops, which lets the early
    gradients be freed sooner.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What tf.gradients returns for an x that ys do not depend on: None or zeros."""

    NONE = "none"
    ZERO = "zero"


# The dtypes a gradient can flow through (TF's backprop_util.IsTrainable).
_TRAINABLE_DTYPES = {dtypes.float16, dtypes.float32, dtypes.float64}
for _name in ("bfloat16", "complex64", "complex128"):
    if hasattr(dtypes, _name):
        _TRAINABLE_DTYPES.add(getattr(dtypes, _name))


# =============================================================================
# tf.gradients
# =============================================================================

def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """The symbolic partial derivatives of sum(ys) with respect to each x in xs.

    Returns a list as long as `xs`: a Tensor (or IndexedSlices) per x, None
    where ys do not depend on x (or zeros with
    `unconnected_gradients='zero'`). `grad_ys` are the initial gradients of
    ys (ones by default); backprop does not go through `stop_gradients`
    (tensors or ops), which are treated as constants.

    Differences from TensorFlow: a `grad_ys` entry given as a plain value
    (list, NumPy array) is converted to y's dtype where it can be; TF makes
    a Python float list float32 whatever y's dtype. `stop_gradients` may
    also name Operations.
    """
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError("Unknown value for unconnected_gradients: %r"
                         % (unconnected_gradients,)) from None
    ys, xs = _as_list(ys), _as_list(xs)
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)

    with ops.name_scope(name, "gradients", ys + xs + stop_gradients + grad_ys):
        graph = ops.get_default_graph()
        gradient_uid = graph.unique_name("uid")
        ys = _convert_n(ys, name="y")
        xs = _convert_n(xs, name="x", as_ref=True)
        grad_ys = _default_grad_ys(grad_ys, ys, colocate_gradients_with_ops, gradient_uid)
        walk = _BackwardWalk(ys, xs, stop_gradients, colocate_gradients_with_ops,
                             gate_gradients, aggregation_method, gradient_uid)
        for y, grad_y in zip(ys, grad_ys):
            walk.set_grad(y, grad_y)
        walk.run()
        return [walk.final_gradient(x, unconnected_gradients) for x in xs]


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _convert_n(values, name, as_ref=False):
    """Tensors (or IndexedSlices) for `values`; Variables as their reference with as_ref."""
    result = []
    for i, value in enumerate(values):
        if isinstance(value, (ops.Tensor, IndexedSlices)):
            result.append(value)
        else:
            result.append(convert_to_tensor(value, name="%s_%d" % (name, i), as_ref=as_ref))
    return result


def _default_grad_ys(grad_ys, ys, colocate_gradients_with_ops, gradient_uid):
    """The initial gradient of each y: `grad_ys[i]`, or ones shaped like y.

    A given gradient gets an Identity named `grad_ys_<i>`; a default one is
    `Fill(Shape(y), grad_ys_<i>)` with `grad_ys_<i>` the constant 1.
    """
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    result = []
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys)):
        with _maybe_colocate_with(y.op, gradient_uid, colocate_gradients_with_ops):
            if grad_y is None:
                if y.dtype.is_complex:
                    raise TypeError("Gradients of complex tensors must set grad_ys "
                                    "(y.dtype = %r)" % y.dtype)
                y_shape = array_ops.shape(y)
                one = convert_to_tensor(1, dtype=y.dtype.base_dtype, name="grad_ys_%d" % i)
                result.append(array_ops.fill(y_shape, one))
                continue
            if not isinstance(grad_y, (ops.Tensor, IndexedSlices)):
                # A plain value takes y's dtype where it can (TF would make it float32).
                grad_y = convert_to_tensor(grad_y, name="grad_y_%d" % i,
                                           preferred_dtype=y.dtype.base_dtype)
            _check_grad_y_dtype(y, grad_y)
            result.append(_named_grad_y(grad_y, i))
    return result


def _check_grad_y_dtype(y, grad_y):
    y_dtype, g_dtype = y.dtype.base_dtype, grad_y.dtype.base_dtype
    if y_dtype.is_floating or y_dtype.is_integer:
        if not (g_dtype.is_floating or g_dtype.is_integer):
            raise TypeError("Gradient type %s generated for real or integer-valued tensor %s "
                            "with type %s must be real or integer"
                            % (g_dtype.name, y, y_dtype.name))
    elif y_dtype.is_complex:
        if not g_dtype.is_complex:
            raise TypeError("Gradient type %s generated for complex-valued tensor %s with "
                            "type %s must be real" % (g_dtype.name, y, y_dtype.name))
    else:
        raise TypeError("Tensor %s with type %s must be numeric to obtain a default gradient"
                        % (y, y_dtype.name))


def _named_grad_y(grad_y, i):
    """`grad_y` through an Identity named grad_ys_<i> (each part of an IndexedSlices)."""
    if isinstance(grad_y, IndexedSlices):
        def named(t, suffix):
            return (array_ops.identity(t, name="grad_ys_%d_%s" % (i, suffix))
                    if isinstance(t, ops.Tensor) else t)
        return IndexedSlices(named(grad_y.values, "values"), named(grad_y.indices, "indices"),
                             named(grad_y.dense_shape, "shape"))
    return array_ops.identity(grad_y, name="grad_ys_%d" % i)


@contextlib.contextmanager
def _maybe_colocate_with(op, gradient_uid, colocate_gradients_with_ops):
    if colocate_gradients_with_ops:
        with op.graph._colocate_with_for_gradient(op, gradient_uid):
            yield
    else:
        yield


# =============================================================================
# The walk
# =============================================================================

class _BackwardWalk:
    """The state of one tf.gradients call: pending counts and the gradients received.

    `grads[op]` holds, per output of `op`, the list of gradients received so
    far; when `op` is processed the list is replaced by their sum.
    """

    def __init__(self, ys, xs, stop_gradients, colocate, gate_gradients, aggregation_method,
                 gradient_uid):
        self.colocate = colocate
        self.gate_gradients = gate_gradients
        self.aggregation_method = _check_aggregation_method(aggregation_method)
        self.gradient_uid = gradient_uid  # TF's id of this call, for colocation
        self.to_ops = [y.op for y in ys]
        self.from_ops = [x.op for x in xs]
        reached = _reached_ops(self.from_ops)
        self.reachable_to_ops = {op for op in self.to_ops if op in reached}
        between_list = _between_ops(self.to_ops, reached)
        self.between = set(between_list)
        # None unless loops lie between: then each gets its gradient loop's state.
        self.loop_state = control_flow_state.maybe_create_control_flow_state(
            between_list, self.between, colocate)
        self.pending = _pending_counts(self.between)
        self.stop_ops = _stop_ops(self.from_ops, [_op_of(s) for s in stop_gradients],
                                  self.pending)
        self.grads = {}

    # --- the gradients received -----------------------------------------------
    def set_grad(self, tensor, grad):
        """Records `grad` as one more gradient received by `tensor`.

        (A loop Switch, visited a second time, has its gradients summed
        already: the new one replaces them.)
        """
        per_output = self.grads.setdefault(tensor.op, [[] for _ in tensor.op.outputs])
        received = per_output[tensor.value_index]
        if isinstance(received, list):
            received.append(grad)
        else:
            per_output[tensor.value_index] = grad

    def final_gradient(self, x, unconnected_gradients):
        per_output = self.grads.get(x.op)
        if not per_output:
            if unconnected_gradients is UnconnectedGradients.ZERO:
                return array_ops.zeros_like(x, dtype=x.dtype.base_dtype)
            return None
        grad = per_output[x.value_index]
        if isinstance(grad, list):  # an x whose op was never processed: sum what it got
            grad = _aggregate(grad, x.op, self.gradient_uid, self.aggregation_method)
        return grad

    # --- processing ops in dependency order ------------------------------------------
    def run(self):
        queue = collections.deque()
        queued = set()
        for op in self.to_ops:
            # An op whose own output feeds another y waits for that gradient too.
            if self.pending.get(op, 0) == 0 and op not in queued and op in self.reachable_to_ops:
                queued.add(op)
                queue.append(op)
        loop_state = self.loop_state
        if loop_state is not None:
            for y in loop_state.process_unused_loop_exits(self.pending, queued):
                if _is_trainable(y):
                    self.set_grad(y, loop_state.zeros_like_for_exit(y))
                    queue.append(y.op)
        while queue:
            op = queue.popleft()
            with _maybe_colocate_with(op, self.gradient_uid, self.colocate):
                self._enter_grad_context(op, before=True)
                out_grads = self._aggregated_grads(op)
                self._exit_grad_context(op, before=True)
                self._enter_grad_context(op, before=False)
                self._check_not_through_initial_value(op)
                in_grads = self._input_gradients(op, out_grads)
                for i, (t_in, in_grad) in enumerate(zip(op.inputs, in_grads)):
                    if in_grad is not None:
                        _set_static_shape(op, i, t_in, in_grad)
                        self.set_grad(t_in, in_grad)
                self._exit_grad_context(op, before=False)
            self._update_pending_and_enqueue_ready(op, queue)
        if loop_state is not None:
            loop_state.post_processing()

    def _enter_grad_context(self, op, before):
        """In a loop, the gradient loop's context is where `op`'s gradient is built."""
        if self.loop_state is not None:
            self.loop_state.enter_grad_while_context(op, before)

    def _exit_grad_context(self, op, before):
        if self.loop_state is not None:
            self.loop_state.exit_grad_while_context(op, before)

    def _check_not_through_initial_value(self, op):
        """ValueError for a gradient through a loop variable's initial value, from inside the
        loop (only the body's use of it can be differentiated there)."""
        ctxt = op._get_control_flow_context()
        if (control_flow_util.is_switch(op) and ctxt is not None and ctxt.is_while_context()
                and ctxt is ops.get_default_graph()._get_control_flow_context()):
            target = _nearest_from_op(op, self.from_ops)
            raise ValueError(
                "Cannot compute gradient inside while loop with respect to op '%s'. We do not "
                "support taking the gradient wrt or through the initial value of a loop "
                "variable. Gradients can be computed through loop invariants or wrt the input "
                "parameters to the loop body." % target.name)

    def _aggregated_grads(self, op):
        """Sums each output's gradients (in place in `grads`); None where none arrived."""
        per_output = self.grads.get(op)
        if per_output is None:
            return [None] * len(op.outputs)
        for i, received in enumerate(per_output):
            if isinstance(received, list):  # else a loop Switch's, summed on its first visit
                per_output[i] = _aggregate(received, op, self.gradient_uid,
                                           self.aggregation_method)
        return list(per_output)

    def _input_gradients(self, op, out_grads):
        """Calls the op's gradient function; one gradient (or None) per input."""
        has_out_grads = any(g is not None for g in out_grads)
        grad_fn = None
        if has_out_grads and op not in self.stop_ops:
            try:
                grad_fn = registry.get_gradient_function(op)
            except LookupError:
                raise LookupError("No gradient defined for operation '%s' (op type: %s)"
                                  % (op.name, op.type)) from None
        if grad_fn is None or not has_out_grads:
            return [None] * len(op.inputs)
        # An output no gradient reached does not change the result: its gradient is 0.
        out_grads = [self._zeros_for_output(op, i) if g is None and _is_trainable(op.outputs[i])
                     else g for i, g in enumerate(out_grads)]
        with ops.name_scope(op.name + "_grad"):
            in_grads = _as_list(grad_fn(op, *out_grads))
            _verify_generated_gradients(in_grads, op)
            if self.gate_gradients:
                in_grads = self._gate(op, in_grads)
        return in_grads

    def _gate(self, op, in_grads):
        """GATE_OP: the op's gradients that lead to an x become available only together.

        A gradient for an input that leads to no x (the images fed to the
        first layer, say) is left out of the gate, so nothing forces it to be
        computed. TensorFlow gates it too and then relies on its graph
        optimizer (Grappler) to prune it; minitf has no such pass, so it does
        not add the work in the first place.
        """
        needed = [i for i, (tensor, grad) in enumerate(zip(op.inputs, in_grads))
                  if grad is not None and tensor.op in self.between]
        if len(needed) < 2:
            return in_grads
        graph = ops.get_default_graph()
        with graph.device(None), graph._colocate_with_for_gradient(
                None, self.gradient_uid, ignore_existing=True):
            # An IndexedSlices is gated through its values, as TF's tuple does.
            dense = [_values_of(in_grads[i]) for i in needed]
            gated = control_flow_ops.tuple(dense)
        result = list(in_grads)
        for i, value in zip(needed, gated):
            grad = in_grads[i]
            result[i] = (IndexedSlices(value, grad.indices, grad.dense_shape)
                         if isinstance(grad, IndexedSlices) else value)
        return result

    def _zeros_for_output(self, op, index):
        if self.loop_state is not None:
            return self.loop_state.zeros_like_v1_while_loop(op, index)
        return control_flow_state.zeros_like(op, index)

    def _update_pending_and_enqueue_ready(self, op, queue):
        """Counts `op`'s gradient in at its inputs' ops; queues those that got all theirs.

        A loop Switch is queued at each gradient it gets (it is visited
        twice). A loop's Exits wait for one another: when the last is ready,
        those with a gradient go first, and the others get zeros (or all
        get None, when none has a gradient).
        """
        for t_in in op.inputs:
            source = t_in.op
            if source not in self.pending:
                continue
            self.pending[source] -= 1
            ready = self.pending[source] == 0
            if self.loop_state is not None and not ready:
                ready = self.pending[source] > 0 and control_flow_util.is_loop_switch(source)
            if not ready:
                continue
            if control_flow_util.is_loop_exit(source):
                self._defer_loop_exit(source, queue)
            else:
                queue.append(source)

    def _defer_loop_exit(self, exit_op, queue):
        grad_state = self.loop_state.get_grad_state(exit_op, before=False)
        grad_state.deferred_exits.append(exit_op.outputs[0])
        grad_state.pending_exits_count -= 1
        if grad_state.pending_exits_count != 0:
            return
        has_not_none_grad = False
        for y in grad_state.deferred_exits:
            if self._has_any_not_none_grads(y.op):
                has_not_none_grad = True
                queue.append(y.op)
            else:
                grad_state.unused_exits.append(y)
        for y in grad_state.unused_exits:
            if has_not_none_grad and _is_trainable(y):
                self.set_grad(y, self.loop_state.zeros_like_for_exit(y))
            queue.append(y.op)

    def _has_any_not_none_grads(self, op):
        for received in self.grads.get(op, ()):
            if isinstance(received, (ops.Tensor, IndexedSlices)):
                return True
            if received and any(g is not None for g in received):
                return True
        return False


def _nearest_from_op(op, from_ops):
    """The first of `from_ops` found walking back from `op` (for an error message)."""
    queue, visited = collections.deque([op]), set()
    while queue:
        current = queue.popleft()
        if current in visited:
            continue
        visited.add(current)
        if current in from_ops:
            return current
        queue.extend(t.op for t in current.inputs)
    return op


def _check_aggregation_method(aggregation_method):
    if aggregation_method is None:
        aggregation_method = AggregationMethod.DEFAULT
    if aggregation_method not in (AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError("Invalid aggregation_method specified %s." % (aggregation_method,))
    return aggregation_method


def _is_trainable(tensor):
    return tensor.dtype.base_dtype in _TRAINABLE_DTYPES


def _op_of(value):
    """The op of a stop_gradients entry (a Tensor, IndexedSlices, Variable or Operation)."""
    if isinstance(value, ops.Operation):
        return value
    if not hasattr(value, "op"):
        value = convert_to_tensor(value)
    return value.op


# --- which ops the walk visits -------------------------------------------------------

def _reached_ops(from_ops):
    """Ops reachable forward from `from_ops` along tensors a gradient can flow through."""
    reached = set()
    queue = collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            continue
        reached.add(op)
        for output in op.outputs:
            if _is_trainable(output):
                queue.extend(output.consumers())
    return reached


def _values_of(grad):
    return grad.values if isinstance(grad, IndexedSlices) else grad


def _between_ops(to_ops, reached):
    """Ops on a path from the xs to the ys: the reached ops found walking back from ys.

    A list, in the order found.
    """
    between, between_list = set(), []
    queue = collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached and op not in between:
            between.add(op)
            between_list.append(op)
            queue.extend(t.op for t in op.inputs)
    return between_list


def _pending_counts(between):
    """For each op between xs and ys: how many gradient messages it will receive.

    Every op starts in the dict (0 when nothing between consumes it); ops
    outside `between` are not in it, which is how the walk knows to leave them.
    """
    pending = {op: 0 for op in between}
    for op in between:
        for t_in in op.inputs:
            if t_in.op in between:
                pending[t_in.op] += 1
    return pending


def _stop_ops(from_ops, stop_gradient_ops, pending):
    """The ops whose gradient function is not called.

    The x ops with no other x upstream (backprop has nothing left to do
    beyond them), plus the ops the caller asked to stop at.
    """
    stop = set()
    for op in from_ops:
        if all(pending.get(t_in.op, 0) == 0 for t_in in op.inputs):
            stop.add(op)
    stop.update(stop_gradient_ops)
    return stop


# --- one gradient function call ------------------------------------------------------

def _verify_generated_gradients(grads, op):
    if len(grads) != len(op.inputs):
        raise ValueError("Num gradients %d generated for op %s do not match num inputs %d"
                         % (len(grads), op.node_def, len(op.inputs)))


def _set_static_shape(op, index, t_in, in_grad):
    """A dense gradient has its input's shape: merge what is known statically."""
    if not isinstance(in_grad, ops.Tensor):
        return
    try:
        in_grad.set_shape(t_in.shape)
    except ValueError:
        raise ValueError("Incompatible shapes between op input and calculated input gradient. "
                         " Forward operation: %s.  Input index: %d. Original input shape: %s. "
                         " Calculated input gradient shape: %s"
                         % (op.name, index, t_in.shape, in_grad.shape)) from None


# =============================================================================
# Summing gradients
# =============================================================================

def _aggregate(received, op, gradient_uid, aggregation_method):
    """One gradient from those `received` by one tensor (None if none)."""
    received = [g for g in received if g is not None]
    if not received:
        return None
    if len(received) == 1:
        return received[0]
    if all(isinstance(g, ops.Tensor) for g in received):
        if aggregation_method in (AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
            return _pairwise_sum(received, op)
        return _multi_device_add_n(received, gradient_uid)
    return _aggregate_indexed_slices_gradients(received)


def _pairwise_sum(tensors, op):
    with ops.name_scope(op.name + "_gradient_sum"):
        running_sum = tensors[0]
        for grad in tensors[1:]:
            running_sum = math_ops.add_n([running_sum, grad])
    return running_sum


def _multi_device_add_n(tensors, gradient_uid):
    """AddN per device first (next to the tensors), then one AddN of the partial sums."""
    by_device = collections.defaultdict(list)
    for t in tensors:
        by_device[t.device].append(t)
    summands = []
    graph = tensors[0].graph
    for device in sorted(by_device, key=lambda d: d or ""):
        group = by_device[device]
        with graph._colocate_with_for_gradient(group[0].op, gradient_uid, ignore_existing=True):
            summands.append(math_ops.add_n(group))
    return math_ops.add_n(summands)


def _aggregate_indexed_slices_gradients(grads):
    """Sparse gradients concatenate their rows; a dense one among them makes the sum dense."""
    if any(isinstance(g, ops.Tensor) for g in grads):
        return math_ops.add_n(grads)
    grads = _with_common_index_dtype(grads)
    return IndexedSlices(array_ops.concat([g.values for g in grads], axis=0),
                         array_ops.concat([g.indices for g in grads], axis=0),
                         grads[0].dense_shape)


def _with_common_index_dtype(grads):
    """int64 indices for all when some are int32 and some int64 (concat needs one dtype)."""
    int32_count = sum(g.indices.dtype.base_dtype == dtypes.int32 for g in grads)
    if int32_count in (0, len(grads)):
        return grads
    return [IndexedSlices(g.values, math_ops.cast(g.indices, dtypes.int64), g.dense_shape)
            if g.indices.dtype.base_dtype == dtypes.int32 else g for g in grads]


# =============================================================================
# IndexedSlices -> Tensor, when a dense tensor is needed
# =============================================================================

def indexed_slices_to_dense(value, dtype=None, name=None, as_ref=False):
    """The dense tensor an IndexedSlices stands for (rows summed where indices repeat).

    Registered as the conversion function of IndexedSlices: `convert_to_tensor`
    on a sparse gradient (e.g. when an op's gradient function multiplies it)
    goes through here.
    """
    del as_ref  # an IndexedSlices is never a reference
    if not isinstance(value, IndexedSlices):
        return value
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
        raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                         % (dtypes.as_dtype(dtype).name, value.dtype.name, value))
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: "
                         "%s" % (value,))
    return math_ops.unsorted_segment_sum(value.values, value.indices, value.dense_shape[0],
                                         name=name)


register_tensor_conversion_function(IndexedSlices, indexed_slices_to_dense)


# =============================================================================
# tf.hessians
# =============================================================================

def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of sum(ys) with respect to each x in xs: shape x.shape + x.shape.

    For each x, the gradient is flattened and a while loop differentiates
    its elements one by one, writing each row (d gradient[j] / dx) into a
    TensorArray, which is stacked and reshaped at the end. So the size of
    x may be known only when the graph runs. As in TensorFlow, `name` is
    accepted but not used, and an element of the gradient that does not
    depend on x (ys linear in x) fails with "None values not supported".
    """
    del name  # unused, as in TF 1.15
    xs = _as_list(xs)
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops,
              "gate_gradients": gate_gradients, "aggregation_method": aggregation_method}
    result = []
    for gradient, x in zip(gradients(ys, xs, **kwargs), xs):
        gradient = array_ops.reshape(gradient, [-1])
        n = array_ops.size(x)
        loop_vars = [constant(0, dtypes.int32), tensor_array_ops.TensorArray(x.dtype, n)]

        def row(j, rows, gradient=gradient, x=x):
            return j + 1, rows.write(j, gradients(gradient[j], x, **kwargs)[0])

        _, hessian = control_flow_ops.while_loop(lambda j, _, n=n: j < n, row, loop_vars)
        x_shape = array_ops.shape(x)
        result.append(array_ops.reshape(hessian.stack(),
                                        array_ops.concat((x_shape, x_shape), 0)))
    return result
