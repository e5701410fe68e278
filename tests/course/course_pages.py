"""Shared by the course tests: the docs pages, mkdocs.yml and the docs hook module."""

import functools
import importlib.util
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


@functools.lru_cache(maxsize=None)
def load_hooks():
    """docs/hooks.py as a module (MkDocs loads it by path, so must we); one for all the
    tests, so that they share the notebooks it has run."""
    return _load_docs_module("hooks")


def load_figures():
    """docs/figures.py, the course's figure recipes, as a module (docs/ is no package)."""
    return _load_docs_module("figures")


def _load_docs_module(name):
    spec = importlib.util.spec_from_file_location("minitf_docs_" + name, DOCS / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_id(path):
    return str(path.relative_to(DOCS))


class _IgnorePythonTags(yaml.SafeLoader):
    """Reads mkdocs.yml, whose `!!python/name:` tags a safe loader refuses."""


_IgnorePythonTags.add_multi_constructor("tag:yaml.org,2002:python/",
                                        lambda loader, suffix, node: None)


def mkdocs_config():
    """mkdocs.yml as a dict (its Python tags read as None)."""
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_IgnorePythonTags)
