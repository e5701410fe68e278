"""The graphs and profiles the profiler's tests compare with TensorFlow's.

Each builder takes the `tf` module (TensorFlow's `compat.v1`, or minitf)
and `raw`, op constructors by name: the gradient ops TF keeps out of its
public API, and `add`, TF 1.15's `tf.add` (an `Add` node, where TF 2's
makes `AddV2`). It builds its graph in the default graph. The record
script (`scripts/record_profiler_reference.py`) runs every profile in
TensorFlow and writes what it printed and returned to
`data/profiler_reference.json`; the tests run the same builders in minitf
and compare. Nothing here imports TensorFlow or minitf.
"""

import os


def conv(tf, raw):
    """Seed 004's listing: the first layer of a speech model, counted for FLOPs and parameters."""
    x = tf.placeholder(tf.float32, [1, 32, 40, 1])
    w = tf.Variable(tf.random_normal([20, 8, 1, 64]))
    b = tf.Variable(tf.random_normal([64]))
    conv1 = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    conv1 = tf.nn.bias_add(conv1, b)
    tf.nn.max_pool(conv1, ksize=[1, 1, 3, 1], strides=[1, 1, 1, 1], padding="VALID")


def mlp(tf, raw):
    """Two layers in variable scopes, a loss, weight decay, a step counter."""
    x = tf.placeholder(tf.float32, [8, 4], name="x")
    y = tf.placeholder(tf.float32, [8, 3], name="y")
    with tf.variable_scope("layer1"):
        w1 = tf.get_variable("weights", [4, 5], initializer=tf.ones_initializer())
        b1 = tf.get_variable("biases", [5], initializer=tf.zeros_initializer())
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable("weights", [5, 3], initializer=tf.ones_initializer())
        b2 = tf.get_variable("biases", [3], initializer=tf.zeros_initializer())
        logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2)
    with tf.name_scope("loss"):
        probs = tf.nn.softmax(logits)
        error = tf.reduce_mean(tf.squared_difference(probs, y))
        decay = tf.add_n([tf.nn.l2_loss(w1), tf.nn.l2_loss(w2)])
        loss = raw["add"](error, tf.multiply(0.01, decay), name="total")
    step = tf.Variable(0.0, trainable=False, name="global_step")
    tf.assign_add(step, 1.0, name="count_step")
    tf.identity(loss, name="fetch")


def zoo(tf, raw):
    """One node of every op type minitf and TensorFlow both count FLOPs for."""
    a = tf.placeholder(tf.float32, [2, 3, 4], name="a")
    b = tf.placeholder(tf.float32, [3, 4], name="b")
    with tf.name_scope("unary"):
        for unary in (tf.reciprocal, tf.square, tf.rsqrt, tf.log, tf.negative, tf.nn.l2_loss):
            unary(a)
        tf.nn.softmax(b)
    with tf.name_scope("binary"):
        for binary in (tf.subtract, tf.multiply, tf.realdiv, tf.maximum, tf.minimum, tf.pow,
                       tf.greater_equal, tf.greater, tf.less_equal, tf.less, tf.equal,
                       tf.not_equal, tf.squared_difference, raw["add"]):
            binary(a, b)
        raw["rsqrt_grad"](b, b)
    with tf.name_scope("reduce"):
        tf.reduce_mean(a, axis=1)
        tf.reduce_sum(a)
        tf.argmax(a, axis=2)
        tf.argmin(a, axis=0)
        raw["bias_add_grad"](a)
        tf.add_n([b, b, b])
        tf.matmul(b, b, transpose_a=True)
        tf.matmul(b, b, transpose_b=True)
    with tf.name_scope("conv"):
        image = tf.placeholder(tf.float32, [2, 9, 9, 3], name="image")
        kernel = tf.placeholder(tf.float32, [3, 3, 3, 5], name="kernel")
        out = tf.nn.conv2d(image, kernel, strides=[1, 2, 2, 1], padding="SAME")
        tf.nn.conv2d_backprop_input([2, 9, 9, 3], kernel, out, strides=[1, 2, 2, 1],
                                    padding="SAME")
        tf.nn.conv2d_backprop_filter(image, [3, 3, 3, 5], out, strides=[1, 2, 2, 1],
                                     padding="SAME")
        pooled = tf.nn.max_pool(image, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        averaged = tf.nn.avg_pool(image, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
        raw["max_pool_grad"](image, pooled, pooled, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        raw["avg_pool_grad"]([2, 9, 9, 3], averaged, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    counter = tf.Variable(tf.zeros([3, 4]), name="counter")
    tf.assign_add(counter, b)
    tf.assign_sub(counter, b)


def unknown_shapes(tf, raw):
    """FLOPs need fully known shapes: a batch of unknown size makes MatMul and Sum count zero."""
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(tf.ones([4, 2]), name="w")
    y = tf.matmul(x, w)
    tf.reduce_sum(y, name="total")
    tf.multiply(w, 2.0, name="double")


def meta_graph(tf, raw, directory):
    """Seed 004's other listing: three multiplies, saved, re-imported from the .meta file."""
    a = tf.Variable([3.], dtype=tf.float32, name="a")
    b = tf.placeholder(tf.float32, shape=(), name="input")
    c = tf.multiply(a, b, name="wawa")
    d = tf.multiply(c, c, name="tata")
    tf.multiply(d, d, name="haha")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(directory, "model.ckpt"))
    tf.reset_default_graph()
    tf.train.import_meta_graph(os.path.join(directory, "model.ckpt.meta"))


BUILDERS = {"conv": conv, "mlp": mlp, "zoo": zoo, "unknown_shapes": unknown_shapes}


def _custom_scope(builder):
    return (builder().with_max_depth(3).select(["params", "float_ops", "op_types", "occurrence",
                                                "input_shapes", "device"])
            .order_by("params").with_node_names(hide_name_regexes=[".*Initializer.*"]).build())


def _only_layer1(builder):
    return (builder(builder.float_operation()).with_node_names(start_name_regexes=["layer1"])
            .account_displayed_op_only(False).build())


def _trimmed(builder):
    return (builder(builder.trainable_variables_parameter())
            .with_node_names(trim_name_regexes=["layer2"], show_name_regexes=["layer.*", ".*/weights"])
            .build())


def _matmul_and_conv(builder):
    return (builder().with_accounted_types(["MatMul", "Conv2D"]).select(["float_ops", "params"])
            .with_min_float_operations(1).build())


def _big_parameters(builder):
    return (builder(builder.trainable_variables_parameter()).with_min_parameters(10)
            .order_by("params").build())


def _op_columns(builder):
    return (builder(builder.float_operation()).select(
        ["float_ops", "params", "occurrence", "op_types", "input_shapes"]).build())


def _op_top_three(builder):
    return builder(builder.float_operation()).with_max_depth(2).build()


def _op_from_mul(builder):
    return (builder(builder.float_operation()).with_node_names(
        start_name_regexes=["Mul"], hide_name_regexes=["Sub"]).account_displayed_op_only(False)
        .build())


# (case, cmd, options from the ProfileOptionBuilder class)
PROFILES = [
    ("conv", "scope", lambda b: b.float_operation()),
    ("conv", "scope", lambda b: b.trainable_variables_parameter()),
    ("conv", "op", lambda b: b.float_operation()),
    ("conv", "graph", lambda b: b.float_operation()),
    ("conv", "scope", lambda b: b(b.float_operation()).with_empty_output().build()),
    ("mlp", "scope", lambda b: b.float_operation()),
    ("mlp", "scope", lambda b: b.trainable_variables_parameter()),
    ("mlp", "scope", _custom_scope),
    ("mlp", "scope", _only_layer1),
    ("mlp", "scope", _trimmed),
    ("mlp", "scope", _big_parameters),
    ("mlp", "scope", lambda b: b().build()),
    ("mlp", "scope", lambda b: b(b.float_operation()).with_min_occurrence(1).build()),
    ("mlp", "scope", lambda b: b(b.float_operation()).with_min_execution_time(1).build()),
    ("mlp", "scope", lambda b: b(b.trainable_variables_parameter()).with_min_memory(1).build()),
    ("mlp", "scope", lambda b: b.time_and_memory()),
    ("mlp", "graph", lambda b: b.float_operation()),
    ("mlp", "graph", lambda b: b.trainable_variables_parameter()),
    ("mlp", "graph", lambda b: b(b.float_operation()).with_max_depth(3).build()),
    ("mlp", "graph", lambda b: b(b.float_operation()).with_node_names(
        start_name_regexes=["loss/.*"]).build()),
    ("mlp", "op", lambda b: b.float_operation()),
    ("mlp", "op", lambda b: b.trainable_variables_parameter()),
    ("mlp", "op", _op_columns),
    ("mlp", "op", _op_top_three),
    ("mlp", "op", lambda b: b().order_by("occurrence").select(["occurrence", "params"]).build()),
    ("zoo", "scope", lambda b: b.float_operation()),
    ("zoo", "scope", _matmul_and_conv),
    ("zoo", "op", lambda b: b.float_operation()),
    ("zoo", "op", _op_from_mul),
    ("zoo", "graph", lambda b: b(b.float_operation()).order_by("name").build()),
    ("unknown_shapes", "scope", lambda b: b.float_operation()),
    ("unknown_shapes", "scope", lambda b: b.trainable_variables_parameter()),
]

def node_flops(graph, get_stats_for_node_def):
    """Each node's FLOPs statistic as a float; None where a shape it needs is unknown."""
    flops = {}
    for op in graph.get_operations():
        try:
            value = get_stats_for_node_def(graph, op.node_def, "flops").value
        except ValueError:
            value = None
        flops[op.name] = value if value is None else float(value)
    return flops


_SHAPES = ("input_shapes",)
_MESSAGES = ("children", "graph_nodes")


def as_dict(message):
    """A GraphNodeProto or MultiGraphNodeProto (TensorFlow's or minitf's) as plain data.

    Only fields with a value are kept; shapes become lists of sizes (None
    for an unknown rank), so that both sides read the same.
    """
    result = {}
    for name in _FIELD_NAMES:
        if not hasattr(message, name):
            continue
        value = getattr(message, name)
        if name in _MESSAGES:
            value = [as_dict(child) for child in value]
        elif name in _SHAPES:
            value = {str(k): _shape(v) for k, v in sorted(value.items())}
        elif name == "devices":
            value = list(value)
        if value:
            result[name] = value
    return result


def _shape(shape):
    if shape is None or isinstance(shape, list):
        return shape
    return None if shape.unknown_rank else [d.size for d in shape.dim]


_FIELD_NAMES = (
    "name", "run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros",
    "requested_bytes", "peak_bytes", "residual_bytes", "output_bytes", "parameters",
    "float_ops", "devices", "total_definition_count", "total_run_count", "total_exec_micros",
    "total_accelerator_exec_micros", "total_cpu_exec_micros", "total_requested_bytes",
    "total_peak_bytes", "total_residual_bytes", "total_output_bytes", "total_parameters",
    "total_float_ops", "input_shapes", "children", "graph_nodes")
