"""Every tutorial notebook is stored without outputs and runs from top to bottom.

The notebooks run as the site's build runs them (`docs/hooks.py`,
`run_notebook`), once for the whole test run.
"""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from importlib.metadata import version

import pytest
from course_pages import load_hooks

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "tutorials").glob("*.ipynb"))
hooks = load_hooks()


def _name(path):
    return path.name


def test_there_are_tutorial_notebooks():
    assert NOTEBOOKS, "no notebooks under tutorials/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_notebook_is_stored_without_outputs(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    dirty = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"
             and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, "%s: cells %s have stored outputs; clear them before committing" % (
        path.name, dirty)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_notebook_runs(path):
    notebook = hooks.run_notebook("tutorials/" + path.name)  # raises when a cell fails
    errors = [output for cell in notebook.cells for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert not errors
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code)   # every cell ran


def test_a_failing_notebook_names_itself(tmp_path, monkeypatch):
    broken = tmp_path / "tutorials" / "broken.ipynb"
    broken.parent.mkdir()
    broken.write_text(json.dumps({
        "cells": [{"cell_type": "code", "id": "cell-0", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": "raise ValueError('the tutorial broke')"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    with pytest.raises(hooks.DirectiveError, match="tutorials/broken.ipynb failed"):
        hooks.run_notebook("tutorials/broken.ipynb")


def test_the_readme_notebook_command_serves_the_tutorials(tmp_path):
    """`jupyter lab tutorials/`, as the README says, after its install: JupyterLab 4.1 or
    later (the first to draw the Mermaid that visualize.show emits) serves the tutorials."""
    jupyter = shutil.which("jupyter", path=os.path.dirname(sys.executable)) or shutil.which(
        "jupyter")
    assert jupyter, "no jupyter: pip install -e '.[dev]' installs JupyterLab"
    assert tuple(map(int, version("jupyterlab").split(".")[:2])) >= (4, 1)
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    server = subprocess.Popen(
        [jupyter, "lab", "tutorials/", "--no-browser", "--ip=127.0.0.1", "--port=%d" % port,
         "--IdentityProvider.token=", "--ServerApp.port_retries=0"]
        + (["--allow-root"] if os.geteuid() == 0 else []),  # as the README says for root
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listing = _get_json("http://127.0.0.1:%d/api/contents" % port, server, deadline_s=60)
        lab = urllib.request.urlopen("http://127.0.0.1:%d/lab" % port, timeout=10)
        assert lab.status == 200 and b"JupyterLab" in lab.read()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    served = {item["name"] for item in listing["content"]}
    assert {path.name for path in NOTEBOOKS} <= served


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get_json(url, server, deadline_s):
    """GETs `url` until the server answers (or exits, or the time is up)."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return json.load(answer)
        except OSError:
            assert server.poll() is None, "jupyter lab exited with %s" % server.returncode
            assert time.monotonic() < deadline, "jupyter lab did not answer in %d s" % deadline_s
            time.sleep(0.25)
