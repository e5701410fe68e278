"""LinearOperator: a matrix known by what it does, not (necessarily) by its entries.

A diagonal matrix multiplies in O(n), solves in O(n) and has the product
of its diagonal as determinant; stored as a dense n x n tensor, all three
cost O(n^2) to O(n^3). A `LinearOperator` keeps the structure and offers
the matrix's operations (matmul, solve, determinant, ...) computed from
it, as graph ops, with the dense matrix (`to_dense`) one operation among
others. Like tensors, an operator may stand for a batch of matrices: its
`shape` is `batch_shape + [range_dimension, domain_dimension]`.

This module is the base class: the public methods check their arguments
and open a name scope (`<operator name>/<method>`), then call the
underscored method that a subclass overrides. What a subclass does not
override falls back to the dense matrix (`_to_dense` through `_matmul`
of the identity, `_solve` through MatrixSolve or, for a self-adjoint
positive definite operator, Cholesky). Hints (`is_self_adjoint`,
`is_positive_definite`, `is_non_singular`, `is_square`) are promises the
caller makes; some imply others, and the methods use them to pick a
cheaper algorithm.

The operators themselves are in `minitf/ops/linear_operator_matrices.py`
(given by entries: full, diagonal, triangular, identity, ...) and
`minitf/ops/linear_operator_combinations.py` (built from operators:
adjoint, inverse, product, block diagonal, Kronecker, low-rank update).
`conjugate_gradient` (`tf.linalg.experimental`) solves with an operator's
matvec alone.

Mirrors `tensorflow/python/ops/linalg/linear_operator.py`, the helpers
of `linear_operator_util.py` and `linalg/sparse/conjugate_gradient.py`.
"""

import collections
import contextlib

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import check_ops
from minitf.ops import control_flow_ops
from minitf.ops import linalg_ops
from minitf.ops import math_ops

_FLOAT_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                dtypes.complex128)


def _implied_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square):
    """The hints with what they imply filled in; ValueError when they contradict."""
    if is_positive_definite:
        if is_non_singular is False:
            raise ValueError("An operator is non-singular if it is positive definite.")
        is_non_singular = True
    if is_non_singular:
        if is_square is False:
            raise ValueError("A non-singular operator is always square.")
        is_square = True
    if is_self_adjoint:
        if is_square is False:
            raise ValueError("A self-adjoint operator is always square.")
        is_square = True
    return is_non_singular, is_self_adjoint, is_positive_definite, is_square



# The operators that `adjoint`, `inverse`, `matmul` of two operators and `cholesky` return
# are subclasses defined in the modules beside this one, which register them here when
# they are imported (minitf.linalg imports them all): the base class never imports its
# subclasses. TensorFlow's linear_operator_algebra.py keeps such rules in registries too.
_DERIVED_OPERATORS = {}


def register_derived_operator(kind, operator_class):
    """Makes `operator_class` the operator of `kind`: "adjoint", "inverse", "composition"
    or "lower_triangular"."""
    _DERIVED_OPERATORS[kind] = operator_class


class LinearOperator:
    """Base class of the operators: shapes, hints, and the operations a matrix has."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        (self._is_non_singular, self._is_self_adjoint, self._is_positive_definite,
         self._is_square_hint) = _implied_hints(is_non_singular, is_self_adjoint,
                                                is_positive_definite, is_square)
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._name = name or type(self).__name__

    # --- what the operator is ---------------------------------------------------------

    @property
    def name(self):
        """The operator's name: the name scope of its methods' ops, `<name>/<method>`."""
        return self._name

    @property
    def graph_parents(self):
        """The tensors the operator was made from."""
        return self._graph_parents

    @property
    def dtype(self):
        """The dtype of the matrix, which arguments of matmul and solve must share."""
        return self._dtype

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """The hint, or, without one, whether the two dimensions are known to be equal."""
        rows = tensor_shape.dimension_value(self.range_dimension)
        cols = tensor_shape.dimension_value(self.domain_dimension)
        known_square = None if rows is None or cols is None else rows == cols
        if self._is_square_hint is not None and known_square is not None:
            if self._is_square_hint != known_square:
                raise ValueError("User-set is_square hint conflicts with the operator's shape: "
                                 "%s" % self.shape)
        return self._is_square_hint if self._is_square_hint is not None else known_square

    # --- shapes -----------------------------------------------------------------------

    @property
    def shape(self):
        """[*batch_shape, range_dimension, domain_dimension], as far as it is known statically."""
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32, name="shape")
            return self._shape_tensor()

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32,
                                         name="batch_shape")
            return self._shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank, dtype=dtypes.int32)
            return array_ops.size(self._shape_tensor())

    @property
    def domain_dimension(self):
        """The number of columns: the dimension of the vectors the operator takes."""
        return tensor_shape.dimension_at_index(self.shape, -1) if self.shape.ndims else \
            tensor_shape.Dimension(None)

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._name_scope(name):
            value = tensor_shape.dimension_value(self.domain_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self._shape_tensor()[-1]

    @property
    def range_dimension(self):
        """The number of rows: the dimension of the vectors the operator gives."""
        return tensor_shape.dimension_at_index(self.shape, -2) if self.shape.ndims else \
            tensor_shape.Dimension(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._name_scope(name):
            value = tensor_shape.dimension_value(self.range_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self._shape_tensor()[-2]

    def _shape(self):
        raise NotImplementedError("_shape is not implemented for %s" % type(self).__name__)

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented for %s"
                                  % type(self).__name__)

    # --- the operations ---------------------------------------------------------------

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        """`<operator name>/<method>`: one name scope per call, made unique as any other."""
        with ops.name_scope(self.name + ("/" + name if name else "")) as scope:
            yield scope

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError("Expected argument to have dtype %s.  Found: %s in tensor %s"
                            % (self.dtype, arg.dtype, arg))

    def _check_dimensions(self, operator_dim, arg, arg_dim):
        if arg.shape.ndims is not None:
            tensor_shape.dimension_at_index(self.shape, operator_dim).assert_is_compatible_with(
                arg.shape[arg_dim])

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """This operator (or its adjoint) times x (or x's adjoint): [..., M, N] x [..., N, R].

        Another LinearOperator as x gives their composition, an operator.
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            left.domain_dimension.assert_is_compatible_with(right.range_dimension)
            return _DERIVED_OPERATORS["composition"]([left, right])
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self._check_dimensions(-2 if adjoint else -1, x, -1 if adjoint_arg else -2)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    __matmul__ = matmul

    def matvec(self, x, adjoint=False, name="matvec"):
        """This operator (or its adjoint) times the vectors x: [..., M, N] x [..., N]."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self._check_dimensions(-2 if adjoint else -1, x, -1)
            return self._matvec(x, adjoint=adjoint)

    def _matvec(self, x, adjoint=False):
        return array_ops.squeeze(self._matmul(array_ops.expand_dims(x, -1), adjoint=adjoint), -1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented for %s" % type(self).__name__)

    def to_dense(self, name="to_dense"):
        """The operator's matrix (a batch of them), as a tensor."""
        with self._name_scope(name):
            return self._to_dense()

    def _to_dense(self):
        """The operator applied to the identity: its columns, one by one."""
        if self.batch_shape.is_fully_defined():
            batch_shape = self.batch_shape.as_list()
        else:
            batch_shape = self.batch_shape_tensor()
        n = tensor_shape.dimension_value(self.domain_dimension)
        if n is None:
            n = self.domain_dimension_tensor()
        return self._matmul(linalg_ops.eye(n, batch_shape=batch_shape, dtype=self.dtype))

    def _can_use_cholesky(self):
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def _check_square(self, what):
        if self.is_square is False:
            raise NotImplementedError("%s not implemented for an operator that is expected to "
                                      "not be square." % what)

    def determinant(self, name="det"):
        """The determinant of each matrix (a square operator's)."""
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._determinant()

    def _determinant(self):
        if self._can_use_cholesky():
            return math_ops.exp(self._log_abs_determinant())
        return linalg_ops.det(self._to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """log |det| of each matrix: no overflow where the determinant itself would."""
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = linalg_ops.diag_part(linalg_ops.cholesky(self._to_dense()))
            return 2 * math_ops.reduce_sum(math_ops.log(diag), axis=[-1])
        _, log_abs_det = linalg_ops.slogdet(self._to_dense())
        return log_abs_det

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        self._check_square("Exact solve")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with A X = rhs (A^H X = rhs with adjoint): [..., N, N] and [..., N, R].

        Another LinearOperator as rhs gives the operator A^-1 rhs.
        """
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return left.inverse().matmul(right)
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self._check_dimensions(-1 if adjoint else -2, rhs, -1 if adjoint_arg else -2)
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return linalg_ops.cholesky_solve(linalg_ops.cholesky(self._to_dense()), rhs)
        return matrix_solve_with_broadcast(self._to_dense(), rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with A x = rhs for vectors rhs [..., N]."""
        self._check_solvable()
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self._check_dimensions(-1 if adjoint else -2, rhs, -1)
            return array_ops.squeeze(self._solve(array_ops.expand_dims(rhs, -1),
                                                 adjoint=adjoint), -1)

    def diag_part(self, name="diag_part"):
        with self._name_scope(name):
            return self._diag_part()

    def _diag_part(self):
        return linalg_ops.diag_part(self._to_dense())

    def trace(self, name="trace"):
        """The sum of each matrix's diagonal."""
        with self._name_scope(name):
            return self._trace()

    def _trace(self):
        return math_ops.reduce_sum(self._diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """The operator's matrix plus the tensor x."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _add_to_tensor(self, x):
        return self._to_dense() + x

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _eigvals(self):
        return linalg_ops.eigvalsh(self._to_dense())

    def cond(self, name="cond"):
        """The condition number: the largest singular value over the smallest."""
        with self._name_scope(name):
            if self.is_self_adjoint:
                values = math_ops.abs(self._eigvals())
            else:
                values = linalg_ops.svd(self._to_dense(), compute_uv=False)
            return (math_ops.reduce_max(values, axis=-1)
                    / math_ops.reduce_min(values, axis=-1))

    # --- operators from operators -------------------------------------------------------

    def adjoint(self, name="adjoint"):
        """The conjugate transpose, as an operator (the operator itself when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return _DERIVED_OPERATORS["adjoint"](self)

    @property
    def H(self):  # noqa: N802 - TF's name
        return self.adjoint()

    def inverse(self, name="inverse"):
        """The inverse, as an operator whose matmul is this one's solve."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        with self._name_scope(name):
            return _DERIVED_OPERATORS["inverse"](self)

    def cholesky(self, name="cholesky"):
        """The Cholesky factor L (L L^H = A) of a self-adjoint positive definite operator."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite "
                             "self adjoint matrix.")
        with self._name_scope(name):
            return _DERIVED_OPERATORS["lower_triangular"](
                linalg_ops.cholesky(self._to_dense()), is_non_singular=True,
                is_self_adjoint=False, is_square=True)

    # --- run-time checks of the hints -------------------------------------------------

    def assert_non_singular(self, name="assert_non_singular"):
        """An op failing when some matrix is singular (its condition number beyond 1/eps)."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self._assert_positive_definite()
        singular_values = linalg_ops.svd(self._to_dense(), compute_uv=False)
        condition = (math_ops.reduce_max(singular_values, axis=-1)
                     / math_ops.reduce_min(singular_values, axis=-1))
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        size = max(100.0, *(tensor_shape.dimension_value(d) or 0 for d in self.shape[-2:]))
        return check_ops.assert_less(condition, math_ops.cast(1.0 / (size * eps),
                                                              condition.dtype),
                                     message="Singular matrix up to precision epsilon.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return check_ops.assert_positive(
                math_ops.real(linalg_ops.diag_part(linalg_ops.cholesky(self._to_dense()))),
                message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _assert_self_adjoint(self):
        dense = self._to_dense()
        return check_ops.assert_equal(dense, linalg_ops.adjoint(dense),
                                      message="Matrix was not equal to its adjoint.")


# =============================================================================
# Helpers of the operators
# =============================================================================


def check_float_dtype(tensor, what):
    """TypeError unless `tensor` holds floating point or complex numbers."""
    if tensor.dtype.base_dtype not in _FLOAT_TYPES:
        raise TypeError("Argument %s must have dtype in %s.  Found: %s"
                        % (what, [d.name for d in _FLOAT_TYPES], tensor.dtype))


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False):
    """MatrixSolve, with the batch dimensions of matrix and rhs broadcast to each other."""
    with ops.name_scope("MatrixSolveWithBroadcast", values=[matrix, rhs]):
        matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
        return linalg_ops.solve(matrix, rhs, adjoint=adjoint)


def broadcast_matrix_batch_dims(batch_matrices):
    """The matrices with their batch dimensions (all but the last two) broadcast together."""
    static_batch = tensor_shape.TensorShape([])
    for matrix in batch_matrices:
        static_batch = array_ops.broadcast_static_shape(static_batch, matrix.shape[:-2]) \
            if matrix.shape.ndims is not None else tensor_shape.unknown_shape()
    if static_batch.is_fully_defined() and all(
            matrix.shape[:-2] == static_batch for matrix in batch_matrices):
        return list(batch_matrices)
    batch = array_ops.shape(batch_matrices[0])[:-2]
    for matrix in batch_matrices[1:]:
        batch = array_ops.broadcast_dynamic_shape(batch, array_ops.shape(matrix)[:-2])
    return [array_ops.broadcast_to(matrix, array_ops.concat(
        [batch, array_ops.shape(matrix)[-2:]], 0)) for matrix in batch_matrices]


# =============================================================================
# Solving with nothing but matvec: conjugate gradients
# =============================================================================

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """x with A x = rhs for a self-adjoint positive definite operator A, using only A's matvec.

    Each step moves x along a search direction p that is A-conjugate to the
    previous ones (p_i^H A p_j = 0), so that no step undoes an earlier one;
    in exact arithmetic N steps solve an N x N system. The loop (a
    tf.while_loop) stops after max_iter steps or when ||r|| <= tol ||rhs||.
    preconditioner, an operator close to A^-1, speeds it up. Returns the
    final CGState(i, x, r, p, gamma), gamma = r^H M r.
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")

    def dot(u, v):
        return math_ops.reduce_sum(math_ops.conj(u) * v, axis=-1)

    def precondition(r):
        return r if preconditioner is None else preconditioner.matvec(r)

    with ops.name_scope(name):
        rhs = convert_to_tensor(rhs, name="rhs")
        broadcast_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(rhs)[:-1],
                                                            operator.batch_shape_tensor())
        if preconditioner is not None:
            broadcast_shape = array_ops.broadcast_dynamic_shape(
                broadcast_shape, preconditioner.batch_shape_tensor())
        rhs_shape = array_ops.concat([broadcast_shape, array_ops.shape(rhs)[-1:]], axis=-1)
        r0 = array_ops.broadcast_to(rhs, rhs_shape)
        tol = tol * linalg_ops.norm(r0, axis=-1)
        if x is None:
            x = array_ops.zeros(rhs_shape, dtype=rhs.dtype.base_dtype)
        else:
            r0 = rhs - operator.matvec(x)
        p0 = precondition(r0)

        def keep_going(i, state):
            return math_ops.logical_and(
                i < max_iter, math_ops.reduce_any(linalg_ops.norm(state.r, axis=-1) > tol))

        def step(i, state):
            z = operator.matvec(state.p)
            alpha = state.gamma / dot(state.p, z)
            x = state.x + alpha[..., None] * state.p
            r = state.r - alpha[..., None] * z
            q = precondition(r)
            gamma = dot(r, q)
            p = q + (gamma / state.gamma)[..., None] * state.p
            return i + 1, CGState(i + 1, x, r, p, gamma)

        i = convert_to_tensor(0, dtype=dtypes.int32)
        _, state = control_flow_ops.while_loop(
            keep_going, step, [i, CGState(i, x, r0, p0, dot(r0, p0))])
        return state
