"""`tf.test.StubOutForTesting`: replace an attribute for a test, and put it back after.

`stubs.Set(module, "name", fake)` swaps `module.name` for `fake` and
remembers the old value; `stubs.UnsetAll()` (or `CleanUp()`) restores every
swap, the last first. `SmartSet` does the same for an attribute an object
may only inherit (a method of its class): undoing it deletes the object's
own attribute rather than pinning the inherited one on it. A static or
class method is restored as what it was, not as the function beneath.

Mirrors `StubOutForTesting` of `tensorflow/python/platform/googletest.py`
(Python's `unittest.mock.patch` does the same job, and is `tf.test.mock.patch`).
"""


class StubOutForTesting:
    """Swaps attributes for a test; undoes the swaps in reverse order."""

    def __init__(self):
        self.cache = []   # (obj, name, own value or _MISSING) for SmartSet
        self.stubs = []   # (parent, name, old raw value) for Set

    def __del__(self):
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802 - TF's name
        """Sets `obj.attr_name`; undoing it restores the object's own value, or removes the
        attribute when the object only inherited it."""
        self.cache.append((obj, attr_name, _own_value(obj, attr_name)))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802 - TF's name
        for obj, attr_name, old in reversed(self.cache):
            if old is _MISSING:
                delattr(obj, attr_name)
            else:
                setattr(obj, attr_name, old)
        self.cache = []

    def Set(self, parent, child_name, new_child):  # noqa: N802 - TF's name
        """Sets `parent.child_name` to `new_child`; the old value must exist."""
        old = _own_value(parent, child_name)
        if old is _MISSING:
            old = getattr(parent, child_name)  # an AttributeError when it does not exist
        self.stubs.append((parent, child_name, old))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802 - TF's name
        """Undoes every Set, the last one first (so a twice-stubbed name gets its original)."""
        for parent, child_name, old in reversed(self.stubs):
            setattr(parent, child_name, old)
        self.stubs = []

    def CleanUp(self):  # noqa: N802 - TF's name
        self.UnsetAll()


_MISSING = object()


def _own_value(obj, name):
    """The raw value in `obj`'s own __dict__ (a staticmethod as itself), or _MISSING."""
    return vars(obj).get(name, _MISSING) if hasattr(obj, "__dict__") else _MISSING
