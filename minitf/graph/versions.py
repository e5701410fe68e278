"""The version minitf answers to, kept on the floor where every module may read it.

minitf implements TensorFlow 1.15's API, so `tf.__version__` and
`tf.VERSION` say "1.15.0": TF1 programs check `tf.__version__.startswith("1.")`
(or compare it with "1.13") before they use the 1.x API, and such checks
must pass. A meta graph records the same value as the `tensorflow_version`
that wrote it (`minitf/saver/meta_graph.py`), as TensorFlow 1.15 would.

minitf's own release is `MINITF_VERSION` (`minitf.__minitf_version__`),
and `tf.GIT_VERSION`, which names the build in TensorFlow, names it here
too ("minitf-0.1.0"). Keep `MINITF_VERSION` in step with `pyproject.toml`
(tests/course/test_drift.py checks it).

Mirrors `tensorflow/python/framework/versions.py`.
"""

import platform

# The TensorFlow API minitf implements.
__version__ = "1.15.0"
VERSION = __version__

# minitf's own release.
MINITF_VERSION = "0.1.0"
GIT_VERSION = "minitf-" + MINITF_VERSION

# The GraphDef versions a graph records (`GraphDef.versions`): TensorFlow
# 1.15's producer version, and the oldest consumer that may read the graph.
GRAPH_DEF_VERSION = 134
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
# The oldest producer whose graphs this build still reads.
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

# How TensorFlow's C++ core was built (tf.sysconfig, tf.version). minitf has
# no C++ core: the compiler is the one that built the Python running it, the
# pre-C++11 string ABI and the monolithic build are both "no", and the C++
# standard is the one TF 2.x builds with (C++17).
COMPILER_VERSION = platform.python_compiler()
CXX11_ABI_FLAG = 0
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0
