"""Gradients of the linear algebra ops.

Matrix calculus, one identity per op: for C = A^-1, dA = -C^H dC C^H; for
d = det(A), dA = d dd A^-H; for X = A^-1 B, dB = A^-H dX and dA = -dB X^H.
Each is written with the ops themselves (a solve, not an inverse times a
matrix), as TensorFlow writes it, so that second derivatives come for free.

Mirrors `tensorflow/python/ops/linalg_grad.py` and the matrix gradients of
`array_grad.py` (TF 1.15).
"""

from minitf.autodiff.registry import RegisterGradient
from minitf.graph import ops
from minitf.ops import array_ops
from minitf.ops import linalg_ops
from minitf.ops import math_ops

# =============================================================================
# Bands and diagonals
# =============================================================================


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op, grad):
    """Only the entries inside the band came from the input."""
    return linalg_ops.band_part(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return linalg_ops.diag_part(grad)


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    """The gradient on the diagonal, zeros elsewhere."""
    matrix_shape = op.inputs[0].shape[-2:] if op.inputs[0].shape.ndims is not None else None
    if (matrix_shape is not None and matrix_shape.is_fully_defined()
            and matrix_shape[0] == matrix_shape[1]):
        return linalg_ops.diag(grad)
    return linalg_ops.set_diag(array_ops.zeros_like(op.inputs[0]), grad)


@RegisterGradient("MatrixSetDiag")
def _matrix_set_diag_grad(op, grad):
    """The diagonal's gradient to `diagonal`, the rest to `input`."""
    grad_diagonal = linalg_ops.diag_part(grad)
    return linalg_ops.set_diag(grad, array_ops.zeros_like(grad_diagonal)), grad_diagonal


# =============================================================================
# Square matrices
# =============================================================================

def _per_matrix(values):
    """[...] reshaped to [..., 1, 1]: one number per matrix, broadcast over its entries."""
    return array_ops.reshape(values, array_ops.concat([array_ops.shape(values), [1, 1]], 0))


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op, grad):
    """d det(A) = det(A) tr(A^-1 dA): the gradient is grad det(A) A^-H."""
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = linalg_ops.inv(a, adjoint=True)
    return _per_matrix(grad * c) * a_adj_inv


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_log_abs):
    """d log|det(A)| = tr(A^-1 dA); the sign is locally constant."""
    a_adj_inv = linalg_ops.inv(op.inputs[0], adjoint=True)
    return _per_matrix(grad_log_abs) * a_adj_inv


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    """d A^-1 = -A^-1 dA A^-1: the gradient is -C^H grad C^H, with C = A^-1."""
    ainv = op.outputs[0]
    adjoint = op.get_attr("adjoint")
    return -math_ops.matmul(ainv, math_ops.matmul(grad, ainv, adjoint_a=adjoint,
                                                  adjoint_b=not adjoint),
                            adjoint_a=not adjoint)


@RegisterGradient("Cholesky")
def _cholesky_grad(op, grad):
    """Murray's formula (arXiv:1602.07527), symmetrized: A's gradient is Hermitian."""
    l = op.outputs[0]  # noqa: E741 - the factor's usual name
    num_rows = array_ops.shape(l)[-1]
    batch_shape = array_ops.shape(l)[:-2]
    l_inverse = linalg_ops.triangular_solve(
        l, linalg_ops.eye(num_rows, batch_shape=batch_shape, dtype=l.dtype))
    middle = math_ops.matmul(l, grad, adjoint_a=True)
    middle = linalg_ops.set_diag(middle, 0.5 * linalg_ops.diag_part(middle))
    middle = linalg_ops.band_part(middle, -1, 0)
    grad_a = math_ops.matmul(math_ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += linalg_ops.adjoint(grad_a)
    return grad_a * 0.5


# =============================================================================
# Linear systems
# =============================================================================

def _solve_grad(op, grad_b, c):
    """The matrix's gradient from the rhs's: -grad_b X^H (or -X grad_b^H for the adjoint)."""
    if op.get_attr("adjoint"):
        return -math_ops.matmul(c, grad_b, adjoint_b=True)
    return -math_ops.matmul(grad_b, c, adjoint_b=True)


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op, grad):
    """X = A^-1 B: dB = A^-H dX (one more solve), dA = -dB X^H."""
    a, c = op.inputs[0], op.outputs[0]
    grad_b = linalg_ops.solve(a, grad, adjoint=not op.get_attr("adjoint"))
    return _solve_grad(op, grad_b, c), grad_b


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    """As MatrixSolve's, with A's gradient kept to the triangle that was read."""
    a, c = op.inputs[0], op.outputs[0]
    lower = op.get_attr("lower")
    grad_b = linalg_ops.triangular_solve(a, grad, lower=lower,
                                         adjoint=not op.get_attr("adjoint"))
    grad_a = _solve_grad(op, grad_b, c)
    grad_a = linalg_ops.band_part(grad_a, -1, 0) if lower else linalg_ops.band_part(grad_a, 0, -1)
    return grad_a, grad_b


# =============================================================================
# Eigenvalues, the cross product
# =============================================================================

@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op, grad_e, grad_v):
    """For A = V diag(e) V^H: dA = V (diag(de) + F * (V^H dV)) V^H, F_ij = 1 / (e_j - e_i).

    Only A's lower triangle was read, so the gradient is symmetrized and kept there.
    """
    e = op.outputs[0]
    with ops.control_dependencies([grad_e, grad_v]):
        if op.get_attr("compute_v"):
            v = op.outputs[1]
            f = linalg_ops.set_diag(
                math_ops.reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                array_ops.zeros_like(e))
            grad_a = math_ops.matmul(v, math_ops.matmul(
                linalg_ops.diag(grad_e) + f * math_ops.matmul(v, grad_v, adjoint_a=True), v,
                adjoint_b=True))
        else:
            _, v = linalg_ops.eigh(op.inputs[0])
            grad_a = math_ops.matmul(v, math_ops.matmul(linalg_ops.diag(grad_e), v,
                                                        adjoint_b=True))
        grad_a = linalg_ops.band_part(grad_a + linalg_ops.adjoint(grad_a), -1, 0)
        return linalg_ops.set_diag(grad_a, 0.5 * linalg_ops.diag_part(grad_a))


@RegisterGradient("Cross")
def _cross_grad(op, grad):
    """d(u x v) = du x v + u x dv: grad goes to u as v x grad, to v as grad x u."""
    u, v = op.inputs
    return linalg_ops.cross(v, grad), linalg_ops.cross(grad, u)


@RegisterGradient("Qr")
def _qr_grad(op, dq, dr):
    """Walter and Lehmann's formula (arXiv:0909.0315), for square and tall matrices (r square).

    TF 1.15 has no formula for wide ones, for full_matrices of tall ones or
    for complex numbers either.
    """
    q, r = op.outputs
    if q.dtype.is_complex:
        raise NotImplementedError("QrGrad not implemented for dtype: %s" % q.dtype)
    if r.shape.ndims is None or None in r.shape.as_list()[-2:]:
        raise NotImplementedError("QrGrad not implemented with dynamic shapes.")
    rows, cols = r.shape.as_list()[-2:]
    if rows != cols:
        raise NotImplementedError("QrGrad not implemented when ncols > nrows or full_matrices "
                                  "is true and ncols != nrows.")

    def solve_with_r(x):
        """x r^-H, r being upper triangular."""
        return linalg_ops.adjoint(linalg_ops.triangular_solve(r, linalg_ops.adjoint(x),
                                                              lower=False, adjoint=False))

    qdq = math_ops.matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - linalg_ops.adjoint(qdq)
    rdr = math_ops.matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - linalg_ops.adjoint(rdr)
    tril = linalg_ops.band_part(qdq_ + rdr_, -1, 0)
    grad_a = math_ops.matmul(q, dr + solve_with_r(tril))
    grad_b = solve_with_r(dq - math_ops.matmul(q, qdq))
    return grad_a + grad_b
