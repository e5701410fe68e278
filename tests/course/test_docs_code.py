"""Every ```python block of every docs page runs: a page's blocks in order, in one namespace.

Each page runs in a fresh Python process, as a reader would run it: a fresh
namespace, a fresh default graph, and registries holding only what
`import minitf` registers. Pages register ops, kernels and gradients of
their own (`Cube`, a gradient for `ZeroOut`); in a process of their own
they can neither collide with each other nor leak into the other chapters'
tests (the gradient-coverage rule reads the live registry). A block that
must not run uses another fence language (```text).
"""

import os
import subprocess
import sys

import pytest

from course_pages import PAGES, ROOT, load_hooks, page_id

hooks = load_hooks()
PAGES_WITH_CODE = [p for p in PAGES if hooks.python_blocks(p.read_text(encoding="utf-8"))]

# Runs the python blocks of the page given as argv[1], in order, in one namespace.
_RUN_PAGE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("docs_hooks", sys.argv[2])
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)
with open(sys.argv[1], encoding="utf-8") as page:
    blocks = hooks.python_blocks(page.read())
namespace = {"__name__": "docs_page"}
for line, code in blocks:
    where = "%s, block at line %d" % (sys.argv[3], line)
    exec(compile(code, where, "exec"), namespace)
"""


def test_the_chapters_have_code_to_run():
    names = {page_id(p) for p in PAGES_WITH_CODE}
    for chapter in ("index.md", "graph.md", "ops.md", "session.md", "executor.md",
                    "kernels.md", "gradients.md", "optimizers.md", "device.md",
                    "feature_columns.md", "saver.md", "distributed.md", "config.md",
                    "platform.md", "testing.md"):
        assert chapter in names


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=page_id)
def test_page_code_blocks_run(page):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    done = subprocess.run(
        [sys.executable, "-c", _RUN_PAGE, str(page), str(ROOT / "docs" / "hooks.py"),
         "docs/" + page_id(page)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, "docs/%s failed:\n%s" % (page_id(page), done.stderr[-4000:])


def test_a_failing_block_is_reported_with_its_page_and_line(tmp_path):
    page = tmp_path / "broken.md"
    page.write_text("# Broken\n\n```python\nassert 1 + 1 == 3, 'arithmetic'\n```\n",
                    encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _RUN_PAGE, str(page), str(ROOT / "docs" / "hooks.py"),
         "docs/broken.md"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "docs/broken.md, block at line 4" in done.stderr and "arithmetic" in done.stderr
