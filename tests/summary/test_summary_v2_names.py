"""The TF 2 names TF 1.15's tf.summary keeps: all_v2_summary_ops, initialize,
get_summary_description."""

import pytest

import minitf as tf


def test_all_v2_summary_ops_is_the_v2_collection():
    assert tf.summary.all_v2_summary_ops() == []
    marker = tf.no_op()
    tf.add_to_collection("_SUMMARY_V2", marker)
    assert tf.summary.all_v2_summary_ops() == [marker]


def test_initialize_without_a_v2_writer_fails_as_in_tensorflow():
    with pytest.raises(RuntimeError, match="No default tf.contrib.summary.SummaryWriter found"):
        tf.summary.initialize()


def test_get_summary_description_reads_the_json_description():
    node_def = tf.NodeDef(name="s", op="TensorSummary",
                          attr={"description": b'{"typeHint": "scalar"}'})
    description = tf.summary.get_summary_description(node_def)
    assert isinstance(description, tf.summary.SummaryDescription)
    assert description.type_hint == "scalar"
    with pytest.raises(ValueError, match="Can't get_summary_description on Add"):
        tf.summary.get_summary_description(tf.NodeDef(name="a", op="Add"))
