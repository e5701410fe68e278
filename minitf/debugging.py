"""`tf.debugging`: the checks on tensors, gathered under one name.

The asserts are the Ops chapter's (`minitf/ops/check_ops.py`: ops that fail
the step when a condition on a tensor does not hold, or errors while
building when it can be decided then), `check_numerics` and
`assert_all_finite` are `minitf/ops/numerics.py`'s, the placement log
switch is `tf.config`'s (`minitf/session/context.py`). `is_nan` and its kin
are `tf.math`'s, looked up there when first asked for
(`tf1_api.alias_getattr`).

Mirrors TF 1.15's `tf.debugging` namespace.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.check_ops import *  # noqa: F401,F403
from minitf.ops.check_ops import assert_shapes  # noqa: F401
from minitf.ops.control_flow_ops import Assert  # noqa: F401
from minitf.ops.numerics import check_numerics  # noqa: F401
from minitf.ops.numerics import verify_tensor_all_finite as assert_all_finite  # noqa: F401
from minitf.session.context import get_log_device_placement, set_log_device_placement  # noqa: F401,E501

__getattr__ = _tf1_api.alias_getattr("tf.debugging", __name__, {
    name: "math." + name for name in ("is_finite", "is_inf", "is_nan")})
