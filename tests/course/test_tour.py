"""The tour (`python -m minitf tour`) runs end to end and checks every layer."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run_minitf(*args):
    return subprocess.run([sys.executable, "-m", "minitf", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_tour_runs_every_step_and_succeeds():
    result = _run_minitf("tour")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for step in ("Graph:", "GraphDef:", "Pruning:", "Kernel:", "Executor:", "Session:",
                 "Schedule:", "Devices:", "Optimizer:", "Checkpoint:", "Result"):
        assert step in out, "missing tour step %r in:\n%s" % (step, out)
    assert out.count("      ok: ") == 11
    assert "[11/11] Result" in out
    assert "Tour complete" in out


def test_tour_shows_the_runtime_at_work():
    out = _run_minitf("tour").stdout
    assert "mul = Mul(" in out                     # the GraphDef, printed
    assert "_Arg" in out and "_Retval" in out       # the pruned graph
    assert "<kernel Mul on CPU" in out              # a registry lookup
    assert "_Send" in out and "_Recv" in out        # the partitions of two devices
    assert "thread" in out and "start" in out       # the schedule table


def test_tour_takes_one_optimizer_step():
    out = _run_minitf("tour").stdout
    step = out[out.index("Optimizer:"):out.index("Checkpoint:")]
    assert "gradients/Square_grad" in step and "gradients/mul_grad" in step  # backward ops
    assert "GradientDescent/update_W" in step and "ApplyGradientDescent" in step
    # W - 0.01 * 52 and b - 0.01 * 15.6: NumPy's gradient-descent step (TF 1.x gives the same)
    assert "after one step: W = -0.22, b = -0.456" in step


def test_tour_saves_and_restores_a_checkpoint():
    out = _run_minitf("tour").stdout
    step = out[out.index("Checkpoint:"):out.index("Result")]
    assert "model.ckpt-0.index" in step and "model.ckpt-0.data-00000-of-00001" in step
    # trained one step away from the initial values, then restored to them
    assert "one training step: W = -0.22, b = -0.456; restored: W = 0.3, b = -0.3" in step


def test_tour_computes_the_getting_started_loss():
    out = _run_minitf("tour").stdout
    assert "loss = 23.66" in out       # W = 0.3, b = -0.3 on TF 1.x's getting-started data


def test_no_command_prints_usage():
    result = _run_minitf()
    assert result.returncode == 0
    assert result.stdout.startswith("usage: python -m minitf COMMAND")
    assert "tour" in result.stdout


def test_unknown_command_fails_with_usage():
    result = _run_minitf("fly")
    assert result.returncode == 2
    assert "unknown command: fly" in result.stderr
    assert "usage:" in result.stderr


def test_the_help_names_every_stage_of_the_tour():
    stages = re.findall(r"^\[\d+/\d+\] (\w+)", _run_minitf("tour").stdout, re.MULTILINE)
    assert len(stages) == 11
    help_text = " ".join(_run_minitf("--help").stdout.split()).lower()
    missing = [stage for stage in stages if stage.lower() not in help_text]
    assert not missing, "python -m minitf --help does not name the stages %s" % missing
