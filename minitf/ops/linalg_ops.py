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

from minitf.framework.op_defs.linalg import parse_einsum_equation
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
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
            batch_shape = convert_to_tensor(batch_shape, dtype=dtypes.int32)  # [] is not float
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


# =============================================================================
# Decompositions: SVD, LU and what is built on them
# =============================================================================


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """(s, u, v) with tensor = u diag(s) v^H, s descending; s alone without compute_uv.

    u and v have min(m, n) columns, or are square with full_matrices.
    """
    s, u, v = apply_op("Svd", name=name, input=tensor, compute_uv=compute_uv,
                       full_matrices=full_matrices)
    if compute_uv:
        return s, u, v
    return s


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse, from the SVD: v diag(1/s) u^H.

    Singular values below rcond * the largest are taken as zero; rcond's
    default is 10 max(m, n) eps (NumPy's is 1e-15).
    """
    with ops.name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        if not a.dtype.is_floating:
            raise TypeError("Input `a` must have `float`-like `dtype` (saw {}).".format(
                a.dtype.name))
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            if a.shape[-2:].is_fully_defined():
                max_rows_cols = float(np.max(a.shape[-2:].as_list()))
            else:
                max_rows_cols = math_ops.cast(math_ops.reduce_max(array_ops.shape(a)[-2:]),
                                              a.dtype)
            rcond = 10.0 * max_rows_cols * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        singular_values, left_singular_vectors, right_singular_vectors = svd(
            a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math_ops.reduce_max(singular_values, axis=-1)
        singular_values = array_ops.where_v2(
            singular_values > array_ops.expand_dims(cutoff, -1), singular_values,
            np.array(np.inf, dtype))
        return math_ops.matmul(right_singular_vectors / array_ops.expand_dims(singular_values,
                                                                              -2),
                               left_singular_vectors, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """How many singular values exceed tol (default: eps max(m, n) the largest), as int32."""
    with ops.name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, name="a")
        s = svd(a, compute_uv=False)
        if tol is None:
            if a.shape[-2:].is_fully_defined():
                m = np.max(a.shape[-2:].as_list())
            else:
                m = math_ops.reduce_max(array_ops.shape(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = (eps * math_ops.cast(m, a.dtype)
                   * math_ops.reduce_max(s, axis=-1, keepdims=True))
        return math_ops.reduce_sum(math_ops.cast(s > tol, dtypes.int32), axis=-1)


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF's argument name
    """(lu, p): L + U - I packed in one matrix, and the row permutation with input[p] = L U."""
    lower_upper, perm = apply_op("Lu", name=name, input=input, output_idx_type=output_idx_type)
    return lower_upper, perm


def _unit_lower(lower_upper):
    """L, read from the packed L + U - I: the lower triangle with ones on the diagonal."""
    return set_diag(band_part(lower_upper, num_lower=-1, num_upper=0),
                    array_ops.ones(array_ops.shape(lower_upper)[:-1], dtype=lower_upper.dtype))


def _check_lu(lower_upper, perm):
    """The static checks of TF's lu assertions: a square matrix, one index per row."""
    if lower_upper.shape.ndims is not None and lower_upper.shape.ndims < 2:
        raise ValueError("Argument `lower_upper` must have at least 2 dimensions.")
    if perm.shape.ndims is not None and perm.shape.ndims < 1:
        raise ValueError("Argument `perm` must have at least 1 dimension.")
    if not perm.dtype.is_integer:
        raise TypeError("Argument `perm` must be an integer tensor.")


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A X = rhs, from A's LU factors: L y = rhs[perm], then U X = y."""
    with ops.name_scope(name or "lu_solve"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, dtype=dtypes.int32, name="perm")
        rhs = convert_to_tensor(rhs, dtype=lower_upper.dtype, name="rhs")
        _check_lu(lower_upper, perm)
        if rhs.shape.ndims == 2 and perm.shape.ndims == 1:
            permuted_rhs = array_ops.gather(rhs, perm, axis=-2)
        else:
            permuted_rhs = array_ops.gather(rhs, perm, axis=-2, batch_dims=perm.shape.ndims - 1)
        return triangular_solve(lower_upper,  # only the upper triangle is read
                                triangular_solve(_unit_lower(lower_upper), permuted_rhs),
                                lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """A^-1 from A's LU factors: lu_solve with the identity as rhs."""
    with ops.name_scope(name or "lu_matrix_inverse"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, dtype=dtypes.int32, name="perm")
        _check_lu(lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        return lu_solve(lower_upper, perm,
                        rhs=eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix A back from its LU factors: the rows of L U put back in place."""
    with ops.name_scope(name or "lu_reconstruct"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, dtype=dtypes.int32, name="perm")
        _check_lu(lower_upper, perm)
        upper = band_part(lower_upper, num_lower=0, num_upper=-1)
        x = math_ops.matmul(_unit_lower(lower_upper), upper)
        if lower_upper.shape.ndims == 2:
            x = array_ops.gather(x, array_ops.invert_permutation(perm))
        else:
            # The inverse permutation of each row of perm: where each index goes.
            inverse = math_ops.argmax(math_ops.cast(math_ops.equal(
                array_ops.expand_dims(perm, -1),
                math_ops.range(array_ops.shape(perm)[-1])), dtypes.int32), axis=-2,
                output_type=dtypes.int32)
            x = array_ops.gather(x, inverse, axis=-2, batch_dims=-1)
        x.set_shape(lower_upper.shape)
        return x


# =============================================================================
# Least squares
# =============================================================================


def _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind):
    """The Cholesky factor of A^H A + l2 I (first kind) or A A^H + l2 I (second kind)."""
    gramian = math_ops.matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, ops.Tensor) or l2_regularizer != 0:
        matrix_shape = array_ops.shape(matrix)
        small_dim = matrix_shape[-1] if first_kind else matrix_shape[-2]
        identity = eye(small_dim, batch_shape=matrix_shape[:-2], dtype=matrix.dtype)
        small_dim_static = matrix.shape[-1 if first_kind else -2]
        identity.set_shape(matrix.shape[:-2].concatenate([small_dim_static, small_dim_static]))
        gramian += l2_regularizer * identity
    return cholesky(gramian)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """X minimizing ||matrix X - rhs||^2 + l2_regularizer ||X||^2, for each matrix of the batch.

    fast (the default): the normal equations, A^H A X = A^H B for tall A
    (or X = A^H (A A^H)^-1 B for wide A), solved by Cholesky and built from
    ops as TensorFlow builds them. fast=False: the MatrixSolveLs op, which
    also solves rank-deficient systems (minimum norm), without a gradient.
    """
    matrix = convert_to_tensor(matrix, name="matrix")
    if matrix.dtype == dtypes.complex128 and l2_regularizer != 0:
        raise ValueError("Regularized least squares are only supported for float32/float64 "
                         "and complex64 matrices, not complex128.")
    if not fast:
        return apply_op("MatrixSolveLs", name=name, matrix=matrix, rhs=rhs,
                        l2_regularizer=l2_regularizer, fast=fast)
    with ops.name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        rows, cols = matrix.shape[-2:] if matrix.shape.ndims else (None, None)
        rows, cols = tensor_dimension(rows), tensor_dimension(cols)
        if rows is None or cols is None:
            raise NotImplementedError("minitf's lstsq with fast=True needs the matrix's last "
                                      "two dimensions known when the graph is built")
        if rows >= cols:
            chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
            return cholesky_solve(chol, math_ops.matmul(matrix, rhs, adjoint_a=True))
        chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
        return math_ops.matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)


def tensor_dimension(dim):
    return None if dim is None else getattr(dim, "value", dim)


# =============================================================================
# Matrix functions: square root, exponential, logarithm
# =============================================================================


def sqrtm(input, name=None):  # noqa: A002 - TF's argument name
    """The principal square root R of each matrix: R R = input."""
    return apply_op("MatrixSquareRoot", name=name, input=input)


def logm(input, name=None):  # noqa: A002 - TF's argument name
    """The principal logarithm of each complex matrix (TF has it for complex numbers only)."""
    return apply_op("MatrixLogarithm", name=name, input=input)


# Higham's Pade coefficients b_0 .. b_q of the degree-q approximant of exp,
# and the largest 1-norm for which degree q is accurate (float64; 2005).
_PADE = {3: [120.0, 60.0, 12.0],
         5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
         7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
         9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
             110880.0, 3960.0, 90.0],
         13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
              1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
              33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0]}


def _pade(matrix, degree):
    """(U, V) with exp(A) ~ (V - U)^-1 (V + U): U the odd powers of A, V the even ones."""
    b = [constant(x, matrix.dtype) for x in _PADE[degree]]
    ident = eye(array_ops.shape(matrix)[-2], batch_shape=array_ops.shape(matrix)[:-2],
                dtype=matrix.dtype)
    matrix_2 = math_ops.matmul(matrix, matrix)
    powers = [ident, matrix_2]
    if degree == 13:
        matrix_4 = math_ops.matmul(matrix_2, matrix_2)
        matrix_6 = math_ops.matmul(matrix_4, matrix_2)
        tmp_u = (math_ops.matmul(matrix_6, matrix_6 + b[11] * matrix_4 + b[9] * matrix_2)
                 + b[7] * matrix_6 + b[5] * matrix_4 + b[3] * matrix_2 + b[1] * ident)
        tmp_v = b[12] * matrix_6 + b[10] * matrix_4 + b[8] * matrix_2
        matrix_v = (math_ops.matmul(matrix_6, tmp_v) + b[6] * matrix_6 + b[4] * matrix_4
                    + b[2] * matrix_2 + b[0] * ident)
        return math_ops.matmul(matrix, tmp_u), matrix_v
    for _ in builtins.range(degree // 2 - 1):  # powers[k] is A^(2k)
        powers.append(math_ops.matmul(powers[-1], matrix_2))
    tmp = powers[-1]
    for k in builtins.range(degree // 2 - 1, -1, -1):
        tmp = tmp + b[2 * k + 1] * powers[k]
    matrix_v = b[degree - 1] * powers[-1]
    for k in builtins.range(degree // 2 - 1, -1, -1):
        matrix_v = matrix_v + b[2 * k] * powers[k]
    return math_ops.matmul(matrix, tmp), matrix_v


# The largest 1-norm at which each degree is accurate (Higham 2005), and the
# degrees used, for single and double precision.
_PADE_LIMITS = {
    "single": ((4.258730016922831e-001, 1.880152677804762e+000), (3, 5, 7), 3.925724783138660),
    "double": ((1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                2.097847961257068e+000), (3, 5, 7, 9, 13), 5.371920351148152)}


def expm(input, name=None):  # noqa: A002 - TF's argument name
    """exp(A) = sum A^n / n!, by scaling and squaring with a Pade approximant (Higham 2005).

    The approximant's degree follows A's 1-norm; beyond the largest
    degree's limit, A is divided by 2^s and the result squared s times.
    """
    with ops.name_scope(name, "matrix_exponential", [input]):
        matrix = convert_to_tensor(input, name="input")
        if matrix.shape[-2:] == [0, 0]:
            return matrix
        input_shape = matrix.shape
        batch_shape = matrix.shape[:-2]
        if not batch_shape.is_fully_defined():
            batch_shape = array_ops.shape(matrix)[:-2]
        matrix = array_ops.reshape(
            matrix, array_ops.concat(([-1], array_ops.shape(matrix)[-2:]), axis=0))
        l1_norm = math_ops.reduce_max(math_ops.reduce_sum(
            math_ops.abs(matrix), axis=array_ops.size(array_ops.shape(matrix)) - 2), axis=-1)
        l1_norm = l1_norm[..., None, None]

        def const(x):
            return constant(x, l1_norm.dtype)

        def nest_where(vals, cases):
            if len(vals) == 1:
                return array_ops.where_v2(math_ops.less(l1_norm, const(vals[0])), cases[0],
                                          cases[1])
            return array_ops.where_v2(math_ops.less(l1_norm, const(vals[0])), cases[0],
                                      nest_where(vals[1:], cases[1:]))

        if matrix.dtype in (dtypes.float16, dtypes.float32, dtypes.complex64):
            precision = "single"
        elif matrix.dtype in (dtypes.float64, dtypes.complex128):
            precision = "double"
        else:
            raise ValueError("tf.linalg.expm does not support matrices of type %s"
                             % matrix.dtype)
        conds, degrees, maxnorm = _PADE_LIMITS[precision]
        squarings = math_ops.maximum(math_ops.floor(
            math_ops.log(l1_norm / const(maxnorm)) / math_ops.log(const(2.0))), 0)
        approximants = [_pade(matrix, degree) for degree in degrees[:-1]]
        approximants.append(_pade(matrix / math_ops.cast(math_ops.pow(const(2.0), squarings),
                                                         matrix.dtype), degrees[-1]))
        u = nest_where(conds, [pair[0] for pair in approximants])
        v = nest_where(conds, [pair[1] for pair in approximants])
        is_finite = math_ops.is_finite(math_ops.reduce_max(l1_norm))
        nan = constant(np.nan, matrix.dtype)
        result = control_flow_ops.cond(
            is_finite, lambda: solve(-u + v, u + v),
            lambda: array_ops.fill(array_ops.shape(matrix), nan))
        max_squarings = math_ops.reduce_max(squarings)
        i = const(0.0)

        def keep_squaring(i, _):
            return math_ops.less(i, max_squarings)

        def square_once(i, r):
            return i + 1, array_ops.where_v2(math_ops.less(i, squarings),
                                             math_ops.matmul(r, r), r)

        _, result = control_flow_ops.while_loop(keep_squaring, square_once, [i, result])
        if isinstance(batch_shape, ops.Tensor):
            return array_ops.reshape(
                result, array_ops.concat((batch_shape, array_ops.shape(result)[-2:]), axis=0))
        return array_ops.reshape(result, batch_shape.concatenate(input_shape[-2:]).as_list())


# =============================================================================
# Tridiagonal matrices
# =============================================================================


def _pad_last_axis(tensor, before, after):
    """`tensor` with `before` zeros in front of its last axis and `after` behind it."""
    rank = tensor.shape.ndims
    if rank is None:
        raise ValueError("minitf needs the rank of tridiagonal diagonals known when the graph "
                         "is built")
    return array_ops.pad(tensor, [[0, 0]] * (rank - 1) + [[before, after]])


def _three_diagonals(diagonals, diagonals_format):
    """(superdiag, maindiag, subdiag), each [..., m], from any of TF's three formats."""
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
        return diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = [convert_to_tensor(d) for d in diagonals]
        m = maindiag.shape[-1] if maindiag.shape.ndims else None
        m = tensor_dimension(m)
        if tensor_dimension(subdiag.shape[-1]) == (m - 1 if m else -1):
            subdiag = _pad_last_axis(subdiag, 1, 0)
        if tensor_dimension(superdiag.shape[-1]) == (m - 1 if m else -1):
            superdiag = _pad_last_axis(superdiag, 0, 1)
        return superdiag, maindiag, subdiag
    if diagonals_format == "matrix":
        matrix = convert_to_tensor(diagonals, name="diagonals")
        m1, m2 = (tensor_dimension(d) for d in matrix.shape[-2:])
        if m1 and m2 and m1 != m2:
            raise ValueError("Expected last two dimensions of diagonals to be same, got {} "
                             "and {}".format(m1, m2))
        superdiag = _pad_last_axis(diag_part(matrix[..., :-1, 1:]), 0, 1)
        subdiag = _pad_last_axis(diag_part(matrix[..., 1:, :-1]), 1, 0)
        return superdiag, diag_part(matrix), subdiag
    raise ValueError("Unrecognized diagonals_format: {}".format(diagonals_format))


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True):
    """X with A X = rhs, A tridiagonal: given as [..., 3, m] ('compact': superdiagonal, main
    diagonal, subdiagonal), as a sequence of the three, or as the full matrix.

    rhs is [..., m, k], or [..., m] (one vector); transpose_rhs takes it as [..., k, m].
    """
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
    else:
        diagonals = array_ops.stack(_three_diagonals(diagonals, diagonals_format), axis=-2)
    rhs = convert_to_tensor(rhs, name="rhs")
    diags_rank, rhs_rank = diagonals.shape.ndims, rhs.shape.ndims
    if diags_rank is not None:
        if diags_rank < 2:
            raise ValueError("Expected diagonals to have rank at least 2, got {}".format(
                diags_rank))
        if rhs_rank and rhs_rank not in (diags_rank, diags_rank - 1):
            raise ValueError("Expected the rank of rhs to be {} or {}, got {}".format(
                diags_rank - 1, diags_rank, rhs_rank))
        if tensor_dimension(diagonals.shape[-2]) not in (None, 3):
            raise ValueError("Expected 3 diagonals got {}".format(diagonals.shape[-2]))
    if rhs_rank is not None and diags_rank is not None and rhs_rank == diags_rank - 1:
        if conjugate_rhs:
            rhs = math_ops.conj(rhs)
        return array_ops.squeeze(apply_op("TridiagonalSolve", name=name, diagonals=diagonals,
                                          rhs=array_ops.expand_dims(rhs, -1),
                                          partial_pivoting=partial_pivoting), -1)
    if transpose_rhs:
        rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = math_ops.conj(rhs)
    return apply_op("TridiagonalSolve", name=name, diagonals=diagonals, rhs=rhs,
                    partial_pivoting=partial_pivoting)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """A rhs for tridiagonal A (formats as tridiagonal_solve's), in O(m k)."""
    superdiag, maindiag, subdiag = _three_diagonals(diagonals, diagonals_format)
    return apply_op("TridiagonalMatMul", name=name,
                    superdiag=array_ops.expand_dims(superdiag, -2),
                    maindiag=array_ops.expand_dims(maindiag, -2),
                    subdiag=array_ops.expand_dims(subdiag, -2), rhs=rhs)


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None,
                     name=None):
    """The eigenvalues (ascending; and eigenvectors) of the Hermitian tridiagonal matrix with
    diagonal `alpha` [n] and superdiagonal `beta` [n - 1] (the subdiagonal is its conjugate).

    select 'a': all; 'i': those with indices select_range[0] <= i <= select_range[1];
    'v': those in the interval (select_range[0], select_range[1]]. The
    matrix is built and handed to SelfAdjointEigV2, exact to rounding (tol
    is accepted and not needed; TensorFlow bisects Sturm sequences to it).
    """
    if select not in ("a", "i", "v"):
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    with ops.name_scope(name or "eigh_tridiagonal"):
        alpha = convert_to_tensor(alpha, name="alpha")
        n = tensor_dimension(alpha.shape[0]) if alpha.shape.ndims else None
        if n is not None and n <= 1:
            return math_ops.real(alpha)
        beta = convert_to_tensor(beta, name="beta")
        if alpha.dtype != beta.dtype:
            raise ValueError("'alpha' and 'beta' must have the same type.")
        if alpha.dtype.is_complex:
            alpha = math_ops.cast(math_ops.real(alpha), alpha.dtype)
        # Only the lower triangle is read: the subdiagonal, beta's conjugate.
        lower = array_ops.pad(diag(math_ops.conj(beta)), [[1, 0], [0, 1]])
        eigenvalues, eigenvectors = eigh(diag(alpha) + lower)
        eigenvalues = math_ops.real(eigenvalues)
        if select == "i":
            eigenvalues = eigenvalues[select_range[0]:select_range[1] + 1]
            eigenvectors = eigenvectors[:, select_range[0]:select_range[1] + 1]
        elif select == "v":
            inside = math_ops.logical_and(eigenvalues > select_range[0],
                                          eigenvalues <= select_range[1])
            eigenvalues = array_ops.boolean_mask(eigenvalues, inside)
            eigenvectors = array_ops.boolean_mask(eigenvectors, inside, axis=1)
        if eigvals_only:
            return eigenvalues
        return eigenvalues, eigenvectors


# =============================================================================
# Contractions: einsum, tensordot
# =============================================================================


def _contract_pairwise(inputs, subscripts, output):
    """Einsum of 3+ operands as a chain of two-operand Einsums, left to right.

    Each intermediate keeps the labels that a later operand or the output
    still needs.
    """
    result, result_subscripts = inputs[0], subscripts[0]
    for position in builtins.range(1, len(inputs)):
        later = "".join(subscripts[position + 1:]) + output
        pair = result_subscripts + subscripts[position]
        keep = "".join(dict.fromkeys(label for label in pair.replace(".", "")
                                     if label in later))
        keep = ("..." if "..." in pair else "") + keep
        if position == len(inputs) - 1:
            keep = output
        equation = "%s,%s->%s" % (result_subscripts, subscripts[position], keep)
        result = apply_op("Einsum", inputs=[result, inputs[position]], equation=equation)
        result_subscripts = keep
    return result


def einsum(equation, *inputs, **kwargs):
    """Sums of products named by subscripts: einsum('ij,jk->ik', a, b) is matmul(a, b).

    A label in the inputs but not in the output is summed over; '...'
    stands for broadcast axes; without '->' the output is the labels that
    appear once, in alphabetical order. One or two operands are one Einsum
    op; more are contracted two at a time.
    """
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError("Invalid keyword arguments for this function: "
                        + ", ".join(sorted(kwargs)))
    with ops.name_scope(name, "einsum", inputs):
        subscripts, output = parse_einsum_equation(equation)
        if len(subscripts) != len(inputs):
            raise ValueError("Expected %d inputs for equation '%s', got %d"
                             % (len(subscripts), equation, len(inputs)))
        inputs = [convert_to_tensor(x) for x in inputs]
        if len(inputs) <= 2:
            return apply_op("Einsum", inputs=inputs,
                            equation="%s->%s" % (",".join(subscripts), output))
        return _contract_pairwise(inputs, subscripts, output)


def _tensordot_axes(a, axes):
    """(a's axes, b's axes) to contract, from an int (a's last n with b's first n) or pairs."""
    a_shape = a.shape
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        if a_shape.ndims is not None:
            if axes > a_shape.ndims:
                raise ValueError("'axes' must not be larger than the number of dimensions of "
                                 "tensor %s." % a)
            return (list(builtins.range(a_shape.ndims - axes, a_shape.ndims)),
                    list(builtins.range(axes)))
        rank = array_ops.rank(a)
        return (math_ops.range(rank - axes, rank, dtype=dtypes.int32),
                math_ops.range(axes, dtype=dtypes.int32))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError("Different number of contraction axes 'a' and 'b', %s != %s."
                             % (len(a_axes), len(b_axes)))
        return a_axes, b_axes
    axes = convert_to_tensor(axes, name="axes", dtype=dtypes.int32)
    return axes[0], axes[1]


def _tensordot_reshape(a, axes, flipped=False):
    """`a` as a matrix: its free axes as rows, contracted as columns (the other way if flipped).

    Returns the matrix, the free dimensions (a list when known, else a
    tensor) and their static values (or None).
    """
    if a.shape.is_fully_defined() and isinstance(axes, (list, tuple)):
        shape_a = a.shape.as_list()
        axes = [i if i >= 0 else i + len(shape_a) for i in axes]
        free = [i for i in builtins.range(len(shape_a)) if i not in axes]
        free_dims = [shape_a[i] for i in free]
        prod_free = int(np.prod([shape_a[i] for i in free]))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = list(axes) + free if flipped else free + list(axes)
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        a_trans = array_ops.transpose(a, perm) if perm != list(
            builtins.range(len(shape_a))) else a
        reshaped_a = (array_ops.reshape(a_trans, new_shape)
                      if a_trans.shape.as_list() != new_shape else a_trans)
        return reshaped_a, free_dims, free_dims
    if a.shape.ndims is not None and isinstance(axes, (list, tuple)):
        shape_a = a.shape.as_list()
        axes = [i if i >= 0 else i + len(shape_a) for i in axes]
        free = [i for i in builtins.range(len(shape_a)) if i not in axes]
        free_dims_static = [shape_a[i] for i in free]
        axes = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        free = convert_to_tensor(free, dtype=dtypes.int32, name="free")
        shape_a = array_ops.shape(a)
    else:
        free_dims_static = None
        shape_a = array_ops.shape(a)
        rank_a = array_ops.rank(a)
        axes = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        axes = array_ops.where_v2(axes >= 0, axes, axes + rank_a)
        free, _ = array_ops.setdiff1d(math_ops.range(rank_a), axes)
    free_dims = array_ops.gather(shape_a, free)
    axes_dims = array_ops.gather(shape_a, axes)
    prod_free_dims = math_ops.reduce_prod(free_dims)
    prod_axes_dims = math_ops.reduce_prod(axes_dims)
    if flipped:
        perm = array_ops.concat([axes, free], 0)
        new_shape = array_ops.stack([prod_axes_dims, prod_free_dims])
    else:
        perm = array_ops.concat([free, axes], 0)
        new_shape = array_ops.stack([prod_free_dims, prod_axes_dims])
    reshaped_a = array_ops.reshape(array_ops.transpose(a, perm), new_shape)
    return reshaped_a, free_dims, free_dims_static


def tensordot(a, b, axes, name=None):
    """Sums of products over the given axes of a and b: one matmul between two reshapes.

    axes=n contracts a's last n axes with b's first n; axes=[[1, 2], [1, 0]]
    contracts a's axis 1 with b's axis 1 and a's 2 with b's 0.
    """
    with ops.name_scope(name, "Tensordot", [a, b, axes]) as name:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_reshape, a_free_dims, a_free_dims_static = _tensordot_reshape(a, a_axes)
        b_reshape, b_free_dims, b_free_dims_static = _tensordot_reshape(b, b_axes, True)
        ab_matmul = math_ops.matmul(a_reshape, b_reshape)
        if isinstance(a_free_dims, list) and isinstance(b_free_dims, list):
            if (ab_matmul.shape.is_fully_defined()
                    and ab_matmul.shape.as_list() == a_free_dims + b_free_dims):
                return ab_matmul
            return array_ops.reshape(ab_matmul, a_free_dims + b_free_dims, name=name)
        a_free_dims = convert_to_tensor(a_free_dims, dtype=dtypes.int32)
        b_free_dims = convert_to_tensor(b_free_dims, dtype=dtypes.int32)
        product = array_ops.reshape(ab_matmul, array_ops.concat([a_free_dims, b_free_dims], 0),
                                    name=name)
        if a_free_dims_static is not None and b_free_dims_static is not None:
            product.set_shape(a_free_dims_static + b_free_dims_static)
        return product
