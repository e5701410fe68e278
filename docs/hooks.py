"""MkDocs hooks of the course: code included from the source, figures drawn by minitf.

A page never holds a copy of minitf's code or a hand-drawn picture of what
minitf builds. Instead it holds directives, which this hook expands when the
site is built:

    <!-- include: minitf/executor/executor.py::ExecutorState.node_done -->
        the exact source of that class, function, method or module-level
        assignment, found with `ast`, as a Python block titled with its file
        and numbered with its real line numbers. Without `::NAME`, the whole
        module.
    <!-- diagram: NAME -->
        a Mermaid figure that `figure(NAME)` of `docs/figures.py` draws from
        the running example (user-graph, graph-def, pruned-graph, ...).
    <!-- listing: NAME -->
        a text listing from `listing(NAME)` of `docs/figures.py` (a GraphDef
        as text, a schedule table).
    <!-- coverage: summary -->, <!-- coverage: modules -->
        how much of TensorFlow 1.15's API minitf has: a table per module,
        and the names (`docs/api_coverage.py`).
    <!-- notebook: tutorials/NAME.ipynb -->
        a tutorial notebook, executed when the site is built: its Markdown
        cells, its code as Python blocks, and each cell's outputs (printed
        text, Markdown such as the Mermaid figures of `visualize.show`).

A directive that names something missing fails the build with a message
naming the page and the directive, so the docs cannot drift from the code.
The functions are plain Python, so the test suite checks every directive
without running MkDocs (tests/course/test_docs_build.py).
"""

import ast
import functools
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import nbclient
import nbformat

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
# The course builds from a checkout, installed or not; its figures live beside this file.
for _path in (ROOT, DOCS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import api_coverage  # noqa: E402 - needs docs/ and the checkout on sys.path first
import figures  # noqa: E402

DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)<!--\s*(?P<kind>include|diagram|listing|notebook|"
                       r"coverage):"
                       r"\s*(?P<arg>\S+)\s*-->[ \t]*$")


class DirectiveError(Exception):
    """A directive that cannot be expanded; the message says why."""


# =============================================================================
# MkDocs entry point
# =============================================================================

def on_page_markdown(markdown, page, config, files, **kwargs):
    """Expands the page's directives; a broken one fails the build."""
    try:
        return expand(markdown)
    except DirectiveError as e:
        from mkdocs.exceptions import PluginError  # noqa: PLC0415 - only under MkDocs
        raise PluginError("docs/%s: %s" % (page.file.src_path, e)) from None


def expand(markdown):
    """The page's Markdown with every directive replaced by what it stands for.

    Directives inside fenced code blocks are text (the style guide shows
    some) and are left alone.
    """
    lines = []
    for line, in_fence in _lines_with_fence_state(markdown):
        match = None if in_fence else DIRECTIVE.match(line)
        if match is None:
            lines.append(line)
            continue
        text = EXPANDERS[match.group("kind")](match.group("arg"))
        indent = match.group("indent")
        lines.extend(indent + part if part else part for part in text.splitlines())
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else "")


def directives(markdown):
    """(kind, argument) of every directive in a page outside code blocks, in order."""
    found = []
    for line, in_fence in _lines_with_fence_state(markdown):
        match = None if in_fence else DIRECTIVE.match(line)
        if match is not None:
            found.append((match.group("kind"), match.group("arg")))
    return found


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def _lines_with_fence_state(markdown):
    """Each line, with True when it is inside (or delimits) a fenced code block."""
    fence = None
    for line in markdown.splitlines():
        match = FENCE.match(line)
        if fence is None:
            fence = match.group("fence") if match else None
            yield line, fence is not None
        else:
            if _closes(line, fence):
                fence = None
            yield line, True


def _closes(line, fence):
    stripped = line.strip()
    return set(stripped) == {fence[0]} and len(stripped) >= len(fence)


def python_blocks(markdown):
    """(first line number, code) of every block fenced as exactly `python`, in order.

    These are the blocks the test suite runs (tests/course/test_docs_code.py).
    """
    blocks, current, indent, fence = [], None, "", None
    for number, line in enumerate(markdown.splitlines(), start=1):
        if fence is None:
            match = FENCE.match(line)
            if match:
                fence, indent = match.group("fence"), match.group("indent")
                if match.group("info").strip() == "python":
                    current = (number + 1, [])
        elif _closes(line, fence):
            if current is not None:
                blocks.append((current[0], textwrap.dedent("\n".join(current[1])) + "\n"))
            current, fence = None, None
        elif current is not None:
            current[1].append(line[len(indent):] if line.startswith(indent) else line)
    return blocks


# =============================================================================
# Code included from the source
# =============================================================================

def include(target):
    """A titled, line-numbered Python block with the source that `target` names."""
    path, _, dotted = target.partition("::")
    source, first_line = find_source(path, dotted)
    title = path + (" — " + dotted if dotted else "")
    fence = _fence_for(source)
    return '%spython title="%s" linenums="%d"\n%s\n%s' % (fence, title, first_line,
                                                         source.rstrip("\n"), fence)


def find_source(path, dotted=""):
    """(source text, first line number) of `dotted` in the file `path` (relative to the repo)."""
    file = ROOT / path
    if not path.endswith(".py") or not file.is_file():
        raise DirectiveError("include: no Python file %r in the repository" % path)
    text = file.read_text(encoding="utf-8")
    if not dotted:
        return text, 1
    node = _find_node(ast.parse(text, filename=path), dotted, path)
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno] + [d.lineno for d in decorators])
    lines = text.splitlines()[first - 1:node.end_lineno]
    return textwrap.dedent("\n".join(lines)) + "\n", first


def _find_node(tree, dotted, path):
    body, found = tree.body, None
    for depth, part in enumerate(dotted.split(".")):
        found = next((n for n in body if _defines(n, part)), None)
        if found is None:
            where = ".".join(dotted.split(".")[:depth]) or "module level"
            raise DirectiveError("include: %s has no %r (looked for %r at %s)"
                                 % (path, dotted, part, where))
        body = getattr(found, "body", [])
    return found


def _defines(node, name):
    """True when a statement defines `name`: a def, a class or an assignment."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


def _fence_for(text):
    """A backtick fence longer than any run of backticks inside `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


# =============================================================================
# Figures and listings drawn by minitf
# =============================================================================

def diagram(name):
    if name not in figures.FIGURES:
        raise DirectiveError("diagram: no figure %r; docs/figures.py FIGURES has %s"
                             % (name, ", ".join(sorted(figures.FIGURES))))
    try:
        mermaid = figures.figure(name)
    except Exception as e:  # noqa: BLE001 - any failure is reported against the page
        raise DirectiveError("diagram: drawing %r failed: %s: %s"
                             % (name, type(e).__name__, e)) from e
    return "```mermaid\n%s\n```" % mermaid


def listing(name):
    if name not in figures.LISTINGS:
        raise DirectiveError("listing: no listing %r; docs/figures.py LISTINGS has %s"
                             % (name, ", ".join(sorted(figures.LISTINGS))))
    try:
        text = figures.listing(name)
    except Exception as e:  # noqa: BLE001
        raise DirectiveError("listing: producing %r failed: %s: %s"
                             % (name, type(e).__name__, e)) from e
    return "```text\n%s\n```" % text.rstrip("\n")


# =============================================================================
# Notebooks
# =============================================================================

NOTEBOOK_TIMEOUT_S = 60  # for one cell; the tutorials' cells take well under a second


def notebook(path):
    """The notebook run from top to bottom: Markdown as it is, code as Python blocks,
    each followed by what it printed and displayed."""
    executed = run_notebook(path)
    note = ('!!! note "A notebook"\n    This page is `%s`, run when the site was built. Run '
            "it yourself with `jupyter lab tutorials/` (the notebooks are stored without "
            "outputs; the test suite runs them too)." % path)
    parts = []
    for cell in executed["cells"]:
        if cell["cell_type"] == "markdown":
            parts.append(cell["source"])
        elif cell["cell_type"] == "code":
            parts.append(_python_block(cell["source"]))
            parts.extend(_output_text(output, path) for output in cell.get("outputs", []))
    first_is_title = executed["cells"] and executed["cells"][0]["cell_type"] == "markdown"
    parts.insert(1 if first_is_title else 0, note)
    return "\n\n".join(part for part in parts if part)


def run_notebook(path):
    """The notebook at `path` (relative to the repository), executed, as an nbformat node.

    Runs each notebook once per process (the docs build and the tests share
    it); a cell that fails is a DirectiveError naming it.
    """
    file = ROOT / path
    if not path.endswith(".ipynb") or not file.is_file():
        raise DirectiveError("notebook: no notebook %r in the repository" % path)
    return _run_notebook_text(path, file.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _run_notebook_text(path, text):
    notebook = nbformat.reads(text, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=NOTEBOOK_TIMEOUT_S, kernel_name="python3",
                                     resources={"metadata": {"path": str((ROOT / path).parent)}})
    # The kernel is a process of its own: it finds minitf through PYTHONPATH,
    # whether or not the checkout is installed; what it logs is not the notebook's.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    try:
        client.execute(env=env, stderr=subprocess.DEVNULL)
    except nbclient.exceptions.CellExecutionError as e:
        raise DirectiveError("notebook: %s failed:\n%s" % (path, e)) from None
    return notebook


def _python_block(source):
    fence = _fence_for(source)
    return "%spython\n%s\n%s" % (fence, source.rstrip("\n"), fence)


def _output_text(output, path):
    """One output of a code cell as Markdown: text as a text block, Markdown as it is."""
    if output["output_type"] == "stream":
        return _output_block(output["text"])
    if output["output_type"] not in ("execute_result", "display_data"):
        raise DirectiveError("notebook: %s has an output of type %r"
                             % (path, output["output_type"]))
    data = output["data"]
    if "text/markdown" in data:
        return data["text/markdown"]
    if "image/png" in data:
        return "![output](data:image/png;base64,%s)" % data["image/png"].replace("\n", "")
    if "text/plain" in data:
        return _output_block(data["text/plain"])
    raise DirectiveError("notebook: %s displays %s, which the site cannot show"
                         % (path, ", ".join(sorted(data))))


def _output_block(text):
    """Printed text, in a block of class "output" (docs/stylesheets/course.css wraps it)."""
    fence = _fence_for(text)
    return "%s{.text .output}\n%s\n%s" % (fence, text.rstrip("\n"), fence)


# =============================================================================
# API coverage
# =============================================================================

COVERAGE_PARTS = {"summary": api_coverage.summary, "modules": api_coverage.modules}


def coverage(part):
    if part not in COVERAGE_PARTS:
        raise DirectiveError("coverage: no part %r; there are %s"
                             % (part, ", ".join(sorted(COVERAGE_PARTS))))
    return COVERAGE_PARTS[part]()


EXPANDERS = {"include": include, "diagram": diagram, "listing": listing, "notebook": notebook,
             "coverage": coverage}
