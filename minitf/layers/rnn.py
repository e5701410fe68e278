"""Recurrent networks: a cell (minitf/layers/rnn_cell_impl.py) run over time.

`dynamic_rnn` builds one `tf.while_loop` whose body calls the cell once: the
inputs are unstacked into a TensorArray (time first), each step reads its
slice, and the outputs are written to another TensorArray and stacked at
the end. The graph has the size of one step whatever the sequence length.
`static_rnn` instead unrolls: it calls the cell once per element of a
Python list, every step its own ops (sharing the variables).

With `sequence_length`, a batch entry whose sequence has ended gets zeros as
output and keeps its last state (a `where` per step), so the final state is
each sequence's own last one.

The bidirectional versions run a second cell over the time-reversed inputs
(`reverse_sequence`, so each sequence is reversed within its own length)
and reverse its outputs back. `raw_rnn` hands the control of every step to
a `loop_fn`.

Mirrors `tensorflow/python/ops/rnn.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops
from minitf.ops import nest
from minitf.ops import tensor_array_ops
from minitf.ops import variable_scope as vs
from minitf.layers.rnn_cell_impl import _concat
from minitf.layers.rnn_cell_impl import assert_like_rnncell


def _transpose_batch_time(x):
    """[batch, time, ...] <-> [time, batch, ...]; tensors of rank < 2 are left alone."""
    static_shape = x.shape
    if static_shape.ndims is not None and static_shape.ndims < 2:
        return x
    x_t = array_ops.transpose(x, array_ops.concat(([1, 0], math_ops.range(2, array_ops.rank(x))),
                                                  axis=0))
    if static_shape.ndims is not None:
        dims = static_shape.as_list()
        x_t.set_shape([dims[1], dims[0]] + dims[2:])
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The batch size of time-major inputs: static where known, else dynamic."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError("Expected input tensor %s to have rank at least 2" % input_)
        batch_size = shape.as_list()[1]
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    """`explicit_dtype`, or the one dtype all of `state`'s tensors have."""
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_sequence(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError("State has tensors of different inferred_dtypes. Unable to infer "
                             "a single representative dtype.")
        return inferred[0]
    return state.dtype


def _as_shape(size):
    """An output or state size (an int, a TensorShape, or a constant tensor) as a TensorShape."""
    if isinstance(size, ops.Tensor):
        return tensor_shape.as_shape(tensor_util.constant_value(size))
    if isinstance(size, int):
        return tensor_shape.TensorShape([size])
    return tensor_shape.as_shape(size)


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


# --- one step with sequence lengths: finished entries copy their state through -------------

def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output,
              state, call_cell, skip_conditionals=False):
    """The cell's (output, state) at `time`, with each finished entry's output zeroed and its
    state kept (`time >= sequence_length`).

    `skip_conditionals` (dynamic_rnn) selects at every step; otherwise (static_rnn)
    a `cond` skips the cell once every sequence has ended and the selection while
    none has.
    """
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, tensor_array_ops.TensorArray) or output.shape.ndims == 0:
            return new_output
        with ops.colocate_with(new_output):
            return math_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(zero, new) for zero, new in zip(flat_zero_output,
                                                                  flat_new_output)]
                + [copy_one_through(old, new) for old, new in zip(flat_state, flat_new_state)])

    def call_and_flatten():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    def maybe_copy_some_through():
        flat_new_output, flat_new_state = call_and_flatten()
        return control_flow_ops.cond(
            time < min_sequence_length, lambda: flat_new_output + flat_new_state,
            lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        final_output_and_state = copy_some_through(*call_and_flatten())
    else:
        final_output_and_state = control_flow_ops.cond(
            time >= max_sequence_length, lambda: flat_zero_output + flat_state,
            maybe_copy_some_through)
    final_output = final_output_and_state[:len(flat_zero_output)]
    final_state = final_output_and_state[len(flat_zero_output):]
    for output, flat_output in zip(final_output, flat_zero_output):
        output.set_shape(flat_output.shape)
    for substate, flat_substate in zip(final_state, flat_state):
        if not isinstance(substate, tensor_array_ops.TensorArray):
            substate.set_shape(flat_substate.shape)
    return (nest.pack_sequence_as(structure=zero_output, flat_sequence=final_output),
            nest.pack_sequence_as(structure=state, flat_sequence=final_state))


# --- dynamic_rnn: one while_loop --------------------------------------------------------------

def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs `cell` over `inputs` ([batch, time, depth], or [time, batch, depth] when
    `time_major`) in a while_loop: (outputs, final state), outputs laid out as the inputs.

    Without `initial_state`, the cell's zero state of `dtype`. With
    `sequence_length` ([batch] ints), steps past an entry's length give zeros
    and keep its state. `swap_memory` is accepted (minitf keeps every value
    in memory).
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat_input = [convert_to_tensor(input_) for input_ in nest.flatten(inputs)]
        if not time_major:
            flat_input = tuple(_transpose_batch_time(input_) for input_ in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size, but "
                                 "saw shape: %s" % sequence_length.shape)
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            with ops.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(structure=inputs, flat_sequence=flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, sequence_length=sequence_length, dtype=dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _assert_has_shape(x, shape):
    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    return control_flow_ops.Assert(
        math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
        ["Expected shape for Tensor %s is " % x.name, packed_shape, " but saw shape: ",
         x_shape])


def _check_time_major_inputs(flat_input):
    """The static [time, batch, depth...] shapes of the inputs, which must agree."""
    shapes = tuple(input_.shape.with_rank_at_least(3) for input_ in flat_input)
    const_time_steps, const_batch_size = shapes[0].as_list()[:2]
    for shape in shapes:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             "inference, but saw value None.")
        if const_time_steps != shape.as_list()[0]:
            raise ValueError("Time steps is not the same for all the elements in the input in "
                             "a batch.")
        if const_batch_size != shape.as_list()[1]:
            raise ValueError("Batch_size is not the same for all the elements in the input.")
    return shapes, const_time_steps, const_batch_size


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory,
                      sequence_length=None, dtype=None):
    """The while_loop of dynamic_rnn over time-major `inputs`: (outputs, final state)."""
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape, const_time_steps, const_batch_size = _check_time_major_inputs(flat_input)
    state_dtype = _infer_state_dtype(dtype, state)

    flat_zero_output = tuple(array_ops.zeros(array_ops.stack(_concat(batch_size, size)),
                                             state_dtype) for size in flat_output_size)
    zero_output = nest.pack_sequence_as(structure=cell.output_size,
                                        flat_sequence=flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = array_ops.constant(0, dtype=dtypes.int32, name="time")
    with ops.name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name, element_shape, dtype):
        return tensor_array_ops.TensorArray(dtype=dtype, size=time_steps,
                                            element_shape=element_shape,
                                            tensor_array_name=base_name + name)
    output_ta = tuple(create_ta("output_%d" % i, tensor_shape.TensorShape(
        [const_batch_size]).concatenate(_as_shape(size)), state_dtype)
        for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta("input_%d" % i, input_.shape[1:], input_.dtype)
                     for i, input_ in enumerate(flat_input))
    input_ta = tuple(ta.unstack(input_) for ta, input_ in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(structure=inputs, flat_sequence=input_t)

        def call_cell():
            return cell(input_t, state)
        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length,
                                          max_sequence_length, zero_output, state, call_cell,
                                          skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t,
                                                                   nest.flatten(output)))
        return time + 1, output_ta_t, new_state

    # At least one step, so that the TensorArrays learn the dynamic shape.
    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], output_size,
                                 static=True))
    return (nest.pack_sequence_as(structure=cell.output_size, flat_sequence=final_outputs),
            final_state)


def _reverse(input_, seq_lengths, seq_axis, batch_axis):
    if seq_lengths is not None:
        return array_ops.reverse_sequence(input=input_, seq_lengths=seq_lengths,
                                          seq_axis=seq_axis, batch_axis=batch_axis)
    return array_ops.reverse(input_, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """dynamic_rnn forwards (scope `fw`) and over the reversed sequences (scope `bw`):
    ((outputs_fw, outputs_bw), (state_fw, state_bw)), both outputs in input order."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(
                lambda inp: _reverse(inp, sequence_length, time_axis, batch_axis), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = _reverse(tmp, sequence_length, time_axis, batch_axis)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


# --- static_rnn: unrolled ------------------------------------------------------------------------

def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs `cell` over `inputs`, a list of [batch, depth] tensors, one call per element:
    (list of outputs, final state)."""
    assert_like_rnncell("cell", cell)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        first_input = inputs
        while nest.is_sequence(first_input):
            first_input = first_input[0]
        fixed_batch_size = _static_batch_size(first_input, inputs)
        batch_size = fixed_batch_size if fixed_batch_size is not None \
            else array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            zero_output = nest.pack_sequence_as(structure=cell.output_size, flat_sequence=tuple(
                _zero_output(batch_size, fixed_batch_size, size, _infer_state_dtype(dtype, state))
                for size in nest.flatten(cell.output_size)))
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)
            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length,
                                          max_sequence_length, zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _static_batch_size(first_input, inputs):
    """The batch size the inputs agree on, None where unknown; their depths must be known."""
    if first_input.shape.ndims == 1:
        return first_input.shape.with_rank_at_least(1).as_list()[0]
    fixed = first_input.shape.with_rank_at_least(2)[0]
    for flat_input in nest.flatten(inputs):
        shape = flat_input.shape.with_rank_at_least(2)
        fixed = fixed.merge_with(shape[0])
        for i, size in enumerate(shape[1:].as_list()):
            if size is None:
                raise ValueError("Input size (dimension %d of inputs) must be accessible via "
                                 "shape inference, but saw value None." % i)
    return tensor_shape.dimension_value(fixed)


def _zero_output(batch_size, fixed_batch_size, output_size, dtype):
    output = array_ops.zeros(array_ops.stack(_concat(batch_size, output_size)), dtype)
    output.set_shape(_concat(fixed_batch_size, output_size, static=True))
    return output


def _reverse_seq(input_seq, lengths):
    """The list `input_seq` reversed in time, each batch entry within its own length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = tensor_shape.unknown_shape(rank=sequence[0].shape.ndims)
        for input_ in sequence:
            input_shape = input_shape.merge_with(input_.shape)
            input_.set_shape(input_shape)
        reversed_ = array_ops.reverse_sequence(array_ops.stack(sequence), lengths, 0, 1)
        for r, flat_result in zip(array_ops.unstack(reversed_), flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(structure=input_, flat_sequence=flat_result)
            for input_, flat_result in zip(input_seq, flat_results)]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """static_rnn forwards and backwards: (outputs, state_fw, state_bw), each output the
    concatenation of the two directions' outputs at that time."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                                    sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw,
                                              dtype, sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1) for fw, bw in zip(
        nest.flatten(output_fw), nest.flatten(output_bw)))
    return (nest.pack_sequence_as(structure=output_fw, flat_sequence=flat_outputs),
            output_state_fw, output_state_bw)


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """static_rnn starting from, and saving its final state to, `state_saver`
    (`state(name)` gives a state, `save_state(name, value)` an op saving one), one name
    per state tensor; the last output and the state wait for the saves."""
    state_size = cell.state_size
    state_is_tuple = nest.is_sequence(state_size)
    if state_is_tuple != nest.is_sequence(state_name):
        raise ValueError("state_name should be the same type as cell.state_size.  "
                         "state_name: %s, cell.state_size: %s" % (state_name, state_size))
    state_names = nest.flatten(state_name)
    if state_is_tuple:
        if len(state_names) != len(nest.flatten(state_size)):
            raise ValueError("#elems(state_name) != #elems(state_size): %d vs. %d"
                             % (len(state_names), len(nest.flatten(state_size))))
        initial_state = nest.pack_sequence_as(structure=state_size, flat_sequence=[
            state_saver.state(name) for name in state_names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    save_state = [state_saver.save_state(name, substate)
                  for name, substate in zip(state_names, nest.flatten(state))]
    with ops.control_dependencies(save_state):
        last_output = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(structure=last_output, flat_sequence=[
            array_ops.identity(output) for output in nest.flatten(last_output)])
        state = nest.pack_sequence_as(structure=state, flat_sequence=[
            array_ops.identity(s) for s in nest.flatten(state)])
    return outputs, state


# --- raw_rnn: the loop under the caller's control -------------------------------------------

def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """A while_loop over `cell` whose every step `loop_fn` steers.

    `loop_fn(time, cell_output, cell_state, loop_state)` returns
    (elements_finished, next_input, next_cell_state, emit_output,
    next_loop_state); at time 0 (cell_output None) its cell state is the
    initial one and its emit_output the structure to emit (None: the cell's
    output). Returns (emit_ta, final_state, final_loop_state): TensorArrays
    of what was emitted at each step, zeros for finished entries.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn"):
        time = array_ops.constant(0, dtype=dtypes.int32)
        (elements_finished, next_input, initial_state, emit_structure,
         init_loop_state) = loop_fn(time=time, cell_output=None, cell_state=None,
                                    loop_state=None)
        flat_input = nest.flatten(next_input)
        loop_state = (init_loop_state if init_loop_state is not None
                      else array_ops.constant(0, dtype=dtypes.int32))
        static_batch_size = tensor_shape.Dimension(None)
        for input_ in flat_input:
            static_batch_size = static_batch_size.merge_with(
                input_.shape.with_rank_at_least(1)[0])
        const_batch_size = tensor_shape.dimension_value(static_batch_size)
        batch_size = (const_batch_size if const_batch_size is not None
                      else array_ops.shape(flat_input[0])[0])
        nest.assert_same_structure(initial_state, cell.state_size)
        state = nest.pack_sequence_as(structure=initial_state, flat_sequence=[
            convert_to_tensor(s) for s in nest.flatten(initial_state)])
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [emit.shape if emit.shape.is_fully_defined()
                              else array_ops.shape(emit) for emit in flat_emit_structure]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [nest.flatten(state)[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [tensor_array_ops.TensorArray(
            dtype=dtype_i, dynamic_size=True, size=0, name="rnn_output_%d" % i,
            element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(
                _as_shape(size_i)))
            for i, (dtype_i, size_i) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(structure=emit_structure, flat_sequence=flat_emit_ta)
        zero_emit = nest.pack_sequence_as(structure=emit_structure, flat_sequence=[
            array_ops.zeros(_concat(batch_size, size_i), dtype_i)
            for size_i, dtype_i in zip(flat_emit_size, flat_emit_dtypes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            (next_finished, next_input, next_state, emit_output,
             next_loop_state) = loop_fn(next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current, candidate):
                def copy_fn(cur_i, cand_i):
                    if isinstance(cur_i, tensor_array_ops.TensorArray) or cur_i.shape.ndims == 0:
                        return cand_i
                    with ops.colocate_with(cand_i):
                        return math_ops.where(elements_finished, cur_i, cand_i)
                return nest.map_structure(copy_fn, current, candidate)
            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta,
                                         emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_ops.while_loop(
            condition, body,
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        return emit_ta, final_state, (final_loop_state if init_loop_state is not None else None)
