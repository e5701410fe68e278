"""The Executor: scheduling, the inter-op pool, memory release, errors, deadlines."""

import gc
import threading
import time
import tracemalloc
import weakref

import numpy as np
import pytest
from session_configs import without_folding

import minitf as tf
from minitf.device.device import Device
from minitf.executor.executor import Executor
from minitf.executor import scheduling
from minitf.executor.scheduling import KernelCosts
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework.op_def import register_op
from minitf.framework.step import CallFrame
from minitf.framework.step import StepState
from minitf.graph import dtypes
from minitf.graph.graph_def import NodeDef
from minitf.graph.op_def_library import apply_op

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"

# --- test ops ------------------------------------------------------------------------

_EVENTS = []  # (node name, "start" | "end") in the order they happened
_PROBES = {}  # node name -> weakref to the array its kernel returned

register_op("ExecutorTestRecord").input("x: float32").output("y: float32").set_is_stateful()
register_op("ExecutorTestSleep").input("x: float32").output("y: float32").attr(
    "seconds: float").set_is_stateful()
register_op("ExecutorTestBig").input("x: float32").output("y: float32").attr(
    "n: int").set_is_stateful()
register_op("ExecutorTestFreed").input("x: float32").output("y: float32").attr(
    "probe: string").set_is_stateful()
register_op("ExecutorTestFail").input("x: float32").output("y: float32").attr(
    "kind: string").set_is_stateful()
register_op("ExecutorTestWrongDtype").input("x: float32").output("y: float32")


@register_kernel("ExecutorTestRecord", is_expensive=False)
def _record(ctx, x):
    _EVENTS.append((ctx.node_name, "ran"))
    return x


@register_kernel("ExecutorTestSleep")
def _sleep(ctx, x, *, seconds):
    _EVENTS.append((ctx.node_name, "start"))
    time.sleep(seconds)
    _EVENTS.append((ctx.node_name, "end"))
    return x


@register_kernel("ExecutorTestBig")
def _big(ctx, x, *, n):
    value = np.full((n,), x, dtype=np.float32)
    _PROBES[ctx.node_name] = weakref.ref(value)
    return value


@register_kernel("ExecutorTestFreed")
def _freed(ctx, x, *, probe):
    gc.collect()
    _EVENTS.append((probe, "freed" if _PROBES[probe]() is None else "alive"))
    return x


@register_kernel("ExecutorTestFail")
def _fail(ctx, x, *, kind):
    if kind == "value":
        raise ValueError("bad value in kernel")
    if kind == "runtime":
        raise RuntimeError("something broke")
    raise tf.errors.FailedPreconditionError(None, None, "not ready yet")


@register_kernel("ExecutorTestWrongDtype")
def _wrong_dtype(ctx, x):
    return x.astype(np.float64)


def record(x, name):
    return apply_op("ExecutorTestRecord", name=name, x=x)


def sleep(x, seconds, name):
    return apply_op("ExecutorTestSleep", name=name, x=x, seconds=seconds)


def names_ran():
    return [name for name, what in _EVENTS if what in ("ran", "start")]


@pytest.fixture(autouse=True)
def clear_events():
    _EVENTS.clear()
    _PROBES.clear()
    yield


def traced_run(sess, fetches, feed_dict=None):
    metadata = tf.RunMetadata()
    value = sess.run(fetches, feed_dict,
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=metadata)
    stats = {s.node_name: s for d in metadata.step_stats.dev_stats for s in d.node_stats}
    return value, stats


# --- the executor on its own ------------------------------------------------------------

def _const(name, value):
    return NodeDef(name, "Const", [], "", {"dtype": dtypes.float32,
                                           "value": np.asarray(value, np.float32)})


def _step(num_fetches=1):
    return StepState(1, LocalRendezvous(), CallFrame([], num_fetches))


def test_executor_runs_a_diamond_from_node_defs():
    nodes = [
        _const("a", 2.0),
        NodeDef("left", "Mul", ["a", "a"], "", {"T": dtypes.float32}),
        NodeDef("right", "Add", ["a", "a"], "", {"T": dtypes.float32}),
        NodeDef("join", "Mul", ["left", "right"], "", {"T": dtypes.float32}),
        NodeDef("out", "_Retval", ["join"], "", {"T": dtypes.float32, "index": 0}),
    ]
    executor = Executor(nodes, Device(CPU0, "CPU"))
    # The Const is computed when the executor is built: its consumers start the step.
    assert [executor.nodes[i].name for i in executor.roots] == ["left", "right"]
    assert executor.constant_ids == (0,)
    step = _step()
    executor.run(step)
    assert step.call_frame.retvals == [16.0]


def test_executor_pending_counts_include_control_edges():
    nodes = [
        _const("a", 1.0),
        _const("b", 2.0),
        NodeDef("c", "Add", ["a", "a", "^b"], "", {"T": dtypes.float32}),
    ]
    executor = Executor(nodes, Device(CPU0, "CPU"))
    pending = {n.name: n.pending_init for n in executor.nodes}
    assert pending == {"a": 0, "b": 0, "c": 3}


def test_executor_rejects_a_cycle():
    nodes = [
        NodeDef("p", "Add", ["q", "q"], "", {"T": dtypes.float32}),
        NodeDef("q", "Add", ["p", "p"], "", {"T": dtypes.float32}),
        _const("c", 1.0),
    ]
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle with 2 nodes"):
        Executor(nodes, Device(CPU0, "CPU"))


def test_executor_rejects_an_unknown_input():
    nodes = [NodeDef("p", "Identity", ["missing"], "", {"T": dtypes.float32})]
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown input node 'missing'"):
        Executor(nodes, Device(CPU0, "CPU"))


# --- ordering ------------------------------------------------------------------------------

def test_each_node_runs_after_its_inputs_and_control_inputs():
    a = record(tf.constant(1.0), name="a")
    b = record(a, name="b")
    with tf.control_dependencies([b]):
        c = record(tf.constant(2.0), name="c")
    d = record(b + c, name="d")
    with tf.Session() as sess:
        for _ in range(5):
            _EVENTS.clear()
            assert sess.run(d) == 3.0
            order = names_ran()
            assert sorted(order) == ["a", "b", "c", "d"]
            assert order.index("a") < order.index("b") < order.index("c") < order.index("d")


def test_wide_fan_out_and_fan_in():
    x = tf.placeholder(tf.float32, shape=[3])
    branches = [x * float(i) for i in range(50)]
    total = branches[0]
    for branch in branches[1:]:
        total = total + branch
    with tf.Session(config=without_folding(inter_op_parallelism_threads=4)) as sess:
        for _ in range(3):
            np.testing.assert_allclose(sess.run(total, {x: [1.0, 2.0, 3.0]}),
                                       np.array([1.0, 2.0, 3.0]) * sum(range(50)))


# --- the inter-op thread pool -----------------------------------------------------------------

def _two_big_matmuls():
    rng = np.random.default_rng(0)
    a = tf.constant(rng.standard_normal((500, 500)).astype(np.float32))
    b = tf.constant(rng.standard_normal((500, 500)).astype(np.float32))
    left = tf.matmul(a, a, name="left")
    right = tf.matmul(b, b, name="right")
    for _ in range(3):
        left = tf.matmul(left, a, name="left")
        right = tf.matmul(right, b, name="right")
    return left, right


def _overlaps(x, y):
    return (x.all_start_micros < y.all_start_micros + y.all_end_rel_micros
            and y.all_start_micros < x.all_start_micros + x.all_end_rel_micros)


def test_independent_expensive_branches_run_concurrently():
    left, right = _two_big_matmuls()
    config = without_folding(inter_op_parallelism_threads=4)
    with tf.Session(config=config) as sess:
        for _ in range(2):  # the first steps time the kernels, on one thread
            sess.run([left, right])
        overlapped = False
        for _ in range(5):
            _, stats = traced_run(sess, [left, right])
            lefts = [s for n, s in stats.items() if n.startswith("left")]
            rights = [s for n, s in stats.items() if n.startswith("right")]
            assert len(lefts) == 4 and len(rights) == 4
            # the two branches went to two different threads ...
            assert {s.thread_id for s in lefts}.isdisjoint({s.thread_id for s in rights})
            # ... and at some point ran at the same time
            if any(_overlaps(x, y) for x in lefts for y in rights):
                overlapped = True
                break
    assert overlapped


def test_the_first_steps_run_on_one_thread_and_later_ones_hand_off_long_kernels():
    left, right = _two_big_matmuls()
    with tf.Session(config=without_folding(inter_op_parallelism_threads=4)) as sess:
        first_two = [traced_run(sess, [left, right])[1] for _ in range(2)]
        _, third = traced_run(sess, [left, right])
    for stats in first_two:
        assert {s.thread_id for s in stats.values()} == {threading.get_ident()}
    assert len({s.thread_id for s in third.values()}) == 2


def test_a_quick_kernel_stays_on_the_driving_thread_however_big_its_inputs(monkeypatch):
    # Two lookups of a few rows in a table of a million elements each: big
    # inputs, little work. Neither is worth the hand-off to another thread.
    # What counts as quick is raised to a second, so that a busy machine
    # (a lookup preempted twice) cannot make them long: only the size of the
    # inputs could still send them away, and it must not.
    monkeypatch.setattr(scheduling, "_LONG_KERNEL_SECONDS", 1.0)
    table = tf.Variable(np.ones((250_000, 4), np.float32))
    lookups = [tf.gather(table, [1, 2, 3]), tf.gather(table, [4, 5])]
    with tf.Session(config=without_folding(inter_op_parallelism_threads=4)) as sess:
        sess.run(table.initializer)
        for _ in range(4):
            _, stats = traced_run(sess, lookups)
            assert {s.thread_id for s in stats.values()} == {threading.get_ident()}


def test_a_node_is_long_when_its_last_two_runs_were_long():
    costs = KernelCosts(2)
    assert costs.recent(0) == () and not costs.is_long(0)
    costs.observe(0, 1.0)
    assert not costs.is_long(0)  # once is not enough: it may have been a busy moment
    costs.observe(0, 2.0)
    assert costs.recent(0) == (1.0, 2.0) and costs.is_long(0)
    assert costs.long_ids == {0}  # what the policy asks before it scans the ready nodes
    costs.observe(0, 1e-6)  # one quick run and it is short again
    assert costs.recent(0) == (2.0, 1e-6) and not costs.is_long(0)
    assert costs.recent(1) == () and costs.long_ids == set()


def test_one_inter_op_thread_runs_everything_on_the_calling_thread():
    a = tf.constant(np.ones((100, 100), np.float32))
    left, right = tf.matmul(a, a), tf.matmul(a, a)
    config = without_folding(inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        _, stats = traced_run(sess, [left, right])
    assert {s.thread_id for s in stats.values()} == {threading.get_ident()}


def test_inter_op_threads_bound_the_threads_used():
    rng = np.random.default_rng(1)
    a = tf.constant(rng.standard_normal((200, 200)).astype(np.float32))
    products = [tf.matmul(a, a) for _ in range(8)]
    config = without_folding(inter_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        threads = set()
        for _ in range(2):
            _, stats = traced_run(sess, products)
            threads |= {s.thread_id for s in stats.values()}
        assert sess._runtime.thread_pool.started_threads <= 1
    assert 1 <= len(threads) <= 2


# --- memory ------------------------------------------------------------------------------

def test_a_tensor_is_freed_when_its_last_consumer_has_run():
    x = tf.constant(1.0)
    big = apply_op("ExecutorTestBig", name="big", x=x, n=1_000_000)
    first = big + 1.0  # the only consumers of `big`
    second = big * 2.0
    both = first + second
    after = apply_op("ExecutorTestFreed", name="check", x=both, probe="big")
    with tf.Session(config=without_folding(inter_op_parallelism_threads=1)) as sess:
        result = sess.run(after)
    assert result.shape == (1_000_000,) and result[0] == 4.0
    assert ("big", "freed") in _EVENTS


def test_a_fetched_tensor_is_not_freed_early_but_is_returned():
    x = tf.constant(1.0)
    big = apply_op("ExecutorTestBig", name="kept", x=x, n=10)
    with tf.Session() as sess:
        value = sess.run(big)
    np.testing.assert_array_equal(value, np.ones(10, np.float32))


def test_peak_memory_of_a_long_chain_stays_near_one_intermediate():
    n = 1_000_000  # 4 MB per float32 intermediate
    x = tf.placeholder(tf.float32, shape=[n])
    y = x
    for _ in range(30):
        y = y + 1.0
    feed = np.zeros(n, np.float32)
    with tf.Session(config=without_folding(inter_op_parallelism_threads=1)) as sess:
        sess.run(y, {x: feed})  # build the executor outside the measurement
        tracemalloc.start()
        try:
            result = sess.run(y, {x: feed})
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert result[0] == 30.0
    # 30 intermediates of 4 MB each would be 120 MB if nothing were freed.
    assert peak < 4 * 4 * n


# --- errors ---------------------------------------------------------------------------------

def test_first_kernel_error_stops_the_step(finishes_within):
    x = tf.constant(1.0)
    failed = apply_op("ExecutorTestFail", name="fails", x=x, kind="precondition")
    downstream = record(failed, name="never")
    chain = x
    for i in range(40):
        chain = sleep(chain, 0.01, name="slow_%d" % i)  # 0.4 s if it all ran
    config = without_folding(inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not ready yet") as info:
            finishes_within(10, sess.run, [downstream, chain])
        assert "fails" in str(info.value) and "ExecutorTestFail" in str(info.value)
        assert "never" not in names_ran()
        assert len([n for n in names_ran() if n.startswith("slow_")]) < 40
        assert sess.run(x) == 1.0  # the session keeps working


@pytest.mark.parametrize("kind, error_class", [
    ("value", tf.errors.InvalidArgumentError),
    ("runtime", tf.errors.InternalError),
    ("precondition", tf.errors.FailedPreconditionError),
])
def test_python_exceptions_in_kernels_become_op_errors(kind, error_class):
    failed = apply_op("ExecutorTestFail", name="failing", x=tf.constant(1.0), kind=kind)
    with tf.Session() as sess:
        with pytest.raises(error_class) as info:
            sess.run(failed)
    assert "failing" in str(info.value) and CPU0 in str(info.value)


def test_kernel_returning_the_wrong_dtype_is_an_internal_error():
    bad = apply_op("ExecutorTestWrongDtype", name="bad", x=tf.constant(1.0))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InternalError, match="Kernel produced float64, expected "
                                                          "float32"):
            sess.run(bad)


def test_errors_on_pool_threads_do_not_hang(finishes_within):
    left, right = _two_big_matmuls()
    failed = apply_op("ExecutorTestFail", name="fails_too", x=tf.constant(1.0), kind="value")
    config = without_folding(inter_op_parallelism_threads=4)
    with tf.Session(config=config) as sess:
        for _ in range(5):
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value in kernel"):
                finishes_within(20, sess.run, [left, right, failed])
        assert sess.run(tf.constant(3.0)) == 3.0


# --- deadlines ---------------------------------------------------------------------------------

def test_run_options_timeout_raises_deadline_exceeded(finishes_within):
    chain = tf.constant(1.0)
    for i in range(10):
        chain = sleep(chain, 0.3, name="sleepy_%d" % i)  # 3 s if it all ran
    with tf.Session() as sess:
        start = time.perf_counter()
        with pytest.raises(tf.errors.DeadlineExceededError):
            finishes_within(10, sess.run, chain, None, tf.RunOptions(timeout_in_ms=150))
        assert time.perf_counter() - start < 2.0
        time.sleep(0.35)  # the kernel that was running finishes; nothing after it starts
        assert len(names_ran()) <= 3
        assert sess.run(tf.constant(2.0), options=tf.RunOptions(timeout_in_ms=5000)) == 2.0


def test_operation_timeout_in_config_applies_to_every_run(finishes_within):
    slow = sleep(tf.constant(1.0), 0.2, name="slow")
    config = without_folding(operation_timeout_in_ms=50)
    with tf.Session(config=config) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            finishes_within(10, sess.run, slow)
        # a run's own timeout takes precedence over the session's
        assert sess.run(slow, options=tf.RunOptions(timeout_in_ms=5000)) == 1.0


def test_step_that_finishes_in_time_is_unaffected_by_the_timeout():
    x = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        assert sess.run(x + 1.0, {x: 1.0}, options=tf.RunOptions(timeout_in_ms=10000)) == 2.0
