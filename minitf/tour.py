"""The tour: one small computation at each layer of minitf, checked as it goes.

`python -m minitf tour` builds the course's running example, the `W * x + b`
linear model of note 001 with its squared-error loss, and follows it down
the runtime's data flow: the Graph, the GraphDef it becomes, the graph
pruned for one fetch, a kernel called directly, an Executor run by hand, a
Session run with feeds, the executor's schedule, the same step split
over two devices, one step of training (the backward ops that
`GradientDescentOptimizer.minimize` adds and the update they compute), and
a checkpoint written and read back by `tf.train.Saver`. Each
step prints one line of explanation, shows what happened, and asserts the
result, so the tour doubles as a smoke test.

The helpers that build the example and look inside the runtime are shared
with the docs: `docs/figures.py` draws the course's figures from them, with
the helpers of `minitf.visualize`.

TensorFlow has no tour; its nearest relatives are the "Getting Started"
guide of TF 1.x (the same model and numbers) and the runtime's own tests.
"""

import collections
import contextlib
import os
import sys
import tempfile

import numpy as np

import minitf as tf
from minitf import visualize
from minitf.device.device import local_devices
from minitf.device.partition import partition
from minitf.device.placer import place
from minitf.executor.executor import Executor, ExecutorNode
from minitf.framework.kernel_registry import find_kernel
from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework.op_kernel import OpKernelContext
from minitf.framework.step import CallFrame
from minitf.framework.step import StepState
from minitf.graph import graph_def as graph_def_lib
from minitf.session import subgraph

# The numbers of TF 1.x's "Getting Started" guide: with W = 0.3 and b = -0.3,
# the loss of this data is 23.66.
W_INIT, B_INIT = 0.3, -0.3
X_TRAIN = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
Y_TRAIN = np.array([0.0, -1.0, -2.0, -3.0], dtype=np.float32)

LEARNING_RATE = 0.01

Example = collections.namedtuple("Example", ["graph", "W", "b", "x", "y", "out", "loss", "init"])


# =============================================================================
# The running example
# =============================================================================

def build_running_example(loss_device=None, device_function=None):
    """Note 001's model in a graph of its own: out = W * x + b, loss = sum((out - y)^2).

    `loss_device` (e.g. "/cpu:1") puts the loss ops on another device, for the
    Devices chapter; `device_function` (e.g. a `replica_device_setter`) is
    a `tf.device` around the whole graph, for the Distributed chapter.
    """
    graph = tf.Graph()
    with graph.as_default(), graph.device(device_function):
        W = tf.Variable(W_INIT, dtype=tf.float32, name="W")  # noqa: N806 - note 001's name
        b = tf.Variable(B_INIT, dtype=tf.float32, name="b")
        x = tf.placeholder(tf.float32, name="x")
        y = tf.placeholder(tf.float32, name="y")
        out = W * x + b
        with graph.device(loss_device) if loss_device else contextlib.nullcontext():
            loss = tf.reduce_sum(tf.square(out - y))
        init = tf.global_variables_initializer()
    return Example(graph, W, b, x, y, out, loss, init)


def reference(x=X_TRAIN, y=Y_TRAIN):
    """NumPy's answer for (out, loss), in float32 like the graph."""
    out = np.float32(W_INIT) * x + np.float32(B_INIT)
    return out, np.sum(np.square(out - y))


def reference_gradients(x=X_TRAIN, y=Y_TRAIN):
    """NumPy's (dloss/dW, dloss/db): sum(2 (out - y) x) and sum(2 (out - y))."""
    out, _ = reference(x, y)
    residual = out - y
    return np.sum(2 * residual * x), np.sum(2 * residual)


def reference_step(learning_rate=LEARNING_RATE):
    """NumPy's W and b after one step of gradient descent from W_INIT, B_INIT."""
    dW, db = reference_gradients()  # noqa: N806 - note 001's names
    return np.float32(W_INIT) - learning_rate * dW, np.float32(B_INIT) - learning_rate * db


def add_gradients(example):
    """Adds `tf.gradients(loss, [W, b])` to the example's graph; returns [dW, db]."""
    with example.graph.as_default():
        return tf.gradients(example.loss, [example.W, example.b])


def add_training(example, learning_rate=LEARNING_RATE):
    """Adds note 001's training op, `GradientDescentOptimizer(lr).minimize(loss)`."""
    with example.graph.as_default():
        return tf.train.GradientDescentOptimizer(learning_rate).minimize(example.loss)


# =============================================================================
# The running example with control flow (the Control flow chapter)
# =============================================================================

def add_cond(example):
    """`W * x + b` or just `W * x`, chosen by a bool placeholder `use_bias` at run time.

    Returns (the cond's result, the placeholder).
    """
    with example.graph.as_default():
        use_bias = tf.placeholder(tf.bool, [], name="use_bias")
        W, b, x = example.W, example.b, example.x  # noqa: N806 - the seed's names
        prediction = tf.cond(use_bias, lambda: W * x + b, lambda: W * x, name="cond")
    return prediction, use_bias


def add_training_loop(example, steps, learning_rate=LEARNING_RATE):
    """`steps` steps of seed 001's gradient descent in one tf.while_loop; returns (W, b) after.

    The loop variables start at the variables' values; each iteration
    differentiates the loss at the current (w, b) and steps downhill. The
    variables themselves are not changed.
    """
    with example.graph.as_default():
        def body(i, w, b):
            loss = tf.reduce_sum(tf.square(w * example.x + b - example.y))
            dw, db = tf.gradients(loss, [w, b])
            return i + 1, w - learning_rate * dw, b - learning_rate * db

        _, w, b = tf.while_loop(lambda i, w, b: i < steps, body,
                                [tf.constant(0), example.W.value(), example.b.value()])
    return w, b


def reference_training(steps, learning_rate=LEARNING_RATE):
    """NumPy's W and b after `steps` steps of gradient descent from W_INIT, B_INIT."""
    w, b = np.float32(W_INIT), np.float32(B_INIT)
    for _ in range(steps):
        residual = w * X_TRAIN + b - Y_TRAIN
        w, b = (w - np.float32(learning_rate) * np.sum(2 * residual * X_TRAIN),
                b - np.float32(learning_rate) * np.sum(2 * residual))
    return w, b


def add_loop_loss(example):
    """The loss summed over the examples one by one in a tf.while_loop, and its gradients.

    Returns (loop loss, [d loop loss / dW, d loop loss / db]): the same
    values as the loss and its gradients, computed by a loop and a
    gradient loop.
    """
    with example.graph.as_default():
        x, y = example.x, example.y

        def body(i, total):
            # x has no static shape, so x[i] has none either: reduce_sum keeps `total` a scalar.
            return i + 1, total + tf.reduce_sum(tf.square(example.W * x[i] + example.b - y[i]))

        _, loss = tf.while_loop(lambda i, total: i < tf.size(x), body, [0, 0.0])
        return loss, tf.gradients(loss, [example.W, example.b])


def add_power_loop(example, power=3):
    """`W ** power` by repeated multiplication in a tf.while_loop, and its gradient.

    The smallest loop with a gradient: returns (the power, d power / dW),
    `0.3 ** 3 = 0.027` and `3 * 0.3 ** 2 = 0.27` at the example's W.
    """
    with example.graph.as_default():
        _, result = tf.while_loop(lambda i, p: i < power,
                                  lambda i, p: (i + 1, p * example.W), [0, 1.0])
        (gradient,) = tf.gradients(result, [example.W])
    return result, gradient


# =============================================================================
# Looking inside the runtime
# =============================================================================

def graph_nodes(example):
    """The example's GraphDef as the runtime keeps it: {node name: NodeDef}."""
    return {n.name: n for n in example.graph.as_graph_def().node}


def prune_for_output(example):
    """The graph the session runs for `sess.run(out, {x: ...})`: fed x, fetched out."""
    return subgraph.rewrite_for_execution(graph_nodes(example), [example.x.name],
                                          [example.out.name], [])


def prune_for_loss(example):
    """The graph the session runs for `sess.run(loss, {x: ..., y: ...})`."""
    return subgraph.rewrite_for_execution(graph_nodes(example),
                                          [example.x.name, example.y.name],
                                          [example.loss.name], [])


def partition_for_loss(example, num_cpus=2):
    """{device: [NodeDef]} for `sess.run(loss, {x, y})` on `num_cpus` CPUs."""
    nodes = prune_for_loss(example)
    devices = local_devices({"CPU": num_cpus})
    placement = place(nodes, devices)
    incarnations = {d.name: i + 1 for i, d in enumerate(devices)}
    return partition(nodes, placement, incarnations)


def traced_loss_run(example, config=None):
    """Runs the initializer, then `loss` with a full trace: (loss value, RunMetadata).

    The traced run is the second of its signature: the first one builds the
    executors and starts the pool's threads, which would dwarf the step itself.
    """
    run_metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                            output_partition_graphs=True)
    feed_dict = {example.x: X_TRAIN, example.y: Y_TRAIN}
    with tf.Session(graph=example.graph, config=config) as sess:
        sess.run(example.init)
        sess.run(example.loss, feed_dict)
        value = sess.run(example.loss, feed_dict, options=options, run_metadata=run_metadata)
    return value, run_metadata


def kernel_context(device, node_name, op_type, step):
    """An OpKernelContext for calling one kernel by hand, outside any executor."""
    node = ExecutorNode()
    node.name, node.op_type, node.device, node.state = node_name, op_type, device, {}
    return OpKernelContext(node, step)


def run_executor(node_defs, device, feeds=(), num_fetches=0, step_id=1):
    """Runs one partition with an Executor; returns the fetched values (the call frame's)."""
    call_frame = CallFrame(list(feeds), num_fetches)
    Executor(node_defs, device).run(StepState(step_id, LocalRendezvous(), call_frame))
    return call_frame.retvals


# =============================================================================
# The tour itself
# =============================================================================

# The tour's stages, in order: each step's title starts with its stage's name
# (`python -m minitf` lists them in its help).
STAGES = ("Graph", "GraphDef", "Pruning", "Kernel", "Executor", "Session", "Schedule",
          "Devices", "Optimizer", "Checkpoint", "Result")


class _Tour:
    """Prints numbered steps, one per stage; `check` asserts and says what was checked."""

    def __init__(self, out=None):
        self.total = len(STAGES)
        self.number = 0
        self.out = out or sys.stdout

    def step(self, title, explanation):
        stage = STAGES[self.number]
        assert title.split(":")[0] == stage, "step %r out of order: %s comes next" % (title, stage)
        self.number += 1
        self.say("\n[%d/%d] %s" % (self.number, self.total, title))
        self.say("      " + explanation)

    def show(self, text):
        for line in str(text).splitlines():
            self.say("        " + line)

    def check(self, condition, what):
        if not condition:
            raise AssertionError("tour step %d failed: %s" % (self.number, what))
        self.say("      ok: " + what)

    def say(self, text):
        print(text, file=self.out)


def run_tour(out=None):
    """The whole tour; raises AssertionError at the first step whose check fails."""
    tour = _Tour(out=out)
    tour.say("minitf tour: the running example, one layer of the runtime at a time")
    example = build_running_example()
    expected_out, expected_loss = reference()

    tour.step("Graph: the running example, W * x + b",
              "out = W * x + b and loss = reduce_sum(square(out - y)) add Operations to a "
              "Graph; no arithmetic runs yet.")
    operations = example.graph.get_operations()
    tour.show("%d operations: %s" % (len(operations), ", ".join(o.name for o in operations)))
    tour.show("out  = %s" % example.out)
    tour.show("loss = %s" % example.loss)
    # `+` builds AddV2, as in TensorFlow 1.15 (the function tf.add builds Add).
    tour.check(example.out.op.type == "AddV2" and example.out.op.inputs[0].op.type == "Mul",
               "out is an AddV2 whose first input is the Mul W * x")

    tour.step("GraphDef: the graph as data",
              "Graph.as_graph_def() turns Operations into NodeDefs (name, op, input strings, "
              "device, attrs); the runtime sees nothing else.")
    graph_def = example.graph.as_graph_def()
    tour.show(graph_def)
    mul = {n.name: n for n in graph_def.node}[example.out.op.inputs[0].op.name]
    tour.check(len(graph_def.node) == len(operations) and mul.input[1] == "x",
               "one NodeDef per Operation; the Mul's inputs are %s" % mul.input)

    tour.step("Pruning: the graph for sess.run(out, {x: ...})",
              "x is fed through an _Arg, out leaves through a _Retval, and only what out "
              "depends on is kept: y and the loss are gone.")
    pruned = prune_for_output(example)
    tour.show("\n".join(graph_def_lib.format_node(n) for n in pruned))
    pruned_ops = [n.op for n in pruned]
    kept = {n.name for n in pruned}
    tour.check("_Arg" in pruned_ops and "_Retval" in pruned_ops and "y" not in kept
               and example.loss.op.name not in kept,
               "%d of %d nodes kept, with one _Arg and one _Retval"
               % (len(pruned), len(graph_def.node)))

    tour.step("Kernel: Mul on CPU, called by hand",
              "The registry maps (op type, device type) to a plain function "
              "kernel(ctx, *inputs, **attrs) that computes with ctx.xp (NumPy here).")
    device = local_devices()[0]
    kernel = find_kernel("Mul", device.device_type)
    step = StepState(step_id=1, rendezvous=None, call_frame=None)
    ctx = kernel_context(device, "mul", "Mul", step)
    product = kernel.fn(ctx, np.float32(W_INIT), X_TRAIN, **kernel.attr_kwargs({"T": tf.float32}))
    tour.show("%r on %s" % (kernel, device.name))
    tour.show("mul(ctx, 0.3, %s) = %s" % (X_TRAIN, product))
    tour.check(np.allclose(product, np.float32(W_INIT) * X_TRAIN) and product.dtype == np.float32,
               "the kernel's result equals NumPy's 0.3 * x, in float32")

    tour.step("Executor: the pruned graph run by hand on one device",
              "An Executor runs a partition's nodes as their inputs become ready; variables "
              "live in the device's resource manager between runs.")
    nodes = graph_nodes(example)
    init_nodes = subgraph.rewrite_for_execution(nodes, [], [], [example.init.name])
    run_executor(init_nodes, device, step_id=1)
    tour.show("ran the initializer (%d nodes): variables %s"
              % (len(init_nodes), device.resource_manager.resource_names()))
    (value,) = run_executor(pruned, device, feeds=[X_TRAIN], num_fetches=1, step_id=2)
    tour.show("out = %s" % (value,))
    tour.check(np.allclose(value, expected_out), "out equals NumPy's W * x + b")

    tour.step("Session: sess.run(loss, feed_dict={x: ..., y: ...})",
              "The client checks feeds and fetches and sends the GraphDef; DirectSession "
              "prunes, places, partitions, folds constants and runs executors, caching them "
              "per signature.")
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        loss_value = sess.run(example.loss, {example.x: X_TRAIN, example.y: Y_TRAIN})
        out_value, again = sess.run([example.out, example.loss],
                                    feed_dict={example.x: X_TRAIN, example.y: Y_TRAIN})
    tour.show("loss = %s, out = %s" % (loss_value, out_value))
    tour.check(np.allclose(loss_value, expected_loss) and np.allclose(again, loss_value),
               "the loss equals NumPy's %s" % (expected_loss,))

    tour.step("Schedule: RunOptions(trace_level=FULL_TRACE)",
              "Every executor records which node ran on which thread, and when; "
              "RunMetadata.step_stats brings it back.")
    traced_value, run_metadata = traced_loss_run(example)
    rows = visualize.schedule(run_metadata.step_stats)
    tour.show(visualize.schedule_table(rows))
    scheduled = {row.node for row in rows}
    expected_nodes = {n.name for n in prune_for_loss(example)}
    tour.check(scheduled == expected_nodes and len(rows) == len(scheduled)
               and np.allclose(traced_value, expected_loss),
               "each of the %d nodes of the pruned graph ran exactly once" % len(expected_nodes))

    tour.step("Devices: the loss on /cpu:1",
              "With two CPUs, the placer puts the loss on CPU:1; partitioning cuts the edge "
              "from CPU:0 and adds a _Send/_Recv pair that meet in the step's Rendezvous.")
    split = build_running_example(loss_device="/cpu:1")
    config = tf.ConfigProto(device_count={"CPU": 2})
    split_value, split_metadata = traced_loss_run(split, config=config)
    graphs = split_metadata.partition_graphs
    for graph in graphs:
        device_name = graph.node[0].device if graph.node else "?"
        tour.show("%s: %s" % (device_name, ", ".join("%s(%s)" % (n.name, n.op)
                                                     for n in graph.node)))
    transfer_ops = [n.op for g in graphs for n in g.node if n.op in ("_Send", "_Recv")]
    tour.check(len(graphs) == 2 and sorted(set(transfer_ops)) == ["_Recv", "_Send"]
               and np.allclose(split_value, expected_loss),
               "two partitions, %d transfer nodes, and the same loss" % len(transfer_ops))

    tour.step("Optimizer: one step of GradientDescentOptimizer(%s).minimize(loss)" % LEARNING_RATE,
              "minimize adds the backward graph (one name scope per gradient function) and "
              "one ApplyGradientDescent per variable; running it updates W and b in place.")
    before = len(example.graph.get_operations())
    train_op = add_training(example)
    added = example.graph.get_operations()[before:]
    by_scope = collections.OrderedDict()
    for op in added:
        by_scope.setdefault(visualize.gradient_scope(op.name) or op.name, []).append(op.type)
    for scope, types in by_scope.items():
        tour.show("%-34s %s" % (scope, ", ".join(types)))
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        sess.run(train_op, {example.x: X_TRAIN, example.y: Y_TRAIN})
        new_W, new_b = sess.run([example.W, example.b])  # noqa: N806 - note 001's names
    expected_W, expected_b = reference_step()  # noqa: N806
    tour.show("after one step: W = %s, b = %s" % (_number(new_W), _number(new_b)))
    updates = [op.type for op in added if op.type == "ApplyGradientDescent"]
    tour.check(train_op.type == "NoOp" and len(updates) == 2
               and np.allclose([new_W, new_b], [expected_W, expected_b]),
               "%d ops added; W and b equal NumPy's W - %s * dW = %s and b - %s * db = %s"
               % (len(added), LEARNING_RATE, _number(expected_W), LEARNING_RATE,
                  _number(expected_b)))

    tour.step("Checkpoint: tf.train.Saver, saved and restored",
              "A Saver adds SaveV2 and RestoreV2 ops to the graph; save() and restore() are "
              "sess.run calls that write and read a checkpoint's index and data files.")
    with example.graph.as_default():
        saver = tf.train.Saver()
    with tempfile.TemporaryDirectory() as directory, tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        path = saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=0,
                          write_meta_graph=False)
        files = sorted(os.listdir(directory))
        sess.run(train_op, {example.x: X_TRAIN, example.y: Y_TRAIN})  # W and b change
        trained = sess.run([example.W, example.b])
        saver.restore(sess, path)
        restored = sess.run([example.W, example.b])
    tour.show("saver.save(sess, ..., global_step=0) wrote %s" % ", ".join(files))
    tour.show("one training step: W = %s, b = %s; restored: W = %s, b = %s"
              % tuple(_number(v) for v in trained + restored))
    tour.check(np.allclose(restored, [W_INIT, B_INIT]) and not np.allclose(trained, restored),
               "restore brought back W = %s, b = %s" % (W_INIT, B_INIT))

    tour.step("Result",
              "Every layer computed the same numbers as NumPy.")
    tour.show("W = %s, b = %s, x = %s, y = %s" % (W_INIT, B_INIT, X_TRAIN, Y_TRAIN))
    tour.show("loss = %s" % (_number(loss_value),))
    tour.check(np.allclose(loss_value, expected_loss), "loss = %s" % (_number(expected_loss),))
    tour.say("\nTour complete: graph -> GraphDef -> pruned graph -> kernel -> executor -> "
             "session -> schedule -> devices -> optimizer -> checkpoint.")
    return loss_value


def _number(value):
    """A scalar to 4 significant digits (23.66), an array as NumPy prints it."""
    return "%.4g" % value if np.ndim(value) == 0 else str(value)


def main(argv=None):
    run_tour()
    return 0
