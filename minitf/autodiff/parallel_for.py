"""Jacobians: one gradient per element of the output, in a while loop.

`jacobian(output, inputs)` flattens `output` and asks `tf.gradients` for
the gradient of each element in turn: the loop body gathers element `i`
and differentiates it, and `for_loop` writes each iteration's rows into a
TensorArray, stacked once the loop is done. `batch_jacobian(output, inp)`
is the same over the columns of a `[batch, ...]` output whose row `b`
depends only on row `b` of the input: each iteration differentiates one
column, for every example at once.

Each iteration builds a gradient *inside* the loop: the gradient of a
gather of the flattened output, which the gradient walk sends back
through the forward graph outside the loop (seen from the loop, every
forward tensor is a loop invariant, brought in by an Enter).

Mirrors `tensorflow/python/ops/parallel_for/gradients.py` (jacobian,
batch_jacobian) and `for_loop` of `parallel_for/control_flow_ops.py`.
TensorFlow's default is to vectorize the loop instead (`pfor`, which
rewrites the body for all iterations at once); minitf has no pfor, and
`use_pfor` is accepted and ignored: the while loop TensorFlow runs with
`use_pfor=False` is always used.
"""

from minitf.autodiff import gradients_impl
from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops
from minitf.ops import nest
from minitf.ops import tensor_array_ops

__all__ = ["batch_jacobian", "for_loop", "jacobian"]


def for_loop(loop_fn, loop_fn_dtypes, iters, parallel_iterations=None):
    """Runs `loop_fn(i)` for i in [0, iters) in a while loop; stacks each output.

    `loop_fn` returns a (nested) structure of tensors, the same in every
    iteration, of the dtypes `loop_fn_dtypes` (the same structure); an
    output that is None (no gradient, say) stays None.
    """
    flat_dtypes = nest.flatten(loop_fn_dtypes)
    is_none = []

    def body(i, *arrays):
        outputs = nest.flatten(loop_fn(i))
        if len(outputs) != len(flat_dtypes):
            raise ValueError("Number of expected outputs, %d, does not match the number of "
                             "actual outputs, %d, from loop_fn" % (len(flat_dtypes),
                                                                   len(outputs)))
        is_none[:] = [out is None for out in outputs]
        written = [array if out is None else array.write(i, out)
                   for out, array in zip(outputs, arrays)]
        return tuple([i + 1] + written)

    kwargs = {} if parallel_iterations is None else {"parallel_iterations": parallel_iterations}
    arrays = control_flow_ops.while_loop(
        lambda i, *_: i < iters, body,
        [0] + [tensor_array_ops.TensorArray(dtype.base_dtype, iters) for dtype in flat_dtypes],
        **kwargs)[1:]
    stacked = [None if none else array.stack() for array, none in zip(arrays, is_none)]
    return nest.pack_sequence_as(loop_fn_dtypes, stacked)


def jacobian(output, inputs, use_pfor=True, parallel_iterations=None):
    """d output / d inputs: for each input, of shape output.shape + input.shape.

    `inputs` is a tensor or a nested structure of them; the result has the
    same structure. An input `output` does not depend on gives None.
    `use_pfor` is ignored (see the module docstring).
    """
    del use_pfor  # minitf has no pfor: always the while loop
    flat_inputs = nest.flatten(inputs)
    static_shape = output.shape
    output_shape = array_ops.shape(output)
    output = array_ops.reshape(output, [-1])

    def loop_fn(i):
        return gradients_impl.gradients(array_ops.gather(output, i), flat_inputs)

    size = output.shape[0].value
    if size is None:
        size = array_ops.shape(output)[0]
    rows = for_loop(loop_fn, [output.dtype] * len(flat_inputs), size,
                    parallel_iterations=parallel_iterations)
    for k, stacked in enumerate(rows):
        if isinstance(stacked, ops.Tensor):
            reshaped = array_ops.reshape(
                stacked, array_ops.concat([output_shape, array_ops.shape(stacked)[1:]], 0))
            reshaped.set_shape(static_shape.concatenate(flat_inputs[k].shape))
            rows[k] = reshaped
    return nest.pack_sequence_as(inputs, rows)


def batch_jacobian(output, inp, use_pfor=True, parallel_iterations=None):
    """The Jacobian of each example: [b, y_1..y_n, x_1..x_m] from output [b, y...], inp [b, x...].

    `output[b]` must depend only on `inp[b]`: each iteration differentiates
    one column of the flattened output for all examples at once, which is
    each example's own row only under that condition. `use_pfor` is
    ignored (see the module docstring).
    """
    del use_pfor
    output_shape = output.shape
    if not output_shape[0].is_compatible_with(inp.shape[0]):
        raise ValueError("Need first dimension of output shape (%s) and inp shape (%s) to "
                         "match." % (output.shape, inp.shape))
    if output_shape.is_fully_defined():
        batch_size = output_shape[0].value
        row_size = output_shape.num_elements() // batch_size
        output_shape = output_shape.as_list()
    else:
        output_shape = array_ops.shape(output)
        batch_size = output_shape[0]
        row_size = array_ops.size(output) // batch_size
    inp_shape = array_ops.shape(inp)
    with ops.control_dependencies([_assert_equal(batch_size, inp_shape[0])]):
        output = array_ops.reshape(output, [batch_size, row_size])

    def loop_fn(i):
        return gradients_impl.gradients(array_ops.gather(output, i, axis=1), inp)[0]

    columns = for_loop(loop_fn, output.dtype, row_size,
                       parallel_iterations=parallel_iterations)
    if columns is None:
        return None
    columns = array_ops.reshape(columns, [row_size, batch_size, -1])
    per_example = array_ops.transpose(columns, [1, 0, 2])
    return array_ops.reshape(per_example, array_ops.concat([output_shape, inp_shape[1:]], 0))


def _assert_equal(x, y):
    """TF's `check_ops.assert_equal` of two int32 scalars: an Assert that `x == y`."""
    with ops.name_scope(None, "assert_equal", [x, y]):
        x, y = convert_to_tensor(x), convert_to_tensor(y)
        return control_flow_ops.Assert(
            math_ops.reduce_all(math_ops.equal(x, y)),
            ["Condition x == y did not hold element-wise:", "x (%s) = " % x.name, x,
             "y (%s) = " % y.name, y])
