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

    NumPy raises LinAlgError for a singular matrix (and the iterations
    here for one that does not converge); CuPy (and NumPy, for some nearly
    singular ones) gives infinities or NaNs instead.
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


# =============================================================================
# Decompositions: SVD, LU
# =============================================================================

@register_kernel("Svd", ALL_DEVICE_TYPES)
def svd(ctx, matrices, *, compute_uv, full_matrices):
    """s in descending order, and u, v with a = u diag(s) v^H (v, not v^H, as TF returns it)."""
    if matrices.ndim < 2:
        raise invalid("Input tensor 0 must have rank >= 2, got %d" % matrices.ndim)
    xp = ctx.xp
    if not compute_uv:
        values = xp.linalg.svd(matrices, compute_uv=False)
        empty = xp.zeros((0,), dtype=matrices.dtype)
        return values.astype(matrices.dtype, copy=False), empty, empty
    u, values, vh = xp.linalg.svd(matrices, full_matrices=full_matrices)
    return (values.astype(matrices.dtype, copy=False), u.astype(matrices.dtype, copy=False),
            _adjoint(xp, vh).astype(matrices.dtype, copy=False))


def _swap_rows(xp, matrices, row, other_rows):
    """Swaps row `row` with row other_rows[i] of matrix i, for every matrix of the batch."""
    batch = xp.arange(matrices.shape[0])
    saved = matrices[batch, row].copy()
    matrices[batch, row] = matrices[batch, other_rows]
    matrices[batch, other_rows] = saved


@register_kernel("Lu", ALL_DEVICE_TYPES)
def lu(ctx, matrices, *, output_idx_type):
    """Gaussian elimination with partial pivoting: L + U - I, and perm with a[perm] = L U.

    Column by column, the row with the largest entry (in magnitude) is
    swapped up to be the pivot; the multipliers below it become L's column.
    """
    _check_square(matrices)
    xp = ctx.xp
    n = matrices.shape[-1]
    factors = matrices.reshape((-1, n, n)).copy()
    perm = xp.broadcast_to(xp.arange(n), (factors.shape[0], n)).copy()
    for k in range(n):
        pivots = k + xp.argmax(xp.abs(factors[:, k:, k]), axis=-1)
        _swap_rows(xp, factors, k, pivots)
        _swap_rows(xp, perm[..., None], k, pivots)
        pivot = factors[:, k, k]
        if not bool(xp.all(pivot != 0)):
            raise invalid("Input is not invertible.")
        factors[:, k + 1:, k] /= pivot[:, None]
        factors[:, k + 1:, k + 1:] -= factors[:, k + 1:, k, None] * factors[:, k, None, k + 1:]
    return (factors.reshape(matrices.shape),
            perm.reshape(matrices.shape[:-1]).astype(output_idx_type.as_numpy_dtype))


# =============================================================================
# Least squares, matrix functions
# =============================================================================

@register_kernel("MatrixSolveLs", ALL_DEVICE_TYPES)
def matrix_solve_ls(ctx, matrix, rhs, l2_regularizer, *, fast):
    """argmin_X ||A X - B||^2 + l2 ||X||^2, per matrix.

    fast: the regularized normal equations, solved by Cholesky (A must have
    full rank unless l2 > 0). Otherwise the minimum-norm solution through
    the pseudo-inverse, which any A has; l2_regularizer is then ignored, as
    in TensorFlow.
    """
    if matrix.ndim < 2 or rhs.ndim != matrix.ndim:
        raise invalid("Input and right-hand side must have the same rank >= 2, got %d and %d"
                      % (matrix.ndim, rhs.ndim))
    if matrix.shape[:-2] != rhs.shape[:-2] or matrix.shape[-2] != rhs.shape[-2]:
        raise invalid("Input matrix and right-hand side must have the same number of rows: "
                      "%s vs. %s" % (shape_text(matrix.shape), shape_text(rhs.shape)))
    xp = ctx.xp
    if not fast:
        return (xp.linalg.pinv(matrix) @ rhs).astype(rhs.dtype, copy=False)
    rows, cols = matrix.shape[-2:]
    l2 = float(host_array(ctx, l2_regularizer))
    adjoint = _adjoint(xp, matrix)
    if rows >= cols:
        gramian = adjoint @ matrix + l2 * xp.eye(cols, dtype=matrix.dtype)
        solution = _solve(xp, gramian, adjoint @ rhs)
    else:
        gramian = matrix @ adjoint + l2 * xp.eye(rows, dtype=matrix.dtype)
        solution = adjoint @ _solve(xp, gramian, rhs)
    return solution.astype(rhs.dtype, copy=False)


def _denman_beavers(xp, matrices, identity):
    """The principal square root of each matrix: Y -> (Y + Z^-1) / 2, Z -> (Z + Y^-1) / 2.

    Y starts at A and Z at I; Y converges (quadratically) to A^(1/2) and Z
    to A^(-1/2) when no eigenvalue of A lies on the closed negative real
    axis.
    """
    root, inverse_root = matrices, identity
    for _ in range(100):
        next_root = 0.5 * (root + xp.linalg.inv(inverse_root))
        inverse_root = 0.5 * (inverse_root + xp.linalg.inv(root))
        change = xp.max(xp.abs(next_root - root))
        root = next_root
        if not bool(change > 1e3 * np.finfo(root.dtype).eps * (1 + xp.max(xp.abs(root)))):
            return root
    raise np.linalg.LinAlgError("no convergence")  # _factored reports it


def _matrix_function(xp, compute, matrices, failure):
    _check_square(matrices)
    if matrices.size == 0:
        return matrices.copy()
    result = _factored(xp, compute, matrices, failure)
    return result.astype(matrices.dtype, copy=False)


@register_kernel("MatrixSquareRoot", ALL_DEVICE_TYPES)
def matrix_square_root(ctx, matrices):
    """The principal square root R of each matrix: R R = A."""
    _check_square(matrices)
    xp = ctx.xp
    identity = xp.broadcast_to(xp.eye(matrices.shape[-1], dtype=matrices.dtype), matrices.shape)
    return _matrix_function(xp, lambda a: _denman_beavers(xp, a, identity), matrices,
                            "Input matrix has no principal square root.")


def _logarithm(xp, matrices):
    """Inverse scaling and squaring: log A = 2^k log(A^(1/2^k)), A^(1/2^k) close to I.

    Square roots are taken until every ||A^(1/2^k) - I|| < 0.1; then the
    series log(I + E) = E - E^2/2 + E^3/3 - ... converges in 20 terms to
    double precision.
    """
    identity = xp.broadcast_to(xp.eye(matrices.shape[-1], dtype=matrices.dtype), matrices.shape)
    root, squarings = matrices, 0
    while float(xp.max(xp.abs(root - identity))) >= 0.1 and squarings < 60:
        root = _denman_beavers(xp, root, identity)
        squarings += 1
    offset = root - identity
    term, result = identity, xp.zeros_like(matrices)
    for power in range(1, 21):
        term = term @ offset
        result = result + ((-1) ** (power + 1) / power) * term
    return result * 2 ** squarings


@register_kernel("MatrixLogarithm", ALL_DEVICE_TYPES)
def matrix_logarithm(ctx, matrices):
    """The principal logarithm L of each (complex) matrix: exp(L) = A."""
    xp = ctx.xp
    return _matrix_function(xp, lambda a: _logarithm(xp, a), matrices,
                            "Input matrix has no principal logarithm.")


# =============================================================================
# Tridiagonal matrices
# =============================================================================

def _tridiagonal_dense(xp, superdiag, maindiag, subdiag):
    """The full matrices of the three diagonals (each [..., m]; superdiag's last and
    subdiag's first entries are not read)."""
    size = maindiag.shape[-1]
    dense = xp.zeros(maindiag.shape + (size,), dtype=maindiag.dtype)
    index = xp.arange(size)
    dense[..., index, index] = maindiag
    dense[..., index[:-1], index[1:]] = superdiag[..., :-1]
    dense[..., index[1:], index[:-1]] = subdiag[..., 1:]
    return dense


@register_kernel("TridiagonalSolve", ALL_DEVICE_TYPES)
def tridiagonal_solve(ctx, diagonals, rhs, *, partial_pivoting):
    """X with A X = rhs, A given by its diagonals [..., 3, m]: superdiagonal, main, subdiagonal.

    Solved as a full matrix with partial pivoting (O(m^3), where TensorFlow's
    Thomas algorithm takes O(m)); without pivoting TF's answer can differ
    when a pivot is tiny, never when the system is well conditioned.
    """
    if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
        raise invalid("Expected diagonals to have shape [..., 3, M], got %s"
                      % shape_text(diagonals.shape))
    if rhs.ndim != diagonals.ndim or rhs.shape[-2] != diagonals.shape[-1]:
        raise invalid("Expected rhs to have shape [..., M, K] matching diagonals %s, got %s"
                      % (shape_text(diagonals.shape), shape_text(rhs.shape)))
    xp = ctx.xp
    dense = _tridiagonal_dense(xp, diagonals[..., 0, :], diagonals[..., 1, :],
                               diagonals[..., 2, :])
    if rhs.size == 0:
        return xp.zeros(rhs.shape, dtype=rhs.dtype)
    solution = _factored(xp, lambda a: xp.linalg.solve(a, rhs), dense,
                         "The matrix is not invertible.")
    return solution.astype(rhs.dtype, copy=False)


@register_kernel("TridiagonalMatMul", ALL_DEVICE_TYPES)
def tridiagonal_matmul(ctx, superdiag, maindiag, subdiag, rhs):
    """A rhs, row by row: super[i] rhs[i+1] + main[i] rhs[i] + sub[i] rhs[i-1]."""
    xp = ctx.xp
    for diagonal in (superdiag, maindiag, subdiag):
        if diagonal.shape != rhs.shape[:-2] + (1, rhs.shape[-2]):
            raise invalid("Expected diagonals of shape %s, got %s"
                          % (shape_text(rhs.shape[:-2] + (1, rhs.shape[-2])),
                             shape_text(diagonal.shape)))
    column = lambda diagonal: xp.swapaxes(diagonal, -1, -2)  # noqa: E731 - [..., m, 1]
    result = column(maindiag) * rhs
    result[..., :-1, :] += column(superdiag)[..., :-1, :] * rhs[..., 1:, :]
    result[..., 1:, :] += column(subdiag)[..., 1:, :] * rhs[..., :-1, :]
    return result


# =============================================================================
# Einsum
# =============================================================================

@register_kernel("Einsum", ALL_DEVICE_TYPES)
def einsum(ctx, *inputs, equation):
    try:
        result = ctx.xp.einsum(equation, *inputs)
    except ValueError as error:
        raise invalid("Einsum '%s' on shapes %s: %s"
                      % (equation, ", ".join(shape_text(x.shape) for x in inputs), error)) from None
    return ctx.xp.asarray(result, dtype=inputs[0].dtype)
