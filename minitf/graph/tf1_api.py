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
suggestion for a typo). A few of TF 1.15's names minitf leaves out on
purpose, each for a reason (`tf1_api_exclusions.txt` beside this file:
`tf.keras`, `tf.image`, ...); asking for one of those gives the reason.

The names are those of TF 1.15's modules as the reference TensorFlow lists
them (`tf1_api_names.json` beside this file, written by
scripts/extract_tf_api.py); they (and the exclusions) are read the first
time a name is missing, never by `import minitf`.

TensorFlow's modules answer a missing name with a plain AttributeError;
`tensorflow/python/util/module_wrapper.py` is where TF 2.x hooks attribute
lookups of its compat modules in the same way.
"""

import functools
import json
import pathlib
import sys

NAMES_FILE = pathlib.Path(__file__).with_name("tf1_api_names.json")
EXCLUSIONS_FILE = pathlib.Path(__file__).with_name("tf1_api_exclusions.txt")
COVERAGE_PAGE = "docs/coverage.md"


@functools.lru_cache(maxsize=None)
def tf1_names():
    """{"tf": names, "tf.nn": names, ...}: the public names of TF 1.15's modules, as sets."""
    modules = json.loads(NAMES_FILE.read_text(encoding="utf-8"))["modules"]
    return {path: frozenset(names) for path, names in modules.items()}


@functools.lru_cache(maxsize=None)
def exclusions():
    """{"tf.keras": "Keras is ...", ...}: the names minitf leaves out, each with its reason."""
    reasons = {}
    for line in EXCLUSIONS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            reasons[name.strip()] = reason.strip()
    return reasons


def exclusion_reason(path):
    """Why minitf leaves out the name `path` ("tf.keras.layers"), or None if it does not.

    A module left out takes everything beneath it.
    """
    parts = path.split(".")
    for end in range(len(parts), 1, -1):
        reason = exclusions().get(".".join(parts[:end]))
        if reason is not None:
            return reason
    return None


def is_tf1_name(module_path, name):
    """True when `name` is a public name of TF 1.15's module `module_path` ("tf.nn")."""
    return not name.startswith("_") and name in tf1_names().get(module_path, ())


def missing_name_error(module_path, module_name, name):
    """The AttributeError for `name`, which minitf's module `module_name` (TF's
    `module_path`) lacks."""
    message = "module %r has no attribute %r" % (module_name, name)
    reason = None if name.startswith("_") else exclusion_reason(module_path + "." + name)
    if reason is not None:
        message += ("; %s.%s is a name of TensorFlow 1.15 that minitf leaves out: %s (see "
                    "'What minitf covers' in the course, %s)"
                    % (module_path, name, reason, COVERAGE_PAGE))
    elif is_tf1_name(module_path, name):
        message += ("; %s.%s is part of TensorFlow 1.15's API but not yet of minitf (see "
                    "'What minitf covers' in the course, %s)"
                    % (module_path, name, COVERAGE_PAGE))
    return AttributeError(message, name=name, obj=sys.modules.get(module_name))


def alias_getattr(module_path, module_name, aliases):
    """A module `__getattr__` for a namespace whose names are other modules' names too.

    TensorFlow exports many functions twice or more: `tf.debugging.is_nan`
    is `tf.math.is_nan`, `tf.random.normal` is `tf.random_normal`.
    `aliases` maps such a name of the module to where the `minitf` namespace
    has it, as a dotted path ("math.is_nan"). The alias is looked up the
    first time it is asked for, in the finished namespace (so a namespace can
    name what another chapter defines, without importing it), and kept in
    the module from then on. A name whose target minitf lacks fails as any
    missing name does.
    """
    def __getattr__(name):  # noqa: N807 - a module's __getattr__
        if name in aliases:
            try:
                value = functools.reduce(getattr, aliases[name].split("."), sys.modules["minitf"])
            except AttributeError:
                pass
            else:
                setattr(sys.modules[module_name], name, value)
                return value
        raise missing_name_error(module_path, module_name, name)
    return __getattr__
