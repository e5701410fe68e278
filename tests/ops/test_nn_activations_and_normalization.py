"""tf.nn's newer activations, top_k, LRN and batch normalization: properties and errors.

Values against NumPy on random shapes and dtypes (hypothesis), the
semantics TF users rely on (ties in top_k and in_top_k, Bessel's correction
of fused_batch_norm's variance), and every error at build time and at run
time. The values TensorFlow itself computes are checked in
`test_nn_reference.py`.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
FLOATS = [np.float16, np.float32, np.float64]
SELU_SCALE, SELU_ALPHA = 1.0507009873554805, 1.6732632423543772


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


@st.composite
def float_arrays(draw, min_dims=0):
    dtype = draw(st.sampled_from(FLOATS))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=4))
    elements = st.floats(-10, 10, width=np.dtype(dtype).itemsize * 8)
    return draw(hnp.arrays(dtype, shape, elements=elements))


ACTIVATIONS = {
    "selu": (tf.nn.selu, lambda x: np.where(x > 0, SELU_SCALE * x,
                                            SELU_SCALE * SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    "leaky_relu": (tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    "softsign": (tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
    "swish": (tf.nn.swish, lambda x: x / (1 + np.exp(-x))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@SETTINGS
@given(x=float_arrays(), fed=st.booleans())
def test_activations_match_numpy_on_any_shape_and_float_dtype(name, x, fed):
    activation, reference = ACTIVATIONS[name]
    with tf.Graph().as_default():
        tensor = tf.placeholder(tf.as_dtype(x.dtype), None) if fed else tf.constant(x)
        y = activation(tensor)
        result = _run(y, {tensor: x} if fed else None)
    expected = reference(x.astype(np.float64))
    assert result.dtype == x.dtype and result.shape == x.shape
    tolerance = 1e-2 if x.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(result, expected, rtol=tolerance, atol=tolerance)
    if not fed:
        assert y.shape.as_list() == list(x.shape)


def test_leaky_relu_casts_integers_to_float32_and_takes_alpha():
    y = tf.nn.leaky_relu(tf.constant([-4, 2]), alpha=0.5)
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(_run(y), [-2.0, 2.0])


@pytest.mark.parametrize("activation", [tf.nn.selu, tf.nn.softsign])
def test_activations_refuse_integers_with_a_type_error(activation):
    with pytest.raises(TypeError, match="not in list of allowed values"):
        activation(tf.constant([1, 2]))


def test_crelu_doubles_the_depth_and_keeps_both_signs():
    y = tf.nn.crelu(tf.constant([[-1.0, 2.0]]))
    assert y.shape.as_list() == [1, 4]
    np.testing.assert_array_equal(_run(y), [[0.0, 2.0, 1.0, 0.0]])


# --- top_k and in_top_k ------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_top_k_matches_a_stable_descending_sort(data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.int32, np.int64]))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(-3, 3)))  # many ties
    k = data.draw(st.integers(0, shape[-1]))
    values, indices = _run(tf.nn.top_k(tf.constant(x), k))
    expected_indices = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(values, np.take_along_axis(x, expected_indices, -1))
    assert values.dtype == dtype and indices.dtype == np.int32


def test_top_k_is_a_named_pair_with_static_shapes():
    result = tf.nn.top_k(tf.zeros([2, 5]), k=3)
    assert result.values.shape.as_list() == [2, 3] == result.indices.shape.as_list()
    assert result.indices.dtype == tf.int32


def test_in_top_k_counts_ties_for_the_target_and_rejects_bad_rows():
    predictions = tf.constant([[0.1, 0.3, 0.3, 0.0], [1.0, 2.0, 3.0, 4.0],
                               [1.0, np.nan, 0.0, 0.0], [5.0, 1.0, 1.0, 1.0]])
    targets = tf.constant([2, 0, 0, 7])
    np.testing.assert_array_equal(_run(tf.nn.in_top_k(predictions, targets, 1)),
                                  [True, False, False, False])
    np.testing.assert_array_equal(_run(tf.nn.in_top_k(predictions, targets, 4)),
                                  [True, True, False, False])


@pytest.mark.parametrize("build, message", [
    (lambda: tf.nn.top_k(tf.ones([2, 3]), 4), "input must have last dimension >= k = 4"),
    (lambda: tf.nn.top_k(tf.ones([]), 1), "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.nn.top_k(tf.ones([2, 3]), -1), "must be non-negative but is -1"),
    (lambda: tf.nn.in_top_k(tf.ones([2, 3]), [1, 2, 3], 1),
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.nn.lrn(tf.ones([2, 3])), "Shape must be rank 4 but is rank 2"),
])
def test_build_time_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize("build, feed, message", [
    (lambda p, k: tf.nn.top_k(p, k).values, {"p": np.ones((2, 3)), "k": 4},
     "input must have at least k columns. Had 3, needed 4"),
    (lambda p, k: tf.nn.top_k(p, k).values, {"p": np.ones((2, 3)), "k": -1},
     "Need k >= 0, got -1"),
    (lambda p, k: tf.nn.in_top_k(p, [1, 2], k), {"p": np.ones((3, 3)), "k": 1},
     "First dimension of predictions 3 must match length of targets 2"),
    (lambda p, k: tf.nn.lrn(p), {"p": np.ones((2, 3))}, "in must be 4-dimensional"),
    (lambda p, k: tf.nn.fused_batch_norm(p, tf.ones([2]), tf.ones([2]))[0],
     {"p": np.ones((1, 2, 2, 3))}, "scale must have the same number of elements"),
])
def test_run_time_errors_name_the_node(build, feed, message):
    p, k = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    fetch = build(p, k)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message) as raised:
        _run(fetch, {p: feed["p"], k: feed.get("k", 0)})
    assert fetch.op.name in str(raised.value)


# --- local response normalization ------------------------------------------------------------

def _np_lrn(x, depth_radius, bias, alpha, beta):
    out = np.empty_like(x)
    depth = x.shape[-1]
    for d in range(depth):
        window = x[..., max(0, d - depth_radius):min(depth, d + depth_radius + 1)]
        out[..., d] = x[..., d] / (bias + alpha * (window ** 2).sum(-1)) ** beta
    return out


@pytest.mark.parametrize("depth_radius, depth", [(0, 3), (1, 4), (5, 3), (2, 9)])
def test_lrn_matches_the_definition(depth_radius, depth):
    x = np.random.RandomState(depth).standard_normal((2, 2, 3, depth)).astype(np.float32)
    result = _run(tf.nn.local_response_normalization(x, depth_radius, 2.0, 0.1, 0.75))
    np.testing.assert_allclose(result, _np_lrn(x, depth_radius, 2.0, 0.1, 0.75), rtol=1e-5)


# --- batch normalization --------------------------------------------------------------------

def test_fused_batch_norm_training_normalizes_with_the_batch_and_corrects_the_variance():
    x = np.random.RandomState(0).standard_normal((3, 2, 2, 4)).astype(np.float32) * 3 + 1
    scale, offset = np.float32([1, 2, 3, 4]), np.float32([0, 1, 0, -1])
    y, mean, variance = _run(tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.0))
    np.testing.assert_allclose(mean, x.mean((0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(variance, x.var((0, 1, 2), ddof=1), rtol=1e-5)
    # y uses the biased variance, and epsilon is raised to TF's minimum, 1.001e-5
    expected = (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1.001e-5) * scale + offset
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_fused_batch_norm_in_nchw_and_float16():
    x = np.random.RandomState(1).standard_normal((2, 3, 2, 2)).astype(np.float16)
    y, mean, _ = _run(tf.nn.fused_batch_norm(x, tf.ones([3]), tf.zeros([3]),
                                             data_format="NCHW"))
    assert y.dtype == np.float16 and mean.dtype == np.float32
    np.testing.assert_allclose(mean, x.astype(np.float32).mean((0, 2, 3)), rtol=1e-3)


def test_fused_batch_norm_errors():
    with pytest.raises(ValueError, match="must be a 1D tensor when is_training is False"):
        tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([3]), tf.ones([3]),
                               is_training=False)
    with pytest.raises(TypeError, match="float64 not in list of allowed values"):
        tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3], tf.float64), tf.ones([3]), tf.ones([3]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([4]), tf.ones([3]))
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 2"):
        tf.nn.fused_batch_norm(tf.ones([2, 3]), tf.ones([3]), tf.ones([3]))


def test_zero_fraction_of_any_dtype():
    assert _run(tf.nn.zero_fraction(tf.constant([[0, 1], [0, 0]]))) == 0.75
    assert _run(tf.nn.zero_fraction(tf.constant([1.5, -2.0]))) == 0.0


def test_compute_average_loss_divides_by_the_global_batch_size():
    loss = tf.constant([1.0, 2.0, 3.0, 6.0])
    assert _run(tf.nn.compute_average_loss(loss)) == 3.0
    assert _run(tf.nn.compute_average_loss(loss, global_batch_size=8)) == 1.5
    assert _run(tf.nn.compute_average_loss(tf.zeros([0]))) == 0.0  # no NaN for no examples
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(tf.constant(1.0))
