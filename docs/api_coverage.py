"""What minitf covers of TensorFlow 1.15's API, module by module.

The course's page "What minitf covers" (docs/coverage.md) holds two
directives that `docs/hooks.py` expands when the site is built:
`<!-- coverage: summary -->`, a table of how many of each module's names
minitf has, and `<!-- coverage: modules -->`, the names themselves, module
by module, those minitf has and those it has not yet.

TF 1.15's names are the list in minitf/graph/tf1_api_names.json (written
by scripts/extract_tf_api.py from the reference TensorFlow); a name counts
as covered when minitf's module of the same path has it (`tf.nn.relu`:
`minitf.nn.relu`). `coverage()` gives the numbers to anything else that
needs them, such as a test of how much is covered.

This module belongs to the docs, not to minitf: the library never imports it.
"""

import collections

import minitf
from minitf.graph import tf1_api

Coverage = collections.namedtuple("Coverage", ["module", "have", "missing"])


def coverage():
    """A Coverage (module path, names minitf has, names it lacks) per module, `tf` first."""
    result = []
    for path, names in sorted(tf1_api.tf1_names().items(), key=lambda item: (
            item[0] != "tf", item[0])):
        module = minitf_module(path)
        have = sorted(n for n in names if module is not None and hasattr(module, n))
        result.append(Coverage(path, have, sorted(names.difference(have))))
    return result


def minitf_module(path):
    """minitf's module for TF's module path ("tf.nn" -> minitf.nn), or None if it has none."""
    module = minitf
    for part in path.split(".")[1:]:
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def _share(have, total):
    return "%d %%" % round(100 * have / total) if total else "-"


def summary():
    """A Markdown table: per module, TF 1.15's names, how many minitf has, the share."""
    rows = ["| module | names in TF 1.15 | in minitf | share |", "|---|--:|--:|--:|"]
    for item in coverage():
        total = len(item.have) + len(item.missing)
        rows.append("| [`%s`](#%s) | %d | %d | %s |" % (
            item.module, _anchor(item.module), total, len(item.have),
            _share(len(item.have), total)))
    have = sum(len(item.have) for item in coverage())
    total = have + sum(len(item.missing) for item in coverage())
    rows.append("| **all** | **%d** | **%d** | **%s** |" % (total, have, _share(have, total)))
    return "\n".join(rows)


def modules():
    """Per module, a section listing the names minitf has and those it has not yet."""
    sections = []
    for item in coverage():
        total = len(item.have) + len(item.missing)
        sections.append("## `%s` { #%s }\n\n%d of %d names.\n\n**In minitf:** %s\n\n"
                        "**Not yet:** %s" % (item.module, _anchor(item.module), len(item.have),
                                             total, _names(item.have), _names(item.missing)))
    return "\n\n".join(sections)


def _anchor(module):
    return module.replace(".", "-")


def _names(names):
    return ", ".join("`%s`" % name for name in names) if names else "none."
