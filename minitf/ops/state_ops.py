"""State ops: the variable op itself and the ops that update it in place.

A TF1 variable is one stateful node, `VariableV2`, whose single output is a
*reference* (dtype `float32_ref`): the kernel looks the variable's buffer up
in its device's resource manager and hands out the `Var` itself, not a
value. Ops that declare an input `Ref(T)` (Assign, AssignAdd, ScatterAdd,
...) receive that `Var` and change its buffer in place; every other consumer
of the reference gets the buffer's current value.

Every op here that takes a reference is built colocated with the variable,
so it runs on the device that owns the buffer (TF's op_def_library does the
same for every op with a ref input).

Mirrors `tensorflow/python/ops/state_ops.py`; the OpDefs live in
`minitf/framework/op_defs/state.py`, the kernels in
`minitf/kernels/cpu/state_kernels.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops

__all__ = ["assign", "assign_add", "assign_sub", "scatter_update", "scatter_add",
           "scatter_sub", "count_up_to"]


# =============================================================================
# Building ops that take a reference
# =============================================================================

def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """The bare VariableV2 node; `tf.Variable` builds it together with its initializer."""
    return apply_op("VariableV2", name=name, shape=shape, dtype=dtype, container=container,
                    shared_name=shared_name)


def _as_ref(op_type, ref):
    """The reference tensor behind `ref` (a Variable or a `*_ref` tensor)."""
    if hasattr(ref, "_ref"):
        ref = ref._ref()
    if not isinstance(ref, ops.Tensor) or not ref.dtype.is_ref_dtype:
        raise TypeError("'%s' Op requires that input 'ref' be a mutable tensor (e.g.: a "
                        "tf.Variable)" % op_type)
    return ref


def _convert_like_ref(op_type, arg_name, value, ref):
    """`value` as a tensor of the variable's dtype, with TF's error for a mismatch."""
    dtype = ref.dtype.base_dtype
    try:
        return convert_to_tensor(value, dtype=dtype, name=arg_name)
    except (TypeError, ValueError):
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
            got = convert_to_tensor(value).dtype.base_dtype
            raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s "
                            "of argument 'ref'." % (arg_name, op_type, got.name,
                                                    dtype.name)) from None
        raise


def _apply_ref_op(op_type, ref, name, typed_inputs, indices=None, **attrs):
    """Builds `op_type` on the reference `ref`.

    `typed_inputs` (name -> value) are converted to the variable's dtype
    inside the op's name scope (so a Python value becomes `<op>/value`), and
    so are scatter `indices` (int32 unless given otherwise); only the op
    itself is colocated with the variable.
    """
    ref = _as_ref(op_type, ref)
    with ops.name_scope(name, op_type, [ref]) as scope:
        inputs = {}
        if indices is not None:
            inputs["indices"] = convert_to_tensor(indices, name="indices",
                                                  preferred_dtype=dtypes.int32)
        for arg, value in typed_inputs.items():
            inputs[arg] = _convert_like_ref(op_type, arg, value, ref)
        with ops.colocate_with(ref.op):
            return apply_op(op_type, name=scope, ref=ref, T=ref.dtype.base_dtype,
                            **inputs, **attrs)


def _locking(use_locking):
    return {} if use_locking is None else {"use_locking": use_locking}


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Stores a copy of `value` in the variable; returns the reference, for chaining.

    `validate_shape=False` lets the value change the variable's shape.
    """
    attrs = _locking(use_locking)
    if validate_shape is not None:
        attrs["validate_shape"] = validate_shape
    return _apply_ref_op("Assign", ref, name, {"value": value}, **attrs)


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to the variable in place; returns the reference."""
    return _apply_ref_op("AssignAdd", ref, name, {"value": value}, **_locking(use_locking))


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from the variable in place; returns the reference."""
    return _apply_ref_op("AssignSub", ref, name, {"value": value}, **_locking(use_locking))


def _scatter(op_type, ref, indices, updates, use_locking, name):
    return _apply_ref_op(op_type, ref, name, {"updates": updates}, indices=indices,
                         use_locking=use_locking)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """`ref[indices[i], ...] = updates[i, ...]`, row by row, in place.

    With repeated indices, the last update of a row wins.
    """
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """`ref[indices[i], ...] += updates[i, ...]` in place; repeated indices all add up."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """`ref[indices[i], ...] -= updates[i, ...]` in place; repeated indices all subtract."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


def _scatter_function(op_type, name, use_locking_default, doc):
    """A constructor `name(ref, indices, updates, use_locking, name)` of the ref op `op_type`."""
    def scatter(ref, indices, updates, use_locking=use_locking_default, name=None):
        return _scatter(op_type, ref, indices, updates, use_locking, name)
    scatter.__name__ = scatter.__qualname__ = name
    scatter.__doc__ = doc
    return scatter


# The nd forms take each indices[i] as a vector of the first indices.shape[-1]
# coordinates of ref, naming one element (all coordinates) or a whole slice.
(scatter_mul, scatter_div, scatter_max, scatter_min,
 scatter_nd_update, scatter_nd_add, scatter_nd_sub) = (
    _scatter_function(op_type, name, use_locking, doc)
    for name, op_type, use_locking, doc in [
        ("scatter_mul", "ScatterMul", False,
         "`ref[indices[i], ...] *= updates[i, ...]` in place; repeated indices all multiply."),
        ("scatter_div", "ScatterDiv", False,
         "`ref[indices[i], ...] /= updates[i, ...]` in place (integers truncate toward zero)."),
        ("scatter_max", "ScatterMax", False,
         "`ref[indices[i], ...] = max(ref[indices[i], ...], updates[i, ...])` in place."),
        ("scatter_min", "ScatterMin", False,
         "`ref[indices[i], ...] = min(ref[indices[i], ...], updates[i, ...])` in place."),
        ("scatter_nd_update", "ScatterNdUpdate", True,
         "`ref[indices[i]] = updates[i]` in place, indices[i] a vector of coordinates."),
        ("scatter_nd_add", "ScatterNdAdd", False,
         "`ref[indices[i]] += updates[i]` in place; repeated indices all add up."),
        ("scatter_nd_sub", "ScatterNdSub", False,
         "`ref[indices[i]] -= updates[i]` in place; repeated indices all subtract."),
    ])


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """`ref[i..., indices[i..., j]] = updates[i..., j]`: each row of `indices` picks the
    positions of its own row of `ref` (a scatter_update per batch entry).

    As in TensorFlow: the leading coordinates are ranges broadcast over
    indices' shape, concatenated with indices into one scatter_nd_update.
    """
    with ops.name_scope(name):
        indices = math_ops.cast(convert_to_tensor(indices, name="indices"), dtypes.int64)
        indices_shape = array_ops.shape(indices)
        indices_dimensions = indices.shape.ndims
        if indices_dimensions is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(indices, axis=-1)
        nd_indices_list = []
        for dimension in range(indices_dimensions - 1):
            shape_to_broadcast = [1] * (indices_dimensions + 1)
            shape_to_broadcast[dimension] = indices_shape[dimension]
            dimension_range = math_ops.cast(array_ops.reshape(
                math_ops.range(0, indices_shape[dimension], 1), shape_to_broadcast),
                dtypes.int64)
            nd_indices_list.append(dimension_range * array_ops.ones_like(nd_indices))
        nd_indices_list.append(nd_indices)
        final_indices = array_ops.concat(nd_indices_list, axis=-1)
        return scatter_nd_update(ref, final_indices, updates, use_locking=use_locking)


def is_variable_initialized(ref, name=None):
    """A scalar bool tensor: has the variable been assigned a value yet?"""
    ref = _as_ref("IsVariableInitialized", ref)
    with ops.colocate_with(ref.op):
        return apply_op("IsVariableInitialized", name=name, ref=ref,
                        dtype=ref.dtype.base_dtype)


def count_up_to(ref, limit, name=None):
    """Increments an integer variable and returns its old value; OutOfRangeError at `limit`."""
    return _apply_ref_op("CountUpTo", ref, name, {}, limit=limit)
