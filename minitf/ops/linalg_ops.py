"""Linear algebra ops: transposes, bands and diagonals, determinants, inverses, solvers.

Every function takes a matrix, or a batch of them: a tensor of rank >= 2
whose last two dimensions are the rows and columns, and whose leading
dimensions are repeated over. The ops' OpDefs are in
`minitf/framework/op_defs/linalg.py`, their kernels in
`minitf/kernels/cpu/linalg_kernels.py`, their gradients in
`minitf/autodiff/linalg_grad.py`. Composites (`trace`, `logdet`,
`cholesky_solve`, `eye`, `matvec`) are built from ops as TensorFlow builds
them.

Mirrors `tensorflow/python/ops/linalg_ops.py`, `linalg_ops_impl.py`,
`linalg/linalg_impl.py` and the matrix functions of `array_ops.py` (TF 1.15).
"""

import builtins

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops

# =============================================================================
# Transposes
# =============================================================================


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Each matrix of the batch transposed: the last two dimensions swapped."""
    with ops.name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError("Argument 'a' should be a (batch) matrix, with rank >= 2.  "
                                 "Found: %s" % a.shape)
            perm = list(range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            rank = array_ops.rank(a)
            perm = array_ops.concat([math_ops.range(0, rank - 2, 1), [rank - 1, rank - 2]], 0)
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of each matrix (for real numbers, the transpose)."""
    with ops.name_scope(name, "adjoint", [matrix]):
        matrix = convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """Each matrix of `a` times the matching vector of `b`: matmul with b as one column."""
    with ops.name_scope(name, "MatVec", [a, b]):
        output = math_ops.matmul(a, array_ops.expand_dims(b, axis=-1), transpose_a=transpose_a,
                                 adjoint_a=adjoint_a, a_is_sparse=a_is_sparse,
                                 b_is_sparse=b_is_sparse)
        return array_ops.squeeze(output, axis=-1)


# =============================================================================
# Bands and diagonals
# =============================================================================


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's argument name
    """Zeros outside a band: num_lower diagonals below the main one, num_upper above (-1: all).

    band_part(a, -1, 0) is the lower triangle, band_part(a, 0, 0) the diagonal.
    """
    return apply_op("MatrixBandPart", name=name, input=input, num_lower=num_lower,
                    num_upper=num_upper)


def _only_the_main_diagonal(k, padding_value, *sizes):
    if k != 0 or padding_value != 0 or any(size != -1 for size in sizes):
        raise NotImplementedError("minitf's matrix diagonals are main diagonals only "
                                  "(k=0, default sizes and padding)")


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0):
    """Square matrices with `diagonal` (vectors) on their main diagonal, zeros elsewhere."""
    _only_the_main_diagonal(k, padding_value, num_rows, num_cols)
    return apply_op("MatrixDiag", name=name, diagonal=diagonal)


def diag_part(input, name="diag_part", k=0, padding_value=0):  # noqa: A002
    """The main diagonal of each matrix: [..., m, n] gives [..., min(m, n)]."""
    _only_the_main_diagonal(k, padding_value)
    return apply_op("MatrixDiagPart", name=name, input=input)


def set_diag(input, diagonal, name="set_diag", k=0):  # noqa: A002 - TF's argument name
    """A copy of each matrix with its main diagonal replaced by `diagonal`."""
    _only_the_main_diagonal(k, 0)
    return apply_op("MatrixSetDiag", name=name, input=input, diagonal=diagonal)


def trace(x, name=None):
    """The sum of the main diagonal of each matrix."""
    with ops.name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(diag_part(x), [-1], name=scope)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (ones on the main diagonal), or a batch of them."""
    with ops.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, ops.Tensor) or isinstance(num_columns, ops.Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, int) or not isinstance(num_columns, int):
                raise TypeError("num_rows and num_columns must be positive integer values.")
            if num_rows <= 0 or num_columns <= 0:
                raise ValueError("num_rows and num_columns must be positive integer values.")
            diag_size = min(num_rows, num_columns)
        if isinstance(batch_shape, ops.Tensor) or isinstance(diag_size, ops.Tensor):
            diag_shape = array_ops.concat([batch_shape, [diag_size]], 0)
            shape = array_ops.concat([batch_shape, [num_rows, num_columns]], 0)
        else:
            diag_shape = list(batch_shape) + [diag_size]
            shape = list(batch_shape) + [num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return diag(diag_ones)
        return set_diag(array_ops.zeros(shape, dtype=dtype), diag_ones)


# =============================================================================
# Square matrices: determinants, inverse, Cholesky factor
# =============================================================================


def det(input, name=None):  # noqa: A002 - TF's argument name
    """The determinant of each square matrix."""
    return apply_op("MatrixDeterminant", name=name, input=input)


def slogdet(input, name=None):  # noqa: A002 - TF's argument name
    """(sign, log |det|) of each square matrix: a determinant that cannot overflow."""
    return apply_op("LogMatrixDeterminant", name=name, input=input)


def logdet(matrix, name=None):
    """log det of each Hermitian positive definite matrix, from its Cholesky factor L.

    det = prod(diag(L))^2, so log det = 2 sum(log(diag(L))).
    """
    with ops.name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        return 2.0 * math_ops.reduce_sum(math_ops.log(math_ops.real(diag_part(chol))),
                                         axis=[-1])


def inv(input, adjoint=False, name=None):  # noqa: A002 - TF's argument name
    """The inverse of each square matrix (of its adjoint with adjoint=True)."""
    return apply_op("MatrixInverse", name=name, input=input, adjoint=adjoint)


def cholesky(input, name=None):  # noqa: A002 - TF's argument name
    """The lower triangular L with L L^H = A, for Hermitian positive definite A.

    Only the lower triangle of A is read.
    """
    return apply_op("Cholesky", name=name, input=input)


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's argument name
    """(q, r) with q r = input, q's columns orthonormal, r upper triangular."""
    q, r = apply_op("Qr", name=name, input=input, full_matrices=full_matrices)
    return q, r


def eigh(tensor, name=None):
    """(eigenvalues, eigenvectors) of each Hermitian matrix, read from its lower triangle.

    The eigenvalues come in ascending order; eigenvector i is column i of
    the second result.
    """
    e, v = apply_op("SelfAdjointEigV2", name=name, input=tensor, compute_v=True)
    return e, v


def eigvalsh(tensor, name=None):
    """The eigenvalues of each Hermitian matrix, in ascending order."""
    e, _ = apply_op("SelfAdjointEigV2", name=name, input=tensor, compute_v=False)
    return e


# =============================================================================
# Linear systems
# =============================================================================


def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix X = rhs (adjoint(matrix) X = rhs with adjoint=True)."""
    return apply_op("MatrixSolve", name=name, matrix=matrix, rhs=rhs, adjoint=adjoint)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix X = rhs, reading only the lower (or upper) triangle of matrix."""
    return apply_op("MatrixTriangularSolve", name=name, matrix=matrix, rhs=rhs, lower=lower,
                    adjoint=adjoint)


def cholesky_solve(chol, rhs, name=None):
    """X with A X = rhs, given A's Cholesky factor: two triangular solves, L y = rhs, L^H X = y."""
    with ops.name_scope(name, "cholesky_solve", [chol, rhs]):
        y = triangular_solve(chol, rhs, adjoint=False, lower=True)
        return triangular_solve(chol, y, adjoint=True, lower=True)


# =============================================================================
# Vectors: the cross product, norms
# =============================================================================


def cross(a, b, name=None):
    """The cross product of the 3-vectors along the last axis of a and b."""
    return apply_op("Cross", name=name, a=a, b=b)


_VECTOR_NORMS = ["euclidean", 1, 2, np.inf]
_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]


def _check_norm(ord, axis):  # noqa: A002 - TF's argument name
    """Whether it is a matrix norm (two axes), after TF's checks of `ord` and `axis`."""
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             "got %s" % (axis,))
        if ord not in _MATRIX_NORMS:
            raise ValueError("'ord' must be a supported matrix norm in %s, got %s"
                             % (_MATRIX_NORMS, ord))
        if ord in (2, 2.0):
            raise NotImplementedError("minitf has no matrix 2-norm (it takes an SVD)")
        return True
    if not (isinstance(axis, int) or axis is None):
        raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         "got %s" % (axis,))
    if (not np.isreal(ord) or ord <= 0) and ord not in _VECTOR_NORMS:
        raise ValueError("'ord' must be a supported vector norm, got %s" % ord)
    return False


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None):
    """The vector p-norm (or a matrix norm over two axes) of `tensor`.

    ord: 'euclidean' (2), 1, inf or any p > 0 for vectors; 'fro'/'euclidean',
    1 (the largest column sum) or inf (the largest row sum) for matrices.
    axis: None (the whole tensor as one vector), an axis, or two axes.
    """
    keepdims = builtins.bool(keepdims if keepdims is not None else keep_dims)
    is_matrix_norm = _check_norm(ord, axis)
    axis = tuple(axis) if is_matrix_norm else None if axis is None else (axis,)
    with ops.name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if ord in ("fro", "euclidean", 2, 2.0):
            result = math_ops.sqrt(math_ops.reduce_sum(tensor * math_ops.conj(tensor), axis,
                                                       keepdims=True))
        else:
            result = math_ops.abs(tensor)
            if ord == 1:
                sum_axis = None if axis is None else axis[0]
                result = math_ops.reduce_sum(result, sum_axis, keepdims=True)
                if is_matrix_norm:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                max_axis = None if axis is None else axis[0]
                result = math_ops.reduce_max(result, max_axis, keepdims=True)
            else:  # a p-norm, p > 0
                result = math_ops.pow(math_ops.reduce_sum(math_ops.pow(result, ord), axis,
                                                          keepdims=True), 1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / its norm, the norm), the norm kept with its reduced axes to divide by."""
    with ops.name_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor)
        tensor_norm = math_ops.cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return tensor / tensor_norm, tensor_norm
