"""`tf.random`: the random ops under the names TF 1.15 gathered them by.

TF 1.15 moved its random ops here (`tf.random.normal` is `tf.random_normal`)
and kept the old names too. The ops are the Ops chapter's
(`minitf/ops/random_ops.py`, `minitf/ops/stateless_random_ops.py`); the
candidate samplers are `tf.nn`'s, looked up there when first asked for
(`tf1_api.alias_getattr`).

Mirrors TF 1.15's `tf.random` namespace.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.graph.random_seed import get_seed, set_random_seed  # noqa: F401
from minitf.ops.random_ops import (categorical, multinomial, normal, poisson,  # noqa: F401
                                   shuffle, truncated_normal, uniform)
from minitf.ops.stateless_random_ops import (  # noqa: F401
    stateless_categorical, stateless_multinomial, stateless_truncated_normal)
from minitf.ops.stateless_random_ops import stateless_random_normal as stateless_normal  # noqa: F401,E501
from minitf.ops.stateless_random_ops import stateless_random_uniform as stateless_uniform  # noqa: F401,E501

__getattr__ = _tf1_api.alias_getattr("tf.random", __name__, {
    name: "nn." + name for name in (
        "all_candidate_sampler", "fixed_unigram_candidate_sampler",
        "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler",
        "uniform_candidate_sampler")})
