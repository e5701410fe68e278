"""`tf.data.Options`: how a pipeline may be run, attached to a dataset with `with_options`.

An Options object holds settings, each None (the runtime's choice) until
set; setting a name it does not have is an AttributeError, setting a value
of the wrong type a TypeError. `dataset.with_options(options)` returns the
dataset with the options merged into those it had; `dataset.options()`
gives them back, and the datasets made from it keep them.

minitf's dataset kernels run in one thread, one element after another,
so no option changes what a pipeline computes or how: minitf keeps them
for the programs that set and read them.

Mirrors `tensorflow/python/data/ops/options.py` and
`tensorflow/python/data/experimental/ops/threading_options.py`.
"""

__all__ = ["Options", "ThreadingOptions"]


class _OptionsBase:
    """Settings named by `_TYPES` ({name: type}), each None until set; `_ALIASES` are
    other names of some of them ({alias: name})."""

    _TYPES = {}
    _ALIASES = {}

    def __init__(self):
        for name, kind in self._TYPES.items():
            object.__setattr__(self, name, kind() if issubclass(kind, _OptionsBase) else None)

    def __setattr__(self, name, value):
        name = self._ALIASES.get(name, name)
        if name not in self._TYPES:
            raise AttributeError("Cannot set the property %s on %s." % (name, type(self).__name__))
        kind = self._TYPES[name]
        if value is not None and not isinstance(value, kind):
            raise TypeError('Property "%s" must be of type %s, got: %r (type: %s)' % (
                name, kind, value, type(value)))
        object.__setattr__(self, name, value)

    def __getattr__(self, name):  # only called for a name not set in __init__: an alias
        if name in type(self)._ALIASES:
            return getattr(self, type(self)._ALIASES[name])
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def _merged(self, other):
        """A new object: `other`'s settings where set, this one's elsewhere."""
        result = type(self)()
        for name, kind in self._TYPES.items():
            mine, theirs = getattr(self, name), getattr(other, name)
            if issubclass(kind, _OptionsBase):
                object.__setattr__(result, name, mine._merged(theirs))
            else:
                object.__setattr__(result, name, mine if theirs is None else theirs)
        return result


class ThreadingOptions(_OptionsBase):
    """The threads a pipeline may use: `max_intra_op_parallelism`, `private_threadpool_size`."""

    _TYPES = {"max_intra_op_parallelism": int, "private_threadpool_size": int}


class Options(_OptionsBase):
    """A pipeline's options (TF 1.15's names; TF 2's `deterministic` and `threading` too)."""

    _TYPES = {"experimental_deterministic": bool, "experimental_slack": bool,
              "experimental_threading": ThreadingOptions}
    _ALIASES = {"deterministic": "experimental_deterministic",
                "threading": "experimental_threading"}

    def merge(self, options):
        """These options with `options`' set values over them (a new Options)."""
        if not isinstance(options, Options):
            raise TypeError("Options.merge expects an Options, got %r" % (options,))
        return self._merged(options)
