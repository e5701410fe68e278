"""The recurrent cells of `tf.nn.rnn_cell`: one time step of an RNN, as a layer.

A cell maps (input at time t, state at t - 1) to (output at t, state at t).
`tf.nn.dynamic_rnn` and its relatives (minitf/layers/rnn.py) call it once per
time step, inside a `tf.while_loop` or unrolled; the cell itself knows
nothing of time. Its variables are made on the first call, in the variable
scope it is called in, like any `tf.layers` layer's (minitf/layers/base.py):
under `dynamic_rnn` a BasicLSTMCell's are `rnn/basic_lstm_cell/kernel` and
`rnn/basic_lstm_cell/bias`, and every later step reuses them.

The kernels of all cells multiply `concat([inputs, state])` by one matrix:
an LSTM's four gates (input i, new input j, forget f, output o) are four
column blocks of it, a GRU's two gates (reset r, update u) two.

Mirrors `tensorflow/python/ops/rnn_cell_impl.py`.
"""

import collections
import hashlib
import numbers

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.layers import base as base_layer
from minitf.ops import array_ops
from minitf.ops import clip_ops
from minitf.ops import init_ops
from minitf.ops import math_ops
from minitf.ops import nest
from minitf.ops import nn_ops
from minitf.ops import variable_scope as vs

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"


def assert_like_rnncell(cell_name, cell):
    """TypeError unless `cell` has what an RNN needs of a cell."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required",
              "is not callable"]
    if not all(conditions):
        errors = [error for error, cond in zip(errors, conditions) if not cond]
        raise TypeError("The argument {!r} ({}) is not an RNNCell: {}.".format(
            cell_name, cell, ", ".join(errors)))


def _concat(prefix, suffix, static=False):
    """[prefix] + suffix as a 1-D int32 tensor, or, `static`, as a TensorShape's list.

    `prefix` is the batch size (an int or a scalar tensor), `suffix` a
    state or output size (an int or a TensorShape).
    """
    if isinstance(prefix, ops.Tensor):
        p = prefix
        p_static = tensor_util.constant_value(prefix)
        if p.shape.ndims == 0:
            p = array_ops.expand_dims(p, 0)
        elif p.shape.ndims != 1:
            raise ValueError("prefix tensor must be either a scalar or vector, but saw tensor: "
                             "%s" % p)
    else:
        p = tensor_shape.as_shape(prefix)
        p_static = p.as_list() if p.ndims is not None else None
        p = (array_ops.constant(p.as_list(), dtype=dtypes.int32)
             if p.is_fully_defined() else None)
    if isinstance(suffix, ops.Tensor):
        s = suffix
        s_static = tensor_util.constant_value(suffix)
        if s.shape.ndims == 0:
            s = array_ops.expand_dims(s, 0)
    else:
        s = tensor_shape.as_shape(suffix)
        s_static = s.as_list() if s.ndims is not None else None
        s = (array_ops.constant(s.as_list(), dtype=dtypes.int32)
             if s.is_fully_defined() else None)
    if static:
        shape = tensor_shape.as_shape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError("Provided a prefix or suffix of None: %s and %s" % (prefix, suffix))
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of [batch_size] + size for every size in the (nested) `state_size`."""
    def get_state_shape(size):
        zeros = array_ops.zeros(_concat(batch_size, size), dtype=dtype)
        zeros.set_shape(_concat(tensor_util.constant_value(batch_size)
                                if isinstance(batch_size, ops.Tensor) else batch_size,
                                size, static=True))
        return zeros
    return nest.map_structure(get_state_shape, state_size)


class RNNCell(base_layer.Layer):
    """The abstract cell: `output, new_state = cell(inputs, state)`.

    Subclasses give `state_size` and `output_size` (ints, TensorShapes, or
    nested tuples of them) and `call(inputs, state)`. A cell called with no
    scope makes its variables in its own layer scope within the current one.
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Calls the cell in `scope`, or in the variable scope current at its first call,
        entered again (which opens a name scope of its last part, as TensorFlow does)."""
        if scope is not None:
            with vs.variable_scope(scope) as scope:
                return super().__call__(inputs, state, scope=scope)
        if getattr(self, "_rnncell_scope", None) is None:
            self._rnncell_scope = vs.get_variable_scope()
        with vs.variable_scope(self._rnncell_scope):
            return super().__call__(inputs, state)

    @property
    def state_size(self):
        """The size(s) of the state: an int, a TensorShape, or a tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """The size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, _):
        # Cells with variables (LayerRNNCell) make them here.
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state, for the batch size and dtype of `inputs` or those given."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                static_batch = tensor_util.constant_value(convert_to_tensor(batch_size))
                if inputs.shape.as_list()[0] not in (None, static_batch):
                    raise ValueError(
                        "batch size from input tensor is different from the input param. "
                        "Input tensor batch: {}, batch_size: {}".format(
                            inputs.shape.as_list()[0], batch_size))
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError("dtype from input tensor is different from the input param. "
                                 "Input tensor dtype: {}, dtype: {}".format(inputs.dtype, dtype))
            batch_size = inputs.shape.as_list()[0] or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             "state: batch_size={}, dtype={}".format(batch_size, dtype))
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros of shape [batch_size] + size for each of `state_size`."""
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell whose variables are made in `build`, in the cell's own scope: called as
    a plain layer, in the caller's name scope."""

    def __call__(self, inputs, state, scope=None):
        return base_layer.Layer.__call__(self, inputs, state, scope=scope)


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but saw dtype: %s"
                         % dtype)


def _check_rnn_cell_input_dtypes(inputs):
    for tensor in nest.flatten(inputs):
        _check_supported_dtypes(tensor.dtype)


def _input_depth(cell, inputs_shape):
    if tensor_shape.dimension_value(inputs_shape[-1]) is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s"
                         % str(inputs_shape))
    _check_supported_dtypes(cell.dtype)
    return tensor_shape.dimension_value(inputs_shape[-1])


class _SingleStateCell(LayerRNNCell):
    """A cell whose state is its output, `num_units` wide (BasicRNNCell, GRUCell)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units


class BasicRNNCell(_SingleStateCell):
    """The plain RNN: output = new_state = activation(W [inputs, state] + b)."""

    def build(self, inputs_shape):
        input_depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[input_depth + self._num_units, self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(_SingleStateCell):
    """The gated recurrent unit (Cho et al., 2014).

    r, u = sigmoid(W_gates [inputs, state] + b_gates)   (b_gates starts at 1)
    c = activation(W_candidate [inputs, r * state] + b_candidate)
    new_state = u * state + (1 - u) * c
    """

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(num_units, activation=activation, reuse=reuse, name=name, dtype=dtype,
                         **kwargs)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, inputs_shape):
        input_depth = _input_depth(self, inputs_shape)
        rows = input_depth + self._num_units
        self._gate_kernel = self.add_variable(
            "gates/%s" % _WEIGHTS_VARIABLE_NAME, shape=[rows, 2 * self._num_units],
            initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/%s" % _BIAS_VARIABLE_NAME, shape=[2 * self._num_units],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.constant_initializer(1.0, dtype=self.dtype)))
        self._candidate_kernel = self.add_variable(
            "candidate/%s" % _WEIGHTS_VARIABLE_NAME, shape=[rows, self._num_units],
            initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/%s" % _BIAS_VARIABLE_NAME, shape=[self._num_units],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.zeros_initializer(dtype=self.dtype)))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1),
                                    self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state: `c`, the memory cell, and `h`, the output of the last step."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (str(c.dtype),
                                                                        str(h.dtype)))
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """The LSTM of Zaremba et al. (2014), without peepholes or projection.

    i, j, f, o = split(W [inputs, h] + b, 4)
    new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * activation(j)
    new_h = activation(new_c) * sigmoid(o)
    """

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return (LSTMStateTuple(self._num_units, self._num_units) if self._state_is_tuple
                else 2 * self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        input_depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[input_depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        sigmoid = math_ops.sigmoid
        one = array_ops.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = array_ops.constant(self._forget_bias, dtype=f.dtype)
        new_c = math_ops.add(math_ops.multiply(c, sigmoid(math_ops.add(f, forget_bias_tensor))),
                             math_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, array_ops.concat([new_c, new_h], 1)


class LSTMCell(LayerRNNCell):
    """The LSTM of Hochreiter & Schmidhuber (1997), with the options of Sak et al. (2014).

    BasicLSTMCell's step, and: `use_peepholes` lets the gates see the memory
    cell (diagonal weights w_f_diag, w_i_diag, w_o_diag); `cell_clip` clips
    it; `num_proj` multiplies the output by a [num_units, num_proj]
    projection (clipped to `proj_clip`), which is then the output and `h`.
    """

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("minitf's LSTMCell does not shard its variables "
                                      "(num_unit_shards, num_proj_shards)")
        self._num_units, self._num_proj, self._initializer = num_units, num_proj, initializer
        self._use_peepholes, self._forget_bias = use_peepholes, forget_bias
        self._cell_clip, self._proj_clip = cell_clip, proj_clip
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh
        output = num_proj if num_proj else num_units
        self._state_size = (LSTMStateTuple(num_units, output) if state_is_tuple
                            else num_units + output)
        self._output_size = output

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        input_depth = _input_depth(self, inputs_shape)
        h_depth = self._num_proj if self._num_proj is not None else self._num_units
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[input_depth + h_depth, 4 * self._num_units],
            initializer=self._initializer)
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag, self._w_i_diag, self._w_o_diag = (
                self.add_variable(name, shape=[self._num_units], initializer=self._initializer)
                for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable(
                "projection/%s" % _WEIGHTS_VARIABLE_NAME, shape=[self._num_units, self._num_proj],
                initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if inputs.shape.with_rank(2).as_list()[1] is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: the output of cell k is the input of cell k + 1; the state is a tuple
    of the cells' states. Cell k's variables are in the scope `cell_k`."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_sequence(cells):
            raise TypeError("cells must be a list or tuple, but saw: %s." % cells)
        if len(set(id(cell) for cell in cells)) < len(cells):
            raise ValueError("At least two cells provided to MultiRNNCell are the same object "
                             "and will share weights.")
        if not state_is_tuple:
            raise NotImplementedError("minitf's MultiRNNCell keeps its state as a tuple "
                                      "(state_is_tuple=True), as TF 1.15 recommends")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        return tuple(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in cell.trainable_weights]

    def call(self, inputs, state):
        current_input = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope("cell_%d" % i):
                if not nest.is_sequence(state):
                    raise ValueError("Expected state to be a tuple of length %d, but received: "
                                     "%s" % (len(self.state_size), state))
                current_input, new_state = cell(current_input, state[i])
                new_states.append(new_state)
        return current_input, tuple(new_states)


class _RNNCellWrapper(RNNCell):
    """A cell around another: calls it in the caller's scope (no scope of its own), so the
    wrapped cell's variables keep their names."""

    def __init__(self, cell):
        super().__init__()
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def trainable_weights(self):
        return self.cell.trainable_weights if self.trainable else []

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on the cell's inputs, outputs and/or state, with keep probabilities.

    The same probabilities at every step, a new mask at each (minitf has no
    `variational_recurrent` masks, which keep one mask for all steps). Of an
    LSTM's state only `h` is dropped by default, never the memory cell `c`.
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        if variational_recurrent:
            raise NotImplementedError("minitf's DropoutWrapper draws a new mask at every step "
                                      "(variational_recurrent=False)")
        self._dropout_state_filter = (dropout_state_filter_visitor
                                      or _default_dropout_state_filter_visitor)
        with ops.name_scope("DropoutWrapperInit"):
            self._input_keep_prob = self._keep_probability(input_keep_prob, "input_keep_prob")
            self._state_keep_prob = self._keep_probability(state_keep_prob, "state_keep_prob")
            self._output_keep_prob = self._keep_probability(output_keep_prob,
                                                            "output_keep_prob")
        self._seed = seed

    @staticmethod
    def _keep_probability(value, name):
        tensor = convert_to_tensor(value)
        constant = tensor_util.constant_value(tensor)
        if constant is not None:
            if not 0 < float(constant) <= 1:
                raise ValueError("Parameter %s must be between 0 and 1: %s" % (name, constant))
            return float(constant)
        return tensor

    @staticmethod
    def _should_drop(probability):
        return not (isinstance(probability, numbers.Real) and probability == 1)

    def _gen_seed(self, salt_prefix, index):
        """A seed per dropped tensor, derived from `seed` (None without one)."""
        if self._seed is None:
            return None
        text = (str(self._seed) + "%s_%d" % (salt_prefix, index)).encode("utf-8")
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, keep_prob, flags=None):
        flat = nest.flatten(values)
        flags = [True] * len(flat) if flags is None else flags
        dropped = [nn_ops.dropout(value, keep_prob=keep_prob,
                                  seed=self._gen_seed(salt_prefix, i)) if flag else value
                   for i, (flag, value) in enumerate(zip(flags, flat))]
        return nest.pack_sequence_as(values, dropped)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        if self._should_drop(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if self._should_drop(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._state_keep_prob,
                                      _state_drop_flags(self._dropout_state_filter, new_state))
        if self._should_drop(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _default_dropout_state_filter_visitor(substate):
    """Drop out everything of the state but an LSTM's memory cell `c`."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _state_drop_flags(visitor, state):
    """One bool per tensor of nest.flatten(state): is it dropped out?

    The visitor sees the state from the top down, as TF's
    get_traverse_shallow_structure shows it: True goes into a structure
    (or drops a tensor), False leaves all of it, and a structure of bools
    decides for each child.
    """
    verdict = visitor(state)
    if not nest.is_sequence(state):
        return [bool(verdict)]
    verdicts = [verdict] * len(state) if isinstance(verdict, bool) else list(verdict)
    flags = []
    for child_verdict, child in zip(verdicts, state):
        flags += (_state_drop_flags(visitor, child) if child_verdict
                  else [False] * len(nest.flatten(child)))
    return flags


class ResidualWrapper(_RNNCellWrapper):
    """The cell's output plus its input (a residual connection): `residual_fn(inputs,
    outputs)`, by default their sum."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(lambda i, o: i.shape.assert_is_compatible_with(o.shape),
                               inputs, outputs)
            return nest.map_structure(lambda i, o: i + o, inputs, outputs)
        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """The cell's ops (and its zero state) placed on `device`."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            with ops.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with ops.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
