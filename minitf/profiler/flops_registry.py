"""How TensorFlow counts FLOPs: one function per op type, from the static shapes alone.

A FLOPs count is not measured, it is computed from the graph: each
function below reads the shapes of a node's inputs or output and returns
the number of floating-point operations TensorFlow says the op does. Every
shape it reads must be fully known, or the function raises ValueError and
the profiler counts the node as one with "no flops stats due to incomplete
shapes". An op type with no function here (Const, Identity, Cast, AddV2,
RandomStandardNormal, the variables, ...) costs zero FLOPs, as it does in
TensorFlow 1.15.

The counts are TensorFlow's, including its choices: an elementwise binary
op costs one FLOP per *output* element (so broadcasting counts the larger
shape), `MatMul` costs `2·k` per output element, a convolution `2·k_h·k_w·c_in`
per output element, a pooling window one FLOP per element it covers.

Mirrors `tensorflow/python/profiler/internal/flops_registry.py` of TF 1.15,
with the statistics TF 1.15 keeps elsewhere: `MatMul` (math_ops.py),
`Conv2D` and `BiasAdd` (nn_ops.py). TF also counts `DepthwiseConv2dNative`,
`Dilation2D` and `Conv3D`, ops minitf does not have.
"""

import math

from minitf.profiler.statistics import OpStats, RegisterStatistics
from minitf.profiler.statistics import tensor_shape_from_node_def_name as _shape_of


def _known_shape(graph, tensor_name):
    shape = _shape_of(graph, tensor_name)
    shape.assert_is_fully_defined()
    return shape


def _flops(count):
    return OpStats("flops", count)


def _register_table(table, make_count):
    """Registers `make_count(table[op_type])` as the FLOPs function of each op type of `table`."""
    for op_type, cost in table.items():
        RegisterStatistics(op_type, "flops")(make_count(cost))


# --- unary ops: FLOPs per element of the input -------------------------------------------
_UNARY = {"Reciprocal": 1, "Square": 1, "Rsqrt": 2, "Log": 1, "Neg": 1,
          "AssignSub": 1, "AssignAdd": 1, "Softmax": 5}


def _unary_op_flops(ops_per_element):
    def count(graph, node):
        return _flops(_known_shape(graph, node.input[0]).num_elements() * ops_per_element)
    return count


_register_table(_UNARY, _unary_op_flops)


@RegisterStatistics("L2Loss", "flops")
def _l2_loss_flops(graph, node):
    # TensorFlow's kernel squares, sums and halves: 3·N - 1 (2·N would do).
    return _flops(_known_shape(graph, node.input[0]).num_elements() * 3 - 1)


# --- binary elementwise ops: FLOPs per element of the output -----------------------------
_BINARY = {"Add": 1, "Sub": 1, "Mul": 1, "RealDiv": 1, "Maximum": 1, "Minimum": 1, "Pow": 1,
           "RsqrtGrad": 4, "GreaterEqual": 1, "Greater": 1, "LessEqual": 1, "Less": 1,
           "Equal": 1, "NotEqual": 1, "SquaredDifference": 2}


def _binary_per_element_op_flops(ops_per_element):
    def count(graph, node):
        return _flops(_known_shape(graph, node.name).num_elements() * ops_per_element)
    return count


_register_table(_BINARY, _binary_per_element_op_flops)


# --- reductions: one step per input element, then a finishing step per output element ----
_REDUCTIONS = {"Mean": (1, 1), "Sum": (1, 0), "ArgMax": (1, 0), "ArgMin": (1, 0),
               "BiasAddGrad": (1, 0)}


def _reduction_op_flops(costs):
    reduce_flops, finalize_flops = costs

    def count(graph, node):
        in_elements = _known_shape(graph, node.input[0]).num_elements()
        out_elements = _known_shape(graph, node.name).num_elements()
        return _flops(in_elements * reduce_flops + out_elements * (finalize_flops - reduce_flops))
    return count


_register_table(_REDUCTIONS, _reduction_op_flops)


# --- convolution and pooling (NHWC only, as in TensorFlow) -------------------------------
def _verify_conv_data_format(node):
    data_format = node.attr.get("data_format", "NHWC")
    if data_format not in ("NHWC", b"NHWC"):
        raise ValueError("Only NHWC format is supported in flops computations")


def _pool_flops(graph, node):
    _verify_conv_data_format(node)
    out_elements = _known_shape(graph, node.name).num_elements()
    return _flops(math.prod(node.attr["ksize"]) * out_elements)


RegisterStatistics("AvgPool", "flops")(_pool_flops)
RegisterStatistics("MaxPool", "flops")(_pool_flops)


@RegisterStatistics("AvgPoolGrad", "flops")
def _avg_pool_grad_flops(graph, node):
    _verify_conv_data_format(node)
    out_backprop = _known_shape(graph, node.input[1]).num_elements()
    # Each window element is multiplied by a coefficient, then summed: 2 FLOPs.
    return _flops(math.prod(node.attr["ksize"]) * out_backprop * 2)


@RegisterStatistics("MaxPoolGrad", "flops")
def _max_pool_grad_flops(graph, node):
    _verify_conv_data_format(node)
    orig_out = _known_shape(graph, node.input[1]).num_elements()
    # The max pool again, then one FLOP per element of its output.
    return _flops(math.prod(node.attr["ksize"]) * orig_out + orig_out)


def _conv_backprop_flops(image_shape, kernel_shape, strides):
    return _flops(2 * image_shape.num_elements() * kernel_shape.num_elements()
                  / (image_shape.dims[-1].value * strides[1] * strides[2]))


@RegisterStatistics("Conv2DBackpropInput", "flops")
def _conv_2d_backprop_input_flops(graph, node):
    _verify_conv_data_format(node)
    return _conv_backprop_flops(_known_shape(graph, node.name),
                                _known_shape(graph, node.input[1]), node.attr["strides"])


@RegisterStatistics("Conv2DBackpropFilter", "flops")
def _conv_2d_backprop_filter_flops(graph, node):
    _verify_conv_data_format(node)
    return _conv_backprop_flops(_known_shape(graph, node.input[0]),
                                _known_shape(graph, node.name), node.attr["strides"])


@RegisterStatistics("Conv2D", "flops")
def _conv_2d_flops(graph, node):
    _known_shape(graph, node.input[0])
    filter_height, filter_width, filter_in_depth, _ = _known_shape(graph, node.input[1]).as_list()
    out_elements = _known_shape(graph, node.name).num_elements()
    return _flops(out_elements * filter_in_depth * filter_height * filter_width * 2)


@RegisterStatistics("BiasAdd", "flops")
def _bias_add_flops(graph, node):
    return _flops(_known_shape(graph, node.input[0]).num_elements())


# --- the rest ----------------------------------------------------------------------------
@RegisterStatistics("AddN", "flops")
def _add_n_flops(graph, node):
    if not node.input:
        return _flops(0)
    return _flops(_known_shape(graph, node.input[0]).num_elements() * (len(node.input) - 1))


@RegisterStatistics("MatMul", "flops")
def _mat_mul_flops(graph, node):
    a_shape = _known_shape(graph, node.input[0]).as_list()
    k = a_shape[0] if node.attr.get("transpose_a", False) else a_shape[1]
    return _flops(k * _known_shape(graph, node.name).num_elements() * 2)
