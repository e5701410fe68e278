"""Buffer forwarding: a kernel writes into an input buffer only when no one else needs it.

A probe op, whose kernel doubles its input in place whenever the executor
lets it have the buffer, records each time whether it was allowed. It must
be allowed for a tensor of the step's own with one reader, and refused for
everything that is still needed: a fed array, a fetched array, a variable, a
Const, a tensor with two readers, a view of another tensor. Both the
general executor (the first step of a session with a pool) and the flat
loop (`SINGLE_THREADED_EXECUTOR`) are checked, and the values always come
out as if nothing had been forwarded.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.executor.executor import FORWARD_MIN_ELEMENTS
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.op_def import register_op
from minitf.graph.op_def_library import apply_op

register_op("TestForwardProbe").input("x: float32").output("y: float32").set_is_stateful()

_FORWARDED = []


@register_kernel("TestForwardProbe", forwards_inputs=True)
def _forward_probe(ctx, x):
    out = ctx.forward_input(0, x, x.shape) if ctx.may_forward else None
    _FORWARDED.append(out is not None)
    return np.multiply(x, 2.0, out=out)


CONFIGS = {
    "general": tf.ConfigProto(inter_op_parallelism_threads=2),
    "flat": tf.ConfigProto(experimental=tf.ConfigProto.Experimental(
        executor_type="SINGLE_THREADED_EXECUTOR")),
}
SHAPE = [64, 64]  # 4096 elements: large enough to be worth forwarding
assert np.prod(SHAPE) >= FORWARD_MIN_ELEMENTS


def probe(x, name="probe"):
    return apply_op("TestForwardProbe", name=name, x=x)


def run_once(config_name, fetches, feed_dict=None):
    """The first run of a fresh session: what the probes were allowed, and the values."""
    _FORWARDED.clear()
    with tf.Session(config=CONFIGS[config_name]) as sess:
        sess.run(tf.global_variables_initializer())
        _FORWARDED.clear()
        values = sess.run(fetches, feed_dict)
    return list(_FORWARDED), values


def fed():
    x = tf.placeholder(tf.float32, SHAPE, name="x")
    return x, {x: np.ones(SHAPE, np.float32)}


@pytest.mark.parametrize("config", CONFIGS)
def test_a_tensor_of_the_step_with_one_reader_is_forwarded(config):
    x, feed = fed()
    y = probe(x + 1.0)
    forwarded, value = run_once(config, y, feed)
    assert forwarded == [True]
    np.testing.assert_array_equal(value, np.full(SHAPE, 4.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_a_fed_array_is_never_written(config):
    x, feed = fed()
    forwarded, value = run_once(config, probe(x), feed)
    assert forwarded == [False]
    np.testing.assert_array_equal(feed[x], np.ones(SHAPE))
    np.testing.assert_array_equal(value, np.full(SHAPE, 2.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_a_fetched_tensor_is_never_written(config):
    x, feed = fed()
    middle = x + 1.0
    forwarded, (middle_value, doubled) = run_once(config, [middle, probe(middle)], feed)
    assert forwarded == [False]
    np.testing.assert_array_equal(middle_value, np.full(SHAPE, 2.0))
    np.testing.assert_array_equal(doubled, np.full(SHAPE, 4.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_a_tensor_with_two_readers_is_written_by_the_last_at_most(config):
    x, feed = fed()
    middle = x + 1.0
    forwarded, (first, second) = run_once(config, [probe(middle, "a"), probe(middle, "b")],
                                          feed)
    # The general loop offers only a tensor's one reader; the flat loop knows the order, so
    # it offers the buffer to the last reader, when the first has run.
    assert forwarded == ([False, False] if config == "general" else [False, True])
    np.testing.assert_array_equal(first, np.full(SHAPE, 4.0))
    np.testing.assert_array_equal(second, np.full(SHAPE, 4.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_a_variable_and_a_constant_are_never_written(config):
    v = tf.Variable(np.ones(SHAPE, np.float32), name="v")
    c = tf.constant(np.ones(SHAPE, np.float32), name="c")
    with tf.Session(config=CONFIGS[config]) as sess:
        sess.run(v.initializer)
        _FORWARDED.clear()
        doubled_v, doubled_c = sess.run([probe(v.value(), "pv"), probe(c, "pc")])
        assert _FORWARDED == [False, False]
        np.testing.assert_array_equal(sess.run(v), np.ones(SHAPE))
        np.testing.assert_array_equal(sess.run(c), np.ones(SHAPE))
    np.testing.assert_array_equal(doubled_v, np.full(SHAPE, 2.0))
    np.testing.assert_array_equal(doubled_c, np.full(SHAPE, 2.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_a_view_of_a_tensor_is_never_written(config):
    x, feed = fed()
    middle = x + 1.0
    flat_view = tf.reshape(middle, [-1])  # NumPy's reshape: a view of middle's buffer
    forwarded, (doubled, middle_value) = run_once(config, [probe(flat_view), middle], feed)
    assert forwarded == [False]
    np.testing.assert_array_equal(middle_value, np.full(SHAPE, 2.0))
    np.testing.assert_array_equal(doubled, np.full(4096, 4.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_small_tensors_are_not_offered(config):
    x = tf.placeholder(tf.float32, [4], name="small")
    forwarded, value = run_once(config, probe(x + 1.0), {x: np.ones(4, np.float32)})
    assert forwarded == [False]
    np.testing.assert_array_equal(value, np.full(4, 4.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_forwarding_kernels_give_the_values_of_fresh_buffers(config):
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, SHAPE, name="x")
    bias = tf.placeholder(tf.float32, [SHAPE[1]], name="bias")
    a = x * 3.0
    b = tf.maximum(a - 1.0, x)            # a dies here: Sub may write into it
    c = tf.nn.relu(tf.nn.bias_add(b, bias))
    d = tf.minimum(c + a, 5.0)            # a is read twice: never written before this
    grad = tf.gradients(tf.reduce_sum(d * d), x)[0]
    feed = {x: rng.standard_normal(SHAPE).astype(np.float32),
            bias: rng.standard_normal(SHAPE[1]).astype(np.float32)}
    fed_copy = feed[x].copy()
    with tf.Session(config=CONFIGS[config]) as sess:
        values = sess.run([d, grad], feed)
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=1)) as sess:
        expected = sess.run([d, grad], feed)  # the flat loop, folding and remapping on
    a_np = feed[x] * 3.0
    d_np = np.minimum(np.maximum(np.maximum(a_np - 1.0, feed[x]) + feed[bias], 0) + a_np, 5.0)
    np.testing.assert_allclose(values[0], d_np, rtol=1e-6)
    for got, want in zip(values, expected):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(feed[x], fed_copy)
