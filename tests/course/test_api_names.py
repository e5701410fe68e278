"""A name of TensorFlow 1.15 that minitf lacks fails saying so; the coverage page counts them.

The namespaces `tf`, `tf.nn`, `tf.math`, `tf.train` and `tf.test` end with a
module `__getattr__` (minitf/graph/tf1_api.py) that compares a missing name
with TF 1.15's names (minitf/graph/tf1_api_names.json).
"""

import json
import subprocess
import sys

import pytest
from course_pages import ROOT, load_hooks

import minitf as tf
from minitf.graph import tf1_api

api_coverage = load_hooks().api_coverage
NAMES = json.loads(tf1_api.NAMES_FILE.read_text(encoding="utf-8"))


def _first_missing_names():
    """For each namespace with the module __getattr__, one TF 1.15 name minitf lacks today.

    Picked from the data rather than written down, so the test goes on
    checking the message as minitf gains names.
    """
    pairs = []
    for namespace in (tf, tf.nn, tf.math, tf.train, tf.test):
        path = "tf" + namespace.__name__[len("minitf"):]
        missing = [n for n in NAMES["modules"][path] if not hasattr(namespace, n)
                   and not tf1_api.exclusion_reason(path + "." + n)]
        if missing:
            pairs.append((namespace, missing[0]))
    return pairs


MISSING = _first_missing_names()


def test_some_tf1_names_are_still_missing_to_check_the_message_with():
    assert MISSING, "every namespace is complete: check the message with another module"


@pytest.mark.parametrize("namespace, name", MISSING)
def test_a_tf1_name_minitf_lacks_says_so(namespace, name):
    with pytest.raises(AttributeError) as raised:
        getattr(namespace, name)
    message = str(raised.value)
    path = "tf" + namespace.__name__[len("minitf"):]
    assert message.startswith("module %r has no attribute %r; " % (namespace.__name__, name))
    assert "%s.%s is part of TensorFlow 1.15's API but not yet of minitf" % (path, name) in message
    assert "docs/coverage.md" in message
    assert not hasattr(namespace, name)


@pytest.mark.parametrize("namespace, name", [
    (tf, "no_such_name"), (tf, "reduce_summ"), (tf.nn, "sparse"), (tf, "_private"),
])
def test_any_other_missing_name_is_an_ordinary_attribute_error(namespace, name):
    with pytest.raises(AttributeError, match="^module %r has no attribute %r$"
                       % (namespace.__name__, name)) as raised:
        getattr(namespace, name)
    assert raised.value.name == name and raised.value.obj is namespace  # "Did you mean"


def test_a_typo_gets_pythons_suggestion():
    done = subprocess.run([sys.executable, "-c", "import minitf as tf; tf.reduce_summ"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "Did you mean: 'reduce_sum'?" in done.stderr


def test_import_minitf_does_not_read_the_names():
    namespace, missing = MISSING[0]
    code = ("import minitf as tf\nfrom minitf.graph import tf1_api\n"
            "assert tf1_api.tf1_names.cache_info().currsize == 0\n"
            "assert not hasattr(%s, %r)\n"
            "assert tf1_api.tf1_names.cache_info().currsize == 1\n"
            % (namespace.__name__.replace("minitf", "tf", 1), missing))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_names_minitf_has_are_found_as_usual():
    assert tf.nn.relu and tf.math.add and tf.train.GradientDescentOptimizer and tf.test.TestCase
    assert tf1_api.is_tf1_name("tf.nn", "relu") and not tf1_api.is_tf1_name("tf.nn", "_relu")


def test_the_names_are_tf_1_15s():
    modules = NAMES["modules"]
    assert "TF 1.15" in NAMES["source"] and NAMES["made_by"] == "scripts/extract_tf_api.py"
    for path in ("tf", "tf.nn", "tf.math", "tf.train", "tf.test", "tf.layers", "tf.sparse"):
        assert modules[path] == sorted(set(modules[path])) and modules[path], path
    assert not any(name.startswith("_") for names in modules.values() for name in names)
    for path, name in [("tf", "Session"), ("tf", "placeholder"), ("tf", "nn"),
                       ("tf.nn", "softmax"), ("tf.train", "Saver"), ("tf.layers", "dense")]:
        assert name in modules[path], (path, name)


def test_coverage_counts_every_name_once():
    rows = api_coverage.coverage()
    assert rows[0].module == "tf" and {row.module for row in rows} == set(NAMES["modules"])
    for row in rows:
        assert sorted(row.have + row.missing + row.excluded) == NAMES["modules"][row.module]
    nn = next(row for row in rows if row.module == "tf.nn")
    assert "relu" in nn.have and "quantized_conv2d" in nn.excluded
    sparse = next(row for row in rows if row.module == "tf.sparse")
    assert "reorder" in sparse.have and "to_dense" in sparse.have  # tf.sparse_reorder's TF 2 names


def test_the_coverage_page_shows_the_table_and_the_names():
    summary, modules = api_coverage.summary(), api_coverage.modules()
    assert "| [`tf.nn`](#tf-nn) | %d |" % len(NAMES["modules"]["tf.nn"]) in summary
    assert summary.splitlines()[-1].startswith("| **all** | **%d** |"
                                               % sum(map(len, NAMES["modules"].values())))
    assert "## `tf.nn` { #tf-nn }" in modules and "`selu`" in modules
