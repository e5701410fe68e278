"""`tf.nn.rnn_cell`: the recurrent cells, by TensorFlow's public names.

Only names: the cells are defined in minitf/layers/rnn_cell_impl.py.

Mirrors `tensorflow/python/ops/rnn_cell.py`.
"""

from minitf.layers.rnn_cell_impl import BasicLSTMCell  # noqa: F401
from minitf.layers.rnn_cell_impl import BasicRNNCell  # noqa: F401
from minitf.layers.rnn_cell_impl import DeviceWrapper  # noqa: F401
from minitf.layers.rnn_cell_impl import DropoutWrapper  # noqa: F401
from minitf.layers.rnn_cell_impl import GRUCell  # noqa: F401
from minitf.layers.rnn_cell_impl import LSTMCell  # noqa: F401
from minitf.layers.rnn_cell_impl import LSTMStateTuple  # noqa: F401
from minitf.layers.rnn_cell_impl import MultiRNNCell  # noqa: F401
from minitf.layers.rnn_cell_impl import ResidualWrapper  # noqa: F401
from minitf.layers.rnn_cell_impl import RNNCell  # noqa: F401
