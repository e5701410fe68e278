"""Every kernel registered for GPU runs on the stand-in GPU and computes what the CPU computes.

DESIGN.md §5: the GPU path is exercised without a GPU. For each op type with
a GPU kernel, a small graph (a *case*) is built twice, once under
`tf.device("/gpu:0")` and once under `tf.device("/cpu:0")`, and run in
sessions that see the stand-in GPU (`tests/gpu_standin.py`, whose arrays are
not NumPy's). Soft placement is off, so every node of the GPU build runs on
the GPU; the traced run says which op types did, and the results must equal
the CPU's exactly (the stand-in computes with NumPy underneath, so a
difference is a kernel that treats the devices differently).

Each case names the op types it covers, and the test checks they really ran
on the GPU. `test_every_gpu_kernel_has_a_case` fails when an op type gets a
GPU kernel without a case here, so coverage cannot shrink.
"""

import logging
import re

import numpy as np
import pytest
from session_configs import without_folding

import minitf as tf
from minitf.framework.kernel_registry import registered_kernels
from minitf.graph.op_def_library import apply_op
from minitf.ops import sparse_ops
from minitf.ops import string_ops

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"

# --- the cases ---------------------------------------------------------------------------

CASES = {}  # case name -> (build function, op types it covers)


class Case:
    """What to run: `before` (in order), then `fetches`, then `after`; all are compared.

    `error`: the OpError class the fetch must raise on both devices instead.
    """

    def __init__(self, fetches, feed=None, before=(), after=(), error=None):
        self.fetches = fetches
        self.feed = feed or {}
        self.before = list(before)
        self.after = list(after)
        self.error = error


def case(*op_types):
    def register(build):
        CASES[build.__name__] = (build, frozenset(op_types))
        return build
    return register


def f32(*values):
    return np.array(values, np.float32)


RNG = np.random.RandomState(7)
MATRIX = RNG.standard_normal((3, 4)).astype(np.float32)
POSITIVE = (RNG.rand(3, 4) + 0.5).astype(np.float32)
IMAGES = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
FILTERS = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
BATCH = RNG.standard_normal((2, 3, 4)).astype(np.float32)
CONV_GRAD = RNG.standard_normal((2, 6, 6, 4)).astype(np.float32)
POOL_GRAD = RNG.standard_normal((2, 3, 3, 3)).astype(np.float32)


@case("Const", "Identity", "NoOp")
def constant_identity_and_no_op(other):
    a = tf.constant(MATRIX)
    with tf.control_dependencies([tf.no_op(name="nothing")]):
        b = tf.identity(a)
    return Case([b])


@case("_Arg", "_Retval", "_Send", "_Recv", "PlaceholderWithDefault")
def feeds_fetches_and_transfers(other):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    with tf.device(other):
        on_other = tf.identity(x)            # device -> other: _Send here, _Recv there
    back = tf.multiply(on_other, 2.0)        # and back again
    defaulted = tf.placeholder_with_default(tf.constant(f32(1, 2)), [2])
    return Case([back, defaulted], feed={x: MATRIX})


@case("Placeholder")
def an_unfed_placeholder_fails_on_its_device(other):
    x = tf.placeholder(tf.float32, name="unfed")
    return Case([tf.identity(x)], error=tf.errors.InvalidArgumentError)


@case("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow",
      "SquaredDifference", "FloorDiv", "FloorMod")
def binary_arithmetic(other):
    a, b = tf.constant(MATRIX), tf.constant(POSITIVE)
    i, j = tf.constant([7, -7, 9]), tf.constant([2, 3, -4])
    return Case([apply_op("Add", x=a, y=b), apply_op("AddV2", x=a, y=b), a - b, a * b,
                 a / b, tf.maximum(a, b), tf.minimum(a, b), tf.pow(b, a),
                 tf.squared_difference(a, b), tf.floordiv(i, j), tf.floormod(i, j)])


@case("DivNoNan", "Diag", "DiagPart")
def metric_helpers(other):
    a, b = tf.constant(MATRIX), tf.constant(np.where(POSITIVE > 1.0, POSITIVE, 0.0))
    return Case([tf.div_no_nan(a, tf.cast(b, tf.float32)), tf.diag(tf.constant(f32(1, 2, 3))),
                 tf.diag_part(tf.constant(MATRIX[:, :3]))])


@case("AddN")
def add_n(other):
    return Case([tf.add_n([tf.constant(MATRIX), tf.constant(POSITIVE), tf.constant(MATRIX)])])


@case("Abs", "Neg", "Sign", "Round", "Ceil", "Floor", "Square", "Reciprocal", "Sqrt",
      "Rsqrt", "Exp", "Log", "Log1p", "Sin", "Cos", "Tanh", "Sigmoid")
def unary_math(other):
    a, p = tf.constant(MATRIX), tf.constant(POSITIVE)
    return Case([tf.abs(a), tf.negative(a), tf.sign(a), tf.round(a), tf.ceil(a), tf.floor(a),
                 tf.square(a), tf.reciprocal(p), tf.sqrt(p), tf.rsqrt(p), tf.exp(a),
                 tf.log(p), tf.log1p(p), tf.sin(a), tf.cos(a), tf.tanh(a), tf.sigmoid(a)])


@case("SqrtGrad", "RsqrtGrad", "TanhGrad", "SigmoidGrad", "ReciprocalGrad")
def unary_gradients(other):
    y, dy = tf.constant(POSITIVE), tf.constant(MATRIX)
    return Case([apply_op(op, y=y, dy=dy) for op in
                 ("SqrtGrad", "RsqrtGrad", "TanhGrad", "SigmoidGrad", "ReciprocalGrad")])


@case("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
      "LogicalOr", "LogicalNot", "Select")
def comparisons_and_logic(other):
    a, b = tf.constant(MATRIX), tf.constant(np.round(MATRIX))
    less = tf.less(a, b)
    greater = tf.greater(a, b)
    return Case([tf.equal(a, b), tf.not_equal(a, b), less, tf.less_equal(a, b), greater,
                 tf.greater_equal(a, b), tf.logical_and(less, greater),
                 tf.logical_or(less, greater), tf.logical_not(less),
                 apply_op("Select", condition=less, t=a, e=b)])


@case("Sum", "Mean", "Prod", "Max", "Min", "All", "Any", "ArgMax", "ArgMin")
def reductions(other):
    a = tf.constant(MATRIX)
    flags = tf.constant([[True, False], [True, True]])
    return Case([tf.reduce_sum(a, 1), tf.reduce_mean(a, 0), tf.reduce_prod(a, 1),
                 tf.reduce_max(a, 1), tf.reduce_min(a, 0, keepdims=True),
                 tf.reduce_all(flags, 1), tf.reduce_any(flags, 0), tf.argmax(a, 1),
                 tf.argmin(a, 0)])


@case("Cumsum", "Cumprod")
def cumulative(other):
    a = tf.constant(MATRIX)
    return Case([tf.cumsum(a, axis=1), tf.cumprod(a, axis=0, exclusive=True, reverse=True)])


@case("SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin",
      "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
def segment_reductions(other):
    data = tf.constant(MATRIX)
    sorted_ids = tf.constant([0, 0, 2])
    unsorted_ids = tf.constant([2, 0, 2])
    return Case([sparse_ops.segment_sum(data, sorted_ids), sparse_ops.segment_mean(data, sorted_ids),
                 sparse_ops.segment_prod(data, sorted_ids), sparse_ops.segment_max(data, sorted_ids),
                 sparse_ops.segment_min(data, sorted_ids),
                 sparse_ops.unsorted_segment_max(data, unsorted_ids, 3),
                 sparse_ops.unsorted_segment_min(data, unsorted_ids, 3),
                 sparse_ops.unsorted_segment_prod(data, unsorted_ids, 3)])


@case("_DeduplicateIndexedSlices")
def fused_deduplication(other):
    # The node the session's remapper fuses (folding and remapping are off here).
    values = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    summed, unique = apply_op("_DeduplicateIndexedSlices", name="dedup", values=values,
                              indices=tf.constant([5, 1, 5, 0, 1, 7], tf.int64))
    return Case([summed, unique])


@case("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
      "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
      "SparseSegmentSqrtNWithNumSegments", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad")
def sparse_segment_reductions(other):
    data = tf.constant(MATRIX)
    indices = tf.constant([2, 0, 1, 2])
    segment_ids = tf.constant([0, 0, 1, 1])
    grad = tf.constant(MATRIX[:2])
    return Case([sparse_ops.sparse_segment_sum(data, indices, segment_ids),
                 sparse_ops.sparse_segment_mean(data, indices, segment_ids),
                 sparse_ops.sparse_segment_sqrt_n(data, indices, segment_ids),
                 sparse_ops.sparse_segment_sum(data, indices, segment_ids, num_segments=3),
                 sparse_ops.sparse_segment_mean(data, indices, segment_ids, num_segments=3),
                 sparse_ops.sparse_segment_sqrt_n(data, indices, segment_ids, num_segments=3),
                 sparse_ops.sparse_segment_mean_grad(grad, indices, segment_ids, 3),
                 sparse_ops.sparse_segment_sqrt_n_grad(grad, indices, segment_ids, 3)])


@case("Bucketize")
def bucketize(other):
    return Case([string_ops.bucketize(tf.constant(MATRIX), [-1.0, 0.0, 0.5]),
                 string_ops.bucketize(tf.constant([3, -2, 7]), [0.0, 5.0])])


@case("MatMul", "BatchMatMulV2")
def matrix_products(other):
    a = tf.constant(MATRIX)
    batch = tf.constant(BATCH)
    return Case([tf.matmul(a, a, transpose_b=True),
                 apply_op("BatchMatMulV2", x=batch, y=tf.constant(MATRIX.T), adj_x=False,
                          adj_y=False)])


@case("Cast", "Range", "Fill", "ZerosLike", "OnesLike", "Shape", "ShapeN", "Size", "Rank")
def making_and_describing_tensors(other):
    a = tf.constant(MATRIX)
    return Case([tf.cast(a, tf.int32), tf.range(2, 11, 3), tf.fill([2, 3], 1.5),
                 apply_op("ZerosLike", x=a), apply_op("OnesLike", x=a),
                 apply_op("Shape", input=a),
                 *apply_op("ShapeN", input=[a, tf.constant(POSITIVE[:2])]),
                 apply_op("Size", input=a), apply_op("Rank", input=a)])


@case("Reshape", "ExpandDims", "Squeeze", "Transpose", "Tile", "ReverseV2", "Pack",
      "Unpack", "ConcatV2", "ConcatOffset", "InvertPermutation")
def reshaping(other):
    a = tf.constant(MATRIX)
    return Case([tf.reshape(a, [4, 3]), tf.expand_dims(a, 1),
                 tf.squeeze(tf.constant(MATRIX[None])), tf.transpose(a), tf.tile(a, [2, 1]),
                 tf.reverse(a, [1]), tf.stack([a, a], axis=1), *tf.unstack(a, axis=0),
                 tf.concat([a, a], 0),
                 *apply_op("ConcatOffset", concat_dim=1, shape=[[3, 4], [3, 2]]),
                 tf.invert_permutation([2, 0, 1])])


@case("Slice", "StridedSlice", "StridedSliceGrad", "Split", "SplitV")
def slicing(other):
    a = tf.constant(MATRIX)
    return Case([tf.slice(a, [1, 0], [2, 3]), a[::2, 1:3], a[1],
                 apply_op("StridedSliceGrad", shape=[3, 4], begin=[0, 1], end=[3, 3],
                          strides=[2, 1], dy=tf.constant(np.ones((2, 2), np.float32))),
                 *tf.split(a, 2, axis=1), *tf.split(a, [1, 3], axis=1)])


@case("Pad", "PadV2", "MirrorPad", "MirrorPadGrad")
def padding(other):
    a = tf.constant(MATRIX)
    return Case([tf.pad(a, [[1, 0], [0, 2]]),
                 tf.pad(a, [[1, 0], [0, 2]], constant_values=-1.0),
                 tf.pad(a, [[1, 1], [2, 2]], mode="REFLECT"),
                 apply_op("MirrorPadGrad", input=tf.constant(np.ones((5, 8), np.float32)),
                          paddings=[[1, 1], [2, 2]], mode="SYMMETRIC")])


@case("GatherV2", "GatherNd", "ScatterNd", "OneHot", "Where", "Unique", "DynamicPartition",
      "ParallelDynamicStitch", "UnsortedSegmentSum")
def indexing(other):
    a = tf.constant(MATRIX)
    partitions = tf.constant([0, 1, 0])
    parts = apply_op("DynamicPartition", data=a, partitions=partitions, num_partitions=2)
    unique, index = apply_op("Unique", x=tf.constant([4, 1, 4, 2, 1]), out_idx=tf.int32)
    return Case([tf.gather(a, [2, 0]), tf.gather_nd(a, [[0, 1], [2, 3]]),
                 tf.scatter_nd([[1], [3]], tf.constant(f32(5, 6)), [4]),
                 tf.one_hot([0, 2, 1], 3), tf.where(tf.constant(MATRIX > 0)), unique, index,
                 *parts,
                 apply_op("ParallelDynamicStitch", indices=[[0, 2], [1]],
                          data=[tf.constant(f32(1, 3)), tf.constant(f32(2))]),
                 tf.unsorted_segment_sum(a, [1, 0, 1], 2)])


@case("Relu", "Relu6", "Elu", "Softplus", "ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad")
def activations(other):
    a, g = tf.constant(MATRIX), tf.constant(POSITIVE)
    return Case([tf.nn.relu(a), tf.nn.relu6(a * 5.0), tf.nn.elu(a), tf.nn.softplus(a),
                 apply_op("ReluGrad", gradients=g, features=a),
                 apply_op("Relu6Grad", gradients=g, features=a * 5.0),
                 apply_op("EluGrad", gradients=g, outputs=tf.nn.elu(a)),
                 apply_op("SoftplusGrad", gradients=g, features=a)])


@case("Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits",
      "SparseSoftmaxCrossEntropyWithLogits", "L2Loss", "BiasAdd", "BiasAddGrad")
def classifier_ops(other):
    logits = tf.constant(MATRIX)
    labels = tf.constant(np.eye(4, dtype=np.float32)[[1, 3, 0]])
    return Case([tf.nn.softmax(logits), tf.nn.log_softmax(logits),
                 tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits),
                 tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 3, 0],
                                                                logits=logits),
                 tf.nn.l2_loss(logits), tf.nn.bias_add(logits, tf.constant(f32(1, 2, 3, 4))),
                 apply_op("BiasAddGrad", out_backprop=logits)])


@case("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
def convolution(other):
    images, filters = tf.constant(IMAGES), tf.constant(FILTERS)
    grad = tf.constant(CONV_GRAD)
    return Case([tf.nn.conv2d(images, filters, [1, 1, 1, 1], "SAME"),
                 apply_op("Conv2DBackpropInput", input_sizes=[2, 6, 6, 3], filter=filters,
                          out_backprop=grad, strides=[1, 1, 1, 1], padding="SAME"),
                 apply_op("Conv2DBackpropFilter", input=images, filter_sizes=[3, 3, 3, 4],
                          out_backprop=grad, strides=[1, 1, 1, 1], padding="SAME")])


@case("_FusedMatMul", "_FusedConv2D")
def fused_contractions(other):
    # The nodes the session's remapper writes (folding and remapping are off here).
    a = tf.constant(MATRIX)
    images, filters = tf.constant(IMAGES), tf.constant(FILTERS)
    return Case([
        apply_op("_FusedMatMul", name="fused_matmul", a=a, b=a, args=[tf.constant(MATRIX[:, 0])], transpose_b=True,
                 fused_ops=["BiasAdd", "Relu"]),
        apply_op("_FusedConv2D", name="fused_conv2d", input=images, filter=filters,
                 args=[tf.constant([0.5, -1.0, 0.0, 2.0])], strides=[1, 1, 1, 1],
                 padding="SAME", fused_ops=["BiasAdd", "Relu6"])])


@case("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift")
def bitwise(other):
    a, b = tf.constant([12, -7, 255, 0]), tf.constant([10, 3, 1, 31])
    return Case([tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b),
                 tf.bitwise.bitwise_xor(a, b), tf.bitwise.invert(a),
                 tf.bitwise.left_shift(a, tf.constant([1, 2, 40, 3])),
                 tf.bitwise.right_shift(a, tf.constant([1, 2, 3, 40]))])


@case("HistogramFixedWidth", "Igamma", "Igammac", "SparseMatMul", "Timestamp")
def histograms_gamma_and_the_rest(other):
    values = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 12.0])
    a, x = tf.constant([0.5, 1.0, 3.0]), tf.constant([0.2, 1.0, 4.5])
    return Case([tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5),
                 tf.igamma(a, x), tf.igammac(a, x),
                 tf.sparse_matmul(tf.constant(MATRIX), tf.constant(MATRIX.T), a_is_sparse=True),
                 tf.cast(tf.timestamp() > 0, tf.int32)])


@case("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad")
def pooling(other):
    images = tf.constant(IMAGES)
    pool = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    pooled = tf.nn.max_pool(images, **pool)
    grad = tf.constant(POOL_GRAD)
    return Case([pooled, tf.nn.avg_pool(images, **pool),
                 apply_op("MaxPoolGrad", orig_input=images, orig_output=pooled, grad=grad,
                          **pool),
                 apply_op("AvgPoolGrad", orig_input_shape=[2, 6, 6, 3], grad=grad, **pool),
                 apply_op("MaxPoolGradGrad", orig_input=images, orig_output=pooled,
                          grad=tf.constant(IMAGES * 2.0), **pool)])


@case("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "MaxPool3D", "AvgPool3D",
      "MaxPool3DGrad", "AvgPool3DGrad", "MaxPool3DGradGrad")
def volumes(other):
    rng = np.random.RandomState(5)
    volume = tf.constant(rng.standard_normal((1, 4, 4, 3, 2)).astype(np.float32))
    filters = tf.constant(rng.standard_normal((2, 2, 2, 2, 3)).astype(np.float32))
    conv = dict(strides=[1, 1, 2, 1, 1], padding="SAME")
    pool = dict(ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 1, 1], padding="VALID")
    convolved = tf.nn.conv3d(volume, filters, **conv)
    pooled = tf.nn.max_pool3d(volume, **pool)
    return Case([convolved, pooled, tf.nn.avg_pool3d(volume, **pool),
                 apply_op("Conv3DBackpropInputV2", input_sizes=[1, 4, 4, 3, 2], filter=filters,
                          out_backprop=convolved, **conv),
                 apply_op("Conv3DBackpropFilterV2", input=volume, filter_sizes=[2, 2, 2, 2, 3],
                          out_backprop=convolved, **conv),
                 apply_op("MaxPool3DGrad", orig_input=volume, orig_output=pooled, grad=pooled,
                          **pool),
                 apply_op("AvgPool3DGrad", orig_input_shape=[1, 4, 4, 3, 2], grad=pooled,
                          **pool),
                 apply_op("MaxPool3DGradGrad", orig_input=volume, orig_output=pooled,
                          grad=volume * 2.0, **pool)])


@case("Selu", "LeakyRelu", "Softsign", "SeluGrad", "LeakyReluGrad", "SoftsignGrad")
def more_activations(other):
    a, g = tf.constant(MATRIX), tf.constant(POSITIVE)
    return Case([tf.nn.selu(a), tf.nn.leaky_relu(a, 0.1), tf.nn.softsign(a),
                 apply_op("SeluGrad", gradients=g, outputs=tf.nn.selu(a)),
                 apply_op("LeakyReluGrad", gradients=g, features=a, alpha=0.3),
                 apply_op("SoftsignGrad", gradients=g, features=a)])


@case("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
      "DepthwiseConv2dNativeBackpropFilter")
def depthwise(other):
    images, filters = tf.constant(IMAGES), tf.constant(IMAGES[0, :2, :2, :, None])
    y = tf.nn.depthwise_conv2d(images, filters, [1, 1, 1, 1], "SAME")
    return Case([y, *tf.gradients(y, [images, filters], grad_ys=tf.ones_like(y) * 2.0)])


@case("UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
      "FixedUnigramCandidateSampler", "AllCandidateSampler", "ComputeAccidentalHits")
def candidate_samplers(other):
    # Op-level seeds, as for the random ops: the same draws on both devices.
    labels = tf.constant([[1, 4], [0, 2]], tf.int64)
    sampled = tf.nn.uniform_candidate_sampler(labels, 2, 3, True, 6, seed=1)
    return Case([*sampled, *tf.nn.log_uniform_candidate_sampler(labels, 2, 4, False, 9, seed=2),
                 *tf.nn.learned_unigram_candidate_sampler(labels, 2, 3, True, 5, seed=3),
                 *tf.nn.fixed_unigram_candidate_sampler(labels, 2, 3, False, 5,
                                                        unigrams=[1.0, 2, 3, 4, 5], seed=4),
                 *tf.nn.all_candidate_sampler(labels, 2, 5, True),
                 *tf.nn.compute_accidental_hits(labels, sampled[0], 2)])


@case("Dilation2D", "Dilation2DBackpropInput", "Dilation2DBackpropFilter")
def dilation(other):
    images, kernel = tf.constant(IMAGES), tf.constant(IMAGES[0, :2, :3])
    dilated = tf.nn.dilation2d(images, kernel, [1, 1, 1, 1], [1, 1, 2, 1], "SAME")
    return Case([dilated, *tf.gradients(dilated, [images, kernel], grad_ys=dilated)])


@case("MaxPoolWithArgmax", "MaxPoolGradWithArgmax")
def max_pool_with_argmax(other):
    images = tf.constant(IMAGES)
    output, argmax = tf.nn.max_pool_with_argmax(images, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    return Case([output, argmax, tf.gradients(output, images, grad_ys=output)[0]])


@case("TopKV2", "InTopKV2")
def top_k(other):
    a = tf.constant(MATRIX)
    return Case([*tf.nn.top_k(a, 2), tf.nn.in_top_k(a, [0, 3, 1], 2)])


@case("LRN", "LRNGrad", "FusedBatchNormV3", "FusedBatchNormGradV3")
def normalization(other):
    images = tf.constant(IMAGES)
    normalized = tf.nn.lrn(images, 1, alpha=0.5)
    y, mean, variance = tf.nn.fused_batch_norm(images, tf.constant(f32(1, 2, 3)),
                                               tf.constant(f32(0, 1, 0)))
    inference = tf.nn.fused_batch_norm(images, tf.constant(f32(1, 2, 3)),
                                       tf.constant(f32(0, 1, 0)), mean, variance,
                                       is_training=False)
    return Case([normalized, tf.gradients(normalized, images, grad_ys=images)[0], y, mean,
                 variance, inference[0],
                 *tf.gradients(y * images, [images], colocate_gradients_with_ops=True)])


@case("BroadcastGradientArgs", "StopGradient", "IdentityN", "PreventGradient")
def gradient_helpers(other):
    r0, r1 = apply_op("BroadcastGradientArgs", s0=[3, 1, 4], s1=[1, 5, 4])
    return Case([r0, r1, tf.stop_gradient(tf.constant(MATRIX)),
                 apply_op("PreventGradient", input=tf.constant(MATRIX), message="none"),
                 *tf.identity_n([tf.constant(MATRIX), tf.constant([1, 2])])])


@case("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
      "RandomShuffle")
def random_ops(other):
    # Op-level seeds: the generators start alike on both devices and make the same numbers.
    return Case([tf.random_normal([3, 2], seed=1), tf.truncated_normal([3, 2], seed=2),
                 tf.random_uniform([3, 2], seed=3),
                 tf.random_uniform([5], maxval=10, dtype=tf.int32, seed=4),
                 tf.random_shuffle(tf.constant(MATRIX), seed=5)])


@case("Multinomial", "RandomPoissonV2", "StatelessRandomNormal", "StatelessTruncatedNormal",
      "StatelessRandomUniform", "StatelessRandomUniformInt", "StatelessMultinomial")
def random_distributions_and_stateless(other):
    logits = tf.constant([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    seed = tf.constant([3, 4], dtype=tf.int64)
    return Case([tf.multinomial(logits, 6, seed=1), tf.random_poisson([1.0, 4.0], [3], seed=2),
                 tf.random.stateless_normal([3, 2], seed),
                 tf.random.stateless_truncated_normal([3], seed),
                 tf.random.stateless_uniform([4], seed),
                 tf.random.stateless_uniform([4], seed, minval=-5, maxval=5, dtype=tf.int64),
                 tf.random.stateless_categorical(logits, 5, seed)])


@case("CheckNumerics", "Print", "PrintV2")
def numerics_and_print(other):
    x = tf.constant(MATRIX)
    with tf.device(other):  # StringFormat has a CPU kernel only, as in TensorFlow
        formatted = tf.strings.format("x: {}", x)
    printed = tf.print(formatted, output_stream=logging.INFO)  # to the log, not the output
    with tf.control_dependencies([printed]):
        shown = tf.identity(x)
    return Case([tf.check_numerics(x, "x"), tf.Print(x, [x], "x: ", first_n=0), shown])


@case("VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
      "CountUpTo", "ScatterUpdate", "ScatterAdd", "ScatterSub")
def variables_and_updates(other):
    v = tf.Variable(MATRIX, name="v")
    counter = tf.Variable(0, name="counter")
    uninitialized = tf.Variable(1.0, name="never_initialized")
    updates = [tf.assign_add(v, tf.constant(POSITIVE)), tf.assign_sub(v, tf.constant(MATRIX)),
               tf.scatter_update(v, [0], tf.constant(MATRIX[1:2])),
               tf.scatter_add(v, [1, 1], tf.constant(MATRIX[:2])),
               tf.scatter_sub(v, [2], tf.constant(POSITIVE[:1])), tf.count_up_to(counter, 5)]
    return Case(updates, before=[[v.initializer, counter.initializer]],
                after=[v, counter, tf.is_variable_initialized(v),
                       tf.is_variable_initialized(uninitialized)])


@case("Switch", "Merge", "Assert")
def conds_and_asserts(other):
    a, b = tf.constant(MATRIX), tf.constant(POSITIVE)
    taken = tf.cond(tf.reduce_sum(b) > 0.0, lambda: a * b, lambda: a - b)
    not_taken = tf.cond(tf.reduce_sum(b) < 0.0, lambda: a * b, lambda: a - b)
    with tf.control_dependencies([tf.Assert(tf.reduce_all(b > 0.0), ["positive", b]),
                                  tf.Assert(tf.constant(True), ["ints", tf.constant([1])])]):
        checked = tf.identity(b)
    return Case([taken, not_taken, checked])


@case("Assert")
def a_failed_assert(other):
    return Case([tf.Assert(tf.reduce_all(tf.constant(MATRIX) > 0.0), ["not positive"])],
                error=tf.errors.InvalidArgumentError)


@case("Enter", "Exit", "NextIteration", "LoopCond", "StackV2", "StackPushV2", "StackPopV2",
      "ControlTrigger")
def a_while_loop_and_its_gradient(other):
    a, x = tf.constant(MATRIX), tf.constant(POSITIVE)
    out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, a])[1]
    return Case([out, tf.gradients(tf.reduce_sum(out), x)[0]])


@case("StackCloseV2")
def a_stack_used_by_hand(other):
    handle = apply_op("StackV2", max_size=tf.constant(-1), elem_type=tf.float32)
    pushed = apply_op("StackPushV2", handle=handle, elem=tf.constant(MATRIX))
    with tf.control_dependencies([pushed]):
        popped = apply_op("StackPopV2", handle=handle, elem_type=tf.float32)
    with tf.control_dependencies([popped]):
        closed = apply_op("StackCloseV2", handle=handle)
    with tf.control_dependencies([closed]):
        result = tf.identity(popped)
    return Case([result])


@case("TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayGatherV3",
      "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3",
      "TensorArraySizeV3", "TensorArrayCloseV3", "TensorArrayGradV3")
def tensor_arrays(other):
    a = tf.constant(MATRIX)
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(a)
    read = ta.read(1) * 2.0
    gathered = ta.gather([2, 0])
    written = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, a).write(
        1, a * 3.0)
    split = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(a, [1, 2])
    size = written.size()
    with tf.control_dependencies([written.concat()]):
        closed = written.close()
    with tf.control_dependencies([closed]):
        after_close = tf.identity(size)
    grad = tf.gradients(tf.reduce_sum(ta.stack() * a), a)[0]
    return Case([read, gathered, written.concat(), split.concat(), after_close, grad])


@case("RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration", "RefIdentity")
def references_in_a_cond_and_a_loop(other):
    v = tf.Variable(MATRIX, name="v")
    w = tf.Variable(POSITIVE, name="w")
    chosen = tf.cond(tf.constant(True), lambda: v._ref(), lambda: w._ref()) * 2.0
    looped = tf.while_loop(lambda r: tf.reduce_sum(r) > -1e9, lambda r: r, [w._ref()],
                           maximum_iterations=2)
    return Case([chosen, looped * 1.0], before=[[v.initializer, w.initializer]])


def _training(optimizer, sparse):
    """Two steps of `optimizer` on a small model; compares the variables and their slots."""
    w = tf.Variable(MATRIX, name="w")
    if sparse:  # a gather makes the gradient IndexedSlices: the Sparse* kernels
        loss = tf.reduce_sum(tf.square(tf.gather(w, [2, 0, 2])))
    else:
        loss = tf.reduce_sum(tf.square(tf.matmul(w, tf.constant(POSITIVE.T))))
    train = optimizer.minimize(loss)
    slots = [optimizer.get_slot(w, name) for name in sorted(optimizer.get_slot_names())]
    init = tf.global_variables_initializer()
    return Case([loss], before=[init, train, train], after=[w] + slots)


OPTIMIZERS = {
    "gradient_descent": (lambda: tf.train.GradientDescentOptimizer(0.1),
                         "ApplyGradientDescent", "ScatterSub"),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 "ApplyMomentum", "SparseApplyMomentum"),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.1), "ApplyAdagrad", "SparseApplyAdagrad"),
    "adadelta": (lambda: tf.train.AdadeltaOptimizer(1.0), "ApplyAdadelta",
                 "SparseApplyAdadelta"),
    "adam": (lambda: tf.train.AdamOptimizer(0.1), "ApplyAdam", "ScatterAdd"),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5), "ApplyRMSProp",
                "SparseApplyRMSProp"),
    "centered_rmsprop": (lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
                         "ApplyCenteredRMSProp", "SparseApplyCenteredRMSProp"),
    "ftrl": (lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
             "ApplyFtrl", "SparseApplyFtrl"),
    "ftrl_v2": (lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
                "ApplyFtrlV2", "SparseApplyFtrlV2"),
}

for _name, (_make, _dense_op, _sparse_op) in OPTIMIZERS.items():
    for _sparse, _op in ((False, _dense_op), (True, _sparse_op)):
        def _build(other, make=_make, sparse=_sparse):
            return _training(make(), sparse)
        _build.__name__ = "%s_%s" % (_name, "sparse" if _sparse else "dense")
        case(_op)(_build)


@case("BroadcastTo", "BroadcastArgs", "SelectV2", "ParallelConcat", "GuaranteeConst")
def broadcasting_and_choosing(other):
    a = tf.constant(MATRIX)
    shape = apply_op("BroadcastArgs", s0=tf.constant([3, 1]), s1=tf.constant([4]))
    return Case([tf.broadcast_to(tf.constant(f32(1, 2, 3, 4)), shape),
                 tf.where_v2(a > 0.0, a, tf.constant(f32(9))),
                 tf.parallel_stack([a, -a]), tf.guarantee_const(a)])


@case("Roll", "ReverseSequence", "Bitcast", "UnravelIndex", "DynamicStitch")
def reordering(other):
    a = tf.constant(MATRIX)
    return Case([tf.roll(a, [1, -2], [0, 1]),
                 tf.reverse_sequence(a, tf.constant([2, 4, 1], tf.int64), 1, 0),
                 tf.bitcast(a, tf.uint8), tf.unravel_index(tf.constant([5, 11]), [3, 4]),
                 tf.dynamic_stitch([tf.constant([1]), tf.constant([0, 1])], [a[:1], a[1:]])])


@case("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
      "TensorScatterMin")
def tensor_scatters(other):
    a, rows = tf.constant(MATRIX), tf.constant(POSITIVE[:2])
    indices = tf.constant([[2], [0]])
    return Case([scatter(a, indices, rows) for scatter in (
        tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub,
        tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min)])


@case("UniqueWithCounts", "ListDiff", "LowerBound", "UpperBound")
def sets_and_searches(other):
    x = tf.constant([4, 1, 4, 2, 1, 4])
    sequence = tf.constant(np.sort(MATRIX, axis=1))
    return Case([list(tf.unique_with_counts(x)), list(tf.setdiff1d(x, tf.constant([1]))),
                 tf.searchsorted(sequence, tf.constant(MATRIX[:, :2])),
                 tf.searchsorted(sequence, tf.constant(MATRIX[:, :2]), side="right")])


@case("SpaceToBatchND", "BatchToSpaceND", "SpaceToDepth", "DepthToSpace",
      "ExtractImagePatches", "ExtractVolumePatches")
def moving_blocks_of_space(other):
    images = tf.constant(IMAGES)
    batched = tf.space_to_batch_nd(images, [2, 3], [[0, 0], [1, 2]])
    return Case([batched, tf.batch_to_space_nd(batched, [2, 3], [[0, 0], [1, 2]]),
                 tf.depth_to_space(tf.space_to_depth(images, 2), 2),
                 tf.extract_image_patches(images, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1],
                                          "SAME"),
                 tf.extract_volume_patches(tf.reshape(images, [1, 2, 6, 6, 3]),
                                           [1, 1, 2, 2, 1], [1, 1, 2, 1, 1], "VALID")])


@case("ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin", "ScatterNdUpdate",
      "ScatterNdAdd", "ScatterNdSub", "EnsureShape")
def more_variable_updates(other):
    v = tf.Variable(POSITIVE, name="v")
    counts = tf.Variable(np.array([7, -7, 9], np.int32), name="counts")
    updates = [tf.scatter_mul(v, [0, 0], tf.constant(POSITIVE[:2])),
               tf.scatter_div(v, [1], tf.constant(POSITIVE[2:])),
               tf.scatter_div(counts, [0, 1, 2], tf.constant([2, 2, -4])),
               tf.scatter_max(v, [2], tf.constant(MATRIX[:1])),
               tf.scatter_min(v, [0], tf.constant(MATRIX[1:2])),
               tf.scatter_nd_update(v, [[0, 1], [2, 3]], tf.constant(f32(5, 6))),
               tf.scatter_nd_add(v, [[1], [1]], tf.constant(MATRIX[:2])),
               tf.scatter_nd_sub(v, [[2, 0]], tf.constant(f32(1)))]
    return Case(updates, before=[[v.initializer, counts.initializer]],
                after=[tf.ensure_shape(v, [3, None]), counts])
# --- math and linear algebra ----------------------------------------------------------------

COMPLEX = (MATRIX + 1j * POSITIVE).astype(np.complex64)


@case("Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj")
def complex_numbers(other):
    z = tf.complex(tf.constant(MATRIX), tf.constant(POSITIVE))
    c = tf.constant(COMPLEX)
    return Case([z, tf.real(c), tf.imag(c), tf.angle(c), tf.abs(c), tf.conj(c), z * c,
                 tf.matmul(c, c, adjoint_b=True), tf.exp(c), tf.cast(c, tf.float32)])


@case("Acos", "Asin", "Atan", "Tan", "Acosh", "Asinh", "Atanh", "Cosh", "Sinh", "Expm1", "Rint",
      "IsFinite", "IsInf", "IsNan", "Atan2", "TruncateDiv", "TruncateMod", "Xdivy", "Xlogy",
      "Xlog1py", "MulNoNan", "NextAfter")
def more_elementwise_functions(other):
    x, p = tf.constant(MATRIX), tf.constant(POSITIVE)
    small = tf.tanh(x)
    ints = tf.constant([[7, -7], [3, -2]])
    return Case([tf.acos(small), tf.asin(small), tf.atan(x), tf.tan(small), tf.acosh(1.0 + p),
                 tf.asinh(x), tf.atanh(small), tf.cosh(x), tf.sinh(x), tf.expm1(x),
                 tf.rint(3.0 * x), tf.is_finite(x / small), tf.is_inf(p / 0.0),
                 tf.is_nan(tf.sqrt(x)), tf.atan2(x, p), tf.truncatediv(x, p),
                 tf.truncatediv(ints, [2, 3]), tf.truncatemod(x, p), tf.truncatemod(ints, [2, 3]),
                 tf.math.xdivy(x, p), tf.math.xlogy(x, p), tf.math.xlog1py(x, p),
                 tf.math.multiply_no_nan(x, p), tf.math.nextafter(x, p)])


@case("MatrixBandPart", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatrixDeterminant",
      "LogMatrixDeterminant", "MatrixInverse", "Cholesky", "MatrixSolve", "MatrixTriangularSolve",
      "SelfAdjointEigV2", "Cross", "Qr")
def linear_algebra(other):
    square = tf.constant(MATRIX[:, :3] + 3 * np.eye(3, dtype=np.float32))
    spd = tf.matmul(square, square, transpose_b=True)
    rhs = tf.constant(POSITIVE[:, :2])
    return Case([tf.linalg.band_part(tf.constant(MATRIX), 1, 0), tf.linalg.diag(POSITIVE),
                 tf.linalg.diag_part(tf.constant(MATRIX)),
                 tf.linalg.set_diag(tf.constant(MATRIX), POSITIVE[0, :3]), tf.linalg.det(square),
                 tf.linalg.slogdet(square)[1], tf.linalg.inv(square), tf.cholesky(spd),
                 tf.linalg.solve(square, rhs), tf.linalg.triangular_solve(square, rhs),
                 tf.linalg.eigvalsh(spd), tf.cross(tf.constant(MATRIX[:, :3]), square),
                 tf.linalg.qr(tf.constant(MATRIX.T))[1]])


@case("Svd", "Lu", "MatrixSolveLs", "MatrixSquareRoot", "MatrixLogarithm", "TridiagonalSolve",
      "TridiagonalMatMul", "Einsum")
def decompositions_and_matrix_functions(other):
    square = tf.constant(MATRIX[:, :3] + 3 * np.eye(3, dtype=np.float32))
    rhs = tf.constant(POSITIVE[:, :2])
    diagonals = tf.constant(POSITIVE[:, :3] + np.array([[0.0], [3.0], [0.0]], np.float32))
    return Case([tf.linalg.svd(square)[0], tf.linalg.lu(square)[0],
                 tf.linalg.lstsq(square, rhs, fast=False), tf.linalg.sqrtm(square),
                 tf.linalg.logm(tf.cast(square, tf.complex64)),
                 tf.linalg.tridiagonal_solve(diagonals, rhs),
                 tf.linalg.tridiagonal_matmul(diagonals, rhs),
                 tf.einsum("ij,jk->ik", square, rhs)])


@case("LinSpace", "Bincount", "AccumulateNV2")
def counting_and_sums(other):
    counts = apply_op("Bincount", arr=tf.constant([1, 1, 3, -1, 7]), size=tf.constant(5),
                    weights=tf.constant([], tf.float32))
    return Case([tf.linspace(-1.0, 2.0, 7), counts,
                 tf.accumulate_n([tf.constant(MATRIX), tf.constant(POSITIVE)])])


@case("Erf", "Erfc", "Lgamma", "Digamma", "Zeta", "Polygamma", "Erfinv", "Ndtri",
      "EuclideanNorm", "CumulativeLogsumexp", "BesselI0e", "BesselI1e", "Betainc")
def special_functions(other):
    x, p = tf.constant(MATRIX), tf.constant(POSITIVE)
    return Case([tf.erf(3.0 * x), tf.erfc(3.0 * x), tf.lgamma(3.0 * x), tf.digamma(3.0 * x),
                 tf.zeta(p + 1.0, p), tf.polygamma(tf.round(p), p), tf.math.erfinv(tf.tanh(x)),
                 tf.math.ndtri(tf.sigmoid(x)), tf.math.reduce_euclidean_norm(x, axis=1),
                 tf.math.cumulative_logsumexp(x, axis=1, exclusive=True),
                 tf.math.bessel_i0e(40.0 * x), tf.math.bessel_i1e(40.0 * x),
                 tf.math.betainc(p, p + 1.0, tf.sigmoid(x))])


# --- running them ----------------------------------------------------------------------------

class Outcome:
    """What running a case gave: the values, the op types run on the GPU, the error."""

    def __init__(self, expected_error):
        self.expected_error = expected_error
        self.values = []
        self.ran_on_gpu = set()
        self.error = None


def run_case(build, device, other):
    """Builds the case under `tf.device(device)` and runs it; `other` is a second device."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(device):
        spec = build(other)
    outcome = Outcome(spec.error)
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session(graph=graph, config=without_folding(device_count={"CPU": 2})) as sess:
        def run(fetches):
            metadata = tf.RunMetadata()
            outcome.values.append(sess.run(fetches, spec.feed, options=options,
                                           run_metadata=metadata))
            outcome.ran_on_gpu.update(s.op for d in metadata.step_stats.dev_stats
                                      if d.device == GPU0 for s in d.node_stats)

        for fetches in spec.before:
            run(fetches)
        try:
            run(spec.fetches)
        except tf.errors.OpError as e:
            outcome.error = e
        if spec.after:
            run(spec.after)
    return outcome


def _flatten(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _flatten(value)
        elif value is not None:  # what fetching an op gives
            yield value


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_runs_on_the_gpu_as_on_the_cpu(name, stand_in_gpu):
    build, op_types = CASES[name]
    on_gpu = run_case(build, "/gpu:0", other="/cpu:0")
    on_cpu = run_case(build, "/cpu:0", other="/cpu:1")
    ran_on_gpu = on_gpu.ran_on_gpu
    if on_gpu.expected_error is not None:
        assert isinstance(on_gpu.error, on_gpu.expected_error)
        assert isinstance(on_cpu.error, on_gpu.expected_error)
        # The failing node's op type and device, as the executor names them.
        failed = re.search(r"\(op: (\w+), device: ([^)]+)\)", on_gpu.error.message)
        assert failed.group(2) == GPU0
        ran_on_gpu = ran_on_gpu | {failed.group(1)}
    else:
        assert on_gpu.error is None and on_cpu.error is None, on_gpu.error or on_cpu.error
    assert op_types <= ran_on_gpu, "did not run on the GPU: %s" % sorted(op_types - ran_on_gpu)
    gpu_values, cpu_values = list(_flatten(on_gpu.values)), list(_flatten(on_cpu.values))
    assert len(gpu_values) == len(cpu_values)
    assert gpu_values or on_gpu.expected_error is not None
    for from_gpu, from_cpu in zip(gpu_values, cpu_values):
        assert type(from_gpu) is type(from_cpu)  # NumPy values on the client, never device arrays
        assert np.asarray(from_gpu).dtype == np.asarray(from_cpu).dtype
        np.testing.assert_array_equal(from_gpu, from_cpu)


def _gpu_op_types():
    """Op types that minitf itself gives a GPU kernel.

    Left out: kernels that tests register for themselves (op names with "Test"
    in them) and those of op libraries loaded at run time, which live outside
    the `minitf` package and are tested with their library.
    """
    return {op for (op, device), kernel in registered_kernels().items()
            if device == "GPU" and "Test" not in op
            and kernel.fn.__module__.startswith("minitf.")}


def test_every_gpu_kernel_has_a_case():
    covered = set().union(*(op_types for _, op_types in CASES.values()))
    missing = _gpu_op_types() - covered
    assert not missing, "GPU kernels without a case in this file: %s" % sorted(missing)
