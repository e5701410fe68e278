"""Kernels of the linear algebra ops: bands, diagonals, determinants, inverse, solvers.

Written against `ctx.xp` (NumPy on CPU, CuPy on a GPU): both have the
batched `linalg` functions these need, which repeat over every dimension
before the last two. What TensorFlow checks at run time is checked here:
a matrix that cannot be inverted or factored is an InvalidArgumentError,
not a warning and a matrix of garbage.

Mirrors `tensorflow/core/kernels/matrix_band_part_op.cc`,
`matrix_diag_op.cc`, `matrix_set_diag_op.cc`, `determinant_op.cc`,
`matrix_inverse_op.cc`, `cholesky_op.cc`, `qr_op_impl.h`, `self_adjoint_eig_v2_op_impl.h`,
`cross_op.cc`, `matrix_solve_op.cc` and `matrix_triangular_solve_op_impl.h`.
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


def _adjoint(xp, matrices):
    """The conjugate transpose of each matrix (the last two axes)."""
    return xp.conj(xp.swapaxes(matrices, -1, -2))


def _check_square(matrices):
    if matrices.ndim < 2:
        raise invalid("Input tensor 0 must have rank >= 2, got %d" % matrices.ndim)
    if matrices.shape[-1] != matrices.shape[-2]:
        raise invalid("Input matrix must be square.")


# =============================================================================
# Bands and diagonals
# =============================================================================

@register_kernel("MatrixBandPart", ALL_DEVICE_TYPES)
def matrix_band_part(ctx, matrices, num_lower, num_upper):
    """Keeps the entries with -num_lower <= col - row <= num_upper (a negative bound: all)."""
    if matrices.ndim < 2:
        raise invalid("input must be at least 2-dim, received shape: %s"
                      % shape_text(matrices.shape))
    rows, cols = matrices.shape[-2:]
    num_lower, num_upper = int(host_array(ctx, num_lower)), int(host_array(ctx, num_upper))
    if num_lower > rows:
        raise invalid("num_lower must be negative or less or equal to number of rows (%d) "
                      "got: %d" % (rows, num_lower))
    if num_upper > cols:
        raise invalid("num_upper must be negative or less or equal to number of columns (%d) "
                      "got: %d" % (cols, num_upper))
    xp = ctx.xp
    offset = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]  # col - row
    keep = xp.ones((rows, cols), dtype=bool)
    if num_lower >= 0:
        keep = keep & (offset >= -num_lower)
    if num_upper >= 0:
        keep = keep & (offset <= num_upper)
    return xp.where(keep, matrices, xp.zeros_like(matrices))


@register_kernel("MatrixDiag", ALL_DEVICE_TYPES)
def matrix_diag(ctx, diagonal):
    """Each vector of the batch on the diagonal of a square matrix of zeros."""
    if diagonal.ndim < 1:
        raise invalid("input must be at least 1-dim, received shape: %s"
                      % shape_text(diagonal.shape))
    xp = ctx.xp
    size = diagonal.shape[-1]
    return diagonal[..., :, None] * xp.eye(size, dtype=diagonal.dtype)


@register_kernel("MatrixDiagPart", ALL_DEVICE_TYPES)
def matrix_diag_part(ctx, matrices):
    if matrices.ndim < 2:
        raise invalid("input must be at least 2-dim, received shape: %s"
                      % shape_text(matrices.shape))
    return ctx.xp.ascontiguousarray(ctx.xp.diagonal(matrices, axis1=-2, axis2=-1))


@register_kernel("MatrixSetDiag", ALL_DEVICE_TYPES)
def matrix_set_diag(ctx, matrices, diagonal):
    """A copy of `matrices` with each main diagonal replaced."""
    if matrices.ndim < 2:
        raise invalid("input must be at least 2-dim, received shape: %s"
                      % shape_text(matrices.shape))
    size = min(matrices.shape[-2:])
    if diagonal.shape != matrices.shape[:-2] + (size,):
        raise invalid("must have diagonal.shape == input.shape[:-2] + [min(input.shape[-2:])], "
                      "but received input shape: %s and diagonal shape: %s"
                      % (shape_text(matrices.shape), shape_text(diagonal.shape)))
    result = matrices.copy()
    index = ctx.xp.arange(size)
    result[..., index, index] = diagonal
    return result


# =============================================================================
# Square matrices
# =============================================================================

@register_kernel("MatrixDeterminant", ALL_DEVICE_TYPES)
def matrix_determinant(ctx, matrices):
    _check_square(matrices)
    return ctx.xp.linalg.det(matrices).astype(matrices.dtype, copy=False)


@register_kernel("LogMatrixDeterminant", ALL_DEVICE_TYPES)
def log_matrix_determinant(ctx, matrices):
    """The sign (of a complex matrix: the phase) and log |det|, which does not overflow."""
    _check_square(matrices)
    sign, log_abs = ctx.xp.linalg.slogdet(matrices)
    return sign.astype(matrices.dtype, copy=False), log_abs.astype(matrices.dtype, copy=False)


def _factored(xp, compute, matrices, failure):
    """compute(matrices), or an InvalidArgumentError saying `failure` when it breaks down.

    NumPy raises LinAlgError for a singular matrix; CuPy (and NumPy, for
    some nearly singular ones) gives infinities or NaNs instead.
    """
    try:
        result = compute(matrices)
    except np.linalg.LinAlgError:
        raise invalid(failure) from None
    if not bool(xp.all(xp.isfinite(result))):
        raise invalid(failure)
    return result


@register_kernel("MatrixInverse", ALL_DEVICE_TYPES)
def matrix_inverse(ctx, matrices, *, adjoint):
    _check_square(matrices)
    xp = ctx.xp
    if adjoint:
        matrices = _adjoint(xp, matrices)
    inverse = _factored(xp, xp.linalg.inv, matrices, "Input is not invertible.")
    return inverse.astype(matrices.dtype, copy=False)


@register_kernel("Cholesky", ALL_DEVICE_TYPES)
def cholesky(ctx, matrices):
    """The lower triangular L with L L^H = A; only A's lower triangle is read.

    A matrix that is not positive definite is an InvalidArgumentError, as in
    TF 1.15 (newer TensorFlow returns NaNs).
    """
    _check_square(matrices)
    xp = ctx.xp
    symmetric = xp.tril(matrices) + _adjoint(xp, xp.tril(matrices, -1))
    factor = _factored(xp, xp.linalg.cholesky, symmetric,
                       "Cholesky decomposition was not successful. The input might not be valid.")
    return factor.astype(matrices.dtype, copy=False)


@register_kernel("SelfAdjointEigV2", ALL_DEVICE_TYPES)
def self_adjoint_eig_v2(ctx, matrices, *, compute_v):
    """Eigenvalues in ascending order (and eigenvectors as columns), from the lower triangle."""
    _check_square(matrices)
    xp = ctx.xp
    if not compute_v:
        values = xp.linalg.eigvalsh(matrices, UPLO="L")
        return values.astype(matrices.dtype, copy=False), xp.zeros((0,), dtype=matrices.dtype)
    values, vectors = xp.linalg.eigh(matrices, UPLO="L")
    return values.astype(matrices.dtype, copy=False), vectors.astype(matrices.dtype, copy=False)


@register_kernel("Qr", ALL_DEVICE_TYPES)
def qr(ctx, matrices, *, full_matrices):
    """Q with orthonormal columns and upper triangular R, Q R = A, for each matrix."""
    if matrices.ndim < 2:
        raise invalid("Input tensor 0 must have rank >= 2, got %d" % matrices.ndim)
    q, r = ctx.xp.linalg.qr(matrices, mode="complete" if full_matrices else "reduced")
    return q.astype(matrices.dtype, copy=False), r.astype(matrices.dtype, copy=False)


@register_kernel("Cross", ALL_DEVICE_TYPES)
def cross(ctx, a, b):
    """The cross product of the 3-vectors along the last axis."""
    if a.shape != b.shape:
        raise invalid("both inputs must be of same shape: %s vs. %s"
                      % (shape_text(a.shape), shape_text(b.shape)))
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid("Dimension of inner-most dimension must be 3: %s" % shape_text(a.shape))
    return ctx.xp.cross(a, b).astype(a.dtype, copy=False)


# =============================================================================
# Linear systems
# =============================================================================

def _check_systems(matrices, rhs):
    _check_square(matrices)
    if rhs.ndim != matrices.ndim:
        raise invalid("Input and right-hand side must have the same rank, got %d != %d"
                      % (matrices.ndim, rhs.ndim))
    if rhs.shape[:-2] != matrices.shape[:-2]:
        raise invalid("Input and right-hand side must have matching batch dimensions: %s vs. %s"
                      % (shape_text(matrices.shape), shape_text(rhs.shape)))
    if rhs.shape[-2] != matrices.shape[-1]:
        raise invalid("Input matrix and right-hand side must have the same number of rows: "
                      "%d vs. %d" % (matrices.shape[-1], rhs.shape[-2]))


def _solve(xp, matrices, rhs):
    """A X = rhs for X; an InvalidArgumentError when some A is singular."""
    if matrices.shape[-1] == 0 or rhs.size == 0:
        return xp.zeros(rhs.shape, dtype=rhs.dtype)
    solution = _factored(xp, lambda a: xp.linalg.solve(a, rhs), matrices,
                         "Input matrix is not invertible.")
    return solution.astype(rhs.dtype, copy=False)


@register_kernel("MatrixSolve", ALL_DEVICE_TYPES)
def matrix_solve(ctx, matrix, rhs, *, adjoint):
    _check_systems(matrix, rhs)
    xp = ctx.xp
    return _solve(xp, _adjoint(xp, matrix) if adjoint else matrix, rhs)


@register_kernel("MatrixTriangularSolve", ALL_DEVICE_TYPES)
def matrix_triangular_solve(ctx, matrix, rhs, *, lower, adjoint):
    """Solves with the lower (or upper) triangle of each matrix; the other entries are ignored."""
    _check_systems(matrix, rhs)
    xp = ctx.xp
    triangle = xp.tril(matrix) if lower else xp.triu(matrix)
    return _solve(xp, _adjoint(xp, triangle) if adjoint else triangle, rhs)
