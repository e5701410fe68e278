"""The course's figures and listings (docs/figures.py): the running example at each stage."""

import pytest

from course_pages import load_figures

figures = load_figures()


def test_the_training_figures_show_the_backward_graph():
    forward_graph = figures.figure("forward-graph")
    assert "<b>mul</b>" in forward_graph and "gradients" not in forward_graph
    gradient_graph = figures.figure("gradient-graph")
    for scope in ("gradients/Sum_grad", "gradients/Square_grad", "gradients/sub_grad",
                  "gradients/add_grad", "gradients/mul_grad"):
        assert "<b>%s/</b>" % scope in gradient_graph       # one folded node per function
    assert "<b>mul</b>" in gradient_graph and ":::scope" in gradient_graph
    assert "Assign" not in gradient_graph                   # initializers are left out
    mul_grad = figures.figure("mul-grad")
    assert "subgraph" in mul_grad and '["gradients/mul_grad"]' in mul_grad
    for op in ("BroadcastGradientArgs", "<b>Mul_1</b>", "<b>Reshape_1</b>"):
        assert op in mul_grad
    assert "<b>x</b>" in mul_grad and "<b>W/read</b>" in mul_grad   # what it reads
    training_graph = figures.figure("training-graph")
    assert ":::scope" in training_graph and "<b>gradients/mul_grad/</b>" in training_graph
    assert '["GradientDescent/update_W"]' in training_graph
    assert "ApplyGradientDescent" in training_graph


def test_every_named_figure_and_listing_is_drawn():
    for name in figures.FIGURES:
        text = figures.figure(name)
        assert text.startswith(("flowchart", "---\n")), name   # maybe a Mermaid config first
        assert "flowchart " in text or "---\ngantt\n" in text, name
    assert "mul = Mul(" in figures.listing("graph-def")
    assert "_Retval" in figures.listing("pruned-graph")
    with pytest.raises(KeyError, match="known figures"):
        figures.figure("nope")


def test_the_device_figures_show_the_running_example_on_two_cpus():
    placed = figures.figure("placed-graph")
    assert "<b>Sum</b><br/>Sum<br/><small>CPU:1</small>" in placed
    assert "<b>mul</b><br/>Mul<br/><small>CPU:0</small>" in placed
    assert "linkStyle" in placed                      # add -> sub crosses devices
    timeline = figures.figure("device-timeline")
    assert "section CPU:0" in timeline and "section CPU:1" in timeline
    assert "add (AddV2)" in timeline and "(_Recv)" in timeline
    assert "add " in figures.listing("transfers").splitlines()[1]
    assert "_Send(add)" in figures.listing("partition-graphs")
    assert "CPU:1" in figures.listing("device-schedule")


def test_the_control_flow_figures_show_conds_loops_and_the_gradient_loop():
    cond = figures.figure("cond-graph")
    assert 'subgraph d1["cond"]' in cond
    assert '[/"<b>Merge</b><br/>Merge"\\]:::control' in cond
    assert cond.count("<br/>Switch") == 5         # W/read and x twice, b/read once
    loop = figures.figure("loop-graph")
    assert '["while/while_context"]' in loop
    assert "<b>while/gradients/</b>" in loop      # the body's tf.gradients, folded
    assert "<b>while/loss/</b>" in loop and "<b>while/step/</b>" in loop
    for op in ("Enter", "Merge", "LoopCond", "Switch", "NextIteration", "Exit"):
        assert "<br/>%s\"" % op in loop, op
    forward = figures.figure("loop-gradient-forward")
    backward = figures.figure("loop-gradient-backward")
    assert '["while/while_context"]' in forward
    assert '["gradients/while/while_context"]' in backward
    assert "StackPushV2" in forward and "StackPopV2" in backward and "b_acc" in backward
    assert "f_acc" in forward and "f_acc" in backward   # the stack, outside both frames
    schedule = figures.figure("loop-schedule")
    for iteration in range(5):                    # four examples, and the test that ends it
        assert "section while/while_context iteration %d" % iteration in schedule
    assert "section outside loops" in schedule
