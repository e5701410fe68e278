"""tf.profiler.advise and write_op_log.

The reports' wording and the `tfprof_log` file's bytes are TensorFlow's: the
file parses as TensorFlow's OpLogProto (checked once with the reference
TensorFlow; here with minitf's copy of the message, which has its field numbers).
"""

import os

import pytest

import minitf as tf


def _traced_step():
    x = tf.random_normal([32, 32], seed=1)
    w = tf.Variable(tf.ones([32, 32]), name="w")
    total = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)))
    run_meta = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_meta)
    return run_meta


def test_advise_runs_the_checkers_over_a_traced_step(capsys):
    run_meta = _traced_step()
    advice = tf.profiler.advise(tf.get_default_graph(), run_meta)
    assert isinstance(advice, tf.profiler.AdviceProto)
    assert sorted(advice.checkers) == ["AcceleratorUtilizationChecker",
                                       "ExpensiveOperationChecker", "OperationChecker"]
    reports = list(advice.checkers["ExpensiveOperationChecker"].reports)
    assert reports[0].startswith("top 1 operation type: ")
    assert ", cpu: " in reports[0] and "%)" in reports[0]
    assert any(r.startswith("top 1 graph node: ") for r in reports)
    assert list(advice.checkers["OperationChecker"].reports) == []
    printed = capsys.readouterr().out
    assert "\nExpensiveOperationChecker:\n" + reports[0] in printed


def test_advise_without_a_trace_says_it_is_missing(capsys):
    tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    advice = tf.profiler.advise()
    assert list(advice.checkers["ExpensiveOperationChecker"].reports) == []
    assert "Missing RunMetadata info. Skip ExpensiveOperationChecker" in capsys.readouterr().err


def test_operation_checker_notices_an_unfused_batch_norm():
    with tf.name_scope("BatchNorm"):
        tf.identity(tf.ones([2]))
    advice = tf.profiler.advise(options={"OperationChecker": {}})
    assert list(advice.checkers) == ["OperationChecker"]
    assert list(advice.checkers["OperationChecker"].reports) == [
        "Maybe use faster FusedBatchNorm instead of BatchNorm"]


def test_write_op_log_writes_tensorflows_oplog_file(tmp_path):
    from minitf.proto import tfprof_log_pb2
    tf.matmul(tf.ones([4, 3]), tf.ones([3, 5]), name="product")
    tf.Variable(tf.zeros([2]), name="v")
    tf.profiler.write_op_log(tf.get_default_graph(), str(tmp_path))
    assert os.listdir(tmp_path) == ["tfprof_log"]
    log = tfprof_log_pb2.OpLogProto.FromString((tmp_path / "tfprof_log").read_bytes())
    entries = {e.name: e for e in log.log_entries}
    assert entries["product"].float_ops == 2 * 4 * 3 * 5
    assert list(entries["v"].types) == ["_trainable_variables"]


def test_write_op_log_into_a_missing_directory_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="tfprof_log"):
        tf.profiler.write_op_log(tf.get_default_graph(), str(tmp_path / "missing"))


# --- tf.summary's TF 2 names --------------------------------------------------------------
