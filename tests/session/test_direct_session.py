"""DirectSession: GraphDef extension, graph edits, the executor cache, pruning, tracing."""

import json

import numpy as np
import pytest
from session_configs import without_folding

import minitf as tf
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.op_def import register_op
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.op_def_library import apply_op
from minitf.session import timeline
from minitf.session.direct_session import DirectSession

_RAN = []

register_op("DirectSessionTestRecord").input("x: float32").output("y: float32").set_is_stateful()


@register_kernel("DirectSessionTestRecord")
def _record(ctx, x):
    _RAN.append(ctx.node_name)
    return x


def recorded(x, name):
    return apply_op("DirectSessionTestRecord", name=name, x=x)


# --- the runtime sees only GraphDefs -----------------------------------------------------

def test_direct_session_runs_a_graph_def_by_names():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, name="x")
        tf.add(x, 1.0, name="y")
    runtime = DirectSession()
    runtime.extend(graph.as_graph_def())
    [value] = runtime.run({"x:0": np.float32(2.0)}, ["y:0"], [])
    assert value == 3.0
    runtime.close()


def test_graph_def_survives_a_round_trip_through_bytes_into_a_runtime():
    graph = tf.Graph()
    with graph.as_default():
        tf.multiply(tf.constant([1.0, 2.0]), 3.0, name="out")
    data = graph.as_graph_def().SerializeToString()
    runtime = DirectSession()
    runtime.extend(graph_def_lib.GraphDef.FromString(data))
    np.testing.assert_allclose(runtime.run({}, ["out:0"], [])[0], [3.0, 6.0])
    runtime.close()


def test_session_sends_only_new_nodes():
    a = tf.constant(1.0)
    b = a + 1.0
    with tf.Session() as sess:
        sent = []
        original_extend = sess._runtime.extend

        def spy(graph_def):
            sent.append([n.name for n in graph_def.node])
            original_extend(graph_def)

        sess._runtime.extend = spy
        assert sess.run(b) == 2.0
        c = b * 3.0
        assert sess.run(c) == 6.0
        assert sess.run(b) == 2.0  # nothing new: nothing sent
    assert sent == [["Const", "add/y", "add"], ["mul/y", "mul"]]


def test_control_input_added_after_a_run_is_picked_up():
    _RAN.clear()
    side = recorded(tf.constant(1.0), name="side_effect")
    out = tf.identity(tf.constant(2.0), name="out")
    with tf.Session() as sess:
        assert sess.run(out) == 2.0
        assert _RAN == []
        out.op._add_control_input(side.op)
        assert sess.run(out) == 2.0
    assert _RAN == ["side_effect"]


def test_device_edit_after_a_run_is_picked_up():
    a = tf.constant(1.0)
    b = tf.identity(a, name="b")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        metadata = tf.RunMetadata()
        sess.run(b, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        assert {d.device for d in metadata.step_stats.dev_stats} == {_cpu(0)}
        b.op._set_device("/cpu:1")
        sess.run(b, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        devices = {s.node_name: d.device for d in metadata.step_stats.dev_stats
                   for s in d.node_stats}
    assert devices["b"] == _cpu(1)


# --- the executor cache --------------------------------------------------------------------

def test_executors_are_cached_per_signature():
    x = tf.placeholder(tf.float32)
    y = x + 1.0
    z = y * 2.0
    with tf.Session() as sess:
        executors = sess._runtime._executors
        sess.run(y, {x: 1.0})
        assert len(executors) == 1
        first = next(iter(executors.values()))
        sess.run(y, {x: 5.0})
        assert len(executors) == 1
        assert next(iter(executors.values())) is first  # reused, not rebuilt
        sess.run(z, {x: 1.0})
        sess.run([y, z], {x: 1.0})
        sess.run(z, {y: 1.0})
        sess.run(z.op, {x: 1.0})
        assert len(executors) == 5


def test_new_nodes_keep_cached_executors_but_edits_drop_them():
    a = tf.constant(1.0)
    b = a + 1.0
    with tf.Session() as sess:
        sess.run(b)
        b * 2.0  # a new node: the old signature stays valid
        sess.run(b)
        assert len(sess._runtime._executors) == 1
        b.op._add_control_input(a.op)
        sess.run(b)
        assert len(sess._runtime._executors) == 1  # rebuilt after the edit


def test_editing_ops_no_session_has_seen_keeps_the_cache():
    a = tf.constant(1.0)
    b = a + 1.0
    with tf.Session() as sess:
        sess.run(b)
        cached = dict(sess._runtime._executors)
        c = b * 2.0
        c.op._set_device("/cpu:0")  # not sent yet: goes out with the next extend
        c.op._add_control_input(a.op)
        assert sess.run(b) == 2.0
        assert sess._runtime._executors == cached
        assert sess.run(c) == 4.0


def _record_sends(sess):
    """A list that collects ("extend" or "reset", node names) for each graph the runtime gets."""
    sent = []
    runtime = sess._runtime
    extend, reset_graph = runtime.extend, runtime.reset_graph

    def recording_extend(graph_def):
        sent.append(("extend", [n.name for n in graph_def.node]))
        extend(graph_def)

    def recording_reset_graph(graph_def):
        sent.append(("reset", len(graph_def.node)))
        reset_graph(graph_def)

    runtime.extend, runtime.reset_graph = recording_extend, recording_reset_graph
    return sent


def test_the_graph_counts_edits_of_its_ops_and_knows_the_oldest_one_edited():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.identity(a, name="b")
        c = tf.identity(b, name="c")
    assert g.edit_count == 0 and g.oldest_op_id_edited_since(0) is None
    c.op._set_device("/cpu:0")
    b.op._add_control_input(a.op)
    c.op._set_attr("_marker", True)
    assert g.edit_count == 3
    assert g.oldest_op_id_edited_since(0) == b.op._id
    assert g.oldest_op_id_edited_since(2) == c.op._id
    assert g.oldest_op_id_edited_since(3) is None
    with g.as_default():
        tf.identity(c, name="d")
    assert g.edit_count == 3  # a new op is not an edit


def test_an_input_rewired_on_an_op_not_sent_yet_goes_out_with_the_extend():
    a = tf.constant(1.0, name="a")
    b = a + 1.0
    with tf.Session() as sess:
        sent = _record_sends(sess)
        assert sess.run(b) == 2.0
        cached = dict(sess._runtime._executors)
        d = tf.identity(a, name="d")
        d.op._update_input(0, b)
        assert sess.run(d) == 2.0
        assert sess._runtime._executors.keys() > cached.keys()  # kept, and one more
    assert sent == [("extend", ["a", "add/y", "add"]), ("extend", ["d"])]


def test_each_session_resends_only_when_an_op_it_has_sent_was_edited():
    a = tf.constant(1.0, name="a")
    b = tf.identity(a, name="b")
    with tf.Session() as early, tf.Session() as late:
        early_sent, late_sent = _record_sends(early), _record_sends(late)
        assert early.run(b) == 1.0
        b.op._add_control_input(a.op)  # early has b; late has nothing yet
        assert early.run(b) == 1.0 and late.run(b) == 1.0
    assert early_sent == [("extend", ["a", "b"]), ("reset", 2)]
    assert late_sent == [("extend", ["a", "b"])]


# --- pruning ---------------------------------------------------------------------------------

def test_only_what_fetches_need_runs():
    _RAN.clear()
    a = recorded(tf.constant(1.0), name="needed")
    recorded(tf.constant(2.0), name="unrelated")
    b = recorded(a + 1.0, name="downstream")
    with tf.Session() as sess:
        assert sess.run(a) == 1.0
        assert _RAN == ["needed"]
        _RAN.clear()
        assert sess.run(b) == 2.0
    assert sorted(_RAN) == ["downstream", "needed"]


def test_control_dependencies_are_kept_by_pruning():
    _RAN.clear()
    first = recorded(tf.constant(1.0), name="first")
    with tf.control_dependencies([first]):
        second = tf.identity(tf.constant(2.0), name="second")
    with tf.Session() as sess:
        assert sess.run(second) == 2.0
    assert _RAN == ["first"]


def test_targets_run_without_fetching():
    _RAN.clear()
    a = recorded(tf.constant(1.0), name="target_only")
    with tf.Session() as sess:
        assert sess.run([a.op, tf.constant(0.0)]) == [None, 0.0]
    assert _RAN == ["target_only"]


def test_unfed_placeholder_outside_the_pruned_graph_is_fine():
    x = tf.placeholder(tf.float32)
    x + 1.0
    c = tf.constant(3.0)
    with tf.Session() as sess:
        assert sess.run(c) == 3.0


def test_feeding_cuts_control_dependencies_only_on_the_fed_edge():
    _RAN.clear()
    gate = recorded(tf.constant(1.0), name="gate")
    with tf.control_dependencies([gate]):
        out = tf.identity(tf.constant(5.0), name="gated")
    total = out + 1.0
    with tf.Session() as sess:
        assert sess.run(total, {out: 10.0}) == 11.0
    assert _RAN == []  # the identity was fed, so its control input is not needed


# --- run options and run metadata --------------------------------------------------------------

def _cpu(i):
    return "/job:localhost/replica:0/task:0/device:CPU:%d" % i


def test_full_trace_fills_step_stats():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.multiply(x, 2.0, name="y")
    metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        assert sess.run(y, {x: 3.0}, options=options, run_metadata=metadata) == 6.0
    [device_stats] = metadata.step_stats.dev_stats
    assert device_stats.device == _cpu(0)
    by_name = {s.node_name: s for s in device_stats.node_stats}
    assert "y" in by_name and by_name["y"].op == "Mul"
    stat = by_name["y"]
    assert stat.thread_id > 0
    assert stat.all_start_micros > 1e15  # microseconds since the epoch
    assert stat.all_end_rel_micros >= 1


def test_no_trace_leaves_step_stats_empty():
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.constant(1.0), run_metadata=metadata)
    assert metadata.step_stats.dev_stats == []


def test_run_metadata_is_replaced_by_each_run():
    c = tf.constant(1.0, name="c")
    metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        sess.run(c, options=options, run_metadata=metadata)
        sess.run(c, options=options, run_metadata=metadata)
    names = [s.node_name for d in metadata.step_stats.dev_stats for s in d.node_stats]
    assert names.count("c") == 1


def test_timeline_is_valid_chrome_trace_json():
    config = tf.ConfigProto(device_count={"CPU": 2})
    a = tf.constant([1.0, 2.0], name="a")
    with tf.device("/cpu:1"):
        b = tf.multiply(a, 2.0, name="b")
    c = tf.add(b, 1.0, name="c")
    metadata = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
    trace = json.loads(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(processes.values()) == [_cpu(0), _cpu(1)]
    boxes = [e for e in events if e["ph"] == "X"]
    for box in boxes:
        assert {"name", "pid", "tid", "ts", "dur", "args"} <= set(box)
        assert box["dur"] >= 1 and box["pid"] in processes
    where = {e["args"]["name"]: processes[e["pid"]] for e in boxes}
    assert where["b"] == _cpu(1)
    assert where["c"] == _cpu(0)


def test_output_partition_graphs():
    config = without_folding(device_count={"CPU": 2})  # the graphs as partitioned
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.identity(a, name="b")
    metadata = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(b, options=tf.RunOptions(output_partition_graphs=True), run_metadata=metadata)
        assert len(metadata.partition_graphs) == 2
        ops_by_graph = [sorted(n.op for n in g.node) for g in metadata.partition_graphs]
        assert ["Const", "_Send"] in ops_by_graph
        assert ["Identity", "_Recv", "_Retval"] in ops_by_graph
        sess.run(b, run_metadata=metadata)
    assert metadata.partition_graphs == []


def test_graph_def_with_a_dangling_input_is_an_invalid_argument():
    runtime = DirectSession()
    runtime.extend(graph_def_lib.GraphDef([
        graph_def_lib.NodeDef("y", "Identity", ["missing"], "", {"T": tf.float32})]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown input node 'missing'"):
        runtime.run({}, ["y:0"], [])
    runtime.close()


def test_duplicate_node_in_extend_is_an_invalid_argument():
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    runtime = DirectSession()
    runtime.extend(graph.as_graph_def())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate node name"):
        runtime.extend(graph.as_graph_def())
    runtime.close()


def test_closed_runtime_refuses_to_run():
    runtime = DirectSession()
    runtime.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        runtime.run({}, [], [])
