"""What can drift between the course's texts and what they describe, checked.

The README's marker table against the markers `pyproject.toml` declares,
the chapters' numbers in the nav against the pages and the landing page's
learning path, the README's test command against `.ci/run`, and minitf's
version against the package's. (The help of `python -m minitf` against the
tour's stages is checked in test_tour.py.)
"""

import ast
import re

from course_pages import DOCS, ROOT, mkdocs_config

import minitf as tf

# Markers that do not stand for a chapter of the course.
NOT_CHAPTERS = {"gpu"}  # tests that need a real CUDA GPU, in whatever chapter


def declared_markers():
    """The markers of pyproject.toml's [tool.pytest.ini_options], name -> description."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^markers = \[\n(.*?)^\]", text, re.MULTILINE | re.DOTALL).group(1)
    return dict(re.findall(r'^\s*"(\w+): (.*)",?$', block, re.MULTILINE))


def readme_marker_table():
    """The markers listed in the README's "Tests per chapter" table."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Tests per chapter"):]
    return re.findall(r"^\| `pytest -m (\w+)` \|", section, re.MULTILINE)


def conftest_chapters():
    """The folder names that tests/conftest.py turns into chapter markers."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "_CHAPTERS":
            return ast.literal_eval(node.value)
    raise AssertionError("tests/conftest.py defines no _CHAPTERS")


def test_the_readme_lists_every_chapter_marker_once():
    chapters = set(declared_markers()) - NOT_CHAPTERS
    table = readme_marker_table()
    assert len(table) == len(set(table)), "a marker is listed twice: %s" % table
    assert set(table) == chapters
    assert chapters == conftest_chapters()


def nav():
    return mkdocs_config()["nav"]


def numbered_chapters():
    """(number, title, [pages]) of each numbered entry under the nav's Chapters."""
    section = next(entry["Chapters"] for entry in nav() if "Chapters" in entry)
    found = []
    for entry in section:
        (title, target), = entry.items()
        match = re.match(r"(\d+)\. (.*)", title)
        if match:
            pages = [target] if isinstance(target, str) else [
                page for item in target for page in item.values()]
            found.append((int(match.group(1)), match.group(2), pages))
    return found


def test_the_chapters_are_numbered_one_to_n_in_the_nav():
    numbers = [number for number, _, _ in numbered_chapters()]
    assert numbers == list(range(1, len(numbers) + 1)), numbers


def test_each_chapter_page_carries_its_number_from_the_nav():
    for number, _, pages in numbered_chapters():
        for page in pages:
            heading = (DOCS / page).read_text(encoding="utf-8").splitlines()[0]
            assert heading.startswith("# %d. " % number), (page, heading)


def test_the_learning_path_follows_the_nav():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    path = index[index.index("## The learning path"):]
    items = re.findall(r"^(\d+)\. (.*)$", path, re.MULTILINE)
    listed = [(int(number), re.findall(r"\]\(([\w/]+\.md)\)", text)) for number, text in items]
    assert listed == [(number, pages) for number, _, pages in numbered_chapters()]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("exactly as CI does"):]
    command = re.search(r"```sh\n(.*?)\n```", after, re.DOTALL).group(1)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci, "the README's test command is not a line of .ci/run"


def test_the_version_is_tensorflow_1_15_and_minitf_keeps_its_own():
    assert tf.__version__ == tf.VERSION == "1.15.0"
    assert tf.__version__.startswith("1.")           # what TF1 programs check
    project = re.search(r'^version = "(.*)"$', (ROOT / "pyproject.toml").read_text(
        encoding="utf-8"), re.MULTILINE).group(1)
    assert tf.__minitf_version__ == project
    assert tf.GIT_VERSION == "minitf-" + project
