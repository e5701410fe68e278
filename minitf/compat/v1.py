"""`tf.compat.v1`: TF 1.15's whole API under the name TF 2 gives it.

`import minitf.compat.v1 as tf` is `import minitf as tf`: this module holds
every public name of the `minitf` namespace (the submodules `tf.nn`,
`tf.train`, ... are the same module objects), so that a program written as

    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()

runs on minitf with only its import changed. A name minitf lacks fails as it
does on `minitf` itself, saying whether it is one of TF 1.15's.

Mirrors the `tf.compat.v1` namespace of TensorFlow 2.
"""

import minitf as _tf
from minitf import *  # noqa: F401,F403
from minitf.graph import tf1_api as _tf1_api

__version__ = _tf.__version__


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf", __name__, name)
