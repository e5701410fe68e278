"""The candidate samplers: the negative classes of nce_loss and sampled_softmax_loss.

A sampled loss scores a few sampled classes instead of all of them. Each
sampler here returns (sampled_candidates, true_expected_count,
sampled_expected_count): `num_sampled` classes drawn from [0, range_max),
and how many times each true class and each candidate was expected to come
up, which the loss corrects for. The distributions and the draw are in
minitf/kernels/cpu/candidate_sampling_kernels.py.

Mirrors `tensorflow/python/ops/candidate_sampling_ops.py`.
"""

import collections

from minitf.graph import random_seed
from minitf.graph.op_def_library import apply_op

__all__ = []

Sampled = collections.namedtuple("Sampled", ["sampled_candidates", "true_expected_count",
                                             "sampled_expected_count"])


def _sampler(op_type, true_classes, seed, name, **attrs):
    seed1, seed2 = random_seed.get_seed(seed)
    return Sampled(*apply_op(op_type, name=name, true_classes=true_classes, seed=seed1 or 0,
                             seed2=seed2 or 0, **attrs))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Candidates drawn uniformly from [0, range_max)."""
    return _sampler("UniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=unique, range_max=range_max)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Candidates drawn from the log-uniform (Zipfian) distribution
    P(class) = log((class + 2) / (class + 1)) / log(range_max + 1), for classes sorted by
    decreasing frequency."""
    return _sampler("LogUniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=unique, range_max=range_max)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """Candidates drawn in proportion to how often each class was a true class so far."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes, seed, name,
                    num_true=num_true, num_sampled=num_sampled, unique=unique,
                    range_max=range_max)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Candidates drawn in proportion to given counts (`unigrams`, or the last column of
    each line of `vocab_file`) raised to `distortion`."""
    return _sampler("FixedUnigramCandidateSampler", true_classes, seed, name,
                    num_true=num_true, num_sampled=num_sampled, unique=unique,
                    range_max=range_max, vocab_file=vocab_file, distortion=distortion,
                    num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
                    unigrams=list(unigrams))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class of [0, num_sampled), each expected once (for testing a sampled loss
    against the full one)."""
    return _sampler("AllCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=unique)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(indices, ids, weights): each row and sampled position where a candidate is one of
    the row's true classes, with weight -FLT_MAX to add to that logit."""
    seed1, seed2 = random_seed.get_seed(seed)
    return apply_op("ComputeAccidentalHits", name=name, true_classes=true_classes,
                    sampled_candidates=sampled_candidates, num_true=num_true,
                    seed=seed1 or 0, seed2=seed2 or 0)
