"""FileWriter and event files: names, the first record, what each call writes, the hooks."""

import os
import re
import socket
import time
import warnings

import numpy as np
import pytest

import minitf as tf
from minitf.framework import record_io
from minitf.proto import config_pb2, graph_pb2, meta_graph_pb2


@pytest.fixture(autouse=True)
def no_cached_writers():
    yield
    tf.summary.FileWriterCache.clear()


def _event_files(logdir):
    return sorted(os.path.join(logdir, n) for n in os.listdir(logdir) if ".tfevents." in n)


def _events(logdir):
    files = _event_files(logdir)
    assert len(files) == 1, files
    return list(tf.train.summary_iterator(files[0]))


def test_the_file_is_named_as_tensorflow_names_it_and_starts_with_its_version(tmp_path):
    before = int(time.time())
    writer = tf.summary.FileWriter(str(tmp_path))
    assert os.listdir(tmp_path) == []                 # no file until something is written
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 5)
    writer.close()
    name = os.path.basename(_event_files(str(tmp_path))[0])
    match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)", name)
    assert match and match.group(2) == socket.gethostname()
    assert before <= int(match.group(1)) <= time.time()
    first, second = _events(str(tmp_path))
    assert first.file_version == "brain.Event:2" and first.wall_time == int(match.group(1))
    assert first.step == 0
    assert second.step == 5 and second.session_log.status == tf.SessionLog.START
    assert before <= second.wall_time <= time.time()


def test_records_are_tfrecords_with_checksums(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.0)]), 1)
    data = open(_event_files(str(tmp_path))[0], "rb").read()
    length = int.from_bytes(data[:8], "little")
    assert int.from_bytes(data[8:12], "little") == record_io.masked_crc32c(data[:8])
    record = data[12:12 + length]
    assert tf.Event.FromString(record).file_version == "brain.Event:2"
    assert int.from_bytes(data[12 + length:16 + length], "little") == \
        record_io.masked_crc32c(record)


def test_a_suffix_creates_the_file_at_once(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path / "new" / "dir"), filename_suffix=".v2")
    files = _event_files(str(tmp_path / "new" / "dir"))
    assert len(files) == 1 and files[0].endswith("." + socket.gethostname() + ".v2")
    assert writer.get_logdir() == str(tmp_path / "new" / "dir")
    writer.close()


def test_summaries_steps_and_metadata_written_once_per_tag(tmp_path):
    text = tf.summary.text("notes", tf.constant("hi"))
    loss = tf.summary.scalar("loss", tf.constant(0.5))
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path))
    with tf.Session() as sess:
        for step in (10, 20):
            writer.add_summary(sess.run(merged), global_step=step)
    writer.close()
    summaries = [e for e in _events(str(tmp_path)) if e.HasField("summary")]
    assert [e.step for e in summaries] == [10, 20]
    first, second = [{v.tag: v for v in e.summary.value} for e in summaries]
    assert first["notes"].metadata.plugin_data.plugin_name == "text"
    assert not second["notes"].HasField("metadata")
    assert second["loss"].simple_value == 0.5
    assert list(second["notes"].tensor.string_val) == [b"hi"]
    del text, loss


def test_a_graph_is_written_as_graph_def_and_meta_graph_def(tmp_path):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    tf.identity(tf.matmul(x, tf.ones([3, 2])), name="y")
    writer = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph())
    writer.close()
    events = _events(str(tmp_path))
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def",
                                                      "meta_graph_def"]
    graph_def = graph_pb2.GraphDef.FromString(events[1].graph_def)
    nodes = {n.name: n for n in graph_def.node}
    assert nodes["y"].input == ["MatMul"]
    assert "_output_shapes" in nodes["MatMul"].attr  # the graph view labels edges with them
    meta = meta_graph_pb2.MetaGraphDef.FromString(events[2].meta_graph_def)
    assert {n.name for n in meta.graph_def.node} == set(nodes)


def test_add_graph_takes_a_graph_def_but_not_both(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_graph(None, graph_def=tf.get_default_graph().as_graph_def(), global_step=3)
        with pytest.raises(ValueError, match="only graph, or graph_def"):
            writer.add_graph(tf.get_default_graph(), graph_def=tf.GraphDef())
        with pytest.raises(TypeError, match="must be an instance of `Graph`"):
            writer.add_graph("graph")
    assert _events(str(tmp_path))[1].step == 3


def test_a_traced_step_is_written_as_run_metadata_once_per_tag(tmp_path):
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(x * 2.0)
    run_metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(y, {x: [1.0, 2.0]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_metadata)
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_run_metadata(run_metadata, "step_7", global_step=7)
        with pytest.raises(ValueError, match="already used"):
            writer.add_run_metadata(run_metadata, "step_7")
    event = _events(str(tmp_path))[1]
    assert event.step == 7 and event.tagged_run_metadata.tag == "step_7"
    traced = config_pb2.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
    names = {s.node_name for d in traced.step_stats.dev_stats for s in d.node_stats}
    assert {"Sum", "mul"} <= names


def test_close_then_reopen_starts_a_new_file(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_event(tf.Event(step=1, wall_time=1.0))
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_event(tf.Event(step=2))            # closed: nothing written, a warning
    assert "closed FileWriter" in str(caught[0].message)
    time.sleep(1.05)                                  # the file names differ by the second
    writer.reopen()
    writer.add_event(tf.Event(step=3))
    writer.close()
    files = _event_files(str(tmp_path))
    assert len(files) == 2
    steps = [[e.step for e in tf.train.summary_iterator(f)] for f in files]
    assert steps == [[0, 1], [0, 3]]


def test_flush_makes_events_readable_before_close(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), flush_secs=1000)
    writer.add_event(tf.Event(step=1))
    writer.add_event(tf.Event(step=2))                # the first was flushed at once, not this
    writer.flush()
    assert [e.step for e in _events(str(tmp_path))] == [0, 1, 2]
    writer.close()


def test_the_cache_hands_out_one_writer_per_directory(tmp_path):
    a = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is a
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is not a


def test_a_damaged_event_file_raises_data_loss(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_event(tf.Event(step=1))
    path = _event_files(str(tmp_path))[0]
    data = bytearray(open(path, "rb").read())
    data[-6] ^= 0xFF
    open(path, "wb").write(bytes(data))
    events = tf.train.summary_iterator(path)
    assert next(events).file_version == "brain.Event:2"
    with pytest.raises(tf.errors.DataLossError):
        next(events)


def _model():
    x = tf.constant(np.linspace(-1, 1, 8).reshape(8, 1), tf.float32)
    y = 2.0 * x + 1.0
    w = tf.Variable([[0.0]], name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("w", w)
    step = tf.train.get_or_create_global_step()
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)


def test_summary_saver_hook_writes_every_n_steps(tmp_path):
    train = _model()
    hook = tf.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path),
                                     summary_op=tf.summary.merge_all())
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(5):
            sess.run(train)
    events = _events(str(tmp_path))
    assert [(e.step, e.session_log.status) for e in events if e.HasField("session_log")] == [
        (1, tf.SessionLog.START)]
    assert [e.step for e in events if e.HasField("summary")] == [1, 3, 5]
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1)


def test_monitored_training_session_writes_graph_summaries_rate_and_checkpoints(tmp_path):
    train = _model()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_summaries_steps=3,
                                           log_step_count_steps=2) as sess:
        for _ in range(6):
            sess.run(train)
    tf.summary.FileWriterCache.clear()       # the last checkpoint's log is written after the flush
    events = _events(str(tmp_path))
    kinds = [e.WhichOneof("what") for e in events]
    assert kinds[:3] == ["file_version", "graph_def", "meta_graph_def"]
    losses = [(e.step, v.simple_value) for e in events for v in e.summary.value
              if v.tag == "loss"]
    assert [s for s, _ in losses] == [1, 4] and losses[1][1] < losses[0][1]
    rates = [e.step for e in events for v in e.summary.value if v.tag == "global_step/sec"]
    assert rates == [3, 5]
    checkpoints = [(e.step, e.session_log.checkpoint_path) for e in events
                   if e.session_log.status == tf.SessionLog.CHECKPOINT]
    assert checkpoints == [(0, os.path.join(str(tmp_path), "model.ckpt")),
                           (6, os.path.join(str(tmp_path), "model.ckpt"))]


def test_seed_004s_tf1_listing_writes_the_scalar_it_merged(tmp_path):
    """Seed 004's TF 1.x listing: scalar, merge_all, run, FileWriter.add_summary."""
    with tf.Graph().as_default():
        tf.summary.scalar("foo", 0.5)
        merge_op = tf.summary.merge_all()
        with tf.Session() as sess:
            summary = sess.run(merge_op)
        w = tf.summary.FileWriter(str(tmp_path / "logs"))
        w.add_summary(summary, 42)
        w.close()
    events = _events(str(tmp_path / "logs"))
    assert events[0].file_version == "brain.Event:2"
    (value,) = [v for e in events[1:] for v in e.summary.value]
    assert (value.tag, value.simple_value) == ("foo", 0.5)
    assert events[-1].step == 42
