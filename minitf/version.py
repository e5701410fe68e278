"""`tf.version`: the version minitf answers to, and how it was "built".

The values are on the Graph chapter's floor (`minitf/graph/versions.py`).

Mirrors TF's `tf.version` namespace.
"""

from minitf.graph.versions import (COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION,  # noqa: F401
                                   GRAPH_DEF_VERSION_MIN_CONSUMER,
                                   GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION)
