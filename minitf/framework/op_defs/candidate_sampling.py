"""OpDefs of the candidate samplers, which draw the negative classes of a sampled loss.

Each sampler takes the true classes of a batch ([batch, num_true], int64)
and returns `num_sampled` candidates drawn from [0, range_max), with the
number of times each true class and each candidate was expected to be
drawn (what nce_loss and sampled_softmax_loss subtract the log of).
ComputeAccidentalHits finds the candidates that are a row's true class.

Mirrors `tensorflow/core/ops/candidate_sampling_ops.cc`.
"""

from minitf.framework.common_shapes import merge_dims
from minitf.framework.common_shapes import with_rank
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape


def _sampler_shape(op):
    """[num_sampled] candidates, [batch, num_true] and [num_sampled] expected counts."""
    num_true, num_sampled = op.get_attr("num_true"), op.get_attr("num_sampled")
    true_classes = with_rank(op.inputs[0].shape, 2)
    merge_dims(true_classes[1], num_true)
    sampled = tensor_shape.TensorShape([num_sampled])
    return [sampled, tensor_shape.TensorShape([true_classes[0], num_true]), sampled]


_SAMPLER_ATTRS = ("num_true: int >= 1", "num_sampled: int >= 1", "unique: bool")
_SEED_ATTRS = ("seed: int = 0", "seed2: int = 0")
_FIXED_UNIGRAM_ATTRS = ("vocab_file: string = ''", "distortion: float = 1.0",
                        "num_reserved_ids: int = 0", "num_shards: int >= 1 = 1",
                        "shard: int >= 0 = 0", "unigrams: list(float) = []")


def _register_sampler(op_type, attrs):
    builder = register_op(op_type).input("true_classes: int64").output(
        "sampled_candidates: int64").output("true_expected_count: float32").output(
        "sampled_expected_count: float32")
    for spec in attrs:
        builder.attr(spec)
    builder.set_is_stateful().set_shape_fn(_sampler_shape)


_register_sampler("UniformCandidateSampler", _SAMPLER_ATTRS + ("range_max: int >= 1",)
                  + _SEED_ATTRS)
_register_sampler("LogUniformCandidateSampler", _SAMPLER_ATTRS + ("range_max: int >= 1",)
                  + _SEED_ATTRS)
_register_sampler("LearnedUnigramCandidateSampler", _SAMPLER_ATTRS + ("range_max: int >= 1",)
                  + _SEED_ATTRS)
_register_sampler("FixedUnigramCandidateSampler", _SAMPLER_ATTRS + ("range_max: int >= 1",)
                  + _FIXED_UNIGRAM_ATTRS + _SEED_ATTRS)
_register_sampler("AllCandidateSampler", _SAMPLER_ATTRS + _SEED_ATTRS)


def _accidental_hits_shape(op):
    """Three vectors of one unknown length: (row, candidate position, weight) per hit."""
    true_classes = with_rank(op.inputs[0].shape, 2)
    merge_dims(true_classes[1], op.get_attr("num_true"))
    with_rank(op.inputs[1].shape, 1)
    return [tensor_shape.TensorShape([None])] * 3


register_op("ComputeAccidentalHits").input("true_classes: int64").input(
    "sampled_candidates: int64").output("indices: int32").output("ids: int64").output(
    "weights: float32").attr("num_true: int").attr("seed: int = 0").attr(
    "seed2: int = 0").set_shape_fn(_accidental_hits_shape)
