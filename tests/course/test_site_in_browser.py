"""The built course site, read in a real browser with the network off.

check_site_in_browser.py visits every page in headless Chromium; here it
checks the course, and a small site with one fault per page
(tests/course/fixtures/faulty_site/) to prove that it finds each kind of
fault and reports nothing on a good page. Screenshots of the course's pages
go to build/site-check/.

Chromium is Debian's (`apt-get install chromium`; `.ci/run` installs it).
Without it these tests are skipped, and say so, except in CI (where the
variable CI is set), where a missing browser fails them.
"""

import os
import shutil

import check_site_in_browser as check
import pytest
from course_pages import DOCS, ROOT, mkdocs_config

CHROMIUM = check.find_chromium()
FIXTURE = ROOT / "tests" / "course" / "fixtures" / "faulty_site"

if CHROMIUM is None and not os.environ.get("CI"):
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    assert CHROMIUM, "the browser check needs Chromium: apt-get install chromium"
    with check.Browser(CHROMIUM) as browser:
        yield browser


def nav_pages(entries):
    """The site paths of every page in the nav (`graph.md` -> `graph/`)."""
    for entry in entries:
        for target in entry.values():
            if isinstance(target, str):
                yield "" if target == "index.md" else target[:-len(".md")] + "/"
            else:
                yield from nav_pages(target)


def test_every_page_of_the_course_reads_well_offline(browser, tmp_path):
    site = tmp_path / "site"
    check.build_site(site)
    pages = check.check_site(site, ROOT / "build" / "site-check", browser)
    problems = ["/%s: %s" % (page.path, problem) for page in pages for problem in page.problems]
    assert not problems, "\n".join(problems)
    visited = [page.path for page in pages]
    assert set(nav_pages(mkdocs_config()["nav"])) <= set(visited)
    assert len(visited) == len(list(DOCS.rglob("*.md")))
    assert all(page.screenshot.stat().st_size > 10000 for page in pages)
    diagrams = {page.path: page.diagrams for page in pages}
    assert diagrams["layers/"] >= 1 and diagrams["gradients/"] >= 4
    assert diagrams["tutorials/01_graphs_and_sessions/"] >= 1    # drawn from a cell's output


@pytest.fixture(scope="module")
def faulty_site(browser, tmp_path_factory):
    """{site path: problems} of the fixture site, checked."""
    root = tmp_path_factory.mktemp("faulty")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    shutil.copytree(DOCS / "assets" / "mermaid", root / "docs" / "assets" / "mermaid")
    check.build_site(root / "site", config_file=root / "mkdocs.yml", strict=False)
    pages = check.check_site(root / "site", root / "screenshots", browser)
    return {page.path: page.problems for page in pages}


def test_a_good_page_has_no_problems(faulty_site):
    assert faulty_site[""] == []


@pytest.mark.parametrize("path, expected", [
    ("broken-diagram/", "1 diagram(s) not drawn"),
    ("broken-diagram/", "script error: Parse error"),
    ("tiny-diagram/", "diagram 1: text"),
    ("console-error/", "script error: a script on this page failed"),
    ("external/", "loads from outside the site: https://cdn.example.com/style.css"),
    ("broken-link/", "broken link to /no-such-page/"),
    ("broken-link/", "broken link to /#no-such-heading"),
    ("missing-image/", "image does not load: ../figures/missing.png"),
    ("missing-image/", "broken link to /figures/missing.png"),
    ("wide/", "the content is"),
    ("long-code/", "a code scrolls sideways"),
    ("orphan/", "not reachable from the landing page"),
])
def test_the_check_finds_each_fault(faulty_site, path, expected):
    assert any(problem.startswith(expected) for problem in faulty_site[path]), faulty_site[path]


def test_each_fault_is_found_on_its_own_page_only(faulty_site):
    assert not any("#a-heading-to-link-to" in p for p in faulty_site["broken-link/"])
    assert faulty_site["wide/"] == [p for p in faulty_site["wide/"] if "wider" in p]
