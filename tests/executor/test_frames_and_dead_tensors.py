"""The executor's rules for control flow, on small graphs built from the raw ops.

Dead tensors: a Switch leaves one output dead; a node with a dead input
does not run and its outputs (and control edges) are dead; a Merge runs on
its first live input; a ControlTrigger is never dead; fetching a dead tensor
is an InvalidArgumentError. Frames: an Enter starts a frame, NextIteration
the next iteration, at most `parallel_iterations` at once, a loop
invariant reaches every iteration, Exit leaves; frames are deleted when
done. Partitions without control flow take the frame-free fast path.
"""

import numpy as np
import pytest
from session_configs import without_folding

import minitf as tf
from minitf.device.device import local_devices
from minitf.executor import executor as executor_lib
from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework.step import CallFrame, StepState
from minitf.graph.graph_def import NodeDef
from minitf.ops import control_flow_ops as cf
from minitf.session import timeline


def _loop(n, parallel_iterations=10, chain=0, frame="loop"):
    """`i, x = 0, 1.0; while i < n: i, x = i + 1, 2 * x` from the raw ops.

    `chain` Identities after the doubling make each iteration's x path long,
    so that the counter can run ahead of it.
    """
    enters = [cf._enter(tf.constant(0, name="i0"), frame,
                        parallel_iterations=parallel_iterations, name="enter_i"),
              cf._enter(tf.constant(1.0, name="x0"), frame,
                        parallel_iterations=parallel_iterations, name="enter_x")]
    limit = cf._enter(tf.constant(n, name="n"), frame, is_constant=True,
                      parallel_iterations=parallel_iterations, name="enter_n")
    two = cf._enter(tf.constant(2.0, name="two"), frame, is_constant=True,
                    parallel_iterations=parallel_iterations, name="enter_two")
    one = cf._enter(tf.constant(1, name="one"), frame, is_constant=True,
                    parallel_iterations=parallel_iterations, name="enter_one")
    merges = [cf.merge([e, e], name="merge_%d" % k)[0] for k, e in enumerate(enters)]
    pred = cf.loop_cond(tf.less(merges[0], limit), name="loop_cond")
    switches = [cf.switch(m, pred, name="switch_%d" % k) for k, m in enumerate(merges)]
    i, x = (tf.identity(s[1], name="body_%d" % k) for k, s in enumerate(switches))
    x = x * two
    for k in range(chain):
        x = tf.identity(x, name="chain_%d" % k)
    for m, value in zip(merges, (i + one, x)):
        m.op._update_input(1, cf._next_iteration(value))
    return [cf.exit(s[0], name="exit_%d" % k) for k, s in enumerate(switches)]


def _traced(sess, fetches, feed=None):
    metadata = tf.RunMetadata()
    value = sess.run(fetches, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=metadata)
    return value, [s for d in metadata.step_stats.dev_stats for s in d.node_stats]


# --- dead tensors ----------------------------------------------------------------------

def test_switch_forwards_to_one_output_and_merge_takes_the_live_one():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    out_false, out_true = cf.switch(x, p)
    merged, index = cf.merge([out_false + 100.0, out_true * 2.0])
    with tf.Session() as sess:
        assert sess.run([merged, index], {x: 3.0, p: True}) == [6.0, 1]
        assert sess.run([merged, index], {x: 3.0, p: False}) == [103.0, 0]


def test_a_dead_node_does_not_run_its_kernel():
    counter = tf.Variable(0, name="counter")
    p = tf.placeholder(tf.bool, [], name="p")
    not_taken, taken = cf.switch(tf.constant(1), p)
    bump = tf.assign_add(counter, taken)  # dead when p is false: no kernel, no update
    merged = cf.merge([not_taken * 0, tf.identity(bump)])[0]
    with tf.Session() as sess:
        sess.run(counter.initializer)
        (value, stats) = _traced(sess, merged, {p: False})
        assert value == 0 and sess.run(counter) == 0
        assert "AssignAdd" not in {s.op for s in stats}  # a dead node is not traced either
        assert sess.run(merged, {p: True}) == 1 and sess.run(counter) == 1


def test_a_control_edge_from_a_dead_node_is_dead():
    counter = tf.Variable(0, name="counter")
    p = tf.placeholder(tf.bool, [], name="p")
    _, taken = cf.switch(tf.constant(1), p)
    with tf.control_dependencies([tf.identity(taken)]):
        bump = tf.assign_add(counter, 5)
    with tf.Session() as sess:
        sess.run(counter.initializer)
        sess.run(bump.op, {p: False})
        assert sess.run(counter) == 0
        sess.run(bump.op, {p: True})
        assert sess.run(counter) == 5


def test_fetching_a_dead_tensor_is_an_invalid_argument_error():
    p = tf.placeholder(tf.bool, [], name="p")
    out_false, out_true = cf.switch(tf.constant(1.0), p)
    with tf.Session() as sess:
        assert sess.run(out_true, {p: True}) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
            sess.run(out_true, {p: False})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[1\] does not have"):
            sess.run([out_false, out_true * 2.0], {p: False})


def test_a_merge_whose_data_inputs_are_all_dead_is_dead():
    p = tf.placeholder(tf.bool, [], name="p")
    _, taken = cf.switch(tf.constant(1.0), p)
    merged = cf.merge([taken + 1.0, taken * 3.0])[0]
    after = cf.merge([merged, cf.switch(tf.constant(7.0), p)[0]])[0]
    with tf.Session() as sess:
        assert sess.run(after, {p: True}) == 2.0  # the first live input: taken + 1
        assert sess.run(after, {p: False}) == 7.0


def test_a_merge_waits_for_its_control_inputs_even_dead_ones():
    p = tf.placeholder(tf.bool, [], name="p")
    _, taken = cf.switch(tf.constant(1.0), p)
    three, four = tf.constant(3.0), tf.constant(4.0)
    with tf.control_dependencies([tf.identity(taken)]):  # dead when p is false
        merged = cf.merge([three, four])[0]
    assert len(merged.op.control_inputs) == 1
    with tf.Session() as sess:
        # Control edges into a Merge count, but their deadness does not kill it (TF's rule).
        assert sess.run(merged, {p: False}) == 3.0
        assert sess.run(merged, {p: True}) == 3.0


def test_a_control_trigger_is_never_dead():
    counter = tf.Variable(0, name="counter")
    p = tf.placeholder(tf.bool, [], name="p")
    _, taken = cf.switch(tf.constant(1), p)
    with tf.control_dependencies([tf.identity(taken)]):
        trigger = cf.control_trigger(name="trigger")
    with tf.control_dependencies([trigger]):
        bump = tf.assign_add(counter, 1)
    with tf.Session() as sess:
        sess.run(counter.initializer)
        sess.run(bump.op, {p: False})
        assert sess.run(counter) == 1


def test_switch_checks_that_its_predicate_is_a_scalar():
    pred = tf.placeholder(tf.bool, name="pred")
    out = cf.switch(tf.constant(1.0), pred)[1]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"The second input must be a scalar, but it has shape \[2\]"):
            sess.run(out, {pred: [True, False]})
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        cf.switch(tf.constant(1.0), tf.constant([True]))


# --- frames and iterations ----------------------------------------------------------------

def test_a_loop_runs_each_node_once_per_iteration_in_its_frame():
    i, x = _loop(5)
    with tf.Session(config=without_folding()) as sess:
        value, stats = _traced(sess, [i, x])
    assert value == [5, 32.0]
    merges = [(s.frame_name, s.iter_id) for s in stats if s.node_name == "merge_1"]
    assert merges == [(";0;loop", k) for k in range(6)]  # 5 iterations and the last test
    exits = [(s.frame_name, s.iter_id) for s in stats if s.op == "Exit"]
    assert sorted(exits) == [(";0;loop", 5)] * 2
    assert {(s.frame_name, s.iter_id) for s in stats if s.op == "Enter"} == {("", 0)}


def test_a_loop_that_never_iterates_exits_at_once():
    i, x = _loop(0)
    with tf.Session() as sess:
        assert sess.run([i, x]) == [0, 1.0]


def test_loop_invariants_reach_every_iteration():
    # `two` enters once (is_constant) and doubles x in each of 20 iterations.
    _, x = _loop(20)
    with tf.Session() as sess:
        assert sess.run(x) == 2.0 ** 20


def _most_iterations_at_once(stats):
    """The most iterations of the loop that were started and not finished at one time."""
    spans = {}
    for position, stat in enumerate(stats):
        if stat.frame_name:
            first, _ = spans.get(stat.iter_id, (position, position))
            spans[stat.iter_id] = (first, position)
    return max(sum(1 for first, last in spans.values() if first <= p <= last)
               for p in range(len(stats)))


@pytest.mark.parametrize("parallel_iterations", [1, 2, 4])
def test_at_most_parallel_iterations_run_at_once(parallel_iterations):
    i, x = _loop(12, parallel_iterations=parallel_iterations, chain=6)
    config = without_folding(inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        value, stats = _traced(sess, [i, x])
    assert value == [12, 4096.0]
    at_once = _most_iterations_at_once(stats)
    assert at_once <= parallel_iterations
    if parallel_iterations > 1:
        assert at_once > 1  # the counter ran ahead of the long chain


def test_frames_are_deleted_when_their_last_iteration_is_done(monkeypatch):
    created, deleted = [], []
    find = executor_lib.ExecutorState.find_or_create_child_frame
    delete = executor_lib.ExecutorState.delete_frame

    def counting_find(self, frame, iteration, enter):
        before = len(self.outstanding_frames)
        child = find(self, frame, iteration, enter)
        if len(self.outstanding_frames) > before:
            created.append(child.name)
        return child

    def counting_delete(self, frame, ready):
        deleted.append(frame.name)
        delete(self, frame, ready)

    monkeypatch.setattr(executor_lib.ExecutorState, "find_or_create_child_frame", counting_find)
    monkeypatch.setattr(executor_lib.ExecutorState, "delete_frame", counting_delete)
    outer = tf.while_loop(
        lambda k, total: k < 3,
        lambda k, total: (k + 1, total + tf.while_loop(lambda j: j < k, lambda j: j + 1, [0])),
        [0, 0])
    with tf.Session() as sess:
        assert sess.run(outer) == (3, 0 + 1 + 2)
    # One frame for the outer loop, one per outer iteration for the inner loop, the
    # last test's included: the inner loop's Enters are dead then, but they arrive.
    assert sorted(created) == ([";0;while/while_context"]
                               + [";0;while/while_context;%d;while/while/while_context" % k
                                  for k in range(4)])
    assert sorted(deleted) == sorted(created + [""])  # and the root frame, at the end


def test_a_loop_in_the_branch_not_taken_is_dead_and_its_exits_reach_the_merge():
    p = tf.placeholder(tf.bool, [], name="p")
    result = tf.cond(p, lambda: tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0]),
                     lambda: tf.constant(-1))
    with tf.Session() as sess:
        value, stats = _traced(sess, result, {p: False})
        assert value == -1
        assert not any(s.frame_name for s in stats)  # the loop's frame never ran a node
        assert sess.run(result, {p: True}) == 10


def test_inputs_from_two_frames_are_an_invalid_argument_error():
    enter = cf._enter(tf.constant(1.0), "loop", name="enter")
    merge = cf.merge([enter, enter], name="merge")[0]
    pred = cf.loop_cond(tf.less(merge, cf._enter(tf.constant(3.0), "loop", is_constant=True)))
    out_false, out_true = cf.switch(merge, pred)
    outside = tf.constant(2.0, name="outside")  # made outside the frame, read inside it
    merge.op._update_input(1, cf._next_iteration(tf.identity(out_true) * outside,
                                                 name="next"))
    with tf.Session(config=without_folding()) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=(
                r"\{\{node merge\}\} has inputs from different frames. The input \{\{node "
                r"next\}\} is in frame ''. The input \{\{node enter\}\} is in frame "
                r"'loop'.")):
            sess.run(cf.exit(out_false))


def test_a_cycle_without_next_iteration_is_still_an_error():
    a = tf.identity(tf.constant(1.0), name="a")
    b = tf.identity(a, name="b")
    a.op._update_input(0, b)
    with tf.Session(config=without_folding()) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="contains a cycle"):
            sess.run(b)


def test_step_stats_and_the_timeline_show_frame_and_iteration():
    _, x = _loop(2)
    with tf.Session(config=without_folding()) as sess:
        metadata = tf.RunMetadata()
        sess.run(x, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
    stats = [s for d in metadata.step_stats.dev_stats for s in d.node_stats]
    body = [s for s in stats if s.node_name == "body_1"]
    assert [(s.frame_name, s.iter_id) for s in body] == [(";0;loop", 0), (";0;loop", 1)]
    assert "frame=';0;loop' iter=1" in repr(body[1])
    trace = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format()
    assert '"frame": ";0;loop"' in trace and '"iteration": 1' in trace


def test_the_frame_free_fast_path_is_chosen_when_the_executor_is_built():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, name="x")
        tf.identity(x, name="plain")
        cf.switch(x, tf.constant(True), name="switch")
    nodes = {n.name: n for n in graph.as_graph_def().node}
    cpu = executor_lib.Executor([nodes["x"], nodes["plain"]], _cpu())
    assert cpu.state_class is executor_lib.FrameFreeExecutorState
    with_switch = executor_lib.Executor(
        [nodes[n] for n in ("x", "Const", "switch")], _cpu())
    assert with_switch.state_class is executor_lib.ExecutorState


def _cpu():
    return local_devices()[0]


def test_an_executor_runs_a_loop_outside_any_session():
    graph = tf.Graph()
    with graph.as_default():
        _, x = _loop(3)
        tf.identity(x, name="out")
    nodes = list(graph.as_graph_def().node)
    nodes.append(NodeDef("_retval", "_Retval", ["out"], "", {"T": tf.float32, "index": 0}))
    call_frame = CallFrame([], 1)
    executor_lib.Executor(nodes, _cpu()).run(StepState(1, LocalRendezvous(), call_frame))
    assert call_frame.consume_retvals() == [np.float32(8.0)]


# --- constants guarded by a pivot (scheduling.GuardedConstants) ---------------------------

def test_a_loop_bodys_constants_are_preset_in_every_iteration():
    _, total = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + 10), [0, 0])
    graph_nodes = tf.get_default_graph().as_graph_def().node
    nodes = {n.name: n for n in graph_nodes}
    assert nodes["while/add_1/y"].input == ["^while/Identity"]  # the pivot keeps it in the body
    executor = executor_lib.Executor(list(graph_nodes), _cpu())
    presets = executor.frame_infos["while/while_context"].preset_inputs
    assert sorted(v for slots in presets.values() for v in slots if v is not None) == [1, 4, 10]
    with tf.Session(config=without_folding()) as sess:
        value, stats = _traced(sess, total)
    assert value == 40
    ran = [s.node_name for s in stats]
    assert ran.count("while/add_1") == 4 and "while/add_1/y" not in ran


def test_a_branchs_constant_leaves_its_consumer_dead_when_the_branch_is_not_taken():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    result = tf.cond(p, lambda: x * 3.0, lambda: x)
    with tf.Session(config=without_folding()) as sess:
        taken, stats_taken = _traced(sess, result, {p: True, x: 2.0})
        not_taken, stats_not = _traced(sess, result, {p: False, x: 2.0})
    assert (taken, not_taken) == (6.0, 2.0)
    assert "cond/mul" in [s.node_name for s in stats_taken]
    assert "cond/mul" not in [s.node_name for s in stats_not]  # dead: its Const's pivot was
