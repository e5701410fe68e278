"""Reads every page of the built course site in a real browser, with the network off.

`mkdocs build --strict` proves that the pages build; it cannot see what a
reader sees. This check opens the built site in headless Chromium (Debian's
`chromium`, driven by Playwright's Python package; no browser is downloaded),
served on 127.0.0.1 with every other address blocked, and visits every page
it can reach from the landing page through the site's navigation and links.
A page fails when:

- a diagram did not draw (Mermaid refused its text), or draws text smaller
  than MIN_TEXT_PX once scaled to the column;
- the browser logged an error, or the page asked for anything that is not on
  the site (a font, a script from a CDN: offline it would be missing);
- a link points at a page, file or anchor the site does not have, or an
  image does not load;
- its main content is wider than the column (the page scrolls sideways), or
  a code block or table needs sideways scrolling of its own;
- it is not reachable from the landing page (an orphan), or the theme's
  navigation is missing.

It saves a screenshot of every page. The test suite runs it on the course
and on a small site with one fault per page (tests/course/test_site_in_browser.py);
by hand:

    apt-get install chromium            # Debian's, once
    python tests/course/check_site_in_browser.py [--site DIR] [--out DIR]

which builds the site (unless --site names a built one), prints one line per
page and exits with 1 when any page has a problem.
"""

import argparse
import collections
import functools
import html.parser
import http.server
import os
import pathlib
import posixpath
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The reader's window: a laptop screen, where the theme shows its navigation
# beside the content.
VIEWPORT = {"width": 1280, "height": 900}
# The smallest text a diagram may draw, in CSS pixels once it is scaled to
# the column (the body text is 16 px; below about 10 px it is hard to read).
MIN_TEXT_PX = 10
# How long a page's diagrams may take to draw.
DIAGRAM_TIMEOUT_S = 10
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync",
                  # Nothing but the site resolves: the network is off for the browser.
                  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]

Page = collections.namedtuple("Page", ["path", "problems", "diagrams", "screenshot"])


def find_chromium():
    """The path of Debian's Chromium, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def build_site(site_dir, config_file=ROOT / "mkdocs.yml", strict=True):
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config_file),
               "-d", str(site_dir)] + (["--strict"] if strict else [])
    # (The theme's notice about its successor says nothing about this site.)
    subprocess.run(command, cwd=ROOT, check=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))


# =============================================================================
# The site's files: pages, links and anchors, read from the built HTML
# =============================================================================

class _PageParser(html.parser.HTMLParser):
    """Collects a page's links (`href`s and `src`s) and its element ids."""

    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") == "canonical"):
                self.links.append((tag, attrs[key]))


class SiteFiles:
    """The built site on disk: which pages link where, and which anchors exist."""

    def __init__(self, site_dir):
        self.site_dir = pathlib.Path(site_dir)
        self._parsed = {}

    def parse(self, path):
        """(links, ids) of the page at site path `path` ("" for the landing page)."""
        if path not in self._parsed:
            parser = _PageParser()
            parser.feed(self.file_of(path).read_text(encoding="utf-8"))
            self._parsed[path] = (parser.links, parser.ids)
        return self._parsed[path]

    def file_of(self, path):
        """The file that the site path `path` serves (a folder serves its index.html)."""
        file = self.site_dir / path
        return file / "index.html" if path == "" or path.endswith("/") or file.is_dir() else file

    def pages(self):
        """Every HTML page of the site, as site paths, and those reachable from the landing page."""
        on_disk = sorted(str(p.relative_to(self.site_dir)).replace("index.html", "")
                         for p in self.site_dir.rglob("*.html") if p.name != "404.html")
        reached, queue = [], [""]
        while queue:
            path = queue.pop(0)
            if path in reached:
                continue
            reached.append(path)
            for target, _ in self._internal_links(path):
                if target not in reached and target in on_disk:
                    queue.append(target)
        return on_disk, reached

    def _internal_links(self, path):
        """(target site path, fragment) of every link of a page that stays on the site."""
        links, _ = self.parse(path)
        for _, link in links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            base = path if path.endswith("/") or path == "" else posixpath.dirname(path) + "/"
            target = posixpath.normpath(posixpath.join(base, urllib.parse.unquote(parts.path)))
            target = "" if target == "." else target
            if parts.path.endswith("/") and target:
                target += "/"
            if not parts.path:
                target = path
            if posixpath.basename(target) == "index.html":
                target = target[:-len("index.html")]     # the folder's page, as on_disk names it
            yield target, parts.fragment

    def broken_links(self, path):
        """Links of a page to a file or an anchor that the site does not have."""
        broken = []
        for target, fragment in self._internal_links(path):
            file = self.file_of(target)
            if target.split("/")[0] == ".." or not file.is_file():
                broken.append("broken link to /%s" % target)
            elif fragment and file.suffix == ".html" and fragment not in self.parse(target)[1]:
                broken.append("broken link to /%s#%s" % (target, fragment))
        return sorted(set(broken))


# =============================================================================
# Serving the site
# =============================================================================

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class SiteServer:
    """Serves a built site on 127.0.0.1 (a free port) in a thread, while in a `with`."""

    def __init__(self, site_dir):
        handler = functools.partial(_QuietHandler, directory=str(site_dir))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = "http://127.0.0.1:%d/" % self.server.server_address[1]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


# =============================================================================
# What the browser sees
# =============================================================================

# The theme draws each diagram into a closed shadow root that replaces the
# <pre class="mermaid"> holding its text. The check opens those roots so it
# can measure what they hold; nothing else on the page changes.
_OPEN_SHADOW_ROOTS = """
const attachShadow = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) {
  return attachShadow.call(this, Object.assign({}, init, {mode: "open"}));
};
"""

_DIAGRAMS_SETTLED = "() => document.querySelectorAll('pre.mermaid').length"

# Everything measured on a page once its diagrams are drawn.
_MEASURE = """
() => {
  const result = {nav: !!document.querySelector(".md-nav"), undrawn: 0, diagrams: [],
                  images: [], overflow: null, scrolling: []};
  result.undrawn = document.querySelectorAll("pre.mermaid").length;
  document.querySelectorAll("div.mermaid").forEach((div) => {
    const svg = div.shadowRoot && div.shadowRoot.querySelector("svg");
    if (!svg) { result.diagrams.push({error: "no picture"}); return; }
    const box = svg.getBoundingClientRect();
    const viewBox = svg.viewBox && svg.viewBox.baseVal;
    const scale = viewBox && viewBox.width ? box.width / viewBox.width : 1;
    let smallest = Infinity, sample = "";
    svg.querySelectorAll("text, tspan, span, p, div").forEach((element) => {
      const own = Array.from(element.childNodes).some(
        (node) => node.nodeType === Node.TEXT_NODE && node.textContent.trim());
      if (!own) return;
      const size = parseFloat(getComputedStyle(element).fontSize) * scale;
      if (size < smallest) { smallest = size; sample = element.textContent.trim(); }
    });
    const text = svg.textContent;
    result.diagrams.push({
      error: /Syntax error|Parse error/i.test(text) ? "Mermaid: " + text.trim().slice(0, 80) : null,
      smallest: smallest === Infinity ? null : smallest, sample: sample.slice(0, 40),
      width: Math.round(box.width)});
  });
  const content = document.querySelector("article.md-content__inner") || document.body;
  const column = document.querySelector(".md-content") || document.body;
  document.querySelectorAll("article img, .md-content img").forEach((img) => {
    if (!(img.complete && img.naturalWidth > 0)) result.images.push(img.getAttribute("src"));
  });
  const page = document.documentElement;
  if (column.scrollWidth > column.clientWidth + 1 || page.scrollWidth > page.clientWidth + 1) {
    result.overflow = Math.max(column.scrollWidth - column.clientWidth,
                               page.scrollWidth - page.clientWidth);
  }
  content.querySelectorAll("pre > code, .md-typeset__scrollwrap, table").forEach((box) => {
    if (box.scrollWidth > box.clientWidth + 1) {
      const first = (box.textContent || "").trim().split("\\n")[0];
      result.scrolling.push({kind: box.tagName.toLowerCase(),
                             excess: box.scrollWidth - box.clientWidth, first: first.slice(0, 60)});
    }
  });
  return result;
}
"""


class Browser:
    """Headless Chromium, driven by Playwright, with the network off but for one site.

    One page visits the site's pages in turn (the browser's cache keeps
    Mermaid parsed between them); what it reports is collected per visit.
    """

    def __init__(self, executable=None):
        self._playwright = sync_playwright().start()
        try:
            # Playwright gives every launch a fresh, empty --user-data-dir of its own.
            self._browser = self._playwright.chromium.launch(
                executable_path=executable or find_chromium(), args=CHROMIUM_FLAGS)
        except BaseException:
            self._playwright.stop()
            raise
        self._page, self._origin, self._problems = None, None, []

    def close(self):
        self._browser.close()
        self._playwright.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _open(self, origin):
        if self._page is not None and self._origin == origin:
            return self._page
        if self._page is not None:
            self._page.context.close()
        context = self._browser.new_context(viewport=VIEWPORT, service_workers="block")
        context.add_init_script(_OPEN_SHADOW_ROOTS)
        context.route("**/*", self._only_the_site)
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and self._problems.append(
            "console error: %s" % message.text[:200]))
        page.on("pageerror", lambda error: self._problems.append(
            "script error: %s" % str(error)[:200]))
        page.on("response", lambda response: response.status >= 400 and self._problems.append(
            "HTTP %d for %s" % (response.status, response.url)))
        self._page, self._origin = page, origin
        return page

    def _only_the_site(self, route):
        """Lets requests to the site through; anything else is refused and reported."""
        if urllib.parse.urlsplit(route.request.url).netloc == self._origin:
            route.continue_()
        else:
            self._problems.append("loads from outside the site: %s" % route.request.url[:120])
            route.abort()

    def visit(self, url, screenshot):
        """Problems a reader would meet at `url`, and the number of diagrams there."""
        page = self._open(urllib.parse.urlsplit(url).netloc)
        self._problems = problems = []
        page.goto(url, wait_until="load")
        _wait_for_diagrams(page, problems)
        measured = page.evaluate(_MEASURE)
        page.screenshot(path=str(screenshot), full_page=True, type="jpeg", quality=70)
        return problems + _problems_in(measured), len(measured["diagrams"]) + measured["undrawn"]


def _wait_for_diagrams(page, problems):
    """Waits until no diagram is left undrawn, a script failed, or the time is up."""
    deadline = time.monotonic() + DIAGRAM_TIMEOUT_S
    while page.evaluate(_DIAGRAMS_SETTLED) and time.monotonic() < deadline:
        if any(p.startswith(("script error", "console error")) for p in problems):
            break
        page.wait_for_timeout(100)


def _problems_in(measured):
    problems = []
    if not measured["nav"]:
        problems.append("no theme navigation")
    if measured["undrawn"]:
        problems.append("%d diagram(s) not drawn: Mermaid refused their text"
                        % measured["undrawn"])
    for number, diagram in enumerate(measured["diagrams"], start=1):
        if diagram["error"]:
            problems.append("diagram %d: %s" % (number, diagram["error"]))
        elif diagram["smallest"] is not None and diagram["smallest"] < MIN_TEXT_PX:
            problems.append("diagram %d: text %.1f px high (%r), under %d px: lay it out "
                            "top-down or split it" % (number, diagram["smallest"],
                                                      diagram["sample"], MIN_TEXT_PX))
    for src in measured["images"]:
        problems.append("image does not load: %s" % src)
    if measured["overflow"]:
        problems.append("the content is %d px wider than the column" % measured["overflow"])
    for box in measured["scrolling"]:
        problems.append("a %s scrolls sideways by %d px: %r" % (box["kind"], box["excess"],
                                                                 box["first"]))
    return problems


# =============================================================================
# The whole check
# =============================================================================

def check_site(site_dir, out_dir, browser=None):
    """A Page for every page of the built site (reached or orphaned), checked in the browser."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = SiteFiles(site_dir)
    on_disk, reached = files.pages()
    own_browser = browser is None
    browser = browser or Browser()
    results = []
    try:
        with SiteServer(site_dir) as server:
            for path in reached:
                shot = out_dir / ((path.strip("/").replace("/", "__") or "index") + ".jpg")
                problems, diagrams = browser.visit(server.base + path, shot)
                results.append(Page(path, files.broken_links(path) + problems, diagrams, shot))
    finally:
        if own_browser:
            browser.close()
    results += [Page(path, ["not reachable from the landing page"], 0, None)
                for path in on_disk if path not in reached]
    return results


def report(pages):
    """One line per page; True when every page is fine."""
    for page in pages:
        status = "ok" if not page.problems else "\n      ".join(page.problems)
        print("/%-45s %2d diagrams  %s" % (page.path, page.diagrams, status))
    return not any(page.problems for page in pages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="a built site (default: build one)")
    parser.add_argument("--out", default="build/site-check", help="where screenshots go")
    args = parser.parse_args()
    if find_chromium() is None:
        sys.exit("Chromium is not installed: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site or pathlib.Path(tmp) / "site"
        if not args.site:
            build_site(site_dir)
        ok = report(check_site(site_dir, args.out))
    print("screenshots in %s" % pathlib.Path(args.out).resolve())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
