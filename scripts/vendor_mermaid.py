"""Puts a pinned Mermaid into the course site: docs/assets/mermaid/.

The course's diagrams are Mermaid text that the reader's browser draws. The
site serves Mermaid itself (mkdocs.yml's extra_javascript), so the diagrams
draw with no network: this script takes `dist/mermaid.min.js` and the licence
from the npm package `mermaid` at VERSION and writes them, with a NOTICE
that records the version, the file's SHA-256 and where it came from, into
docs/assets/mermaid/. Run it by hand to change the version (it needs npm);
tests/course/test_site_assets.py checks the file against the NOTICE.

    python scripts/vendor_mermaid.py [VERSION]
"""

import hashlib
import pathlib
import subprocess
import sys
import tarfile
import tempfile

VERSION = "11.17.2"  # the 11.x line that mkdocs-material 9.x drives
ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "assets" / "mermaid"

NOTICE = """Mermaid {version}, the diagram renderer of the course site.

file:    mermaid.min.js, from dist/mermaid.min.js of the npm package mermaid@{version}
sha256:  {sha256}
licence: MIT, Copyright (c) 2014 - 2022 Knut Sveidqvist (LICENSE beside this file);
         the libraries it bundles carry their licences at the end of mermaid.min.js
source:  https://github.com/mermaid-js/mermaid
updated: python scripts/vendor_mermaid.py VERSION
"""


def main(version=VERSION):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", "--silent", "mermaid@" + version, "--pack-destination",
                        tmp], check=True, stdout=subprocess.DEVNULL)
        (tarball,) = pathlib.Path(tmp).glob("mermaid-*.tgz")
        with tarfile.open(tarball) as archive:
            script = archive.extractfile("package/dist/mermaid.min.js").read()
            licence = archive.extractfile("package/LICENSE").read()
    TARGET.mkdir(parents=True, exist_ok=True)
    (TARGET / "mermaid.min.js").write_bytes(script)
    (TARGET / "LICENSE").write_bytes(licence)
    (TARGET / "NOTICE").write_text(NOTICE.format(
        version=version, sha256=hashlib.sha256(script).hexdigest()), encoding="utf-8")
    print("docs/assets/mermaid: Mermaid %s (%d bytes)" % (version, len(script)))


if __name__ == "__main__":
    main(*sys.argv[1:])
