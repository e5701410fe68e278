"""TensorBoard's own reader loads minitf's event files: scalars, histograms, images, the graph.

`event_accumulator` is what TensorBoard's data loading is built on: it
reads the event files of a run directory and sorts the events by kind and
tag. If it sees what minitf wrote, `tensorboard --logdir` shows it.
"""

import numpy as np
import pytest

import minitf as tf

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="tensorboard is a dev dependency (pip install -e \".[dev]\")")


def _train_with_summaries(logdir, steps=5):
    """The running example, a linear model, trained with every kind of summary."""
    x = tf.placeholder(tf.float32, [None, 1], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable([[0.0]], name="w")
    b = tf.Variable([0.0], name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="mse")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("w", w, family="weights")
    tf.summary.image("inputs", tf.reshape(x, [1, 2, 4, 1]))
    tf.summary.audio("sound", tf.reshape(x, [1, 8]) / 4.0, sample_rate=8000)
    tf.summary.text("note", tf.constant("a *linear* model"))
    merged = tf.summary.merge_all()
    inputs = np.arange(8, dtype=np.float32).reshape(8, 1) / 4.0
    feed = {x: inputs, y: 3.0 * inputs + 1.0}
    with tf.Session() as sess, tf.summary.FileWriter(logdir, sess.graph) as writer:
        sess.run(tf.global_variables_initializer())
        losses = []
        for step in range(steps):
            run_metadata = tf.RunMetadata()
            options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) if step == 2 else None
            summary, value, _ = sess.run([merged, loss, train], feed, options=options,
                                         run_metadata=run_metadata)
            writer.add_summary(summary, step)
            if step == 2:
                writer.add_run_metadata(run_metadata, "step2", step)
            losses.append(value)
    return losses


def _loaded(logdir):
    everything = {kind: 0 for kind in (event_accumulator.SCALARS, event_accumulator.IMAGES,
                                       event_accumulator.HISTOGRAMS, event_accumulator.AUDIO,
                                       event_accumulator.TENSORS)}
    accumulator = event_accumulator.EventAccumulator(logdir, size_guidance=everything)
    return accumulator.Reload()


def test_tensorboard_sees_scalars_histograms_images_audio_text_and_the_graph(tmp_path):
    losses = _train_with_summaries(str(tmp_path))
    accumulator = _loaded(str(tmp_path))
    tags = accumulator.Tags()
    assert tags["scalars"] == ["loss"]
    assert tags["histograms"] == ["weights/weights/w"]
    assert tags["images"] == ["inputs/image/0"]
    assert tags["audio"] == ["sound/audio/0"]
    assert "note" in tags["tensors"]
    assert tags["graph"] and tags["meta_graph"] and tags["run_metadata"] == ["step2"]

    scalars = accumulator.Scalars("loss")
    assert [s.step for s in scalars] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose([s.value for s in scalars], losses, rtol=1e-6)

    histogram = accumulator.Histograms("weights/weights/w")[-1].histogram_value
    assert histogram.num == 1 and histogram.min == histogram.max

    image = accumulator.Images("inputs/image/0")[0]
    assert (image.width, image.height) == (4, 2)
    assert image.encoded_image_string.startswith(b"\x89PNG")

    graph = accumulator.Graph()
    names = {node.name for node in graph.node}
    assert {"x", "w", "mse", "MatMul", "GradientDescent"} <= names
    traced = accumulator.RunMetadata("step2")
    assert any(s.node_name == "MatMul" for d in traced.step_stats.dev_stats for s in d.node_stats)
