"""Writes the `tf.` names that the source notes' code listings use: tests/compat/data/seed_names.json.

minitf grew from five source notes (docs/seeds.md), kept with the
project's design notes rather than in this repository. Their code listings
(the fenced blocks) call TensorFlow by name: `tf.Session`,
`tf.compat.v1.train.Saver`, `tf.config.threading.set_intra_op_parallelism_threads`.
minitf must answer to every one of them that is a name of TF 1.15, unless it
leaves it out for a reason (minitf/graph/tf1_api_exclusions.txt); the test
tests/compat/test_api_coverage.py checks it against the list this script
writes: each dotted name as the listing writes it, with the notes that use
it. Run it by hand where the notes are, and commit the result:

    python scripts/extract_seed_names.py /path/to/seeds

It reads the notes only (`NNN_*.txt`, Markdown with fenced code blocks);
names in the prose around the listings are not counted.
"""

import collections
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "compat" / "data" / "seed_names.json"

FENCED_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.S)
# `tf.` and a dotted name, not preceded by a word or a dot (so `self.tf.x` and `gtf.x` are not)
TF_NAME = re.compile(r"(?<![\w.])tf(?:\.[A-Za-z_]\w*)+")


def names_in(text):
    """The dotted `tf.` names in the fenced code blocks of a note."""
    return {match.group(0) for block in FENCED_BLOCK.findall(text)
            for match in TF_NAME.finditer(block)}


def main(seeds_dir):
    used_by = collections.defaultdict(set)
    notes = sorted(pathlib.Path(seeds_dir).glob("[0-9][0-9][0-9]_*.txt"))
    if not notes:
        raise SystemExit("no notes (NNN_*.txt) in %s" % seeds_dir)
    for note in notes:
        for name in names_in(note.read_text(encoding="utf-8")):
            used_by[name].add(note.name[:3])
    source = ("the fenced code blocks of the source notes %s"
              % ", ".join(note.name[:3] for note in notes))
    lines = ["%s: %s" % (json.dumps(name), json.dumps(sorted(used_by[name])))
             for name in sorted(used_by)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text('{"source": %s,\n"made_by": "scripts/extract_seed_names.py",\n'
                   '"names": {\n%s\n}}\n' % (json.dumps(source), ",\n".join(lines)),
                   encoding="utf-8")
    print("%s: %d names from %d notes" % (OUT.relative_to(ROOT), len(used_by), len(notes)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
