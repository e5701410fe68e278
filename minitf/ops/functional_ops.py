"""tf.map_fn, tf.scan, tf.foldl, tf.foldr: functions applied along a tensor's first dimension.

Each is a `tf.while_loop` over the rows of `elems`, with TensorArrays to
carry them: the rows are unstacked into one TensorArray before the loop,
read one per iteration, and (for map_fn and scan) the results are written
into another TensorArray, stacked after the loop. `fn` is called once,
while the graph is built, on one row (a tensor without the first
dimension); `elems` may be a nested structure of tensors with the same
first dimension, and `fn`'s result a nested structure given by `dtype`
(map_fn) or `initializer` (scan, foldl, foldr).

    tf.map_fn(lambda x: x * x, elems)                  # [x0^2, x1^2, ...]
    tf.scan(lambda acc, x: acc + x, elems)             # running sums
    tf.foldl(lambda acc, x: acc + x, elems)            # the sum
    tf.foldr(lambda acc, x: acc * 10 + x, elems, 0)    # last row first

While they run, `get_variable` in `fn` caches each variable on the device
of the op that reads it (the variable scope's caching device), so a loop
does not fetch a remote variable once per iteration.

Mirrors `tensorflow/python/ops/functional_ops.py` (TF 1.15: map_fn, scan,
foldl, foldr).
"""

import contextlib

from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.constant_op import constant
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import nest
from minitf.ops import tensor_array_ops
from minitf.ops import variable_scope as vs

__all__ = ["map_fn", "scan", "foldl", "foldr"]


@contextlib.contextmanager
def _variables_cached_where_read():
    """Inside, variables read by the loop are cached on the reading op's device."""
    varscope = vs.get_variable_scope()
    was_none = varscope.caching_device is None
    if was_none:
        varscope.set_caching_device(lambda op: op.device)
    try:
        yield
    finally:
        if was_none:
            varscope.set_caching_device(None)


def _rows(elems_flat):
    """The number of rows: static when the first tensor's first dimension is known."""
    return (tensor_shape.dimension_value(elems_flat[0].shape[0])
            or array_ops.shape(elems_flat[0])[0])


def _unstacked(elem, n, **kwargs):
    """A TensorArray holding the rows of `elem`."""
    return tensor_array_ops.TensorArray(dtype=elem.dtype, size=n, dynamic_size=False,
                                        infer_shape=True, **kwargs).unstack(elem)


def _set_first_dimension(results_flat, elems_flat):
    """The results have as many rows as the inputs, when that is known statically."""
    n_static = tensor_shape.Dimension(tensor_shape.dimension_value(
        elems_flat[0].shape.with_rank_at_least(1)[0]))
    for elem in elems_flat[1:]:
        n_static = n_static.merge_with(tensor_shape.Dimension(tensor_shape.dimension_value(
            elem.shape.with_rank_at_least(1)[0])))
    for result in results_flat:
        result.set_shape(tensor_shape.TensorShape([n_static]).concatenate(result.shape[1:]))


def _packer(structure):
    """(flatten, pack) for `structure`: a nested structure, or a single value."""
    is_sequence = nest.is_sequence(structure)

    def flatten(x):
        return nest.flatten(x) if is_sequence else [x]

    def pack(x):
        return nest.pack_sequence_as(structure, x) if is_sequence else x[0]

    return flatten, pack


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """`fn` applied to each row of `elems`: the results stacked, `[fn(elems[0]), ...]`.

    `dtype` gives the dtype (structure) of `fn`'s result when it is not
    that of `elems`. Up to `parallel_iterations` rows (default 10) are
    computed at once.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if isinstance(elems, SparseTensor):
        raise TypeError("To perform a map on the values of a sparse tensor use either  "
                        "SparseTensor(input.indices, fn(input.values), input.dense_shape) or  "
                        "SparseTensor(input.indices, map_fn(fn, input.values), "
                        "input.dense_shape)")
    parallel_iterations = parallel_iterations or 10
    input_flatten, input_pack = _packer(elems)
    output_flatten, output_pack = (input_flatten, input_pack) if dtype is None else _packer(dtype)
    elems_flat = input_flatten(elems)
    with ops.name_scope(name, "map", elems_flat), _variables_cached_where_read():
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in elems_flat]
        dtype = dtype or input_pack([elem.dtype for elem in elems_flat])
        dtype_flat = output_flatten(dtype)
        n = _rows(elems_flat)
        elems_ta = [_unstacked(elem, n) for elem in elems_flat]
        i = constant(0)
        accs_ta = [tensor_array_ops.TensorArray(dtype=dt, size=n, dynamic_size=False,
                                                infer_shape=infer_shape) for dt in dtype_flat]

        def compute(i, tas):
            packed_values = input_pack([elem_ta.read(i) for elem_ta in elems_ta])
            packed_fn_values = fn(packed_values)
            nest.assert_same_structure(dtype or elems, packed_fn_values)
            flat_fn_values = output_flatten(packed_fn_values)
            return i + 1, [ta.write(i, value) for ta, value in zip(tas, flat_fn_values)]

        _, r_a = control_flow_ops.while_loop(
            lambda i, _: i < n, compute, (i, accs_ta), parallel_iterations=parallel_iterations,
            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        results_flat = [r.stack() for r in r_a]
        _set_first_dimension(results_flat, elems_flat)
        return output_pack(results_flat)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The running results of `a = fn(a, row)` over the rows of `elems`, stacked.

    `a` starts at `initializer`, or at the first row (which is then the
    first result). With `reverse`, the rows are taken last first.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    input_flatten, input_pack = _packer(elems)
    if initializer is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_flatten, output_pack = _packer(initializer)
    elems_flat = input_flatten(elems)
    with ops.name_scope(name, "scan", elems_flat), _variables_cached_where_read():
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in elems_flat]
        n = _rows(elems_flat)
        elems_ta = [_unstacked(elem, n, element_shape=elem.shape[1:]) for elem in elems_flat]
        if initializer is None:
            a_flat = [elem.read(n - 1 if reverse else 0) for elem in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            i = 0
        accs_ta = [tensor_array_ops.TensorArray(
            dtype=init.dtype, size=n, element_shape=init.shape if infer_shape else None,
            dynamic_size=False, infer_shape=infer_shape) for init in a_flat]
        if initializer is None:
            accs_ta = [acc_ta.write(n - 1 if reverse else 0, a)
                       for acc_ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = input_pack([elem_ta.read(i) for elem_ta in elems_ta])
            a_out = fn(output_pack(a_flat), packed_elems)
            nest.assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1), flat_a_out, tas

        if reverse:
            initial_i = n - 1 - i
            condition = lambda i, _1, _2: i >= 0  # noqa: E731
        else:
            initial_i = i
            condition = lambda i, _1, _2: i < n  # noqa: E731
        _, _, r_a = control_flow_ops.while_loop(
            condition, compute, (initial_i, a_flat, accs_ta),
            parallel_iterations=parallel_iterations, back_prop=back_prop,
            swap_memory=swap_memory, maximum_iterations=n)
        results_flat = [r.stack() for r in r_a]
        _set_first_dimension(results_flat, elems_flat)
        return output_pack(results_flat)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, row)` over the rows of `elems`, first to last; the final `a`.

    `a` starts at `initializer`, or at the first row.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldl", from_the_end=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, row)` over the rows of `elems`, last to first; the final `a`.

    `a` starts at `initializer`, or at the last row.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldr", from_the_end=True)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
          default_name, from_the_end):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, default_name, [elems]), _variables_cached_where_read():
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in nest.flatten(elems)]
        n = _rows(elems_flat)
        elems_ta = nest.map_structure(lambda elem: _unstacked(elem, n), elems)
        if from_the_end:
            i = n if initializer is not None else n - 1
            a = initializer if initializer is not None else nest.map_structure(
                lambda elem: elem.read(i), elems_ta)

            def compute(i, a):
                i -= 1
                return [i, fn(a, nest.map_structure(lambda elem: elem.read(i), elems_ta))]

            condition = lambda i, a: i > 0  # noqa: E731
        else:
            if initializer is None:
                a = nest.map_structure(lambda elem: elem.read(0), elems_ta)
                i = constant(1)
            else:
                a, i = initializer, constant(0)

            def compute(i, a):
                a = fn(a, nest.map_structure(lambda elem: elem.read(i), elems_ta))
                return [i + 1, a]

            condition = lambda i, a: i < n  # noqa: E731
        _, r_a = control_flow_ops.while_loop(
            condition, compute, [i, a], parallel_iterations=parallel_iterations,
            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        return r_a
