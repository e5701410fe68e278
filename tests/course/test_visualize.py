"""minitf.visualize: graphs as Mermaid flowcharts, schedules as Gantt charts, notebook display."""

import numpy as np
import pytest

import minitf as tf
from minitf import visualize
from minitf.graph.graph_def import NodeDef


def _small_graph():
    x = tf.placeholder(tf.float32, name="x")
    w = tf.constant(2.0, name="w")
    y = tf.multiply(w, x, name="y")
    with tf.control_dependencies([y.op]):
        z = tf.identity(x, name="z")
    return y, z


def _lines(text):
    return [line.strip() for line in text.splitlines()]


def test_nodes_show_name_and_op_type_and_kind():
    _small_graph()
    lines = _lines(visualize.to_mermaid(tf.get_default_graph()))
    assert lines[0] == "flowchart TB"
    assert 'n0[/"<b>x</b><br/>Placeholder"/]:::feed' in lines
    assert 'n1(["<b>w</b><br/>Const"]):::constant' in lines
    assert 'n2["<b>y</b><br/>Mul"]:::op' in lines


def test_data_edges_are_solid_and_control_edges_dotted():
    _small_graph()
    lines = _lines(visualize.to_mermaid(tf.get_default_graph(), edge_labels="name"))
    assert 'n1 -->|"w:0"| n2' in lines       # w -> y
    assert 'n0 -->|"x:0"| n2' in lines       # x -> y
    assert "n2 -.-> n3" in lines              # ^y -> z


def test_edges_can_show_shapes_from_a_graph_only():
    a = tf.placeholder(tf.float32, shape=[None, 3], name="a")
    tf.identity(a, name="b")
    text = visualize.to_mermaid(tf.get_default_graph(), edge_labels="shape")
    assert '-->|"float32 (?, 3)"|' in text
    with pytest.raises(ValueError, match="needs a tf.Graph"):
        visualize.to_mermaid(tf.get_default_graph().as_graph_def(), edge_labels="shape")


def test_devices_become_subgraphs_and_rendezvous_pairs_are_joined():
    cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0"
    cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1"
    common = {"tensor_name": "edge_1_a", "send_device": cpu0, "recv_device": cpu1,
              "send_device_incarnation": 1, "T": tf.float32, "tensor_type": tf.float32}
    partitions = {
        cpu0: [NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
               NodeDef("a/_1_send", "_Send", ["a"], "", common)],
        cpu1: [NodeDef("a/_1_recv", "_Recv", [], "", common),
               NodeDef("b", "Identity", ["a/_1_recv"], "", {"T": tf.float32})],
    }
    lines = _lines(visualize.to_mermaid(partitions, show_attrs=True))
    assert 'subgraph d0["CPU:0"]' in lines and 'subgraph d1["CPU:1"]' in lines
    assert lines.count("end") == 2
    assert 'n1 -.->|"rendezvous"| n2' in lines
    assert any(line.startswith("n1{{") and ":::runtime" in line for line in lines)


def test_labels_escape_what_mermaid_would_misread():
    node = NodeDef('odd"name', "Placeholder", [], "", {"dtype": tf.float32,
                                                      "shape": tf.TensorShape(None)})
    text = visualize.to_mermaid([node], show_attrs=True)
    assert "odd#quot;name" in text and "#lt;unknown#gt;" in text


def test_show_renders_markdown_with_mermaid_and_text_otherwise():
    _small_graph()
    view = visualize.show()
    assert view._repr_markdown_().startswith("```mermaid\nflowchart TB")
    assert "y = Mul(w, x)" in repr(view)


def test_schedule_of_a_traced_run():
    y, z = _small_graph()
    run_metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run([y, z], {"x:0": 3.0},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_metadata)
    rows = visualize.schedule(run_metadata.step_stats)
    assert rows[0].start_us == 0
    assert [r.start_us for r in rows] == sorted(r.start_us for r in rows)
    assert {"w", "y", "z"} <= {r.node for r in rows}
    assert all(r.end_us >= r.start_us for r in rows)
    gantt = visualize.schedule_to_mermaid(run_metadata.step_stats)
    config, chart = gantt.split("---\ngantt\n")            # sizes first, then the chart
    assert config.startswith("---\nconfig:\n  gantt:\n") and "fontSize: 14" in config
    assert chart.splitlines()[1:3] == ["    dateFormat x", "    axisFormat %S.%L"]
    assert "    section CPU:0 thread 0" in gantt
    assert "y (Mul) :" in gantt
    assert "node" in visualize.schedule_table(rows).splitlines()[0]


def test_gradient_scope_names_the_gradient_function_or_update():
    assert visualize.gradient_scope("gradients/Square_grad/Mul") == "gradients/Square_grad"
    assert visualize.gradient_scope("gradients_1/a_grad/tuple/group_deps") == "gradients_1/a_grad"
    assert visualize.gradient_scope("gradients/Fill") == "gradients"
    assert (visualize.gradient_scope("GradientDescent/update_W/ApplyGradientDescent")
            == "GradientDescent/update_W")
    assert visualize.gradient_scope("mul") is None
    assert visualize.gradient_scope("W/read") is None
    assert visualize.gradient_scope("gradients_extra/x") is None


def _backward_nodes():
    return [NodeDef("x", "Placeholder"),
            NodeDef("sq", "Square", ["x"]),
            NodeDef("gradients/Fill", "Fill"),
            NodeDef("gradients/sq_grad/Mul", "Mul", ["x", "gradients/Fill"]),
            NodeDef("gradients/sq_grad/Mul_1", "Mul",
                    ["gradients/Fill", "gradients/sq_grad/Mul", "^gradients/Fill"]),
            NodeDef("update_x/Apply", "ApplyGradientDescent",
                    ["x", "gradients/sq_grad/Mul_1:0", "^sq"])]


def test_nodes_can_be_boxed_by_name_scope():
    lines = _lines(visualize.to_mermaid(_backward_nodes(), group_by=visualize.gradient_scope))
    assert 'subgraph d1["gradients"]' in lines
    assert 'subgraph d2["gradients/sq_grad"]' in lines
    assert 'n3["<b>Mul</b><br/>Mul"]:::op' in lines       # named within its box
    assert 'n0[/"<b>x</b><br/>Placeholder"/]:::feed' in lines  # outside any box
    assert lines.count("end") == 3                          # gradients, sq_grad, update_x


def test_collapse_scopes_folds_each_scope_into_one_node():
    def backward(name):
        scope = visualize.gradient_scope(name)
        return scope if scope and scope.startswith("gradients") else None

    nodes = {n.name: n for n in visualize.collapse_scopes(_backward_nodes(), backward)}
    assert list(nodes) == ["x", "sq", "gradients", "gradients/sq_grad", "update_x/Apply"]
    folded = nodes["gradients/sq_grad"]
    assert folded.op == visualize.SCOPE_OP and folded.attr["num_ops"] == 2
    assert folded.input == ["x", "gradients"]        # the control edge duplicates a data edge
    assert nodes["update_x/Apply"].input == ["x", "gradients/sq_grad", "^sq"]
    text = visualize.to_mermaid(list(nodes.values()))
    assert '[["<b>gradients/sq_grad/</b><br/>2 ops"]]:::scope' in text


# --- devices: placed graphs, transfers, one lane per device ---------------------------------

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _split_graph():
    """x -> a (CPU:0) -> b, c (CPU:1): one tensor, two consumers on the other device."""
    x = tf.placeholder(tf.float32, name="x")
    a = tf.multiply(x, 2.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.add(a, 1.0, name="b")
        c = tf.negative(a, name="c")
    return x, a, b, c


def test_placed_graph_colours_nodes_by_device_and_marks_cut_edges():
    nodes = [NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
             NodeDef("b", "Identity", ["a"], "", {"T": tf.float32}),
             NodeDef("c", "Identity", ["b", "^a"], "", {"T": tf.float32})]
    placement = {"a": CPU0, "b": CPU0, "c": CPU1}
    lines = _lines(visualize.placed_to_mermaid(nodes, placement))
    assert 'n0(["<b>a</b><br/>Const<br/><small>CPU:0</small>"]):::device0' in lines
    assert 'n2["<b>c</b><br/>Identity<br/><small>CPU:1</small>"]:::device1' in lines
    assert lines[-3:-2] == ["linkStyle 1,2 stroke:#c62828,stroke-width:3px"]  # b->c, a-.->c
    assert "n0 -.-> n2" in lines and "n1 --> n2" in lines
    assert lines[-2].startswith("classDef device0") and lines[-1].startswith("classDef device1")


def test_a_placed_graph_on_one_device_has_no_cut_edges():
    nodes = [NodeDef("a", "NoOp"), NodeDef("b", "NoOp", ["^a"])]
    text = visualize.placed_to_mermaid(nodes, {"a": CPU1, "b": CPU1})
    assert "linkStyle" not in text and ":::device0" in text


def test_transfers_pair_sends_with_recvs_and_their_readers():
    x, _, b, c = _split_graph()
    run_metadata = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        values = sess.run([b, c], {x: 3.0}, run_metadata=run_metadata,
                          options=tf.RunOptions(output_partition_graphs=True))
    assert values == [7.0, -6.0]
    rows = visualize.transfers(run_metadata.partition_graphs)
    sent_a = [row for row in rows if row.tensor == "a"]
    assert len(sent_a) == 1                             # once per destination device
    assert sent_a[0].send_device == CPU0 and sent_a[0].recv_device == CPU1
    assert sorted(sent_a[0].consumers) == ["b", "c"]
    table = visualize.transfer_table(rows).splitlines()
    assert table[0].split()[:3] == ["tensor", "from", "to"]
    assert any(line.split()[:3] == ["a", "CPU:0", "CPU:1"] for line in table[1:])
    # A list of GraphDefs draws like a dict of partitions: a box per device.
    drawn = visualize.to_mermaid(run_metadata.partition_graphs)
    assert drawn.count("subgraph") == 2 and "rendezvous" in drawn
    listing = visualize.partition_listing(run_metadata.partition_graphs)
    assert listing.startswith("# " + CPU0) and "\n# " + CPU1 in listing
    assert "recv_device=CPU:1" in listing and "/job:" not in listing.replace(
        "# " + CPU0, "").replace("# " + CPU1, "")


def test_transfers_show_a_cut_control_edge_as_its_source():
    common = {"send_device": CPU0, "recv_device": CPU1, "send_device_incarnation": 1,
              "tensor_name": "edge_0_a", "T": tf.float32, "tensor_type": tf.float32}
    partitions = {
        CPU0: [NodeDef("a", "NoOp"),
               NodeDef("a/_0_dummy", "Const", ["^a"], "",
                       {"dtype": tf.float32, "value": np.zeros(0, np.float32)}),
               NodeDef("a/_0_send", "_Send", ["a/_0_dummy"], "", common)],
        CPU1: [NodeDef("a/_0_recv", "_Recv", [], "", common),
               NodeDef("b", "NoOp", ["^a/_0_recv"])],
    }
    (row,) = visualize.transfers(partitions)
    assert row.tensor == "^a" and row.recv == "a/_0_recv" and row.consumers == ["b"]


def test_schedule_with_one_lane_per_device():
    x, _, b, c = _split_graph()
    run_metadata = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run([b, c], {x: 1.0}, run_metadata=run_metadata,
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    gantt = visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="device").splitlines()
    sections = [line.strip() for line in gantt if line.strip().startswith("section ")]
    assert sections == ["section CPU:0", "section CPU:1"]
    cpu1_part = gantt[gantt.index("    section CPU:1"):]
    assert any(line.strip().startswith("b (Add)") for line in cpu1_part)
    by_thread = visualize.schedule_to_mermaid(run_metadata.step_stats)
    assert "section CPU:0 thread" in by_thread
    with pytest.raises(ValueError, match="lanes"):
        visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="core")
    table = visualize.schedule_table(visualize.schedule(run_metadata.step_stats),
                                     show_device=True).splitlines()
    assert table[0].split()[:4] == ["node", "op", "device", "thread"]
    assert any(line.split()[:3] == ["b", "Add", "CPU:1"] for line in table[1:])



def test_control_flow_nodes_their_frames_and_a_schedule_by_iteration():
    _, total = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), [0, 0])
    nodes = tf.get_default_graph().as_graph_def().node
    frames = visualize.loop_frames(nodes)
    assert frames["while/Enter"] == frames["while/Exit_1"] == "while/while_context"
    assert frames["while/Const"] is None                 # made outside the loop
    assert visualize.node_kind("NextIteration") == "control"
    drawn = visualize.to_mermaid(nodes, group_by=frames.get)
    assert 'subgraph d1["while/while_context"]' in drawn
    assert '[/"<b>LoopCond</b><br/>LoopCond"\\]:::control' in drawn   # named within the loop
    run_metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_metadata)
    rows = visualize.schedule(run_metadata.step_stats)
    assert {(r.frame, r.iteration) for r in rows if r.node == "while/add_1"} == {
        (";0;while/while_context", k) for k in range(3)}
    gantt = visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="iteration")
    sections = [line.strip() for line in gantt.splitlines() if line.strip().startswith("section ")]
    assert sections == ["section outside loops"] + [
        "section while/while_context iteration %d" % k for k in range(4)]


def test_a_nested_loop_lane_names_the_outer_iteration_too():
    def outer_body(i, s):
        _, inner = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, t + j), [0, s],
                                 name="inner")
        return i + 1, inner

    _, total = tf.while_loop(lambda i, s: i < 2, outer_body, [0, 0], name="outer")
    run_metadata = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=run_metadata) == 2
    gantt = visualize.schedule_to_mermaid(run_metadata.step_stats, lanes="iteration")
    assert ("section outer/while_context iteration 1, outer/inner/while_context iteration 1"
            in gantt)


def test_a_long_name_breaks_after_a_slash_so_that_its_box_stays_narrow():
    with tf.name_scope("gradients/while/mul_grad/Mul_1"):
        tf.constant(1.0, name="StackPopV2")
    drawn = visualize.to_mermaid(tf.get_default_graph())
    assert "<b>gradients/<br/>while/mul_grad/<br/>Mul_1/<br/>StackPopV2</b>" in drawn
