"""tf.print: a StringFormat of its arguments and a PrintV2 op that writes it when run."""

import logging
import sys

import numpy as np
import pytest

import minitf as tf


def test_print_builds_what_tensorflow_builds_and_prints_when_run(capfd):
    x = tf.constant(np.arange(10, dtype=np.float32).reshape(2, 5))
    shown = tf.print("loss:", x, 3, output_stream=sys.stdout, name="shown")
    assert (shown.name, shown.type) == ("shown", "PrintV2")
    formatted = shown.inputs[0].op
    assert (formatted.name, formatted.type) == ("shown_format", "StringFormat")
    assert formatted.get_attr("template") == "loss: {} 3"
    assert shown.get_attr("output_stream") == "stdout"
    assert capfd.readouterr().out == ""               # building prints nothing
    with tf.Session() as sess:
        assert sess.run(shown) is None
    assert capfd.readouterr().out == "loss: [[0 1 2 3 4]\n [5 6 7 8 9]] 3\n"


def test_sep_end_and_summarize_shape_the_text_written_to_stderr(capfd):
    x = tf.constant(np.arange(10, dtype=np.int32).reshape(2, 5))
    op = tf.print(x, "and", x[0, 0], sep="|", end="!\n", summarize=2)
    assert op.name == "PrintV2" and op.get_attr("output_stream") == "stderr"
    with tf.Session() as sess:
        sess.run(op)
    assert capfd.readouterr().err == "[[0 1 ... 3 4]\n [5 6 ... 8 9]]|and|0!\n"


def test_a_string_scalar_tensor_is_printed_without_formatting(capfd):
    message = tf.constant("Print is stateful")
    op = tf.print(message)
    assert op.inputs[0] is message
    with tf.Session() as sess:
        sess.run(op)
        sess.run(op)
    assert capfd.readouterr().err == "Print is stateful\n" * 2


def test_print_as_a_control_dependency_runs_before_the_value(capfd):
    x = tf.placeholder(tf.float32, [])
    with tf.control_dependencies([tf.print("x is", x)]):
        y = tf.identity(x * 2.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: 1.5}) == 3.0
    assert capfd.readouterr().err == "x is 1.5\n"


def test_a_logging_level_writes_to_the_tensorflow_logger(caplog):
    op = tf.print("through the log", output_stream=logging.WARNING)
    assert op.get_attr("output_stream") == "log(warning)"
    with caplog.at_level(logging.INFO, logger="tensorflow"), tf.Session() as sess:
        sess.run(op)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "through the log")]


def test_an_unknown_stream_is_refused_while_building():
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream="stdout")
