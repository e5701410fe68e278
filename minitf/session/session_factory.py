"""Session factories: which runtime serves a session's target.

A client session names a *target*: `""` for the runtime in this process, or
the address of a distributed master, `"grpc://host:port"`. The client does
not know the runtimes. Each runtime registers a factory under its name; a
factory says which targets it accepts, makes a runtime for one, and clears
the resource containers of its sessions (`tf.Session.reset`). The client
asks the registry for the one factory that accepts its target.

DirectSession registers "DIRECT_SESSION" (targets `""` and `"local..."`). The
distributed runtime (`minitf/distributed/`, a floor above this one)
registers "GRPC_SESSION" for `"grpc://..."` in the same way, and the
session code does not know it. A program that loads the runtime without
it (`import minitf` loads it) gets UnimplementedError for such a target,
naming the targets that are accepted.

Mirrors `tensorflow/core/common_runtime/session_factory.cc`.
"""

import threading

from minitf.graph import errors

# Target prefixes of the runtimes that register themselves from a floor above.
_RUNTIMES_NOT_LOADED = {"grpc://": "the distributed runtime (minitf.distributed)"}

_factories = {}  # runtime name -> SessionFactory, in the order they registered
_lock = threading.Lock()


class SessionFactory:
    """A runtime's entry in the registry. Subclasses answer the three questions."""

    #: The targets the factory accepts, in words, for error messages.
    accepted_targets = ""

    def accepts(self, target):
        """Whether this factory's runtime serves `target`."""
        raise NotImplementedError

    def new_session(self, target, config):
        """A new runtime for `target` (what the client's session sends graphs to and runs)."""
        raise NotImplementedError

    def reset(self, target, containers, config):
        """Clears `containers` (all when None) in the sessions of `target`."""
        raise NotImplementedError


def register(runtime_name, factory):
    """Adds `factory` to the registry under `runtime_name` (a name registered twice fails)."""
    with _lock:
        if runtime_name in _factories:
            raise errors.AlreadyExistsError(
                None, None, "Two session factories are being registered under %s"
                % runtime_name)
        _factories[runtime_name] = factory


def get_factory(target):
    """The one registered factory that accepts `target`."""
    with _lock:
        candidates = [name for name, factory in _factories.items() if factory.accepts(target)]
        if len(candidates) == 1:
            return _factories[candidates[0]]
        if candidates:
            raise errors.InternalError(
                None, None, "Multiple session factories registered for the target %r: "
                "candidate factories are {%s}." % (target, ", ".join(candidates)))
        raise _no_factory_error(target)


def _no_factory_error(target):
    accepted = "; ".join("%s (%s)" % (factory.accepted_targets, name)
                         for name, factory in _factories.items())
    for prefix, runtime in _RUNTIMES_NOT_LOADED.items():
        if target.startswith(prefix):
            return errors.UnimplementedError(
                None, None, "Session target %r needs %s, which is not loaded. "
                "The targets accepted are: %s." % (target, runtime, accepted))
    return errors.InvalidArgumentError(None, None, "Unknown session target: %s" % target)
