"""What minitf covers of TensorFlow 1.15's API, module by module.

The course's page "What minitf covers" (docs/coverage.md) holds three
directives that `docs/hooks.py` expands when the site is built:
`<!-- coverage: summary -->`, a table of how many of each module's names
minitf has, `<!-- coverage: modules -->`, the names themselves, module by
module, those minitf has, those it has not yet and those it leaves out, and
`<!-- coverage: exclusions -->`, the names left out with their reasons.

TF 1.15's names are the list in minitf/graph/tf1_api_names.json (written
by scripts/extract_tf_api.py from the reference TensorFlow); a name counts
as covered when minitf's module of the same path has it (`tf.nn.relu`:
`minitf.nn.relu`). A name minitf leaves out on purpose
(minitf/graph/tf1_api_exclusions.txt) counts neither way: a module's share
is of the names it does not leave out. `coverage()` gives the numbers to
anything else that needs them, such as the test that holds every module to
90 % (tests/compat/test_api_coverage.py).

This module belongs to the docs, not to minitf: the library never imports it.
"""

import collections

import minitf
from minitf.graph import tf1_api


class Coverage(collections.namedtuple("Coverage", ["module", "have", "missing", "excluded"])):
    """One module: the names minitf has, those it lacks, and those it leaves out."""

    @property
    def counted(self):
        """How many names the share is of: all but those left out."""
        return len(self.have) + len(self.missing)

    @property
    def percent(self):
        """The share of the counted names minitf has, in percent (100 when none are counted)."""
        return 100.0 * len(self.have) / self.counted if self.counted else 100.0


def coverage():
    """A Coverage per module of TF 1.15, `tf` first."""
    result = []
    for path, names in sorted(tf1_api.tf1_names().items(), key=lambda item: (
            item[0] != "tf", item[0])):
        module = minitf_module(path)
        have = sorted(n for n in names if module is not None and hasattr(module, n))
        lacking = sorted(names.difference(have))
        excluded = [n for n in lacking if tf1_api.exclusion_reason(path + "." + n)]
        result.append(Coverage(path, have, [n for n in lacking if n not in excluded], excluded))
    return result


def minitf_module(path):
    """minitf's module for TF's module path ("tf.nn" -> minitf.nn), or None if it has none."""
    module = minitf
    for part in path.split(".")[1:]:
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def _share(have, counted):
    return "%d %%" % (100 * have // counted) if counted else "-"


def summary():
    """A Markdown table: per module, TF 1.15's names, those left out, how many minitf has,
    the share."""
    rows = ["| module | names in TF 1.15 | left out | in minitf | share |",
            "|---|--:|--:|--:|--:|"]
    items = coverage()
    for item in items:
        rows.append("| [`%s`](#%s) | %d | %d | %d | %s |" % (
            item.module, _anchor(item.module), item.counted + len(item.excluded),
            len(item.excluded), len(item.have), _share(len(item.have), item.counted)))
    have = sum(len(item.have) for item in items)
    counted = sum(item.counted for item in items)
    excluded = sum(len(item.excluded) for item in items)
    rows.append("| **all** | **%d** | **%d** | **%d** | **%s** |" % (
        counted + excluded, excluded, have, _share(have, counted)))
    return "\n".join(rows)


def modules():
    """Per module, a section listing the names minitf has, those it has not yet, and those
    it leaves out."""
    sections = []
    for item in coverage():
        text = ("## `%s` { #%s }\n\n%d of %d names (%s).\n\n**In minitf:** %s\n\n"
                "**Not yet:** %s" % (item.module, _anchor(item.module), len(item.have),
                                     item.counted, _share(len(item.have), item.counted),
                                     _names(item.have), _names(item.missing)))
        if item.excluded:
            text += "\n\n**Left out:** %s (see [below](#left-out))" % _names(item.excluded)
        sections.append(text)
    return "\n\n".join(sections)


def exclusions():
    """A Markdown table of the names minitf leaves out, each with its reason."""
    rows = ["| name | why minitf leaves it out |", "|---|---|"]
    for name, reason in tf1_api.exclusions().items():
        rows.append("| `%s` | %s |" % (name, reason))
    return "\n".join(rows)


def _anchor(module):
    return module.replace(".", "-")


def _names(names):
    return ", ".join("`%s`" % name for name in names) if names else "none."
