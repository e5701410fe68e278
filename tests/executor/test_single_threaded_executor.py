"""The single-threaded executor: the flat loop gives what the general loop gives.

Random graphs of elementwise ops (shared inputs, several consumers, several
fetches) run once by the general executor (the first step of a session with
a thread pool always is) and by the flat loop (`executor_type=
"SINGLE_THREADED_EXECUTOR"`): the values must be equal. Then what the flat
loop must keep from the general one: errors that name the node, step stats,
tensors freed after their last reader, deadlines, and the choice between
the two loops.
"""

import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitf as tf
from minitf.executor.executor import FrameFreeExecutorState
from minitf.executor.single_threaded_executor import FlatScheduleState, SingleThreadedExecutor

FLAT = tf.ConfigProto(experimental=tf.ConfigProto.Experimental(
    executor_type="SINGLE_THREADED_EXECUTOR"))
POOLED = tf.ConfigProto(inter_op_parallelism_threads=2)

_BINARY = [tf.add, tf.subtract, tf.multiply, tf.maximum]
_UNARY = [tf.negative, tf.tanh, tf.square, tf.abs]


def _state_classes(sess, fetches, feed_dict=None):
    """Runs `fetches` once; the classes of the executor states the step used."""
    used = []
    original = SingleThreadedExecutor.new_state

    def spy(executor, step_run):
        state = original(executor, step_run)
        used.append(type(state))
        return state

    SingleThreadedExecutor.new_state = spy
    try:
        values = sess.run(fetches, feed_dict)
    finally:
        SingleThreadedExecutor.new_state = original
    return values, used


@st.composite
def random_graphs(draw):
    """(ops as (kind, function index, input indices), fetched indices) over 2 inputs."""
    num_ops = draw(st.integers(1, 25))
    ops = []
    for i in range(num_ops):
        available = 2 + i
        if draw(st.booleans()):
            ops.append(("binary", draw(st.integers(0, len(_BINARY) - 1)),
                        (draw(st.integers(0, available - 1)),
                         draw(st.integers(0, available - 1)))))
        else:
            ops.append(("unary", draw(st.integers(0, len(_UNARY) - 1)),
                        (draw(st.integers(0, available - 1)),)))
    fetched = draw(st.lists(st.integers(0, 1 + num_ops), min_size=1, max_size=4))
    return ops, fetched


def _build(ops, fetched):
    a = tf.placeholder(tf.float32, [3], name="a")
    b = tf.placeholder(tf.float32, [3], name="b")
    tensors = [a, b]
    for kind, fn_index, inputs in ops:
        fn = _BINARY[fn_index] if kind == "binary" else _UNARY[fn_index]
        tensors.append(fn(*[tensors[i] for i in inputs]))
    return a, b, [tensors[i] for i in fetched]


@settings(max_examples=40, deadline=None)
@given(random_graphs())
def test_the_flat_loop_gives_the_general_loops_values_on_random_graphs(graph_spec):
    ops, fetched = graph_spec
    feeds = [np.array([0.5, -1.25, 2.0], np.float32), np.array([1.5, 0.25, -0.75], np.float32)]
    results = {}
    for name, config, expected_state in [("general", POOLED, FrameFreeExecutorState),
                                         ("flat", FLAT, FlatScheduleState)]:
        graph = tf.Graph()
        with graph.as_default():
            a, b, outputs = _build(ops, fetched)
        with tf.Session(graph=graph, config=config) as sess:
            # The first step of a session with a pool is the general loop's.
            values, used = _state_classes(sess, outputs, {a: feeds[0], b: feeds[1]})
        assert used == [expected_state]
        results[name] = values
    for general, flat in zip(results["general"], results["flat"]):
        np.testing.assert_array_equal(general, flat)


def test_a_session_without_a_pool_runs_the_flat_loop_from_its_first_step():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.add(tf.multiply(x, 2.0), 1.0)
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=1)) as sess:
        sess.run(y, {x: 1.0})
        value, used = _state_classes(sess, y, {x: 3.0})
    assert value == 7.0
    assert used == [FlatScheduleState]


def test_with_a_pool_the_flat_loop_is_chosen_once_a_step_saw_no_long_kernel():
    x = tf.placeholder(tf.float32, [4], name="x")
    y = tf.reduce_sum(tf.square(x) + x)
    with tf.Session(config=POOLED) as sess:
        feed = {x: np.arange(4, dtype=np.float32)}
        used_steps = [_state_classes(sess, y, feed)[1] for _ in range(3)]
    assert used_steps[0] == [FrameFreeExecutorState]  # the first step it measured
    assert used_steps[-1] == [FlatScheduleState]


def test_with_a_pool_a_graph_of_long_kernels_stays_with_the_general_loop():
    rng = np.random.default_rng(0)
    a = tf.placeholder(tf.float32, [700, 700], name="a")
    b = tf.placeholder(tf.float32, [700, 700], name="b")
    total = tf.matmul(a, b) + tf.matmul(b, a)  # two long products that could run side by side
    feed = {a: rng.standard_normal((700, 700)).astype(np.float32),
            b: rng.standard_normal((700, 700)).astype(np.float32)}
    with tf.Session(config=POOLED) as sess:
        for _ in range(3):
            _, used = _state_classes(sess, total, feed)
        assert used == [FrameFreeExecutorState]


def test_with_a_pool_long_kernels_one_after_another_go_flat():
    rng = np.random.default_rng(1)
    a = tf.placeholder(tf.float32, [700, 700], name="a")
    chain = tf.matmul(tf.matmul(a, a), a)  # long, but each waits for the one before
    feed = {a: rng.standard_normal((700, 700)).astype(np.float32) / 30}
    with tf.Session(config=POOLED) as sess:
        used_steps = [_state_classes(sess, chain, feed)[1] for _ in range(3)]
    assert used_steps[0] == [FrameFreeExecutorState]
    assert used_steps[-1] == [FlatScheduleState]


def test_a_kernel_error_in_the_flat_loop_names_the_node_and_stops_the_step():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.placeholder(tf.float32, [None], name="y")
    bad = tf.add(x, y, name="bad_add")
    after = tf.multiply(bad, 2.0, name="after")
    with tf.Session(config=FLAT) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as raised:
            sess.run(after, {x: [1.0, 2.0], y: [1.0, 2.0, 3.0]})
    message = str(raised.value)
    assert "bad_add" in message and "Add" in message and "/device:CPU:0" in message


def test_an_uninitialized_variable_in_the_flat_loop_is_a_failed_precondition():
    v = tf.Variable(1.0, name="never_initialized")
    y = v * 2.0
    with tf.Session(config=FLAT) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="never_initialized"):
            sess.run(y)
        sess.run(v.initializer)
        assert sess.run(y) == 2.0


def test_the_flat_loop_reads_variables_and_updates_them_in_place():
    v = tf.Variable([1.0, 2.0], name="v")
    update = tf.assign_add(v, [0.5, 0.5])
    with tf.Session(config=FLAT) as sess:
        sess.run(v.initializer)
        sess.run(update)
        sess.run(update)
        np.testing.assert_array_equal(sess.run(v), [2.0, 3.0])


def test_a_traced_flat_step_records_the_nodes_the_general_loop_records():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(tf.add(x, 1.0, name="plus_one") * 3.0, name="out")
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    recorded = {}
    for name, config in [("general", POOLED), ("flat", FLAT)]:
        metadata = tf.RunMetadata()
        with tf.Session(config=config) as sess:
            value = sess.run(y, {x: 1.0}, options=options, run_metadata=metadata)
        assert value == 6.0
        recorded[name] = sorted(s.node_name for d in metadata.step_stats.dev_stats
                                for s in d.node_stats)
    assert "plus_one" in recorded["flat"]
    assert recorded["flat"] == recorded["general"]


def test_the_flat_loop_frees_a_tensor_after_its_last_reader():
    rows = 1024
    x = tf.placeholder(tf.float32, [rows, rows], name="x")
    y = x
    for i in range(20):
        y = tf.add(y, 1.0) if i % 2 == 0 else tf.multiply(y, 0.5)
    feed = np.ones((rows, rows), np.float32)
    with tf.Session(config=FLAT) as sess:
        sess.run(y, {x: feed})
        tracemalloc.start()
        tracemalloc.reset_peak()
        sess.run(y, {x: feed})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    # The fed array is the caller's; a chain needs its input and one output alive at once
    # (plus the fetched copy): 20 tensors would be alive if none were freed.
    assert peak < 3.5 * feed.nbytes


def test_a_deadline_stops_a_flat_step():
    def slow(value):
        time.sleep(0.05)
        return value

    x = tf.placeholder(tf.float32, [], name="x")
    y = x
    for _ in range(40):
        y = tf.py_func(slow, [y], tf.float32)
    options = tf.RunOptions(timeout_in_ms=200)
    with tf.Session(config=FLAT) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(y, {x: 1.0}, options=options)
        assert time.monotonic() - start < 1.5


def test_asking_for_the_flat_loop_on_a_graph_with_control_flow_fails_clearly():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
    with tf.Session(config=FLAT) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="control flow"):
            sess.run(y, {x: 1.0})


def test_an_unknown_executor_type_is_not_found():
    x = tf.constant(1.0) + 1.0
    config = tf.ConfigProto(experimental=tf.ConfigProto.Experimental(executor_type="FANCY"))
    with tf.Session(config=config) as sess:
        with pytest.raises(tf.errors.NotFoundError, match="FANCY"):
            sess.run(x)


def test_multiple_outputs_and_unread_outputs_in_the_flat_loop():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    first, second = tf.split(x, 2, axis=0)
    values, counts = tf.unique(tf.constant([3, 1, 3]))[0], tf.constant(0)
    with tf.Session(config=FLAT) as sess:
        a, b, c, _ = sess.run([first, second, values, counts])
    np.testing.assert_array_equal(a, [[1.0, 2.0]])
    np.testing.assert_array_equal(b, [[3.0, 4.0]])
    np.testing.assert_array_equal(c, [3, 1])
