"""tf.profiler with traced steps, the Profiler over several steps, outputs, options and errors."""

import numpy as np
import pytest

import minitf as tf
from minitf.profiler import statistics
from minitf.profiler.tfprof_output import OpLogEntry, OpLogProto

FULL_TRACE = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
CPU0 = "/job:localhost/replica:0/task:0/device:cpu:0"


def small_model():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    with tf.variable_scope("dense"):
        w = tf.get_variable("w", [3, 4], initializer=tf.ones_initializer())
        y = tf.nn.relu(tf.matmul(x, w))
    return x, tf.reduce_sum(y, name="total")


def traced_step(sess, fetch, feed):
    run_meta = tf.RunMetadata()
    sess.run(fetch, feed, options=FULL_TRACE, run_metadata=run_meta)
    return run_meta


def timing_options():
    return (tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.time_and_memory(
        min_micros=0, min_bytes=0)).select(["micros", "float_ops", "device", "occurrence"])
        .with_empty_output().build())


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


def test_exec_micros_come_from_the_traced_step_and_add_up():
    x, total = small_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        run_meta = traced_step(sess, total, {x: np.ones((2, 3), np.float32)})
    ran = {s.node_name: max(1, s.op_end_rel_micros)
           for d in run_meta.step_stats.dev_stats for s in d.node_stats}

    root = tf.profiler.profile(tf.get_default_graph(), run_meta=run_meta,
                               options=timing_options())
    nodes = {n.name: n for n in walk(root)}
    assert nodes["dense/MatMul"].exec_micros == ran["dense/MatMul"]
    assert nodes["dense/MatMul"].run_count == 1
    assert nodes["dense/MatMul"].devices == [CPU0]
    assert nodes["dense/MatMul"].float_ops == 2 * 3 * 2 * 4          # counted once: it ran once
    assert nodes["_arg_x_0_0"].exec_micros == ran["_arg_x_0_0"]      # a node only the step knows
    assert root.total_exec_micros == sum(ran[name] for name in ran if name in nodes)
    for node in walk(root):
        assert node.total_exec_micros == node.exec_micros + sum(
            c.total_exec_micros for c in node.children)


def test_nodes_can_be_accounted_by_the_device_they_ran_on():
    x, total = small_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        run_meta = traced_step(sess, total, {x: np.ones((2, 3), np.float32)})
    options = (tf.profiler.ProfileOptionBuilder(timing_options())
               .with_accounted_types([".*cpu:0"]).build())
    root = tf.profiler.profile(run_meta=run_meta, cmd="op", options=options)
    types = []
    node = root
    while node.children:
        node = node.children[0]
        types.append(node.name)
        assert all(g.devices == [CPU0] for g in node.graph_nodes)  # only nodes that ran
    assert "MatMul" in types and "VariableV2" in types
    assert "Assign" not in types     # the initializer did not run in the traced step


def test_the_profiler_averages_steps_or_shows_one(capsys):
    x, total = small_model()
    profiler = tf.profiler.Profiler(tf.get_default_graph())
    runs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            run_meta = traced_step(sess, total, {x: np.ones((2, 3), np.float32)})
            profiler.add_step(step, run_meta)
            runs.append({s.node_name: max(1, s.op_end_rel_micros)
                         for d in run_meta.step_stats.dev_stats for s in d.node_stats})

    def matmul_micros(options):
        root = profiler.profile_name_scope(options)
        return {n.name: n for n in walk(root)}["dense/MatMul"].exec_micros

    builder = tf.profiler.ProfileOptionBuilder
    assert matmul_micros(timing_options()) == sum(r["dense/MatMul"] for r in runs) // 3
    assert matmul_micros(builder(timing_options()).with_step(1).build()) == runs[1]["dense/MatMul"]
    missing = profiler.profile_name_scope(builder(timing_options()).with_step(7).build())
    assert missing.name == "" and not missing.children
    assert "Options -step=7 not found.\nAvailable steps: 0 1 2 " in capsys.readouterr().err


def test_a_step_on_a_gpu_without_stream_stats_says_so(stand_in_gpu, capsys):
    with tf.device("/gpu:0"):
        x, total = small_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        run_meta = traced_step(sess, total, {x: np.ones((2, 3), np.float32)})
    options = tf.profiler.ProfileOptionBuilder(timing_options()).with_stdout_output().build()
    tf.profiler.profile(run_meta=run_meta, options=options)
    assert "Found accelerator operation but misses accelerator stream stats!" in \
        capsys.readouterr().out


def test_file_output_writes_the_report_without_the_options(tmp_path, capsys):
    small_model()
    builder = tf.profiler.ProfileOptionBuilder
    printed_root = tf.profiler.profile(options=builder.float_operation())
    printed = capsys.readouterr().out
    path = tmp_path / "report.txt"
    written_root = tf.profiler.profile(
        options=builder(builder.float_operation()).with_file_output(str(path)).build())
    assert capsys.readouterr().out == ""
    report = printed.split("==================Model Analysis Report======================\n")[1]
    assert path.read_text() == report.split("\n======================End of Report")[0]
    assert str(written_root) == str(printed_root)


def test_a_bad_output_is_reported_and_nothing_returned(capsys):
    small_model()
    options = tf.profiler.ProfileOptionBuilder.float_operation()
    options["output"] = "printer:outfile=x"
    root = tf.profiler.profile(options=options)
    assert root == tf.profiler.GraphNodeProto()
    assert "Unknown output type: printer" in capsys.readouterr().err


@pytest.mark.parametrize("cmd, error", [("code", tf.errors.UnimplementedError),
                                        ("python", tf.errors.InvalidArgumentError)])
def test_commands_other_than_scope_graph_and_op_raise(cmd, error):
    small_model()
    with pytest.raises(error, match=cmd if cmd == "python" else "code"):
        tf.profiler.profile(cmd=cmd)


def test_the_default_options_count_trainable_parameters(capsys):
    small_model()
    root = tf.profiler.profile()
    assert root.total_parameters == 12
    assert "dense/w (3x4, 12/12 params)" in capsys.readouterr().out


def test_an_op_log_adds_flops_and_types():
    small_model()
    op_log = OpLogProto(log_entries=[OpLogEntry(name="dense/Relu", float_ops=8, types=["mine"])])
    options = (tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.float_operation())
               .with_accounted_types(["mine"]).with_empty_output().build())
    root = tf.profiler.profile(op_log=op_log, options=options)
    assert root.total_float_ops == 8
    assert [n.name for n in walk(root)] == ["_TFProfRoot", "dense/Relu"]


def test_an_nchw_convolution_has_no_flops_statistic(capsys):
    image = tf.placeholder(tf.float32, [1, 3, 8, 8])
    pooled = tf.nn.max_pool(image, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")
    graph = tf.get_default_graph()
    with pytest.raises(ValueError, match="Only NHWC format is supported"):
        statistics.get_stats_for_node_def(graph, pooled.op.node_def, "flops")
    root = tf.profiler.profile(options=tf.profiler.ProfileOptionBuilder.float_operation())
    assert root.total_float_ops == 0
    assert "1 ops no flops stats due to incomplete shapes." in capsys.readouterr().err


def test_statistics_register_once_per_op_type_and_kind():
    @statistics.RegisterStatistics("ProfilerTestOp", "weight_parameters")
    def _count(graph, node):
        return statistics.OpStats("weight_parameters", 5)

    with pytest.raises(KeyError, match="ProfilerTestOp,weight_parameters"):
        statistics.RegisterStatistics("ProfilerTestOp", "weight_parameters")(_count)
    with pytest.raises(TypeError):
        statistics.RegisterStatistics("A,B", "flops")
    total = statistics.OpStats("weight_parameters")
    total += statistics.OpStats("weight_parameters", 2)
    total += statistics.OpStats("weight_parameters", 3)
    assert total.value == 5
    assert "MatMul" in statistics.registered_op_types("flops")
