"""Small helpers of `tf.layers`: the arguments of conv and pooling layers, made canonical.

`kernel_size=3` means `(3, 3)`, `padding="SAME"` means `"same"`, and a
`training` flag may be a Python bool or a boolean tensor. Each helper turns
the many accepted spellings into one, or raises TensorFlow's ValueError.

Mirrors `tensorflow/python/layers/utils.py` and
`tensorflow/python/keras/utils/conv_utils.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_util
from minitf.graph.tensor_conversion import convert_to_tensor

__all__ = []


def normalize_tuple(value, n, name):
    """`value` as a tuple of `n` ints: an int is repeated, anything else must hold n ints."""
    if isinstance(value, int):
        return (value,) * n
    error = "The `%s` argument must be a tuple of %d integers. Received: %s" % (name, n, value)
    try:
        value_tuple = tuple(value)
    except TypeError:
        raise ValueError(error) from None
    if len(value_tuple) != n:
        raise ValueError(error)
    for single_value in value_tuple:
        try:
            int(single_value)
        except (ValueError, TypeError):
            raise ValueError(error + " including element %s of type %s"
                             % (single_value, type(single_value))) from None
    return tuple(int(v) for v in value_tuple)


def normalize_data_format(value):
    """'channels_last' (the default) or 'channels_first'."""
    if value is None:
        value = "channels_last"
    data_format = str(value).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         '"channels_last". Received: ' + str(value))
    return data_format


def normalize_padding(value):
    """'valid' or 'same', in lower case."""
    padding = value.lower() if isinstance(value, str) else value
    if padding not in {"valid", "same"}:
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                         '"same". Received: ' + str(padding))
    return padding


def convert_data_format(data_format, ndim):
    """'channels_last' -> 'NWC' / 'NHWC' / 'NDHWC', 'channels_first' -> 'NCW' / 'NCHW' /
    'NCDHW' (an input of rank 3 / 4 / 5)."""
    formats = {3: ("NWC", "NCW"), 4: ("NHWC", "NCHW"), 5: ("NDHWC", "NCDHW")}
    if ndim not in formats:
        raise ValueError("Input rank not supported: %d" % ndim)
    channels_last, channels_first = formats[ndim]
    return channels_last if data_format == "channels_last" else channels_first


def training_value(training):
    """A `training` flag as a Python bool when known while building, else a bool tensor.

    The layers hand it to `smart_cond`, which builds one branch for a bool
    (or a constant tensor) and a `tf.cond` for a tensor known only at run
    time.
    """
    if training is None:
        return False  # Keras's learning phase, which minitf does not have: inference
    if isinstance(training, (bool, int)):
        return bool(training)
    if isinstance(training, ops.Tensor) or hasattr(training, "dtype"):
        training = convert_to_tensor(training)
        if training.dtype.base_dtype != dtypes.bool:
            raise TypeError("`training` must be a Python bool or a bool tensor; got a %s "
                            "tensor." % training.dtype.name)
        value = tensor_util.constant_value(training)
        return bool(value) if value is not None else training
    raise TypeError("`training` must be a Python bool or a bool tensor; got %r." % (training,))
