"""`tf.nn`: the neural-network namespace.

Only names: the ops are defined in minitf/ops/nn_ops.py (activations, softmax,
losses, dropout, moments, top_k, convolution, pooling, dilation), minitf/ops/nn_impl.py
(the composites: batch normalization, the moments family, weighted and
sampled losses, depthwise and separable convolutions), minitf/autodiff/swish.py
(swish, whose gradient is written with tf.custom_gradient),
minitf/ops/candidate_sampling_ops.py (the samplers of the sampled losses),
minitf/ops/embedding_ops.py (embedding_lookup), minitf/ops/array_ops.py
(space_to_depth, depth_to_space, space_to_batch) and minitf/ops/math_ops.py
(sigmoid, tanh), which TensorFlow also files here; the recurrent networks are in
minitf/layers/rnn.py and their cells, `tf.nn.rnn_cell`, in minitf/layers/rnn_cell_impl.py;
the CTC loss and decoders in minitf/ops/ctc_ops.py.

Mirrors `tensorflow/python/ops/nn.py`.

A name of TF 1.15's `tf.nn` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

from minitf.autodiff.swish import silu, swish  # noqa: F401
from minitf.graph import tf1_api as _tf1_api
from minitf.layers import rnn_cell  # noqa: F401
from minitf.layers.rnn import (bidirectional_dynamic_rnn, dynamic_rnn, raw_rnn,  # noqa: F401
                               static_bidirectional_rnn, static_rnn, static_state_saving_rnn)
from minitf.ops.array_ops import depth_to_space, space_to_batch, space_to_depth  # noqa: F401
from minitf.ops.candidate_sampling_ops import (all_candidate_sampler,  # noqa: F401
                                               compute_accidental_hits,
                                               fixed_unigram_candidate_sampler,
                                               learned_unigram_candidate_sampler,
                                               log_uniform_candidate_sampler,
                                               uniform_candidate_sampler)
from minitf.ops.ctc_ops import (collapse_repeated, ctc_beam_search_decoder,  # noqa: F401
                                ctc_beam_search_decoder_v2, ctc_greedy_decoder, ctc_loss,
                                ctc_loss_v2, ctc_unique_labels)
from minitf.ops.embedding_ops import (embedding_lookup, embedding_lookup_sparse,  # noqa: F401
                                      safe_embedding_lookup_sparse)
from minitf.ops.math_ops import sigmoid, tanh  # noqa: F401
from minitf.ops.nn_impl import (batch_norm_with_global_normalization,  # noqa: F401
                                batch_normalization, compute_average_loss, depthwise_conv2d,
                                fused_batch_norm, log_poisson_loss, nce_loss,
                                normalize_moments, relu_layer, sampled_softmax_loss,
                                scale_regularization_loss, separable_conv2d,
                                sufficient_statistics,
                                weighted_cross_entropy_with_logits, weighted_moments,
                                zero_fraction)
from minitf.ops.nn_ops import (approx_max_k, approx_min_k, atrous_conv2d,  # noqa: F401
                               atrous_conv2d_transpose, avg_pool, avg_pool1d, avg_pool2d,
                               avg_pool3d, avg_pool_v2, bias_add, conv1d, conv1d_transpose,
                               conv2d, conv3d, conv3d_backprop_filter,
                               conv3d_backprop_filter_v2, conv3d_transpose,
                               conv2d_backprop_filter, conv2d_backprop_input,
                               conv2d_transpose, conv_transpose, convolution, crelu,
                               depthwise_conv2d_backprop_filter,
                               depthwise_conv2d_backprop_input, depthwise_conv2d_native,
                               depthwise_conv2d_native_backprop_filter,
                               depthwise_conv2d_native_backprop_input, dilation2d,
                               dropout, elu, erosion2d, fractional_avg_pool,
                               fractional_max_pool,
                               in_top_k, l2_loss, l2_normalize, leaky_relu,
                               local_response_normalization, log_softmax, lrn, max_pool,
                               max_pool1d, max_pool2d, max_pool3d, max_pool_v2,
                               max_pool_with_argmax, moments, pool, relu,
                               with_space_to_batch,
                               relu6, selu,
                               sigmoid_cross_entropy_with_logits, softmax,
                               softmax_cross_entropy_with_logits,
                               softmax_cross_entropy_with_logits_v2, softplus, softsign,
                               sparse_softmax_cross_entropy_with_logits, top_k, xw_plus_b)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.nn", __name__, name)
