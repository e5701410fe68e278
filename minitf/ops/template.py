"""`tf.make_template`: a function that shares its variables across calls.

    dense = tf.make_template("dense", lambda x: x * tf.get_variable("w", [2]))
    y1 = dense(a)   # creates dense/w
    y2 = dense(b)   # reuses dense/w

The first call opens a variable scope (`dense`, made unique) and runs the
function, which creates its variables with `tf.get_variable`; later calls
re-enter that scope with `reuse=True`, so the same `get_variable` calls find
the variables the first call made. Each call still opens a name scope of its
own for its ops (`dense/mul`, then `dense_1/mul`). A later call that creates
a new trainable variable (a `tf.Variable` where `tf.get_variable` was meant)
is an error.

Mirrors `tensorflow/python/ops/template.py` (Template, make_template).
"""

import functools

from minitf.graph import ops
from minitf.ops import variable_scope

__all__ = ["make_template"]


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None,
                  **kwargs):
    """`func_` (called with `kwargs` besides its own arguments) wrapped to share its variables."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


class Template:
    """A function whose `tf.get_variable` calls find the variables its first call made."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:
            with variable_scope.variable_scope(
                    unique_name or variable_scope._get_unique_variable_scope(name),
                    custom_getter=custom_getter, auxiliary_name_scope=False) as scope:
                self._variable_scope = scope

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with variable_scope.variable_scope(self._variable_scope,
                                               reuse=True if self._variables_created else None):
                return self._call_func(args, kwargs)
        with variable_scope.variable_scope(self._unique_name, self._name,
                                           custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    def _call_func(self, args, kwargs):
        trainable_at_start = len(ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        if self._variables_created:
            trainable = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
            if len(trainable) != trainable_at_start:
                raise ValueError(
                    "Trainable variable created when calling a template after the first time, "
                    "perhaps you used tf.Variable when you meant tf.get_variable: %s"
                    % (trainable[trainable_at_start:],))
        self._variables_created = True
        return result

    @property
    def name(self):
        """The name given to make_template."""
        return self._name

    @property
    def func(self):
        """The wrapped function."""
        return self._func

    @property
    def variable_scope(self):
        """The VariableScope its variables live in (None before the first call)."""
        return self._variable_scope

    @property
    def variable_scope_name(self):
        """That scope's name with a '/' ("dense/"), or None before the first call."""
        return None if self._variable_scope is None else self._variable_scope.name + "/"

    @property
    def global_variables(self):
        """The global variables made under its scope."""
        return self._scope_collection(ops.GraphKeys.GLOBAL_VARIABLES)

    @property
    def trainable_variables(self):
        """The trainable variables made under its scope."""
        return self._scope_collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    @property
    def variables(self):
        """Its global variables (as TF's `variables` property)."""
        return self.global_variables

    def _scope_collection(self, key):
        if self._variable_scope is None:
            return []
        return ops.get_collection(key, scope=self.variable_scope_name)
