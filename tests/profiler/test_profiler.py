"""tf.profiler: FLOPs, parameters and the text report, compared with TensorFlow's own.

The graphs and profiles are those of `profiler_cases.py`; what TensorFlow
printed and returned for each is in `data/profiler_reference.json`
(recorded by `scripts/record_profiler_reference.py`).
"""

import json
import pathlib

import pytest

import minitf as tf
import profiler_cases
from minitf.ops import math_ops, nn_ops
from minitf.profiler import statistics

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "profiler_reference.json")
                       .read_text(encoding="utf-8"))
RAW = {"add": tf.add, "rsqrt_grad": math_ops.rsqrt_grad, "bias_add_grad": nn_ops.bias_add_grad,
       "max_pool_grad": nn_ops.max_pool_grad, "avg_pool_grad": nn_ops.avg_pool_grad}
PROFILES = [(name, i) for name, case in REFERENCE["cases"].items()
            for i in range(len(case["profiles"]))]


def build(name):
    profiler_cases.BUILDERS[name](tf, RAW)
    return tf.get_default_graph()


@pytest.mark.parametrize("name", sorted(REFERENCE["cases"]))
def test_every_node_counts_the_flops_tensorflow_counts(name):
    flops = profiler_cases.node_flops(build(name), statistics.get_stats_for_node_def)
    assert flops == REFERENCE["cases"][name]["flops"]


@pytest.mark.parametrize("name, index", PROFILES, ids=["%s-%d" % p for p in PROFILES])
def test_the_report_and_the_tree_are_tensorflows(name, index, capsys):
    expected = REFERENCE["cases"][name]["profiles"][index]
    graph = build(name)
    result = tf.profiler.profile(graph, cmd=expected["cmd"], options=expected["options"])
    out, err = capsys.readouterr()
    assert out == expected["stdout"]
    assert err == expected["stderr"]
    assert profiler_cases.as_dict(result) == expected["proto"]


def test_seed_listing_counts_three_flops_in_a_reimported_meta_graph(tmp_path, capsys):
    profiler_cases.meta_graph(tf, RAW, str(tmp_path))
    builder = tf.profiler.ProfileOptionBuilder
    flops = tf.profiler.profile(tf.get_default_graph(), options=builder.float_operation())
    parameters = tf.profiler.profile(tf.get_default_graph(),
                                     options=builder.trainable_variables_parameter())
    out, _ = capsys.readouterr()
    assert flops.total_float_ops == 3            # "In this graph we have three FLOPs"
    assert parameters.total_parameters == 1
    first, second = REFERENCE["meta_graph"]
    assert out == first["stdout"] + second["stdout"]
    assert profiler_cases.as_dict(flops) == first["proto"]
    assert profiler_cases.as_dict(parameters) == second["proto"]


def test_seed_listing_counts_the_conv_layer(capsys):
    build("conv")
    builder = tf.profiler.ProfileOptionBuilder
    with tf.Session() as sess:
        flops = tf.profiler.profile(sess.graph, options=builder.float_operation())
        parameters = tf.profiler.profile(sess.graph,
                                         options=builder.trainable_variables_parameter())
    # Conv2D: 13·33·64 outputs, each 20·8·1 multiply-adds; then BiasAdd, MaxPool, the initializers.
    assert flops.total_float_ops == 2 * 13 * 33 * 64 * 20 * 8 + 13 * 33 * 64 + 3 * 13 * 31 * 64 \
        + 2 * (20 * 8 * 64 + 64)
    assert parameters.total_parameters == 20 * 8 * 1 * 64 + 64   # "indeed 10.2K"
    assert "_TFProfRoot (--/10.30k params)" in capsys.readouterr().out


def test_the_proto_prints_as_tensorflows_text_format(capsys):
    build("conv")
    result = tf.profiler.profile(options=tf.profiler.ProfileOptionBuilder
                                 .trainable_variables_parameter())
    capsys.readouterr()
    assert str(result) == (
        'name: "_TFProfRoot"\ntotal_parameters: 10304\n'
        'children {\n  name: "Variable"\n  parameters: 10240\n  total_parameters: 10240\n'
        '  total_definition_count: 1\n}\n'
        'children {\n  name: "Variable_1"\n  parameters: 64\n  total_parameters: 64\n'
        '  total_definition_count: 1\n}\ntotal_definition_count: 3\n')
