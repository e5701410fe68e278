"""`tf.initializers`: the initializers under short names, and the ops that run them.

The initializer classes are the Ops chapter's (`minitf/ops/init_ops.py`:
`tf.initializers.zeros` is `tf.zeros_initializer`), and so are the ops that
initialize variables (`minitf/ops/variables.py`: `tf.initializers.global_variables()`
is `tf.global_variables_initializer()`) and tables (`minitf/ops/lookup_ops.py`).
`orthogonal` is looked up at the top of `tf` when first asked for
(`tf1_api.alias_getattr`).

Mirrors TF 1.15's `tf.initializers` namespace.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.init_ops import Constant as constant  # noqa: F401
from minitf.ops.init_ops import GlorotNormal as glorot_normal  # noqa: F401
from minitf.ops.init_ops import GlorotUniform as glorot_uniform  # noqa: F401
from minitf.ops.init_ops import Identity as identity  # noqa: F401
from minitf.ops.init_ops import Ones as ones  # noqa: F401
from minitf.ops.init_ops import RandomNormal as random_normal  # noqa: F401
from minitf.ops.init_ops import RandomUniform as random_uniform  # noqa: F401
from minitf.ops.init_ops import TruncatedNormal as truncated_normal  # noqa: F401
from minitf.ops.init_ops import UniformUnitScaling as uniform_unit_scaling  # noqa: F401
from minitf.ops.init_ops import VarianceScaling as variance_scaling  # noqa: F401
from minitf.ops.init_ops import Zeros as zeros  # noqa: F401
from minitf.ops.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform  # noqa: F401
from minitf.ops.lookup_ops import tables_initializer  # noqa: F401
from minitf.ops.variables import global_variables_initializer as global_variables  # noqa: F401
from minitf.ops.variables import local_variables_initializer as local_variables  # noqa: F401
from minitf.ops.variables import variables_initializer as variables  # noqa: F401

__getattr__ = _tf1_api.alias_getattr("tf.initializers", __name__, {
    "orthogonal": "orthogonal_initializer"})
