"""tf.custom_gradient: a Python function whose gradient you write yourself.

    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_value(dy, -1.0, 1.0)
        return tf.identity(x), grad

The decorated `f(*x)` returns `(y, grad_fn)`. In a graph nothing is
"recorded": the trick is the gradient registry. Each call

1. runs `f` on the inputs, which adds its forward ops as usual;
2. registers a new gradient function under a unique name
   (`CustomGradient-<n>`) that calls `grad_fn`;
3. passes `y`, the inputs and the variables `f` read through one IdentityN
   op built inside `gradient_override_map({"IdentityN": that name})`, and
   returns IdentityN's outputs in place of `y`.

When `tf.gradients` reaches that IdentityN, it calls the registered function:
the inputs get what `grad_fn(dy)` returns, the variables what
`grad_fn(dy, variables=...)` returns for them, and `y`'s own inputs get None
— so backprop never enters the ops `f` built, and the gradient is exactly
the one `grad_fn` wrote (cut with None, replaced, clipped, ...).

Differences from TensorFlow: in graph mode TF 1.15 only sees the
ResourceVariables `f` reads (it watches them on a tape) and refuses
variables created inside `f` that are not ResourceVariables. minitf has
only reference variables: it finds the variables `f` reads by walking back
from `y` to the inputs (as later TF versions do with
`get_dependent_variables`), whether created inside `f` or before.

Two decorators are built on it: `tf.grad_pass_through(f)`, whose gradient
is the identity (backprop passes over `f` as if it were not there, say over
an assignment), and `tf.recompute_grad(f)`, whose gradient builds `f`'s ops
a second time inside the backward pass, so that its activations need not be
kept from the forward pass (in minitf's graph both copies are nodes; the
saving is TensorFlow's, on a device that frees tensors early).

Mirrors `tensorflow/python/ops/custom_gradient.py` (_graph_mode_decorator,
grad_pass_through, recompute_grad).
"""

import functools
import inspect
import itertools
import logging

from minitf.autodiff import gradients_impl
from minitf.autodiff import registry
from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops

__all__ = ["custom_gradient", "grad_pass_through", "recompute_grad"]

_uid = itertools.count(1)
_VARIABLE_OP_TYPES = ("VariableV2", "Variable", "VarHandleOp")


def custom_gradient(f):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; the gradient of y is `grad_fn(dy)`."""

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _graph_mode_decorator(f, *args, **kwargs)

    return decorated


def grad_pass_through(f):
    """`f` with the identity as its gradient: dy goes to f's inputs unchanged.

    `tf.grad_pass_through(tf.assign)(v, x)` lets the gradient reach x through an
    assignment, which has none of its own. Variables `f` reads get None.
    """

    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(*dy, **kwargs):
            variables = kwargs.get("variables")
            if variables is not None:
                return list(dy), [None] * len(variables)
            return list(dy)
        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)


def recompute_grad(f):
    """`f` whose gradient builds f's forward ops again rather than reuse the first ones."""

    @custom_gradient
    def inner(*args):
        result = f(*args)

        def grad(*dresult, **kwargs):
            variables = list(kwargs.get("variables") or [])
            with ops.control_dependencies(dresult):
                recomputed = _flatten(f(*args))
            sources = list(args) + [v.value() for v in variables]
            grads = gradients_impl.gradients(recomputed, sources, grad_ys=list(dresult))
            if kwargs.get("variables") is not None:
                return grads[:len(args)], grads[len(args):]
            return grads[:len(args)]

        return result, grad

    return functools.wraps(f)(inner)


def _graph_mode_decorator(f, *args, **kwargs):
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords arguments "
                         "only when eager execution is enabled.")
    name = "CustomGradient-%d" % next(_uid)
    args = [convert_to_tensor(x) for x in args]
    result, grad_fn = f(*args)
    flat_result = [convert_to_tensor(t) for t in _flatten(result)]
    variables = _variables_read(args, flat_result)
    _check_grad_fn_signature(grad_fn, variables)

    @registry.RegisterGradient(name)
    def internal_grad_fn(unused_op, *result_grads):
        """IdentityN's gradient: None for y's inputs, grad_fn's for the inputs and variables."""
        result_grads = result_grads[:len(flat_result)]
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        return [None] * len(flat_result) + _flatten(input_grads) + list(variable_grads)

    all_tensors = flat_result + args + [v.value() for v in variables]
    with ops.get_default_graph().gradient_override_map({"IdentityN": name}):
        all_tensors = array_ops.identity_n(all_tensors)
    return _pack_like(result, all_tensors[:len(flat_result)])


def _check_grad_fn_signature(grad_fn, variables):
    spec = inspect.getfullargspec(grad_fn)
    variables_in_signature = ("variables" in spec.args or "variables" in spec.kwonlyargs
                              or spec.varkw is not None)
    if variables and not variables_in_signature:
        raise TypeError("If using @custom_gradient with a function that uses variables, then "
                        "grad_fn must accept a keyword argument 'variables'.")
    if variables_in_signature and not variables:
        logging.getLogger("minitf").warning(
            "@custom_gradient grad_fn has 'variables' in signature, but no variables were used "
            "on the forward pass.")


def _variables_read(args, flat_result):
    """The Variables read on the way from the inputs `args` to `flat_result`.

    Walks back from the results, not going past the inputs, and keeps the
    variable ops met on the way, returned as the Variable objects of the
    graph's variable collections (in collection order).
    """
    stop = {id(t) for t in args}
    seen, stack, var_op_names = set(), [t.op for t in flat_result if id(t) not in stop], set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in _VARIABLE_OP_TYPES:
            var_op_names.add(op.name)
        stack.extend(t.op for t in op.inputs if id(t) not in stop)
    if not var_op_names:
        return []
    graph = ops.get_default_graph()
    variables = []
    for key in (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.LOCAL_VARIABLES):
        for v in graph.get_collection(key):
            if v.op.name in var_op_names and all(v is not w for w in variables):
                variables.append(v)
    return variables


# --- flattening y, and the gradients grad_fn returns ------------------------------------

def _flatten(structure):
    """The leaves of nested lists/tuples, in order (a single value is one leaf)."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack_like(structure, flat):
    """`flat` put back into the nesting of `structure`."""
    leaves = iter(flat)

    def pack(s):
        if isinstance(s, (list, tuple)):
            items = [pack(item) for item in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        return next(leaves)

    return pack(structure)
