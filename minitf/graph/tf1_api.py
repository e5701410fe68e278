"""TensorFlow 1.15's public names, and the error for one that minitf does not have.

minitf answers to TF 1.15's names, but not yet to all of them. A TF1
program that reaches for one it lacks (`tf.sparse`, `tf.nn.selu`) should
learn that in words, not from a bare AttributeError that reads like a typo.
So the `tf.*` namespaces (`minitf/__init__.py`, `tf.nn`, `tf.math`,
`tf.train`, `tf.test`) end with a module `__getattr__`, which Python calls
only for a name the module does not have, and which raises
`missing_name_error`: an AttributeError that, for a name of TF 1.15, says
so and points to the course's page "What minitf covers" (docs/coverage.md).
Any other name gets Python's usual message (and its "Did you mean"
suggestion for a typo).

The names are those of TF 1.15's modules as the reference TensorFlow lists
them (`tf1_api_names.json` beside this file, written by
scripts/extract_tf_api.py); they are read the first time a name is
missing, never by `import minitf`.

TensorFlow's modules answer a missing name with a plain AttributeError;
`tensorflow/python/util/module_wrapper.py` is where TF 2.x hooks attribute
lookups of its compat modules in the same way.
"""

import functools
import json
import pathlib
import sys

NAMES_FILE = pathlib.Path(__file__).with_name("tf1_api_names.json")
COVERAGE_PAGE = "docs/coverage.md"


@functools.lru_cache(maxsize=None)
def tf1_names():
    """{"tf": names, "tf.nn": names, ...}: the public names of TF 1.15's modules, as sets."""
    modules = json.loads(NAMES_FILE.read_text(encoding="utf-8"))["modules"]
    return {path: frozenset(names) for path, names in modules.items()}


def is_tf1_name(module_path, name):
    """True when `name` is a public name of TF 1.15's module `module_path` ("tf.nn")."""
    return not name.startswith("_") and name in tf1_names().get(module_path, ())


def missing_name_error(module_path, module_name, name):
    """The AttributeError for `name`, which minitf's module `module_name` (TF's
    `module_path`) lacks."""
    message = "module %r has no attribute %r" % (module_name, name)
    if is_tf1_name(module_path, name):
        message += ("; %s.%s is part of TensorFlow 1.15's API but not yet of minitf (see "
                    "'What minitf covers' in the course, %s)"
                    % (module_path, name, COVERAGE_PAGE))
    return AttributeError(message, name=name, obj=sys.modules.get(module_name))
