"""The linear operators given by their entries: full, diagonal, triangular, identity, ...

Each keeps what defines its matrix (the diagonal, the first row and
column, a reflection axis, a permutation) and computes the operations
from that, where the structure allows a shortcut: a diagonal multiplies
and solves entry by entry, a triangular matrix solves by substitution,
a Householder reflection is its own inverse. What has no shortcut here
falls back on the dense matrix (the base class's defaults).

Mirrors `tensorflow/python/ops/linalg/linear_operator_full_matrix.py`,
`linear_operator_diag.py`, `linear_operator_lower_triangular.py`,
`linear_operator_identity.py`, `linear_operator_zeros.py`,
`linear_operator_householder.py`, `linear_operator_permutation.py`,
`linear_operator_toeplitz.py` and `linear_operator_tridiag.py`.
"""

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import linalg_ops
from minitf.ops import math_ops
from minitf.ops.linear_operator import LinearOperator
from minitf.ops.linear_operator import check_float_dtype
from minitf.ops.linear_operator import register_derived_operator


def _batch_matrix_shape(tensor):
    return tensor.shape if tensor.shape.ndims is not None else tensor_shape.unknown_shape()


# =============================================================================
# Given by all entries: a full matrix, a lower triangle
# =============================================================================


class LinearOperatorFullMatrix(LinearOperator):
    """A (batch of) matrix [..., M, N] held as the tensor itself."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        with ops.name_scope(name, values=[matrix]):
            self._matrix = convert_to_tensor(matrix, name="matrix")
            check_float_dtype(self._matrix, "matrix")
            if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
                raise ValueError("Argument matrix must have at least 2 dimensions.  Found: %s"
                                 % self._matrix)
        super().__init__(self._matrix.dtype, [self._matrix], is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)

    def _shape(self):
        return _batch_matrix_shape(self._matrix)

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorLowerTriangular(LinearOperator):
    """A square matrix read from the lower triangle of `tril` (the rest is ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with ops.name_scope(name, values=[tril]):
            self._tril = convert_to_tensor(tril, name="tril")
            check_float_dtype(self._tril, "tril")
        super().__init__(self._tril.dtype, [self._tril], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    def _shape(self):
        return _batch_matrix_shape(self._tril)

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _to_dense(self):
        return linalg_ops.band_part(self._tril, -1, 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        return linalg_ops.diag_part(self._tril)

    def _determinant(self):
        return math_ops.reduce_prod(self._diag_part(), axis=[-1])

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag_part())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return linalg_ops.triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _eigvals(self):
        return self._diag_part()


# =============================================================================
# Given by a diagonal: diagonal, identity, scaled identity, zeros
# =============================================================================


class LinearOperatorDiag(LinearOperator):
    """The square matrices with `diag` [..., N] on their diagonal: O(N) matmul and solve."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        with ops.name_scope(name, values=[diag]):
            self._diag = convert_to_tensor(diag, name="diag")
            check_float_dtype(self._diag, "diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError("Argument diag must have at least 1 dimension.  Found: %s"
                                 % self._diag)
            if not self._diag.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, [self._diag], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        if self._diag.shape.ndims is None:
            return tensor_shape.unknown_shape()
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _shape_tensor(self):
        d_shape = array_ops.shape(self._diag)
        return array_ops.concat([d_shape, d_shape[-1:]], 0)

    def _diag_term(self, adjoint):
        return math_ops.conj(self._diag) if adjoint else self._diag

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return array_ops.expand_dims(self._diag_term(adjoint), -1) * x

    def _matvec(self, x, adjoint=False):
        return self._diag_term(adjoint) * x

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return rhs * array_ops.expand_dims(1.0 / self._diag_term(adjoint), -1)

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])
        return math_ops.cast(log_det, self.dtype) if self.dtype.is_complex else log_det

    def _to_dense(self):
        return linalg_ops.diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + self._diag)

    def _eigvals(self):
        return self._diag


def _static_int(value, what):
    """`value` as a Python int when it is one (or a constant), else None; ValueError if < 0."""
    if isinstance(value, ops.Tensor):
        return None
    value = int(value)
    if value < 0:
        raise ValueError("Argument %s must be non-negative.  Found: %s" % (what, value))
    return value


class _SizedOperator(LinearOperator):
    """An operator given by its dimensions alone (and a dtype): identity or zeros."""

    def _init_dims(self, num_rows, num_columns, batch_shape):
        self._num_rows_static = _static_int(num_rows, "num_rows")
        self._num_rows = convert_to_tensor(num_rows, dtype=dtypes.int32, name="num_rows")
        num_columns = num_rows if num_columns is None else num_columns
        self._num_columns_static = _static_int(num_columns, "num_columns")
        self._num_columns = convert_to_tensor(num_columns, dtype=dtypes.int32,
                                              name="num_columns")
        self._batch_shape_arg = batch_shape
        if batch_shape is not None and not isinstance(batch_shape, ops.Tensor):
            self._batch_shape_static = tensor_shape.TensorShape(list(batch_shape))
        elif batch_shape is None:
            self._batch_shape_static = tensor_shape.TensorShape([])
        else:
            self._batch_shape_static = tensor_shape.unknown_shape()

    def _shape(self):
        return self._batch_shape_static.concatenate([self._num_rows_static,
                                                     self._num_columns_static])

    def _shape_tensor(self):
        batch = [] if self._batch_shape_arg is None else self._batch_shape_arg
        return array_ops.concat([convert_to_tensor(batch, dtype=dtypes.int32),
                                 [self._num_rows, self._num_columns]], 0)

    def _batch_list(self):
        """The batch shape, as a list when known, else a tensor."""
        if self._batch_shape_static.is_fully_defined():
            return self._batch_shape_static.as_list()
        return self._shape_tensor()[:-2]

    def _with_batch(self, *tail):
        """The batch shape followed by `tail`, as a list or a tensor."""
        batch = self._batch_list()
        if isinstance(batch, list):
            return batch + list(tail)
        return array_ops.concat([batch, array_ops.stack(list(tail))], 0)


class LinearOperatorIdentity(_SizedOperator):
    """The N x N identity (or a batch of them): matmul and solve return their argument."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        for hint, what in ((is_non_singular, "non-singular"), (is_self_adjoint, "self-adjoint"),
                           (is_positive_definite, "positive definite"), (is_square, "square")):
            if not hint:
                raise ValueError("An identity operator is always %s." % what)
        with ops.name_scope(name, values=[num_rows]):
            self._init_dims(num_rows, None, batch_shape)
        super().__init__(dtype, [], True, True, True, True, name)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        if self._batch_shape_arg is None:
            return x
        # The batch shape broadcasts against x's.
        return x * array_ops.ones(self._with_batch(1, 1), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return array_ops.ones(self._batch_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(self._batch_list(), dtype=self.dtype)

    def _to_dense(self):
        return linalg_ops.eye(self._num_rows_static or self._num_rows,
                              batch_shape=self._batch_list(), dtype=self.dtype)

    def _diag_part(self):
        return array_ops.ones(self._with_batch(self._num_rows_static or self._num_rows),
                              dtype=self.dtype)

    def _trace(self):
        return math_ops.cast(self._num_rows, self.dtype) * array_ops.ones(
            self._batch_list(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + 1)

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorScaledIdentity(_SizedOperator):
    """multiplier times the N x N identity; a batch of multipliers makes a batch of operators."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        with ops.name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = convert_to_tensor(multiplier, name="multiplier")
            check_float_dtype(self._multiplier, "multiplier")
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            batch = self._multiplier.shape.as_list() if \
                self._multiplier.shape.is_fully_defined() else array_ops.shape(self._multiplier)
            self._init_dims(num_rows, None, batch)
        super().__init__(self._multiplier.dtype, [self._multiplier], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name)

    @property
    def multiplier(self):
        return self._multiplier

    def _multiplier_matrix(self, adjoint):
        multiplier = math_ops.conj(self._multiplier) if adjoint else self._multiplier
        return multiplier[..., None, None]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return x * self._multiplier_matrix(adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._multiplier_matrix(adjoint)

    def _determinant(self):
        return self._multiplier ** math_ops.cast(self._num_rows, self.dtype)

    def _log_abs_determinant(self):
        return math_ops.cast(self._num_rows, self.dtype) * math_ops.cast(
            math_ops.log(math_ops.abs(self._multiplier)), self.dtype)

    def _to_dense(self):
        return self._multiplier_matrix(False) * linalg_ops.eye(
            self._num_rows_static or self._num_rows, dtype=self.dtype)

    def _diag_part(self):
        return self._multiplier[..., None] * array_ops.ones(
            [self._num_rows_static or self._num_rows], dtype=self.dtype)

    def _trace(self):
        return self._multiplier * math_ops.cast(self._num_rows, self.dtype)

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + self._multiplier[..., None])

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorZeros(_SizedOperator):
    """The M x N zero matrix: singular, its matmul zeros of the right shape."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if is_non_singular is not False:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite is not False:
            raise ValueError("A Zeros operator is always not positive-definite.")
        with ops.name_scope(name, values=[num_rows, num_columns]):
            self._init_dims(num_rows, num_columns, batch_shape)
        rows, cols = self._num_rows_static, self._num_columns_static
        if num_columns is not None and is_square and rows is not None and cols is not None \
                and rows != cols:
            raise ValueError("LinearOperatorZeros initialized as is_square=True, but got "
                             "num_rows({}) != num_columns({})".format(rows, cols))
        if rows is not None and cols is not None and rows != cols:
            is_square = False
        super().__init__(dtype, [], False, is_self_adjoint if is_square else False, False,
                         is_square, name)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x_cols = array_ops.shape(x)[-2 if adjoint_arg else -1]
        rows = self._num_columns if adjoint else self._num_rows
        # The batch is the operator's and x's broadcast, as in a product with x.
        batch = array_ops.broadcast_dynamic_shape(self._shape_tensor()[:-2],
                                                  array_ops.shape(x)[:-2])
        return array_ops.zeros(array_ops.concat([batch, array_ops.stack([rows, x_cols])], 0),
                               dtype=self.dtype)

    def _determinant(self):
        return array_ops.zeros(self._batch_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return math_ops.log(self._determinant())

    def _to_dense(self):
        return array_ops.zeros(self._with_batch(self._num_rows, self._num_columns),
                               dtype=self.dtype)

    def _diag_part(self):
        size = math_ops.minimum(self._num_rows, self._num_columns)
        return array_ops.zeros(self._with_batch(size), dtype=self.dtype)

    def _trace(self):
        return array_ops.zeros(self._batch_list(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return x + self._to_dense()

    def _eigvals(self):
        return self._diag_part()


# =============================================================================
# Structured: a reflection, a permutation, Toeplitz and tridiagonal matrices
# =============================================================================


class LinearOperatorHouseholder(LinearOperator):
    """The reflection through the hyperplane orthogonal to v: H = I - 2 v v^H / (v^H v).

    Self-adjoint, its own inverse, determinant -1.
    """

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        with ops.name_scope(name, values=[reflection_axis]):
            self._axis = convert_to_tensor(reflection_axis, name="reflection_axis")
            check_float_dtype(self._axis, "reflection_axis")
        super().__init__(self._axis.dtype, [self._axis], is_non_singular, True, False, True,
                         name)

    @property
    def reflection_axis(self):
        return self._axis

    def _shape(self):
        return self._axis.shape.concatenate(self._axis.shape[-1:]) \
            if self._axis.shape.ndims is not None else tensor_shape.unknown_shape()

    def _shape_tensor(self):
        shape = array_ops.shape(self._axis)
        return array_ops.concat([shape, shape[-1:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        """x - 2 v (v^H x) / (v^H v): O(N) per column."""
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        normalized_axis = self._axis / linalg_ops.norm(self._axis, axis=-1, keepdims=True)
        projection = math_ops.reduce_sum(math_ops.conj(normalized_axis)[..., None] * x,
                                         axis=-2, keepdims=True)
        return x - 2 * normalized_axis[..., None] * projection

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)  # H H = I

    def _determinant(self):
        return -array_ops.ones(array_ops.shape(self._axis)[:-1], dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(array_ops.shape(self._axis)[:-1], dtype=self.dtype)

    def _trace(self):
        n = math_ops.cast(array_ops.shape(self._axis)[-1], self.dtype)
        return (n - 2) * array_ops.ones(array_ops.shape(self._axis)[:-1], dtype=self.dtype)

    def _diag_part(self):
        normalized_axis = self._axis / linalg_ops.norm(self._axis, axis=-1, keepdims=True)
        return 1 - 2 * normalized_axis * math_ops.conj(normalized_axis)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P[i, perm[i]] = 1: (P x)[i] = x[perm[i]]."""

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        with ops.name_scope(name, values=[perm]):
            self._perm = convert_to_tensor(perm, name="perm")
            if not self._perm.dtype.is_integer:
                raise TypeError("Argument perm must have integer dtype.  Found: %s"
                                % self._perm.dtype)
        super().__init__(dtype, [self._perm], True, is_self_adjoint, is_positive_definite,
                         True, name)

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        return self._perm.shape.concatenate(self._perm.shape[-1:]) \
            if self._perm.shape.ndims is not None else tensor_shape.unknown_shape()

    def _shape_tensor(self):
        shape = array_ops.shape(self._perm)
        return array_ops.concat([shape, shape[-1:]], 0)

    def _inverse_perm(self):
        """Where each index goes: the row of P^T's ones."""
        size = array_ops.shape(self._perm)[-1]
        return math_ops.argmax(math_ops.cast(math_ops.equal(
            array_ops.expand_dims(self._perm, -1),
            math_ops.cast(math_ops.range(size), self._perm.dtype)), dtypes.int32),
            axis=-2, output_type=dtypes.int32)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        perm = self._inverse_perm() if adjoint else self._perm
        perm, x = _broadcast_batch(perm, x)
        return array_ops.gather(x, perm, axis=-2, batch_dims=perm.shape.ndims - 1)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, not adjoint, adjoint_arg)  # P^-1 = P^T

    def _to_dense(self):
        return array_ops.one_hot(self._perm, array_ops.shape(self._perm)[-1], dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(array_ops.shape(self._perm)[:-1], dtype=self.dtype)


def _broadcast_batch(perm, x):
    """perm [..., N] and x [..., N, R] with their batch dimensions made the same."""
    if perm.shape.ndims == 1 and x.shape.ndims == 2:
        return perm, x
    batch = array_ops.broadcast_dynamic_shape(array_ops.shape(perm)[:-1],
                                              array_ops.shape(x)[:-2])
    perm = array_ops.broadcast_to(perm, array_ops.concat([batch, array_ops.shape(perm)[-1:]], 0))
    x = array_ops.broadcast_to(x, array_ops.concat([batch, array_ops.shape(x)[-2:]], 0))
    rank = array_ops.broadcast_static_shape(
        tensor_shape.TensorShape(perm.shape[:-1] if perm.shape.ndims else None),
        tensor_shape.TensorShape(x.shape[:-2] if x.shape.ndims else None)).ndims
    if rank is None:
        raise ValueError("minitf's LinearOperatorPermutation needs the batch ranks known")
    perm.set_shape([None] * (rank + 1))
    return perm, x


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix, constant along each diagonal: T[i, j] = col[i - j] (i >= j), row[j - i].

    row[0] is not read (col[0] is the diagonal). The products go through
    the dense matrix, O(N^2); TensorFlow embeds T in a circulant matrix and
    multiplies with FFTs.
    """

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        with ops.name_scope(name, values=[row, col]):
            self._row = convert_to_tensor(row, name="row")
            self._col = convert_to_tensor(col, name="col")
            check_float_dtype(self._row, "row")
            if self._row.dtype != self._col.dtype:
                raise TypeError("row and col must have the same dtype: %s vs. %s"
                                % (self._row.dtype, self._col.dtype))
            self._row.shape[-1:].assert_is_compatible_with(self._col.shape[-1:])
        super().__init__(self._row.dtype, [self._row, self._col], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name)

    @property
    def row(self):
        return self._row

    @property
    def col(self):
        return self._col

    def _shape(self):
        batch = array_ops.broadcast_static_shape(self._row.shape[:-1], self._col.shape[:-1])
        n = self._col.shape[-1]
        return batch.concatenate([n, n])

    def _shape_tensor(self):
        batch = array_ops.broadcast_dynamic_shape(array_ops.shape(self._row)[:-1],
                                                  array_ops.shape(self._col)[:-1])
        n = array_ops.shape(self._col)[-1:]
        return array_ops.concat([batch, n, n], 0)

    def _to_dense(self):
        n = tensor_shape.dimension_value(self._col.shape[-1])
        if n is None:
            raise ValueError("minitf's LinearOperatorToeplitz needs N known to build the matrix")
        row, col = linear_operator_broadcast([self._row, self._col])
        # values[n - 1 + i - j] is T[i, j]: the reversed row, then the column.
        values = array_ops.concat([array_ops.reverse(row[..., 1:], [-1]), col], -1)
        index = n - 1 + np.arange(n)[:, None] - np.arange(n)[None, :]
        return array_ops.gather(values, index, axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        row, col = linear_operator_broadcast([self._row, self._col])
        return array_ops.ones_like(row) * col[..., :1]


def linear_operator_broadcast(vectors):
    """Vectors [..., N] with their batch dimensions broadcast to each other."""
    batch = array_ops.shape(vectors[0])[:-1]
    for vector in vectors[1:]:
        batch = array_ops.broadcast_dynamic_shape(batch, array_ops.shape(vector)[:-1])
    return [array_ops.broadcast_to(v, array_ops.concat([batch, array_ops.shape(v)[-1:]], 0))
            for v in vectors]


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix, in any of tf.linalg.tridiagonal_solve's three formats.

    matmul and solve are TridiagonalMatMul and TridiagonalSolve.
    """

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError("Diagonals Format must be one of compact, matrix, sequence, got : "
                             "{}".format(diagonals_format))
        if is_square is False:
            raise ValueError("A tridiagonal operator is always square.")
        with ops.name_scope(name, values=[diagonals]):
            self._superdiag, self._maindiag, self._subdiag = linalg_ops._three_diagonals(
                diagonals, diagonals_format)
            check_float_dtype(self._maindiag, "diagonals")
        super().__init__(self._maindiag.dtype, [self._superdiag, self._maindiag,
                                                self._subdiag],
                         is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _compact(self, adjoint=False):
        """[..., 3, N]; for the adjoint, the conjugated super- and subdiagonal swap, shifted."""
        if not adjoint:
            return array_ops.stack([self._superdiag, self._maindiag, self._subdiag], axis=-2)
        superdiag = linalg_ops._pad_last_axis(math_ops.conj(self._subdiag[..., 1:]), 0, 1)
        subdiag = linalg_ops._pad_last_axis(math_ops.conj(self._superdiag[..., :-1]), 1, 0)
        return array_ops.stack([superdiag, math_ops.conj(self._maindiag), subdiag], axis=-2)

    def _shape(self):
        shape = self._maindiag.shape
        return shape.concatenate(shape[-1:]) if shape.ndims is not None else \
            tensor_shape.unknown_shape()

    def _shape_tensor(self):
        shape = array_ops.shape(self._maindiag)
        return array_ops.concat([shape, shape[-1:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return linalg_ops.tridiagonal_matmul(self._compact(adjoint), x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return linalg_ops.tridiagonal_solve(self._compact(adjoint), rhs)

    def _to_dense(self):
        """diag(main), plus the superdiagonal one place right of it and the subdiagonal below."""
        rank = self._maindiag.shape.ndims
        if rank is None:
            raise ValueError("minitf's LinearOperatorTridiag needs the rank of its diagonals "
                             "known to build the matrix")

        def shifted(diagonal, rows, cols):
            return array_ops.pad(linalg_ops.diag(diagonal), [[0, 0]] * (rank - 1) + [rows, cols])

        return (linalg_ops.diag(self._maindiag)
                + shifted(self._superdiag[..., :-1], [0, 1], [1, 0])
                + shifted(self._subdiag[..., 1:], [1, 0], [0, 1]))

    def _diag_part(self):
        return self._maindiag


# =============================================================================
# Circulant: diagonal in the Fourier basis
# =============================================================================


def _dft_matrix(block_shape):
    """The DFT of a d-dimensional block, flattened row-major: kron(F_N0, F_N1, ...).

    F_N[j, k] = exp(-2 pi i j k / N). Built in NumPy when the graph is
    built: minitf has no FFT op (tf.signal is left out), so a transform is
    a matmul with this constant, O(N^2) where an FFT is O(N log N).
    """
    result = np.ones((1, 1), dtype=np.complex128)
    for size in block_shape:
        index = np.arange(size)
        result = np.kron(result, np.exp(-2j * np.pi * np.outer(index, index) / size))
    return result


class _BaseLinearOperatorCirculant(LinearOperator):
    """C = F^-1 diag(spectrum) F, F the DFT of blocks of block_depth dimensions.

    A circulant matrix (each row the previous one rotated right) is
    diagonalized by the DFT; its eigenvalues are the spectrum, the DFT of
    its first column. With block_depth 2 (3) the matrix is block circulant
    with circulant blocks (of circulant blocks). The operator's dtype is
    input_output_dtype: the products are complex and, for a real dtype,
    their real part is kept (exact when the spectrum is Hermitian).
    """

    def __init__(self, spectrum, block_depth, input_output_dtype, is_non_singular,
                 is_self_adjoint, is_positive_definite, is_square, name):
        if is_square is False:
            raise ValueError("A circulant operator is always square.")
        with ops.name_scope(name, values=[spectrum]):
            spectrum = convert_to_tensor(spectrum, name="spectrum")
            check_float_dtype(spectrum, "spectrum")
            complex_dtype = (spectrum.dtype if spectrum.dtype.is_complex else
                             dtypes.complex128 if spectrum.dtype == dtypes.float64 else
                             dtypes.complex64)
            self._spectrum = math_ops.cast(spectrum, complex_dtype)
            if spectrum.shape.ndims is None or spectrum.shape.ndims < block_depth:
                raise ValueError("Argument spectrum must have at least %d dimensions (its "
                                 "rank known).  Found: %s" % (block_depth, spectrum))
            self._block_shape_static = [tensor_shape.dimension_value(d)
                                        for d in spectrum.shape[-block_depth:]]
            if None in self._block_shape_static:
                raise ValueError("minitf's circulant operators need the block shape known when "
                                 "the graph is built: %s" % spectrum.shape)
        self._block_depth = block_depth
        self._size = int(np.prod(self._block_shape_static))
        self._dft = _dft_matrix(self._block_shape_static).astype(complex_dtype.as_numpy_dtype)
        super().__init__(input_output_dtype, [spectrum], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_depth(self):
        return self._block_depth

    def block_shape_tensor(self):
        return convert_to_tensor(self._block_shape_static, dtype=dtypes.int32)

    @property
    def block_shape(self):
        return tensor_shape.TensorShape(self._block_shape_static)

    def _batch_shape_static(self):
        return self._spectrum.shape[:-self._block_depth]

    def _shape(self):
        return self._batch_shape_static().concatenate([self._size, self._size])

    def _shape_tensor(self):
        batch = array_ops.shape(self._spectrum)[:-self._block_depth]
        return array_ops.concat([batch, [self._size, self._size]], 0)

    def _flat_spectrum(self):
        """The eigenvalues [..., N]: the spectrum's block flattened row-major."""
        return array_ops.reshape(self._spectrum, array_ops.concat(
            [array_ops.shape(self._spectrum)[:-self._block_depth], [self._size]], 0))

    def _to_io_dtype(self, x):
        if self.dtype.is_complex:
            return math_ops.cast(x, self.dtype)
        return math_ops.cast(math_ops.real(x), self.dtype)

    def _in_fourier_basis(self, x, scale):
        """F^-1 diag(scale) F x: transform, scale each frequency, transform back."""
        dft = convert_to_tensor(self._dft)
        x = math_ops.cast(x, self._spectrum.dtype)
        scaled = array_ops.expand_dims(scale, -1) * math_ops.matmul(dft, x)
        return self._to_io_dtype(math_ops.matmul(dft, scaled, adjoint_a=True) / self._size)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        spectrum = self._flat_spectrum()
        return self._in_fourier_basis(x, math_ops.conj(spectrum) if adjoint else spectrum)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        spectrum = self._flat_spectrum()
        return self._in_fourier_basis(rhs, 1.0 / (math_ops.conj(spectrum) if adjoint
                                                  else spectrum))

    def _determinant(self):
        return self._to_io_dtype(math_ops.reduce_prod(self._flat_spectrum(), axis=-1))

    def _log_abs_determinant(self):
        return self._to_io_dtype(math_ops.reduce_sum(
            math_ops.log(math_ops.abs(self._flat_spectrum())), axis=-1))

    def _trace(self):
        return self._to_io_dtype(math_ops.reduce_sum(self._flat_spectrum(), axis=-1))

    def _diag_part(self):
        """Every diagonal entry is the same: the trace over N."""
        mean = math_ops.reduce_sum(self._flat_spectrum(), axis=-1, keepdims=True) / self._size
        return self._to_io_dtype(mean * array_ops.ones([self._size], dtype=mean.dtype))

    def _eigvals(self):
        return self._to_io_dtype(self._flat_spectrum())

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column, as a block: the inverse DFT of the spectrum."""
        with self._name_scope(name):
            dft = convert_to_tensor(self._dft)
            column = math_ops.matmul(dft, array_ops.expand_dims(self._flat_spectrum(), -1),
                                     adjoint_a=True) / self._size
            return self._to_io_dtype(array_ops.reshape(column, array_ops.shape(self._spectrum)))


class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """The N x N circulant matrix with eigenvalues `spectrum` [..., N] (the DFT of its first
    column): C x is the circular convolution of that column with x."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant"):
        super().__init__(spectrum, 1, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """Block circulant with circulant blocks, from a spectrum [..., N0, N1] (a 2-D DFT)."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant2D"):
        super().__init__(spectrum, 2, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """Three levels of circulant blocks, from a spectrum [..., N0, N1, N2] (a 3-D DFT)."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant3D"):
        super().__init__(spectrum, 3, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


register_derived_operator("lower_triangular", LinearOperatorLowerTriangular)
