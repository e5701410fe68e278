"""How much of TF 1.15's API minitf has, held so it never goes down.

Three checks over minitf/graph/tf1_api_names.json (TF 1.15's names):

* every name minitf leaves out (minitf/graph/tf1_api_exclusions.txt) is a
  name of TF 1.15 that minitf does not have, with a reason;
* each module's share of its names is at least the share recorded in
  tests/compat/data/coverage_floor.json: a ratchet, raised as names are
  added (`python tests/compat/test_api_coverage.py --update` records the
  shares of today), so that coverage only goes up;
* every name of TF 1.15 that a source note's code listing uses
  (tests/compat/data/seed_names.json, written by
  scripts/extract_seed_names.py) is in minitf, or left out for a reason, or
  waits on a part of the API being built now (`pending` in the floor file,
  a list that may only shrink).

The target, 90 % of every module, is the coverage page's to show
(docs/coverage.md); the floor keeps what is reached.
"""

import json
import math
import pathlib
import sys

import pytest

import minitf
from minitf.graph import tf1_api

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FLOOR_FILE = HERE / "data" / "coverage_floor.json"
SEED_FILE = HERE / "data" / "seed_names.json"

# TF 1.15 names (tensorflow/tools/api/golden/v1/tensorflow.pbtxt) that the
# reference TensorFlow 2.x's compat.v1, which the names file is read from,
# no longer has: they may be left out although the names file lacks them.
TF1_ONLY = {"tf.contrib", "tf.estimator"}

sys.path.insert(0, str(ROOT / "docs"))
import api_coverage  # noqa: E402 - docs/ is not a package

FLOOR = json.loads(FLOOR_FILE.read_text(encoding="utf-8"))
COVERAGE = {row.module: row for row in api_coverage.coverage()}


# --- what minitf leaves out ---------------------------------------------------------------

def is_tf1_name(path):
    """True when the dotted `path` ("tf.keras", "tf.io.decode_png") is a name of TF 1.15."""
    module, _, name = path.rpartition(".")
    return path in TF1_ONLY or tf1_api.is_tf1_name(module, name)


def resolve(path):
    """minitf's object for the dotted TF name `path`, or None when minitf lacks it."""
    obj = minitf
    for part in path.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj


@pytest.mark.parametrize("path", sorted(tf1_api.exclusions()))
def test_a_name_left_out_is_tf_1_15s_has_a_reason_and_is_not_in_minitf(path):
    assert is_tf1_name(path), "%s is not a name of TF 1.15: it needs no exclusion" % path
    assert len(tf1_api.exclusions()[path]) > 20, "give %s a reason" % path
    assert resolve(path) is None, "minitf has %s: take it off the exclusions" % path


def test_asking_for_a_name_left_out_gives_the_reason():
    with pytest.raises(AttributeError, match="tf.app.flags is a name of TensorFlow 1.15 that "
                                             "minitf leaves out: absl's command-line flags"):
        minitf.app.flags  # noqa: B018
    with pytest.raises(AttributeError, match="tf.keras is a name of TensorFlow 1.15 that "
                                             "minitf leaves out: Keras is a library"):
        minitf.keras  # noqa: B018


def test_a_module_left_out_takes_the_names_beneath_it():
    assert tf1_api.exclusion_reason("tf.keras.layers.Dense") == tf1_api.exclusions()["tf.keras"]
    assert tf1_api.exclusion_reason("tf.kerasx") is None
    assert tf1_api.exclusion_reason("tf.nn.relu") is None


def test_names_left_out_count_neither_way():
    io = COVERAGE["tf.io"]
    assert "decode_png" in io.excluded and "decode_png" not in io.missing + io.have
    assert io.counted == len(io.have) + len(io.missing)


# --- the ratchet --------------------------------------------------------------------------

def measured_floor():
    """Each module's share today, rounded down to a tenth of a percent."""
    return {module: math.floor(row.percent * 10) / 10 for module, row in COVERAGE.items()}


def test_the_floor_names_every_module():
    assert set(FLOOR["percent"]) == set(COVERAGE)


@pytest.mark.parametrize("module", sorted(COVERAGE))
def test_no_module_covers_less_than_its_floor(module):
    row = COVERAGE[module]
    assert row.percent >= FLOOR["percent"][module], (
        "%s covers %.1f %% of TF 1.15's names, below its floor of %.1f %%; missing: %s"
        % (module, row.percent, FLOOR["percent"][module], row.missing))


# --- the names the source notes use -------------------------------------------------------

SEED_NAMES = json.loads(SEED_FILE.read_text(encoding="utf-8"))["names"]


def tf_path(name):
    """The name as `tf` has it: `tf.compat.v1.train.Saver` is `tf.train.Saver`."""
    return "tf." + name[len("tf.compat.v1."):] if name.startswith("tf.compat.v1.") else name


def seed_name_is_tf1(name):
    """Whether the listing's name (or the part of it that is a name of a module) is TF 1.15's.

    `tf.Session.reset` is a method of the TF 1.15 name `tf.Session`; `tf.mul`
    and `tf.summary.create_file_writer` are not TF 1.15's names.
    """
    parts = tf_path(name).split(".")
    modules = tf1_api.tf1_names()
    depth = max(i for i in range(1, len(parts)) if ".".join(parts[:i]) in modules)
    return is_tf1_name(".".join(parts[:depth + 1]))


def test_the_seed_names_are_read_from_the_notes():
    assert len(SEED_NAMES) > 100 and "tf.Session" in SEED_NAMES
    assert "tf.compat.v1.disable_eager_execution" in SEED_NAMES


@pytest.mark.parametrize("name", sorted(n for n in SEED_NAMES if seed_name_is_tf1(n)))
def test_every_tf1_name_a_note_uses_is_in_minitf_or_left_out(name):
    path = tf_path(name)
    if tf1_api.exclusion_reason(path) or path in FLOOR["pending"]:
        return
    assert resolve(path) is not None, "%s (used by notes %s) is not in minitf" % (
        name, SEED_NAMES[name])


def test_every_pending_name_is_a_seed_name_still_missing():
    for path in FLOOR["pending"]:
        assert any(tf_path(n) == path for n in SEED_NAMES), path
        assert resolve(path) is None, "minitf has %s now: take it off `pending`" % path


def test_names_that_are_not_tf1s_are_few():
    """The listings' names that are not TF 1.15's: TF 2's, and a few slips of the notes."""
    others = sorted(n for n in SEED_NAMES if not seed_name_is_tf1(n))
    assert others == FLOOR["not_tf1"]


def update_floor():
    """Records today's shares as the floor (keeps `pending` and `not_tf1`)."""
    FLOOR["percent"] = measured_floor()
    FLOOR_FILE.write_text(json.dumps(FLOOR, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print("%s: floors of %d modules" % (FLOOR_FILE.relative_to(ROOT), len(FLOOR["percent"])))


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    update_floor()
