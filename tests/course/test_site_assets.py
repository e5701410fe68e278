"""The site carries what its pages load: Mermaid pinned, with its licence, and no web fonts.

The browser check (test_site_in_browser.py) proves that the built site
draws every diagram with the network off; these tests say why, without a
browser: the theme is told to load Mermaid from the site and no fonts from
Google, and the copy of Mermaid in docs/assets/mermaid/ is the one its
NOTICE names (scripts/vendor_mermaid.py wrote both).
"""

import hashlib
import re

from course_pages import DOCS, ROOT, mkdocs_config

MERMAID = DOCS / "assets" / "mermaid"


def notice():
    text = (MERMAID / "NOTICE").read_text(encoding="utf-8")
    return dict(re.findall(r"^(\w+):\s+(.*)$", text, re.MULTILINE)), text


def test_mermaid_is_the_pinned_version_named_in_its_notice():
    fields, text = notice()
    version = re.match(r"Mermaid (\d+\.\d+\.\d+),", text).group(1)
    script = (MERMAID / "mermaid.min.js").read_bytes()
    assert hashlib.sha256(script).hexdigest() == fields["sha256"]
    assert ('version:"%s"' % version).encode() in script
    assert "mermaid@%s" % version in fields["file"]
    vendor = (ROOT / "scripts" / "vendor_mermaid.py").read_text(encoding="utf-8")
    assert 'VERSION = "%s"' % version in vendor


def test_mermaid_comes_with_its_licence():
    fields, _ = notice()
    assert fields["licence"].startswith("MIT")
    assert "MIT License" in (MERMAID / "LICENSE").read_text(encoding="utf-8")


def test_the_theme_loads_mermaid_from_the_site_and_no_web_fonts():
    config = mkdocs_config()
    assert config["extra_javascript"] == ["assets/mermaid/mermaid.min.js"]
    assert config["theme"]["font"] is False
