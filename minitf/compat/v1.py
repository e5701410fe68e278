"""`tf.compat.v1`: TF 1.15's whole API under the name TF 2 gives it.

`import minitf.compat.v1 as tf` is `import minitf as tf`: this module holds
every public name of the `minitf` namespace (the submodules `tf.nn`,
`tf.train`, ... are the same module objects), so that a program written as

    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()

runs on minitf with only its import changed. A name minitf lacks fails as it
does on `minitf` itself, saying whether it is one of TF 1.15's. The names
are those `minitf/__init__.py` hands down to `tf.compat` (`_tf_namespace`):
this module does not import the face that imports it.

Mirrors the `tf.compat.v1` namespace of TensorFlow 2.
"""

from minitf.compat import _tf_namespace
from minitf.graph import tf1_api as _tf1_api

# What `from minitf import *` gives: every name of the namespace without a leading underscore.
globals().update((name, value) for name, value in _tf_namespace.items()
                 if not name.startswith("_"))
__version__ = _tf_namespace["__version__"]


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf", __name__, name)
