"""Kernels of the state ops: the variable, and the updates that change it in place.

`VariableV2` finds (or creates) its `Var` in the device's resource manager,
under (container, shared_name or node name), and outputs the `Var` itself.
The updates receive that `Var` (their first input is declared `Ref(T)`):

- Assign stores a *copy* of its value, so the variable never aliases a
  constant, a fed array or another op's output;
- AssignAdd/AssignSub and the Scatter ops change the existing buffer in
  place: a scatter into a large embedding table touches only its rows.

With `use_locking` an update holds the variable's lock. A fetched value is
never changed by a later update: `_Retval` copies values that are variable
buffers (see `minitf/kernels/runtime_ops.py`).

Mirrors `tensorflow/core/kernels/variable_ops.cc`, `assign_op.h`,
`dense_update_ops.cc`, `scatter_op.cc` and `count_up_to_op.cc`.
"""

import contextlib

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.resource_mgr import Var
from minitf.graph import errors
from minitf.kernels.cpu.array_kernels import scatter_nd_rows
from minitf.kernels.kernel_util import check_is_variable
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text
from minitf.kernels.kernel_util import variable_buffer


# --- helpers -----------------------------------------------------------------------

def _update_lock(var, use_locking):
    return var.lock if use_locking else contextlib.nullcontext()


# --- the variable --------------------------------------------------------------------

@register_kernel("VariableV2", ALL_DEVICE_TYPES, is_expensive=False)
def variable_v2(ctx, *, shape, dtype, container, shared_name):
    name = shared_name or ctx.node_name
    var = ctx.resource_manager.lookup_or_create(
        container, name, lambda: Var(ctx.node_name, dtype, shape))
    if var.dtype != dtype:
        raise invalid("Trying to share variable %s with dtype %s, but it was created with "
                      "dtype %s" % (name, dtype.name, var.dtype.name))
    return var


@register_kernel("IsVariableInitialized", ALL_DEVICE_TYPES, is_expensive=False)
def is_variable_initialized(ctx, var):
    check_is_variable(ctx, var)
    return ctx.xp.asarray(var.is_initialized)


# --- dense updates ---------------------------------------------------------------------

def _check_assign_shape(var, value):
    """The value must have the variable's shape: its current one, else the declared one."""
    if var.value is not None:
        expected = tuple(var.value.shape)
    elif var.shape.is_fully_defined():
        expected = tuple(var.shape.as_list())
    else:
        return
    if tuple(value.shape) != expected:
        raise invalid("Assign requires shapes of both tensors to match. lhs shape= %s rhs "
                      "shape= %s" % (shape_text(expected), shape_text(value.shape)))


@register_kernel("Assign", ALL_DEVICE_TYPES, is_expensive=False)
def assign(ctx, var, value, *, validate_shape, use_locking):
    check_is_variable(ctx, var)
    with _update_lock(var, use_locking):
        if validate_shape:
            _check_assign_shape(var, value)
        var.value = ctx.xp.array(value, copy=True)
    return var


def _dense_update(ctx, var, value, use_locking, update):
    check_is_variable(ctx, var)
    with _update_lock(var, use_locking):
        current = variable_buffer(var)
        if tuple(current.shape) != tuple(value.shape):
            raise invalid("Parameters and update must be the same size")
        update(current, value)
    return var


def _add_in_place(current, value):
    current += value


def _subtract_in_place(current, value):
    current -= value


@register_kernel("AssignAdd", ALL_DEVICE_TYPES, is_expensive=False)
def assign_add(ctx, var, value, *, use_locking):
    return _dense_update(ctx, var, value, use_locking, _add_in_place)


@register_kernel("AssignSub", ALL_DEVICE_TYPES, is_expensive=False)
def assign_sub(ctx, var, value, *, use_locking):
    return _dense_update(ctx, var, value, use_locking, _subtract_in_place)


# --- sparse (row) updates ------------------------------------------------------------------

def _check_scatter_args(ctx, table, indices, updates):
    if table.ndim < 1:
        raise invalid("params must be at least 1-D, got shape %s" % shape_text(table.shape))
    if updates.ndim != 0 and tuple(updates.shape) != tuple(indices.shape) + tuple(
            table.shape[1:]):
        raise invalid("Must have updates.shape = indices.shape + params.shape[1:] or "
                      "updates.shape = [], got updates.shape %s, indices.shape %s, params.shape %s"
                      % (shape_text(updates.shape), shape_text(indices.shape),
                         shape_text(table.shape)))
    flat = host_array(ctx, indices).reshape(-1)
    rows = table.shape[0]
    bad = np.flatnonzero((flat < 0) | (flat >= rows))
    if bad.size:
        i = int(bad[0])
        raise invalid("indices[%d] = %d is not in [0, %d)" % (i, int(flat[i]), rows))


def _scatter(ctx, var, indices, updates, use_locking, update_rows):
    check_is_variable(ctx, var)
    with _update_lock(var, use_locking):
        table = variable_buffer(var)
        _check_scatter_args(ctx, table, indices, updates)
        update_rows(ctx.xp, table, indices, updates)
    return var


def _set_rows(xp, table, indices, updates):
    table[indices] = updates


def _add_to_rows(xp, table, indices, updates):
    # ufunc.at applies every occurrence of a repeated index, as TF does.
    xp.add.at(table, indices, updates)


def _subtract_from_rows(xp, table, indices, updates):
    xp.subtract.at(table, indices, updates)


@register_kernel("ScatterUpdate", ALL_DEVICE_TYPES)
def scatter_update(ctx, var, indices, updates, *, use_locking):
    return _scatter(ctx, var, indices, updates, use_locking, _set_rows)


@register_kernel("ScatterAdd", ALL_DEVICE_TYPES)
def scatter_add(ctx, var, indices, updates, *, use_locking):
    return _scatter(ctx, var, indices, updates, use_locking, _add_to_rows)


@register_kernel("ScatterSub", ALL_DEVICE_TYPES)
def scatter_sub(ctx, var, indices, updates, *, use_locking):
    return _scatter(ctx, var, indices, updates, use_locking, _subtract_from_rows)


def _multiply_rows(xp, table, indices, updates):
    xp.multiply.at(table, indices, updates)


def _divide_rows(xp, table, indices, updates):
    if table.dtype.kind not in "iu":
        xp.divide.at(table, indices, updates)
        return
    # Integers divide as C++ does, truncating toward zero, one update after another.
    rows = xp.broadcast_to(updates, tuple(indices.shape) + tuple(table.shape[1:]))
    rows = xp.reshape(rows, (-1,) + tuple(table.shape[1:]))
    for i, divisor in zip(xp.reshape(indices, (-1,)).tolist(), rows):
        if bool(xp.any(divisor == 0)):
            raise invalid("Integer division by zero in ScatterDiv")
        quotient = xp.abs(table[i]) // xp.abs(divisor)
        table[i] = quotient * xp.sign(table[i]) * xp.sign(divisor)


def _max_into_rows(xp, table, indices, updates):
    xp.maximum.at(table, indices, updates)


def _min_into_rows(xp, table, indices, updates):
    xp.minimum.at(table, indices, updates)


def _scatter_kernel(op_type, update_rows):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, var, indices, updates, *, use_locking):
        return _scatter(ctx, var, indices, updates, use_locking, update_rows)
    return kernel


_scatter_kernel("ScatterMul", _multiply_rows)
_scatter_kernel("ScatterDiv", _divide_rows)
_scatter_kernel("ScatterMax", _max_into_rows)
_scatter_kernel("ScatterMin", _min_into_rows)


def _scatter_nd_kernel(op_type, update_rows):
    """A kernel of ScatterNd{Update,Add,Sub}: indices[i] is a vector of coordinates."""
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, var, indices, updates, *, use_locking):
        check_is_variable(ctx, var)
        with _update_lock(var, use_locking):
            table = variable_buffer(var)
            where, rows = scatter_nd_rows(ctx, table, indices, updates, op_type)
            update_rows(ctx.xp, table, where, rows)
        return var
    return kernel


_scatter_nd_kernel("ScatterNdUpdate", _set_rows)
_scatter_nd_kernel("ScatterNdAdd", _add_to_rows)
_scatter_nd_kernel("ScatterNdSub", _subtract_from_rows)


# --- counters ------------------------------------------------------------------------

@register_kernel("CountUpTo", ALL_DEVICE_TYPES, is_expensive=False)
def count_up_to(ctx, var, *, limit):
    check_is_variable(ctx, var)
    with var.lock:
        current = variable_buffer(var)
        if int(current) >= limit:
            raise errors.OutOfRangeError(None, None, "Reached limit of %d" % limit)
        before = ctx.xp.array(current, copy=True)
        current += 1
    return before
