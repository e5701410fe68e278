"""The tf.nn graphs the tests compare with TensorFlow's: their values and their node names.

Each case has inputs (arrays drawn from a seeded NumPy generator, fed
through placeholders named after them) and a function `build(tf, x)` that
builds the graph from the placeholders `x` and returns the tensors to
fetch, a list. Variables (the RNN cases') are initialized before the fetch,
from the deterministic `fixed_weights` initializer. The record script (`scripts/record_nn_reference.py`) runs
every case in TensorFlow and writes, per case, the fetched values and the
(name, type) of every op the case added, to `data/nn_reference.json`; the
tests build and run the same cases in minitf. A case with
`same_nodes=False` builds a graph that TensorFlow 2.x (which made the
file) spells differently from TF 1.15; only its values are compared. With
`same_nodes="names"`, the names are compared and not the op types (where
TensorFlow folds a shape into a constant that minitf computes).
Nothing here imports TensorFlow or minitf.
"""

import numpy as np

CASES = {}


def case(name, inputs, same_nodes=True, rtol=1e-5, atol=1e-6):
    """Registers `build` under `name`; `inputs` maps a placeholder name to a maker(rng)."""
    def register(build):
        CASES[name] = {"inputs": inputs, "build": build, "same_nodes": same_nodes,
                       "rtol": rtol, "atol": atol}
        return build
    return register


def normal(*shape, dtype=np.float32, scale=1.0):
    return lambda rng: (rng.standard_normal(shape) * scale).astype(dtype)


def uniform(*shape, low=0.0, high=1.0, dtype=np.float32):
    return lambda rng: rng.uniform(low, high, shape).astype(dtype)


def integers(*shape, high, dtype=np.int32):
    return lambda rng: rng.randint(0, high, shape).astype(dtype)


def input_values(name):
    """The case's input arrays, the same on every run."""
    rng = np.random.RandomState(sum(map(ord, name)))
    return {key: make(rng) for key, make in sorted(CASES[name]["inputs"].items())}


def run_case(tf, name):
    """Builds and runs case `name` in `tf`: {"values": [...], "nodes": [[name, type], ...]}."""
    values = input_values(name)
    graph = tf.Graph()
    with graph.as_default():
        placeholders = {key: tf.placeholder(tf.as_dtype(value.dtype), value.shape, name=key)
                        for key, value in values.items()}
        fetches = CASES[name]["build"](tf, placeholders)
        with tf.Session(graph=graph) as sess:
            if tf.global_variables():
                sess.run(tf.global_variables_initializer())
            results = sess.run(fetches, {placeholders[key]: value
                                         for key, value in values.items()})
    nodes = [[op.name, op.type] for op in graph.get_operations()
             if op.type != "Placeholder"]
    return {"values": [np.asarray(r).tolist() for r in results], "nodes": nodes}


# --- activations ----------------------------------------------------------------------------

@case("selu", {"x": normal(3, 4, scale=2.0)})
def _selu(tf, x):
    return [tf.nn.selu(x["x"])]


@case("leaky_relu", {"x": normal(3, 4)})
def _leaky_relu(tf, x):
    return [tf.nn.leaky_relu(x["x"]), tf.nn.leaky_relu(x["x"], alpha=0.01, name="leaky")]


@case("softsign", {"x": normal(3, 4, scale=3.0)})
def _softsign(tf, x):
    return [tf.nn.softsign(x["x"])]


@case("swish", {"x": normal(2, 5)}, same_nodes=False)  # tf.custom_gradient's Identity ops
def _swish(tf, x):
    return [tf.nn.swish(x["x"]), tf.gradients(tf.nn.swish(x["x"]), x["x"])[0]]


@case("crelu", {"x": normal(2, 3)})
def _crelu(tf, x):
    return [tf.nn.crelu(x["x"]), tf.nn.crelu(x["x"], axis=0)]


@case("relu_layer_and_xw_plus_b", {"x": normal(2, 3), "w": normal(3, 4), "b": normal(4)})
def _dense(tf, x):
    return [tf.nn.relu_layer(x["x"], x["w"], x["b"]), tf.nn.xw_plus_b(x["x"], x["w"], x["b"])]


# --- losses ---------------------------------------------------------------------------------

@case("weighted_cross_entropy", {"labels": uniform(3, 4), "logits": normal(3, 4, scale=3.0)})
def _weighted_cross_entropy(tf, x):
    return [tf.nn.weighted_cross_entropy_with_logits(labels=x["labels"], logits=x["logits"],
                                                     pos_weight=2.5)]


@case("log_poisson_loss", {"targets": uniform(3, 4, high=5.0), "log_input": normal(3, 4)})
def _log_poisson_loss(tf, x):
    return [tf.nn.log_poisson_loss(x["targets"], x["log_input"]),
            tf.nn.log_poisson_loss(x["targets"], x["log_input"], compute_full_loss=True)]


@case("compute_average_loss", {"loss": uniform(6), "weights": uniform(6)}, same_nodes=False)
def _compute_average_loss(tf, x):
    return [tf.nn.compute_average_loss(x["loss"]),
            tf.nn.compute_average_loss(x["loss"], sample_weight=x["weights"],
                                       global_batch_size=10),
            tf.nn.scale_regularization_loss(x["loss"])]


# --- statistics -----------------------------------------------------------------------------

@case("zero_fraction", {"x": normal(4, 5)}, same_nodes=False)
def _zero_fraction(tf, x):
    return [tf.nn.zero_fraction(tf.nn.relu(x["x"]))]


@case("moments_family", {"x": normal(4, 3), "w": uniform(4, 1)})
def _moments_family(tf, x):
    counts, mean_ss, var_ss, _ = tf.nn.sufficient_statistics(x["x"], [0])
    mean, variance = tf.nn.normalize_moments(counts, mean_ss, var_ss, None)
    shifted = tf.nn.sufficient_statistics(x["x"], [0], shift=0.5, keepdims=True)
    shifted_moments = tf.nn.normalize_moments(*shifted)
    weighted = tf.nn.weighted_moments(x["x"], [0], x["w"])
    return [counts, mean_ss, var_ss, mean, variance, *shifted[:3], *shifted_moments, *weighted]


# --- normalization --------------------------------------------------------------------------

@case("batch_normalization", {"x": normal(4, 3), "mean": normal(3), "variance": uniform(3),
                              "offset": normal(3), "scale": uniform(3, low=0.5, high=2.0)})
def _batch_normalization(tf, x):
    return [tf.nn.batch_normalization(x["x"], x["mean"], x["variance"], x["offset"],
                                      x["scale"], 1e-3),
            tf.nn.batch_normalization(x["x"], x["mean"], x["variance"], None, None, 1e-3),
            tf.nn.batch_norm_with_global_normalization(x["x"], x["mean"], x["variance"],
                                                       x["offset"], x["scale"], 1e-3, False)]


@case("fused_batch_norm", {"x": normal(2, 3, 4, 3), "scale": uniform(3, low=0.5, high=2.0),
                           "offset": normal(3), "mean": normal(3), "variance": uniform(3)},
      rtol=1e-4, atol=1e-5)
def _fused_batch_norm(tf, x):
    training = tf.nn.fused_batch_norm(x["x"], x["scale"], x["offset"])
    inference = tf.nn.fused_batch_norm(x["x"], x["scale"], x["offset"], x["mean"],
                                       x["variance"], is_training=False)
    nchw = tf.nn.fused_batch_norm(tf.transpose(x["x"], [0, 3, 1, 2]), x["scale"], x["offset"],
                                  data_format="NCHW")
    loss = tf.reduce_sum(training[0] * x["x"])
    grads = tf.gradients(loss, [x["x"], x["scale"], x["offset"]])
    inference_grads = tf.gradients(tf.reduce_sum(inference[0] * x["x"]),
                                   [x["x"], x["scale"], x["offset"]])
    return [*training, *inference, *nchw, *grads, *inference_grads]


@case("lrn", {"x": normal(2, 3, 3, 7)}, rtol=1e-4, atol=1e-5)
def _lrn(tf, x):
    output = tf.nn.lrn(x["x"], depth_radius=2, bias=1.5, alpha=0.3, beta=0.75)
    return [tf.nn.local_response_normalization(x["x"]), output,
            tf.gradients(output, x["x"], grad_ys=x["x"])[0]]


# --- top_k ----------------------------------------------------------------------------------

@case("top_k", {"x": normal(3, 6), "targets": integers(3, high=6)})
def _top_k(tf, x):
    values, indices = tf.nn.top_k(x["x"], 3)
    grad = tf.gradients(values, x["x"], grad_ys=values)[0]
    return [values, indices, grad, tf.nn.in_top_k(x["x"], x["targets"], 2),
            tf.nn.in_top_k(x["x"], x["targets"], 1, name="top1")]


# --- convolutions through conv2d, depthwise and separable --------------------------------------

@case("conv1d", {"x": normal(2, 9, 3), "w": normal(3, 3, 4)}, rtol=1e-4, atol=1e-5)
def _conv1d(tf, x):
    y = tf.nn.conv1d(x["x"], x["w"], 2, "SAME")
    return [y, tf.nn.conv1d(x["x"], x["w"], 1, "VALID", dilations=2),
            tf.nn.conv1d_transpose(y, x["w"], [2, 9, 3], 2, "SAME"),
            tf.nn.convolution(x["x"], x["w"], "VALID", strides=[3]),
            *tf.gradients(tf.reduce_sum(y * y), [x["x"], x["w"]])]


@case("conv_by_rank", {"x": normal(2, 7, 6, 3), "w": normal(3, 3, 3, 2)}, same_nodes=False,
      rtol=1e-4, atol=1e-5)
def _conv_by_rank(tf, x):
    # TF 2.x wraps a dilated convolution differently from TF 1.15 (space_to_batch):
    # only the values are compared.
    y = tf.nn.atrous_conv2d(x["x"], x["w"], 2, "SAME")
    return [y, tf.nn.atrous_conv2d(x["x"], x["w"], 2, "VALID"),
            tf.nn.atrous_conv2d_transpose(y, x["w"], [2, 7, 6, 3], 2, "SAME"),
            tf.nn.convolution(x["x"], x["w"], "SAME", strides=[2, 1]),
            tf.nn.conv_transpose(y, x["w"], [2, 7, 6, 3], 1, "SAME")]


@case("pooling_names", {"x": normal(2, 7, 3), "image": normal(2, 5, 6, 3)})
def _pooling_names(tf, x):
    return [tf.nn.max_pool1d(x["x"], 2, 2, "VALID"), tf.nn.avg_pool1d(x["x"], 3, 2, "SAME"),
            tf.nn.max_pool2d(x["image"], 2, 2, "SAME"), tf.nn.avg_pool2d(x["image"], 2, 1,
                                                                          "VALID"),
            tf.nn.max_pool_v2(x["x"], 3, 1, "SAME"), tf.nn.avg_pool_v2(x["image"], [2, 3], 2,
                                                                        "VALID"),
            tf.nn.pool(x["x"], [3], "MAX", "SAME"), tf.nn.pool(x["image"], [2, 2], "AVG",
                                                                "VALID", strides=[2, 1])]


@case("depthwise_conv2d", {"x": normal(2, 6, 5, 3), "w": normal(3, 2, 3, 2),
                           "pointwise": normal(1, 1, 6, 4)}, rtol=1e-4, atol=1e-5)
def _depthwise_conv2d(tf, x):
    y = tf.nn.depthwise_conv2d(x["x"], x["w"], [1, 2, 2, 1], "SAME")
    native = tf.nn.depthwise_conv2d_native(x["x"], x["w"], [1, 1, 1, 1], "VALID")
    separable = tf.nn.separable_conv2d(x["x"], x["w"], x["pointwise"], [1, 1, 1, 1], "VALID")
    nchw = tf.nn.depthwise_conv2d_native(tf.transpose(x["x"], [0, 3, 1, 2]), x["w"],
                                         [1, 1, 2, 1], "SAME", data_format="NCHW")
    grads = tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(separable), [x["x"], x["w"]])
    return [y, native, separable, nchw, *grads]


@case("depthwise_dilated", {"x": normal(1, 7, 7, 2), "w": normal(3, 3, 2, 1)},
      same_nodes=False, rtol=1e-4, atol=1e-5)
def _depthwise_dilated(tf, x):
    return [tf.nn.depthwise_conv2d(x["x"], x["w"], [1, 1, 1, 1], "SAME", rate=[2, 2]),
            tf.nn.depthwise_conv2d(x["x"], x["w"], [1, 1, 1, 1], "VALID", rate=[1, 2])]


# --- sampled losses and candidate samplers -----------------------------------------------------
#
# The draws themselves differ from TensorFlow's (another generator); what is
# compared is what does not depend on them: the losses given fixed sampled
# values, the expected counts of the true classes, the accidental hits.

def _fixed_sampled_values(tf):
    return (tf.constant([0, 7, 3, 5], tf.int64), tf.constant([[0.5], [0.25], [0.1]]),
            tf.constant([0.5, 0.2, 0.3, 0.4]))


# TensorFlow infers the static shape of a Slice whose size is a Pack of a
# StridedSlice of a Shape; minitf does not, so two of its Shape ops are Consts there.
@case("nce_loss", {"weights": normal(10, 4), "biases": normal(10), "inputs": normal(3, 4),
                   "labels": integers(3, 1, high=10, dtype=np.int64)}, same_nodes="names",
      rtol=1e-4, atol=1e-5)
def _nce_loss(tf, x):
    # Multiplied by 1, so that the gradients of the embedding lookups come back dense.
    weights, biases = x["weights"] * 1.0, x["biases"] * 1.0
    loss = tf.nn.nce_loss(weights, biases, x["labels"], x["inputs"], 4, 10,
                          sampled_values=_fixed_sampled_values(tf))
    return [loss, *tf.gradients(loss, [x["weights"], x["biases"], x["inputs"]])]


@case("sampled_softmax_loss", {"weights": normal(10, 4), "biases": normal(10),
                               "inputs": normal(3, 4), "labels": integers(3, 1, high=10,
                                                                           dtype=np.int64)},
      same_nodes=False, rtol=1e-4, atol=1e-5)  # minitf's accidental hits: ScatterNd
def _sampled_softmax_loss(tf, x):
    sampled_values = _fixed_sampled_values(tf)
    labels = tf.concat([x["labels"][:2], [[7]]], 0)  # sampled class 7 is a true class
    loss = tf.nn.sampled_softmax_loss(x["weights"] * 1.0, x["biases"], labels, x["inputs"], 4,
                                      10, sampled_values=sampled_values)
    split = tf.nn.sampled_softmax_loss([x["weights"][:5], x["weights"][5:]], x["biases"],
                                       labels, x["inputs"], 4, 10,
                                       sampled_values=sampled_values,
                                       remove_accidental_hits=False, partition_strategy="div")
    return [loss, split, *tf.gradients(loss, [x["weights"], x["inputs"]])]


@case("candidate_samplers", {"labels": integers(3, 2, high=50, dtype=np.int64)},
      same_nodes=False)  # TF 2.x names ComputeAccidentalHits' outputs alike; values only
def _candidate_samplers(tf, x):
    log_uniform = tf.nn.log_uniform_candidate_sampler(x["labels"], 2, 6, False, 50, seed=1)
    uniform = tf.nn.uniform_candidate_sampler(x["labels"], 2, 5, False, 50, seed=1)
    unigram = tf.nn.fixed_unigram_candidate_sampler(x["labels"], 2, 4, False, 50,
                                                    unigrams=[float(i % 7 + 1)
                                                              for i in range(50)],
                                                    distortion=0.75, seed=1)
    everything = tf.nn.all_candidate_sampler(x["labels"] % 6, 2, 6, True)
    hits = tf.nn.compute_accidental_hits(x["labels"], tf.concat(
        [x["labels"][1], tf.constant([49, 0], tf.int64), x["labels"][0]], 0), 2)
    return [log_uniform[1], uniform[1], uniform[2], unigram[1], *everything, *hits]


# --- tf.losses -------------------------------------------------------------------------------

# minitf's assert_broadcastable (shared with tf.metrics) builds fewer nodes than
# TensorFlow's: only the values are compared.
@case("losses", {"labels": uniform(4, 3), "predictions": uniform(4, 3),
                 "weights": uniform(4, 1), "logits": normal(4, 3, scale=2.0),
                 "classes": integers(4, high=3)}, same_nodes=False, rtol=1e-5, atol=1e-6)
def _losses(tf, x):
    labels, predictions, weights = x["labels"], x["predictions"], x["weights"]
    r = tf.losses.Reduction
    onehot = tf.one_hot(x["classes"], 3)
    return [tf.losses.absolute_difference(labels, predictions),
            tf.losses.mean_squared_error(labels, predictions, weights),
            tf.losses.huber_loss(labels, predictions * 3.0, weights, delta=0.5,
                                 reduction=r.SUM),
            tf.losses.log_loss(labels, predictions, reduction=r.NONE, loss_collection=None),
            tf.losses.hinge_loss(tf.round(labels), x["logits"], reduction=r.MEAN),
            tf.losses.cosine_distance(tf.nn.l2_normalize(labels, 1),
                                      tf.nn.l2_normalize(predictions, 1), axis=1),
            tf.losses.mean_pairwise_squared_error(labels, predictions, weights),
            tf.losses.sigmoid_cross_entropy(tf.round(labels), x["logits"], weights,
                                            label_smoothing=0.1,
                                            reduction=r.SUM_OVER_BATCH_SIZE),
            tf.losses.softmax_cross_entropy(onehot, x["logits"], label_smoothing=0.2),
            tf.losses.sparse_softmax_cross_entropy(x["classes"], x["logits"], weights),
            tf.losses.compute_weighted_loss(labels, [[0.0, 1.0, 2.0]]),
            tf.losses.get_total_loss(), tf.losses.get_regularization_loss()]


@case("max_pool_with_argmax", {"x": normal(2, 5, 4, 3)})
def _max_pool_with_argmax(tf, x):
    output, argmax = tf.nn.max_pool_with_argmax(x["x"], [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    batch_index = tf.nn.max_pool_with_argmax(x["x"], [1, 3, 2, 1], [1, 1, 2, 1], "VALID",
                                             include_batch_in_index=True,
                                             output_dtype=tf.int32)
    return [output, argmax, *batch_index,
            tf.gradients(output, x["x"], grad_ys=output * 2.0)[0]]


@case("dilation_and_erosion", {"x": normal(2, 6, 5, 3), "f": normal(2, 3, 3)})
def _dilation_and_erosion(tf, x):
    dilated = tf.nn.dilation2d(x["x"], x["f"], [1, 1, 2, 1], [1, 2, 1, 1], "SAME")
    return [dilated, tf.nn.erosion2d(x["x"], x["f"], [1, 2, 1, 1], [1, 1, 1, 1], "VALID"),
            *tf.gradients(dilated, [x["x"], x["f"]], grad_ys=dilated)]


@case("conv3d_and_pool3d", {"x": normal(2, 4, 5, 3, 2), "w": normal(2, 3, 2, 2, 3)},
      rtol=1e-4, atol=1e-5)
def _conv3d_and_pool3d(tf, x):
    y = tf.nn.conv3d(x["x"], x["w"], [1, 2, 1, 2, 1], "SAME")
    pooled = tf.nn.max_pool3d(x["x"], [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "SAME")
    averaged = tf.nn.avg_pool3d(x["x"], 2, 1, "VALID")
    return [y, tf.nn.conv3d(x["x"], x["w"], [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1, 1]),
            tf.nn.conv3d_transpose(y, x["w"], [2, 4, 5, 3, 2], [1, 2, 1, 2, 1], "SAME"),
            tf.nn.conv3d_backprop_filter(x["x"], [2, 3, 2, 2, 3], y, [1, 2, 1, 2, 1], "SAME"),
            pooled, averaged,
            *tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(pooled * pooled)
                          + tf.reduce_sum(averaged * averaged),
                          [x["x"], x["w"]])]


@case("with_space_to_batch", {"x": normal(2, 7, 6, 3), "w": normal(3, 2, 3, 2),
                              "volume": normal(1, 5, 6, 4, 2)}, rtol=1e-4, atol=1e-5)
def _with_space_to_batch(tf, x):
    def conv(inp, num_spatial_dims, padding):
        assert num_spatial_dims == 2
        return tf.nn.convolution(inp, x["w"], padding)

    def pool3d(inp, num_spatial_dims, padding):
        return tf.nn.max_pool3d(inp, [2, 2, 1], 1, padding)
    return [tf.nn.with_space_to_batch(x["x"], [2, 3], "SAME", conv, filter_shape=[3, 2]),
            tf.nn.with_space_to_batch(x["x"], [2, 1], "VALID", conv),
            tf.nn.with_space_to_batch(x["x"], [1, 1], "SAME", conv),
            tf.nn.with_space_to_batch(x["volume"], [2, 2, 1], "SAME", pool3d,
                                      filter_shape=[2, 2, 1])]


# --- recurrent networks ------------------------------------------------------------------------

def fixed_weights(tf):
    """A variable initializer giving the same values in every framework: a sine wave."""
    def initializer(shape, dtype=None, partition_info=None):
        size = int(np.prod(shape))
        values = 0.6 * np.sin(np.arange(size) * 0.7 + len(shape)).reshape(shape)
        return tf.constant(values, dtype=dtype or tf.float32)
    return initializer


@case("dynamic_rnn_cells", {"x": normal(3, 4, 2)}, rtol=1e-4, atol=1e-5)
def _dynamic_rnn_cells(tf, x):
    cells = tf.nn.rnn_cell
    with tf.variable_scope("net", initializer=fixed_weights(tf)):
        lstm_out, lstm_state = tf.nn.dynamic_rnn(cells.BasicLSTMCell(3), x["x"],
                                                 sequence_length=[4, 2, 3], dtype=tf.float32)
        gru_out, gru_state = tf.nn.dynamic_rnn(cells.GRUCell(2), x["x"], dtype=tf.float32,
                                               scope="gru")
        stacked = cells.MultiRNNCell([
            cells.LSTMCell(2, use_peepholes=True, num_proj=3, cell_clip=0.5, proj_clip=0.4),
            cells.ResidualWrapper(cells.BasicRNNCell(3))])
        time_major = tf.transpose(x["x"], [1, 0, 2])
        multi_out, (peephole_state, rnn_state) = tf.nn.dynamic_rnn(
            stacked, time_major, dtype=tf.float32, time_major=True, scope="multi")
        loss = tf.reduce_sum(lstm_out * lstm_out) + tf.reduce_sum(gru_state)
        kernel = tf.trainable_variables()[0]
    return [lstm_out, lstm_state.c, lstm_state.h, gru_out, gru_state, multi_out,
            peephole_state.c, peephole_state.h, rnn_state,
            *tf.gradients(loss, [x["x"], kernel])]


@case("bidirectional_and_static_rnn", {"x": normal(3, 4, 2)}, rtol=1e-4, atol=1e-5)
def _bidirectional_and_static_rnn(tf, x):
    cells = tf.nn.rnn_cell
    with tf.variable_scope("net", initializer=fixed_weights(tf)):
        (forward, backward), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
            cells.BasicRNNCell(2), cells.GRUCell(2), x["x"], sequence_length=[4, 2, 3],
            dtype=tf.float32)
        steps = tf.unstack(x["x"], axis=1)
        outputs, state = tf.nn.static_rnn(cells.BasicLSTMCell(2), steps, dtype=tf.float32,
                                          sequence_length=[4, 1, 3])
        both, static_fw, static_bw = tf.nn.static_bidirectional_rnn(
            cells.BasicRNNCell(2), cells.BasicRNNCell(3), steps, dtype=tf.float32,
            sequence_length=[3, 4, 2], scope="unrolled")
        loss = tf.reduce_sum(backward) + tf.reduce_sum(outputs[-1] * both[1][:, :2])
    return [forward, backward, state_fw, state_bw, *outputs, state.c, state.h, *both,
            static_fw, static_bw, tf.gradients(loss, x["x"])[0]]


# --- connectionist temporal classification --------------------------------------------------

@case("ctc", {"x": normal(6, 3, 5), "dense": integers(3, 3, high=4)}, rtol=1e-4, atol=1e-5)
def _ctc(tf, x):
    labels = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]],
                             tf.constant([1, 1, 2, 3, 0, 2, 2, 2]), [3, 3])
    lengths = [6, 4, 5]
    loss = tf.nn.ctc_loss(labels, x["x"], lengths)
    (decoded,), neg_sum = tf.nn.ctc_greedy_decoder(x["x"], lengths)
    (unmerged,), _ = tf.nn.ctc_greedy_decoder(x["x"], lengths, merge_repeated=False,
                                              blank_index=0)
    collapsed, collapsed_lengths = tf.nn.collapse_repeated(x["dense"], [3, 2, 1])
    return [loss, tf.nn.ctc_loss(labels, x["x"], lengths, ctc_merge_repeated=False),
            tf.nn.ctc_loss(labels, x["x"], lengths, preprocess_collapse_repeated=True),
            tf.nn.ctc_loss_v2(labels, x["x"], None, lengths, blank_index=2),
            tf.gradients(tf.reduce_sum(loss * [1.0, 2.0, 3.0]), x["x"])[0],
            decoded.indices, decoded.values, decoded.dense_shape, neg_sum, unmerged.values,
            collapsed, collapsed_lengths]


@case("ctc_dense_and_unique", {"x": normal(6, 3, 5), "dense": integers(3, 3, high=4)},
      same_nodes=False, rtol=1e-4, atol=1e-5)
def _ctc_dense_and_unique(tf, x):
    # TensorFlow computes the dense-label loss with its own graph of ops; minitf turns the
    # labels into a SparseTensor for CTCLoss: only the values are compared.
    return [tf.nn.ctc_loss_v2(x["dense"] + 1, x["x"], [3, 2, 3], [6, 4, 5]),
            *tf.nn.ctc_unique_labels(x["dense"])]


@case("ctc_beam_search", {"x": normal(7, 3, 4, scale=2.0)}, rtol=1e-4, atol=1e-4)
def _ctc_beam_search(tf, x):
    lengths = [7, 5, 6]
    results = []
    for beam_width, top_paths, merge_repeated in [(3, 2, True), (5, 3, False), (1, 1, True)]:
        decoded, log_probability = tf.nn.ctc_beam_search_decoder(
            x["x"], lengths, beam_width=beam_width, top_paths=top_paths,
            merge_repeated=merge_repeated)
        for path in decoded:
            results += [path.indices, path.values, path.dense_shape]
        results.append(log_probability)
    (best,), log_probability = tf.nn.ctc_beam_search_decoder_v2(x["x"], lengths, beam_width=4)
    return results + [best.values, log_probability]
