"""Records what TensorFlow's profiler prints and returns for the cases of the profiler's tests.

    /path/to/tf-venv/bin/python scripts/record_profiler_reference.py

Needs TensorFlow (any 2.x with `tf.compat.v1`; the recorded file was made
with 2.21) and is run by hand; the tests read what it wrote,
`tests/profiler/data/profiler_reference.json`, and never need TensorFlow.
The graphs and profiles are those of `tests/profiler/profiler_cases.py`.

TensorFlow 1.15 is the spec, so three things of TF 2.x are undone first:
variables are TF1's reference variables (`disable_v2_behavior`); the FLOPs
statistics TF added after 1.15 (`AddV2`, `BatchMatMul*`) are unregistered,
so that `a + b` (an `AddV2` node in both) counts zero FLOPs as in TF 1.15;
and `math_ops.add`, which TF's library functions call (`random_normal`
adds the mean with it), makes an `Add` node again, as in TF 1.15.

For each case the file holds the FLOPs TensorFlow registers for each node
(None where a shape is not fully known), and for each profile the text it
printed and the proto it returned, as `profiler_cases.as_dict` spells it.
"""

import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile

import tensorflow.compat.v1 as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops import gen_math_ops, gen_nn_ops, math_ops

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "profiler"))
import profiler_cases  # noqa: E402

RAW = {"add": gen_math_ops.add, "rsqrt_grad": gen_math_ops.rsqrt_grad, "bias_add_grad": gen_nn_ops.bias_add_grad,
       "max_pool_grad": gen_nn_ops.max_pool_grad, "avg_pool_grad": gen_nn_ops.avg_pool_grad}
ADDED_AFTER_1_15 = ("AddV2", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")


@contextlib.contextmanager
def captured_stdout():
    """Everything written to file descriptor 1 (the profiler prints from C++) while inside."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 1)
        text = []
        try:
            yield text
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            capture.seek(0)
            text.append(capture.read().decode("utf-8"))


def run_profile(graph, cmd, options):
    stderr = io.StringIO()
    with captured_stdout() as out, contextlib.redirect_stderr(stderr):
        result = tf.profiler.profile(graph, cmd=cmd, options=options)
    return {"stdout": out[0], "stderr": stderr.getvalue(),
            "proto": profiler_cases.as_dict(result)}


def record_case(name, builder):
    tf.reset_default_graph()
    builder(tf, RAW)
    graph = tf.get_default_graph()
    profiles = []
    for case, cmd, make_options in profiler_cases.PROFILES:
        if case == name:
            options = make_options(tf.profiler.ProfileOptionBuilder)
            profiles.append(dict(cmd=cmd, options=options, **run_profile(graph, cmd, options)))
    flops = profiler_cases.node_flops(graph, ops.get_stats_for_node_def)
    return {"flops": flops, "profiles": profiles}


def record_meta_graph():
    with tempfile.TemporaryDirectory() as directory:
        tf.reset_default_graph()
        profiler_cases.meta_graph(tf, RAW, directory)
        graph = tf.get_default_graph()
        builder = tf.profiler.ProfileOptionBuilder
        return [run_profile(graph, "scope", builder.float_operation()),
                run_profile(graph, "scope", builder.trainable_variables_parameter())]


def add_as_in_tf_1_15(x, y, name=None):
    return gen_math_ops.add(x, y, name=name)


def main():
    tf.disable_v2_behavior()
    math_ops.add = add_as_in_tf_1_15
    for op_type in ADDED_AFTER_1_15:
        ops._stats_registry._registry.pop(op_type + ",flops", None)  # noqa: SLF001
    cases = {name: record_case(name, builder)
             for name, builder in profiler_cases.BUILDERS.items()}
    out = ROOT / "tests" / "profiler" / "data" / "profiler_reference.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases,
                               "meta_graph": record_meta_graph()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
