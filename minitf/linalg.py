"""`tf.linalg`: linear algebra on matrices and batches of matrices.

The functions are defined in `minitf/ops/linalg_ops.py`; `matmul` is the
one of `minitf/ops/math_ops.py`, `tensor_diag` and `tensor_diag_part` are
`tf.diag` and `tf.diag_part` (`minitf/ops/array_ops.py`), `global_norm`
is `tf.global_norm` (`minitf/ops/clip_ops.py`), `l2_normalize` is
`tf.nn.l2_normalize` (`minitf/ops/nn_ops.py`). The LinearOperator
classes are in `minitf/ops/linear_operator.py` (the base class),
`linear_operator_matrices.py` and `linear_operator_combinations.py`.

Mirrors the `tf.linalg` namespace of `tensorflow/python/ops/linalg/linalg_impl.py`.

A name of TF 1.15's `tf.linalg` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

import types

from minitf.graph import tf1_api as _tf1_api
from minitf.ops.array_ops import diag as tensor_diag  # noqa: F401
from minitf.ops.array_ops import diag_part as tensor_diag_part  # noqa: F401
from minitf.ops.clip_ops import global_norm  # noqa: F401
from minitf.ops.linalg_ops import (  # noqa: F401
    adjoint, band_part, cholesky, cholesky_solve, cross, det, diag, diag_part, eigh,
    eigh_tridiagonal, eigvalsh, einsum, expm, eye, inv, logdet, logm, lstsq, lu,
    lu_matrix_inverse, lu_reconstruct, lu_solve, matrix_rank, matrix_transpose, matvec, norm,
    normalize, pinv, qr, set_diag, slogdet, solve, sqrtm, svd, tensordot, trace,
    triangular_solve, tridiagonal_matmul, tridiagonal_solve)
from minitf.ops.linalg_ops import matrix_transpose as transpose  # noqa: F401
from minitf.ops.linear_operator import LinearOperator  # noqa: F401
from minitf.ops.linear_operator import conjugate_gradient as _conjugate_gradient
from minitf.ops.linear_operator_combinations import (  # noqa: F401
    LinearOperatorAdjoint, LinearOperatorBlockDiag, LinearOperatorBlockLowerTriangular,
    LinearOperatorComposition, LinearOperatorInversion, LinearOperatorKronecker,
    LinearOperatorLowRankUpdate)
from minitf.ops.linear_operator_matrices import (  # noqa: F401
    LinearOperatorCirculant, LinearOperatorCirculant2D, LinearOperatorCirculant3D,
    LinearOperatorDiag, LinearOperatorFullMatrix, LinearOperatorHouseholder,
    LinearOperatorIdentity, LinearOperatorLowerTriangular, LinearOperatorPermutation,
    LinearOperatorScaledIdentity, LinearOperatorToeplitz, LinearOperatorTridiag,
    LinearOperatorZeros)
from minitf.ops.math_ops import matmul  # noqa: F401
from minitf.ops.nn_ops import l2_normalize  # noqa: F401

# tf.linalg.experimental: the solver that needs an operator's matvec alone.
experimental = types.SimpleNamespace(conjugate_gradient=_conjugate_gradient)


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.linalg", __name__, name)
