"""Kernels of the candidate samplers and of ComputeAccidentalHits.

A sampler is a distribution over the classes [0, range_max) (uniform,
log-uniform (Zipfian), fixed unigram counts, or counts learned from the
true classes seen so far) and one draw of `num_sampled` candidates from it:

    unique=False  num_sampled independent draws;
    unique=True   draws until num_sampled different classes came up, after
                  num_tries draws in all.

The expected count of a class of probability p is then p * num_sampled, or,
for unique draws, the chance it came up at all in num_tries draws,
1 - (1 - p) ** num_tries. Draws are made on the host by the node's own
generator (seeded as the random ops' are, see random_kernels.py) and copied
to the kernel's device.

Mirrors `tensorflow/core/kernels/candidate_sampler_ops.cc` and
`range_sampler.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.cpu import random_kernels
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import on_device


# --- the distributions --------------------------------------------------------------------

class _Uniform:
    def __init__(self, range_max):
        self.range = range_max

    def sample(self, generator, count):
        return generator.integers(0, self.range, size=count)

    def probability(self, values):
        return np.full(np.shape(values), 1.0 / self.range)


class _LogUniform:
    """P(class) = log((class + 2) / (class + 1)) / log(range_max + 1): small ids are frequent,
    as words sorted by frequency are (Zipf's law)."""

    def __init__(self, range_max):
        self.range = range_max
        self.log_range = np.log1p(range_max)

    def sample(self, generator, count):
        values = np.exp(generator.random(count) * self.log_range).astype(np.int64) - 1
        return values % self.range

    def probability(self, values):
        values = np.asarray(values, dtype=np.float64)
        return np.log((values + 2.0) / (values + 1.0)) / self.log_range


class _Weighted:
    """P(class) proportional to its weight (a unigram count)."""

    def __init__(self, weights):
        self.weights = np.asarray(weights, dtype=np.float64)
        self.range = len(self.weights)

    def sample(self, generator, count):
        return generator.choice(self.range, size=count, p=self.weights / self.weights.sum())

    def probability(self, values):
        return self.weights[np.asarray(values, dtype=np.int64)] / self.weights.sum()


def _expected_counts(probabilities, num_sampled, num_tries):
    if num_tries == num_sampled:
        return probabilities * num_sampled
    return -np.expm1(num_tries * np.log1p(-probabilities))


def _draw(distribution, generator, num_sampled, unique):
    """(candidates, num_tries)."""
    if not unique:
        return distribution.sample(generator, num_sampled), num_sampled
    if num_sampled > distribution.range:
        raise invalid("Sampler's range is too small: %d unique candidates wanted out of %d"
                      % (num_sampled, distribution.range))
    picked, seen, num_tries = [], set(), 0
    while len(picked) < num_sampled:
        for value in distribution.sample(generator, num_sampled - len(picked)):
            num_tries += 1
            if int(value) not in seen:
                seen.add(int(value))
                picked.append(int(value))
                if len(picked) == num_sampled:
                    break
    return np.asarray(picked, dtype=np.int64), num_tries


def _check_true_classes(true_classes, num_true, range_max):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise invalid("true_classes must be a matrix with num_true = %d columns, got shape %s"
                      % (num_true, list(true_classes.shape)))
    outside = true_classes[(true_classes < 0) | (true_classes >= range_max)]
    if outside.size:
        raise invalid("`true_candidate` out of range [0, %d), received %d"
                      % (range_max, outside[0]))


def _sample(ctx, distribution, true_classes, num_true, num_sampled, unique, seed, seed2):
    """The three outputs of a sampler drawing from `distribution`."""
    true_classes = host_array(ctx, true_classes)
    _check_true_classes(true_classes, num_true, distribution.range)
    generator = random_kernels._generator(ctx, seed, seed2)  # the random ops' own
    sampled, num_tries = _draw(distribution, generator, num_sampled, unique)
    true_expected = _expected_counts(distribution.probability(true_classes), num_sampled,
                                     num_tries)
    sampled_expected = _expected_counts(distribution.probability(sampled), num_sampled,
                                        num_tries)
    return (on_device(ctx, sampled.astype(np.int64)),
            on_device(ctx, true_expected.astype(np.float32)),
            on_device(ctx, sampled_expected.astype(np.float32)))


@register_kernel("UniformCandidateSampler", ALL_DEVICE_TYPES)
def uniform_candidate_sampler(ctx, true_classes, *, num_true, num_sampled, unique, range_max,
                              seed, seed2):
    return _sample(ctx, _Uniform(range_max), true_classes, num_true, num_sampled, unique, seed,
                   seed2)


@register_kernel("LogUniformCandidateSampler", ALL_DEVICE_TYPES)
def log_uniform_candidate_sampler(ctx, true_classes, *, num_true, num_sampled, unique,
                                  range_max, seed, seed2):
    return _sample(ctx, _LogUniform(range_max), true_classes, num_true, num_sampled, unique,
                   seed, seed2)


@register_kernel("LearnedUnigramCandidateSampler", ALL_DEVICE_TYPES)
def learned_unigram_candidate_sampler(ctx, true_classes, *, num_true, num_sampled, unique,
                                      range_max, seed, seed2):
    """Weights that start at 1 for every class and count each true class seen, after the draw.

    The counts live with the node, for as long as the session.
    """
    counts = ctx.state.setdefault("counts", np.ones(range_max))
    outputs = _sample(ctx, _Weighted(counts), true_classes, num_true, num_sampled, unique,
                      seed, seed2)
    np.add.at(counts, host_array(ctx, true_classes).reshape(-1), 1)
    return outputs


def _unigram_weights(ctx, vocab_file, unigrams, distortion, num_reserved_ids, num_shards,
                     shard):
    """The weights of the classes of this shard: reserved ids (weight 0) first, then the
    counts of `unigrams` or of the last column of each line of `vocab_file`."""
    if vocab_file:
        with open(vocab_file, encoding="utf-8") as lines:
            counts = [float(line.rstrip("\n").split(",")[-1]) for line in lines if line.strip()]
    else:
        counts = list(unigrams)
    weights = [0.0] * num_reserved_ids + [count ** distortion for count in counts]
    return [w for word_id, w in enumerate(weights) if word_id % num_shards == shard]


@register_kernel("FixedUnigramCandidateSampler", ALL_DEVICE_TYPES)
def fixed_unigram_candidate_sampler(ctx, true_classes, *, num_true, num_sampled, unique,
                                    range_max, vocab_file, distortion, num_reserved_ids,
                                    num_shards, shard, unigrams, seed, seed2):
    if bool(vocab_file) == bool(unigrams):
        raise invalid("Must provide either vocab_file or unigrams, but not both")
    weights = ctx.state.get("weights")
    if weights is None:
        weights = ctx.state.setdefault("weights", _unigram_weights(
            ctx, vocab_file, unigrams, distortion, num_reserved_ids, num_shards, shard))
    if len(weights) != range_max:
        raise invalid("range_max %d must be the number of ids in this shard, %d"
                      % (range_max, len(weights)))
    return _sample(ctx, _Weighted(weights), true_classes, num_true, num_sampled, unique, seed,
                   seed2)


@register_kernel("AllCandidateSampler", ALL_DEVICE_TYPES)
def all_candidate_sampler(ctx, true_classes, *, num_true, num_sampled, unique, seed, seed2):
    """Every class of [0, num_sampled), each expected once: no sampling at all."""
    true_classes = host_array(ctx, true_classes)
    _check_true_classes(true_classes, num_true, num_sampled)
    return (on_device(ctx, np.arange(num_sampled, dtype=np.int64)),
            on_device(ctx, np.ones(true_classes.shape, dtype=np.float32)),
            on_device(ctx, np.ones(num_sampled, dtype=np.float32)))


@register_kernel("ComputeAccidentalHits", ALL_DEVICE_TYPES)
def compute_accidental_hits(ctx, true_classes, sampled_candidates, *, num_true, seed, seed2):
    """Each (row, position j) where sampled candidate j is one of the row's true classes
    (`indices`: the rows, `ids`: the positions), with the weight -FLT_MAX that, added to
    that sampled logit, takes it out of the loss."""
    true_classes = host_array(ctx, true_classes)
    sampled = host_array(ctx, sampled_candidates)
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise invalid("true_classes must be a matrix with num_true = %d columns" % num_true)
    if sampled.ndim != 1:
        raise invalid("sampled_candidates must be a vector")
    # A class sampled more than once is a hit at its last position only, as in TensorFlow.
    last_position = {int(value): j for j, value in enumerate(sampled)}
    hits = [(row, last_position[int(c)]) for row, classes in enumerate(true_classes)
            for c in classes if int(c) in last_position]
    rows = np.array([row for row, _ in hits], dtype=np.int32)
    positions = np.array([j for _, j in hits], dtype=np.int64)
    weights = np.full(len(rows), -np.finfo(np.float32).max, dtype=np.float32)
    return (on_device(ctx, rows.astype(np.int32)), on_device(ctx, positions.astype(np.int64)),
            on_device(ctx, weights))
