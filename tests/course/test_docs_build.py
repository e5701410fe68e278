"""The docs build: every directive expands, every chapter page follows the skeleton.

`mkdocs build --strict` checks the same in CI; these tests find a broken
include (a renamed function) in the ordinary test run, and say which page.
"""

import re

import pytest
from course_pages import DOCS, PAGES, ROOT, load_hooks, page_id

hooks = load_hooks()

CHAPTERS = {"graph.md": "graph", "ops.md": "ops", "session.md": "session",
            "executor.md": "executor", "kernels.md": "kernels", "gradients.md": "autodiff",
            "optimizers.md": "train", "device.md": "device",
            "feature_columns.md": "feature_column", "saver.md": "saver",
            "layers.md": '"layers or losses"', "training_loop.md": "train",
            "architecture.md": '"framework or proto"',
            "observing.md": '"summary or profiler or metrics"',
            "input_pipelines.md": "data", "distributed.md": "distributed",
            "control_flow.md": "control_flow", "config.md": "config",
            "platform.md": "platform", "testing.md": "test"}


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_directive_expands(page):
    markdown = page.read_text(encoding="utf-8")
    expanded = hooks.expand(markdown)  # raises DirectiveError naming what is missing
    assert hooks.directives(expanded) == []


def test_include_gives_the_exact_source_with_its_line_numbers():
    block = hooks.include("minitf/graph/graph_def.py::parse_input")
    lines = (ROOT / "minitf/graph/graph_def.py").read_text().splitlines()
    first = int(re.search(r'linenums="(\d+)"', block).group(1))
    assert lines[first - 1].startswith("def parse_input(")
    assert 'title="minitf/graph/graph_def.py — parse_input"' in block
    body = block.splitlines()[1:-1]
    assert body == lines[first - 1:first - 1 + len(body)]


def test_include_finds_methods_and_keeps_decorators():
    block = hooks.include("minitf/kernels/cpu/math_kernels.py::matmul")
    assert block.splitlines()[1].startswith('@register_kernel("MatMul"')
    method = hooks.include("minitf/session/direct_session.py::DirectSession.run")
    assert method.splitlines()[1].startswith("def run(self")  # dedented


def test_include_of_a_whole_module():
    block = hooks.include("minitf/executor/step_stats.py")
    assert 'linenums="1"' in block
    assert "class StepStats" in block


@pytest.mark.parametrize("target, message", [
    ("minitf/graph/ops.py::Graph.no_such_method", "has no 'Graph.no_such_method'"),
    ("minitf/graph/ops.py::NoSuchClass", "has no 'NoSuchClass'"),
    ("minitf/no_such_file.py::f", "no Python file 'minitf/no_such_file.py'"),
])
def test_a_missing_include_fails_with_a_clear_message(target, message):
    with pytest.raises(hooks.DirectiveError, match=re.escape(message)):
        hooks.expand("# Page\n\n<!-- include: %s -->\n" % target)


def test_a_missing_figure_fails_with_a_clear_message():
    with pytest.raises(hooks.DirectiveError, match="no figure 'nope'"):
        hooks.expand("<!-- diagram: nope -->\n")


def test_a_missing_coverage_part_fails_with_a_clear_message():
    with pytest.raises(hooks.DirectiveError, match="no part 'nope'; there are exclusions, modules, summary"):
        hooks.expand("<!-- coverage: nope -->\n")


def test_directives_inside_code_blocks_are_left_alone():
    page = "```text\n<!-- include: minitf/nowhere.py::f -->\n```\n"
    assert hooks.expand(page) == page
    assert hooks.directives(page) == []


def test_python_blocks_are_only_the_python_fences():
    page = "```python\na = 1\n```\n\n```text\nb = 2\n```\n\n    ```python\n    c = 3\n    ```\n"
    assert [code for _, code in hooks.python_blocks(page)] == ["a = 1\n", "c = 3\n"]


def test_notebooks_render_as_markdown_and_python_with_their_outputs():
    text = hooks.expand("<!-- notebook: tutorials/01_graphs_and_sessions.ipynb -->\n")
    assert text.startswith("# Graphs and sessions")
    assert "```python" in text and '!!! note "A notebook"' in text
    # what the cells printed, and the graph that visualize.show displayed
    assert "```{.text .output}\nscalar:0 rank 0 shape () float32\n" in text
    assert "```mermaid\nflowchart" in text


def test_every_notebook_has_a_page_in_the_nav():
    notebooks = sorted(p.name for p in (ROOT / "tutorials").glob("*.ipynb"))
    shown = set()
    for page in PAGES:
        for kind, arg in hooks.directives(page.read_text(encoding="utf-8")):
            if kind == "notebook":
                shown.add(arg.split("/")[-1])
    assert notebooks and set(notebooks) <= shown


def test_the_training_chapters_show_their_code_and_figures():
    gradients = hooks.directives((DOCS / "gradients.md").read_text(encoding="utf-8"))
    optimizers = hooks.directives((DOCS / "optimizers.md").read_text(encoding="utf-8"))
    assert ("diagram", "gradient-graph") in gradients
    assert ("include", "minitf/autodiff/gradients_impl.py::_BackwardWalk.run") in gradients
    assert ("diagram", "training-graph") in optimizers
    assert ("include", "minitf/train/optimizer.py::Optimizer.minimize") in optimizers
    kernels = hooks.directives((DOCS / "kernels.md").read_text(encoding="utf-8"))
    assert ("include", "docs/examples/zero_out.py") in kernels


def test_the_devices_chapter_shows_the_running_example_on_two_cpus():
    device = hooks.directives((DOCS / "device.md").read_text(encoding="utf-8"))
    for figure in ("placed-graph", "partitioned-graph", "device-timeline"):
        assert ("diagram", figure) in device
    for listing in ("partition-graphs", "transfers", "device-schedule"):
        assert ("listing", listing) in device
    for code in ("minitf/graph/device_spec.py::merge_device",
                 "minitf/device/placer.py::_colocation_groups",
                 "minitf/device/partition.py::partition",
                 "minitf/framework/rendezvous.py::create_key"):
        assert ("include", code) in device
    tutorial = hooks.directives(
        (DOCS / "tutorials" / "03_one_graph_two_devices.md").read_text(encoding="utf-8"))
    assert tutorial == [("notebook", "tutorials/03_one_graph_two_devices.ipynb")]


def test_the_feature_column_and_saver_chapters_show_their_code():
    columns = hooks.directives((DOCS / "feature_columns.md").read_text(encoding="utf-8"))
    for code in ("minitf/feature_column/model_functions.py::input_layer",
                 "minitf/feature_column/base.py::_LazyBuilder.get",
                 "minitf/feature_column/embedding_columns.py::_EmbeddingColumn._get_dense_tensor",
                 "minitf/graph/farmhash.py::fingerprint64"):
        assert ("include", code) in columns
    saver = hooks.directives((DOCS / "saver.md").read_text(encoding="utf-8"))
    for code in ("minitf/framework/tensor_bundle.py::write_atomically",
                 "minitf/kernels/cpu/io_kernels.py::restore_v2",
                 "minitf/saver/saver.py::Saver.save"):
        assert ("include", code) in saver
    for name in ("04_wide_and_deep", "05_save_crash_resume"):
        page = (DOCS / "tutorials" / (name + ".md")).read_text(encoding="utf-8")
        assert hooks.directives(page) == [("notebook", "tutorials/%s.ipynb" % name)]


def test_the_distributed_chapter_shows_the_running_example_on_a_cluster():
    page = hooks.directives((DOCS / "distributed.md").read_text(encoding="utf-8"))
    for figure in ("cluster-placed-graph", "cluster-partition-ps", "cluster-partition-worker0",
                   "cluster-partition-worker1"):
        assert ("diagram", figure) in page
    for listing in ("cluster-partitions", "cluster-transfers", "services"):
        assert ("listing", listing) in page
    for code in ("minitf/distributed/master_session.py::_ClientGraph.run_partitions",
                 "minitf/distributed/graph_mgr.py::GraphMgr.register",
                 "minitf/distributed/rpc_rendezvous_mgr.py::RpcRemoteRendezvous.recv_async",
                 "minitf/distributed/grpc_services.py::WorkerServicer.RecvTensor"):
        assert ("include", code) in page
    tutorial = hooks.directives(
        (DOCS / "tutorials" / "08_a_cluster_on_your_laptop.md").read_text(encoding="utf-8"))
    assert tutorial == [("notebook", "tutorials/08_a_cluster_on_your_laptop.ipynb")]


@pytest.mark.parametrize("name", sorted(CHAPTERS))
def test_chapter_pages_follow_the_skeleton(name):
    text = (DOCS / name).read_text(encoding="utf-8")
    for heading in ("## The idea", "## The code", "## Try it", "## Summary",
                    "## Exercises", "## Files"):
        assert heading in text, "%s lacks %r" % (name, heading)
    assert '!!! info "Differences from TensorFlow"' in text
    assert "```mermaid" in text or "<!-- diagram:" in text
    assert "<!-- include:" in text
    answers = text.count('??? success "Answer"')
    assert 2 <= answers <= 4, "%s has %d exercises" % (name, answers)
    assert "**In minitf:**" in text and "**In TensorFlow:**" in text
    assert text.rstrip().endswith("Run this chapter's tests: `pytest -m %s`" % CHAPTERS[name])


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    in_nav = set(re.findall(r":\s*([\w/]+\.md)\s*$", config, re.MULTILINE))
    on_disk = {page_id(p) for p in PAGES}
    assert in_nav == on_disk
