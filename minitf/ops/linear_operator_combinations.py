"""The linear operators built from other operators: adjoint, inverse, product, blocks, ...

Each computes its operations from its operators' without forming their
matrices: the inverse's matmul is the operator's solve, a product's
determinant the product of determinants, a block diagonal operator works
block by block, a low-rank update solves with the Woodbury identity. The
dense matrix comes out only when asked for (`to_dense`).

Mirrors `tensorflow/python/ops/linalg/linear_operator_adjoint.py`,
`linear_operator_inversion.py`, `linear_operator_composition.py`,
`linear_operator_block_diag.py`, `linear_operator_block_lower_triangular.py`,
`linear_operator_kronecker.py` and `linear_operator_low_rank_update.py`.
"""

import functools

from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import linalg_ops
from minitf.ops import math_ops
from minitf.ops.linear_operator import LinearOperator
from minitf.ops.linear_operator import broadcast_matrix_batch_dims
from minitf.ops.linear_operator import register_derived_operator
from minitf.ops.linear_operator_matrices import LinearOperatorDiag


def _inherited_hint(given, implied, what, name):
    """A hint the operator's own implies; ValueError when the caller's contradicts it."""
    if implied is not None and given is not None and given != implied:
        raise ValueError("The %s of %s is %s, not %s." % (what, name, implied, given))
    return implied if given is None else given


_HINT_WORDS = {"is_non_singular": "non-singular", "is_self_adjoint": "self-adjoint",
               "is_positive_definite": "positive definite"}


def _implied_by_all(operators, hint, given, combination):
    """True when every operator has the hint, which `given` must not deny; else `given`."""
    if all(getattr(o, hint) for o in operators):
        if given is False:
            raise ValueError("The %s of %s operators is always %s."
                             % (combination, _HINT_WORDS[hint], _HINT_WORDS[hint]))
        return True
    return given


def _check_operators(operators, what):
    operators = list(operators)
    if not operators:
        raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
    dtype = operators[0].dtype
    for operator in operators:
        if operator.dtype != dtype:
            raise TypeError("Expected all operators to have the same dtype.  Found %s"
                            % "   ".join("%s: %s" % (o.name, o.dtype) for o in operators))
        if what == "square" and operator.is_square is False:
            raise ValueError("The block diagonal operators must all be square.  Found %s"
                             % operator.name)
    return operators


def _broadcast_batch_shape(operators):
    batch = tensor_shape.TensorShape([])
    for operator in operators:
        batch = array_ops.broadcast_static_shape(batch, operator.batch_shape)
    return batch


def _broadcast_batch_shape_tensor(operators):
    batch = operators[0].batch_shape_tensor()
    for operator in operators[1:]:
        batch = array_ops.broadcast_dynamic_shape(batch, operator.batch_shape_tensor())
    return batch


def _sum_dims(dims):
    values = [tensor_shape.dimension_value(d) for d in dims]
    return None if None in values else sum(values)


def _prod_dims(dims):
    values = [tensor_shape.dimension_value(d) for d in dims]
    return None if None in values else functools.reduce(lambda a, b: a * b, values, 1)


# =============================================================================
# One operator: adjoint, inverse
# =============================================================================


class LinearOperatorAdjoint(LinearOperator):
    """A^H, computed through A's operations with adjoint flipped."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        name = name or operator.name + "_adjoint"
        super().__init__(
            operator.dtype, operator.graph_parents,
            _inherited_hint(is_non_singular, operator.is_non_singular, "non-singularity", name),
            _inherited_hint(is_self_adjoint, operator.is_self_adjoint, "self-adjointness", name),
            _inherited_hint(is_positive_definite, operator.is_positive_definite,
                            "positive definiteness", name),
            _inherited_hint(is_square, operator.is_square, "squareness", name), name)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        shape = self._operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]]) if shape.ndims is not None \
            else shape

    def _shape_tensor(self):
        shape = self._operator.shape_tensor()
        return array_ops.concat([shape[:-2], [shape[-1], shape[-2]]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        if self._operator.is_self_adjoint:
            return self._operator.determinant()
        return math_ops.conj(self._operator.determinant())

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        return math_ops.conj(self._operator.trace())

    def _diag_part(self):
        return math_ops.conj(self._operator.diag_part())

    def _to_dense(self):
        return linalg_ops.adjoint(self._operator.to_dense())

    def _eigvals(self):
        return math_ops.conj(self._operator.eigvals())


class LinearOperatorInversion(LinearOperator):
    """A^-1: its matmul is A's solve and its solve A's matmul; A must be square, non-singular."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        name = name or operator.name + "_inv"
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and supplied hints must have is_non_singular equal to "
                             "True or None.  Found operator.is_non_singular = %s, "
                             "is_non_singular = %s." % (operator.is_non_singular,
                                                        is_non_singular))
        if operator.is_square is False or is_square is False:
            raise ValueError("operator and supplied hints must have is_square equal to True or "
                             "None.")
        super().__init__(
            operator.dtype, operator.graph_parents,
            _inherited_hint(is_non_singular, operator.is_non_singular, "non-singularity", name),
            _inherited_hint(is_self_adjoint, operator.is_self_adjoint, "self-adjointness", name),
            _inherited_hint(is_positive_definite, operator.is_positive_definite,
                            "positive definiteness", name), True, name)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self._operator.log_abs_determinant()


# =============================================================================
# Several operators: product, block diagonal, block lower triangular, Kronecker
# =============================================================================


class _CombinedOperator(LinearOperator):
    """An operator made of a list of operators; its default name joins theirs with JOIN."""

    JOIN = None

    def __init__(self, operators, is_non_singular, is_self_adjoint, is_positive_definite,
                 is_square, name):
        self._operators = operators
        name = name or self.JOIN.join(o.name for o in operators)
        graph_parents = [t for o in operators for t in o.graph_parents]
        super().__init__(operators[0].dtype, graph_parents, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)

    @property
    def operators(self):
        return self._operators


class LinearOperatorComposition(_CombinedOperator):
    """A1 A2 ... An: matmul applies An first; solve undoes A1 first."""

    JOIN = "_o_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        operators = _check_operators(operators, "composed")
        is_non_singular = _implied_by_all(operators, "is_non_singular", is_non_singular,
                                          "composition")
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)

    def _shape(self):
        for left, right in zip(self._operators[:-1], self._operators[1:]):
            left.domain_dimension.assert_is_compatible_with(right.range_dimension)
        return _broadcast_batch_shape(self._operators).concatenate(
            [self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _shape_tensor(self):
        return array_ops.concat([_broadcast_batch_shape_tensor(self._operators),
                                 [self._operators[0].range_dimension_tensor(),
                                  self._operators[-1].domain_dimension_tensor()]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else list(reversed(self._operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self._operators)) if adjoint else self._operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _determinant(self):
        result = self._operators[0].determinant()
        for operator in self._operators[1:]:
            result *= operator.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for operator in self._operators[1:]:
            result += operator.log_abs_determinant()
        return result


def _static_sizes(dims, what):
    sizes = [tensor_shape.dimension_value(d) for d in dims]
    if None in sizes:
        raise ValueError("minitf's %s needs every block's dimensions known when the graph is "
                         "built" % what)
    return sizes


def _block_rows(blocks, row_sizes, col_sizes):
    """The dense matrix of a grid of blocks (None: a zero block), rows then columns joined."""
    rows = []
    for i, row in enumerate(blocks):
        batch = None
        for block in row:
            if block is not None:
                batch = array_ops.shape(block)[:-2]
        parts = [block if block is not None else array_ops.zeros(
            array_ops.concat([batch, [row_sizes[i], col_sizes[j]]], 0),
            dtype=next(b for b in row if b is not None).dtype) for j, block in enumerate(row)]
        rows.append(array_ops.concat(broadcast_matrix_batch_dims(parts), -1))
    return array_ops.concat(broadcast_matrix_batch_dims(rows), -2)


class LinearOperatorBlockDiag(_CombinedOperator):
    """The block diagonal matrix diag(A1, ..., An) of square operators, applied block by block."""

    JOIN = "_ds_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        operators = _check_operators(operators, "square")
        if is_square is False:
            raise ValueError("A block diagonal operator is always square.")
        is_non_singular = _implied_by_all(operators, "is_non_singular", is_non_singular,
                                          "direct sum")
        is_self_adjoint = _implied_by_all(operators, "is_self_adjoint", is_self_adjoint,
                                          "direct sum")
        is_positive_definite = _implied_by_all(operators, "is_positive_definite",
                                               is_positive_definite, "direct sum")
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name)

    def _shape(self):
        size = _sum_dims(o.domain_dimension for o in self._operators)
        return _broadcast_batch_shape(self._operators).concatenate([size, size])

    def _shape_tensor(self):
        size = math_ops.add_n([o.domain_dimension_tensor() for o in self._operators])
        return array_ops.concat([_broadcast_batch_shape_tensor(self._operators), [size, size]],
                                0)

    def _blockwise(self, x, apply, adjoint_arg):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        sizes = _static_sizes([o.domain_dimension for o in self._operators],
                              "LinearOperatorBlockDiag")
        pieces = array_ops.split(x, sizes, axis=-2)
        results = [apply(operator, piece) for operator, piece in zip(self._operators, pieces)]
        return array_ops.concat(broadcast_matrix_batch_dims(results), -2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._blockwise(x, lambda o, piece: o.matmul(piece, adjoint=adjoint), adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._blockwise(rhs, lambda o, piece: o.solve(piece, adjoint=adjoint),
                               adjoint_arg)

    def _determinant(self):
        return functools.reduce(lambda a, b: a * b, [o.determinant() for o in self._operators])

    def _log_abs_determinant(self):
        return math_ops.add_n([o.log_abs_determinant() for o in self._operators])

    def _trace(self):
        return math_ops.add_n([o.trace() for o in self._operators])

    def _diag_part(self):
        return array_ops.concat([o.diag_part() for o in self._operators], -1)

    def _to_dense(self):
        sizes = _static_sizes([o.domain_dimension for o in self._operators],
                              "LinearOperatorBlockDiag")
        blocks = [[o.to_dense() if i == j else None for j in range(len(self._operators))]
                  for i, o in enumerate(self._operators)]
        return _block_rows(blocks, sizes, sizes)


class LinearOperatorBlockLowerTriangular(_CombinedOperator):
    """Square diagonal blocks, any blocks below, zeros above: operators[i] is row i's i + 1 blocks.

    solve is block forward substitution (backward for the adjoint), with
    the diagonal blocks' own solves.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        rows = [list(row) for row in operators]
        for i, row in enumerate(rows):
            if len(row) != i + 1:
                raise ValueError("Argument `operators[{}]` must contain `{}` blocks. Received: "
                                 "{} blocks.".format(i, i + 1, len(row)))
        flat = _check_operators([o for row in rows for o in row], "blocks")
        for i, row in enumerate(rows):
            if row[i].is_square is False:
                raise ValueError("The diagonal operators must be square.")
        if all(row[i].is_non_singular for i, row in enumerate(rows)):
            if is_non_singular is False:
                raise ValueError("A blockwise lower-triangular operator with non-singular "
                                 "operators on the main diagonal is always non-singular.")
            is_non_singular = True
        if is_square is False:
            raise ValueError("A blockwise lower-triangular operator is always square.")
        super().__init__(flat, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self._operators = rows  # row by row, where the others keep a flat list

    def _diagonal(self):
        return [row[i] for i, row in enumerate(self._operators)]

    def _sizes(self):
        return _static_sizes([o.domain_dimension for o in self._diagonal()],
                             "LinearOperatorBlockLowerTriangular")

    def _shape(self):
        size = _sum_dims(o.domain_dimension for o in self._diagonal())
        flat = [o for row in self._operators for o in row]
        return _broadcast_batch_shape(flat).concatenate([size, size])

    def _shape_tensor(self):
        flat = [o for row in self._operators for o in row]
        size = math_ops.add_n([o.domain_dimension_tensor() for o in self._diagonal()])
        return array_ops.concat([_broadcast_batch_shape_tensor(flat), [size, size]], 0)

    def _block(self, i, j):
        return self._operators[i][j] if j <= i else None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        """Row i: sum over j <= i of A_ij x_j (adjoint: column j, sum over i >= j of A_ij^H x_i)."""
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        pieces = array_ops.split(x, self._sizes(), axis=-2)
        n = len(self._operators)
        results = []
        for i in range(n):
            pairs = [(j, i) for j in range(i, n)] if adjoint else [(i, j) for j in range(i + 1)]
            terms = [self._block(r, c).matmul(pieces[r if adjoint else c], adjoint=adjoint)
                     for r, c in pairs]
            results.append(functools.reduce(lambda a, b: a + b, terms))
        return array_ops.concat(broadcast_matrix_batch_dims(results), -2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        """Forward substitution: x_i = A_ii^-1 (b_i - sum_{j<i} A_ij x_j); backward for A^H."""
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        pieces = array_ops.split(rhs, self._sizes(), axis=-2)
        n = len(self._operators)
        solution = [None] * n
        order = reversed(range(n)) if adjoint else range(n)
        for i in order:
            known = range(i + 1, n) if adjoint else range(i)
            residual = pieces[i]
            for j in known:
                block = self._block(j, i) if adjoint else self._block(i, j)
                residual = residual - block.matmul(solution[j], adjoint=adjoint)
            solution[i] = self._operators[i][i].solve(residual, adjoint=adjoint)
        return array_ops.concat(broadcast_matrix_batch_dims(solution), -2)

    def _determinant(self):
        return functools.reduce(lambda a, b: a * b, [o.determinant() for o in self._diagonal()])

    def _log_abs_determinant(self):
        return math_ops.add_n([o.log_abs_determinant() for o in self._diagonal()])

    def _diag_part(self):
        return array_ops.concat([o.diag_part() for o in self._diagonal()], -1)

    def _to_dense(self):
        n = len(self._operators)
        sizes = self._sizes()
        blocks = [[self._block(i, j).to_dense() if j <= i else None for j in range(n)]
                  for i in range(n)]
        return _block_rows(blocks, sizes, sizes)


def _kronecker_dense(left, right):
    """kron(left, right) for each pair of matrices of two batches: [m p, n q]."""
    m, n = (tensor_shape.dimension_value(d) for d in left.shape[-2:])
    p, q = (tensor_shape.dimension_value(d) for d in right.shape[-2:])
    if None in (m, n, p, q):
        raise ValueError("minitf's LinearOperatorKronecker needs each factor's dimensions known")
    product = left[..., :, None, :, None] * right[..., None, :, None, :]
    batch = array_ops.shape(product)[:-4]
    return array_ops.reshape(product, array_ops.concat([batch, [m * p, n * q]], 0))


class LinearOperatorKronecker(_CombinedOperator):
    """The Kronecker product A1 (x) A2 (x) ...: block (i, j) of A (x) B is A[i, j] B.

    Its determinant, trace and diagonal come from the factors' own; matmul
    and solve go through the dense product (TensorFlow reshapes the
    argument instead and applies the factors one by one).
    """

    JOIN = "_x_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        operators = _check_operators(operators, "Kronecker")
        is_non_singular = _implied_by_all(operators, "is_non_singular", is_non_singular,
                                          "Kronecker product")
        is_self_adjoint = _implied_by_all(operators, "is_self_adjoint", is_self_adjoint,
                                          "Kronecker product")
        if all(o.is_positive_definite for o in operators) and is_self_adjoint:
            is_positive_definite = True
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)

    def _shape(self):
        return _broadcast_batch_shape(self._operators).concatenate(
            [_prod_dims(o.range_dimension for o in self._operators),
             _prod_dims(o.domain_dimension for o in self._operators)])

    def _shape_tensor(self):
        rows = math_ops.reduce_prod([o.range_dimension_tensor() for o in self._operators])
        cols = math_ops.reduce_prod([o.domain_dimension_tensor() for o in self._operators])
        return array_ops.concat([_broadcast_batch_shape_tensor(self._operators), [rows, cols]],
                                0)

    def _to_dense(self):
        return functools.reduce(_kronecker_dense, [o.to_dense() for o in self._operators])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        """det(A (x) B) = det(A)^q det(B)^n, for A n x n and B q x q."""
        total = _prod_dims(o.domain_dimension for o in self._operators)
        return functools.reduce(lambda a, b: a * b, [
            o.determinant() ** math_ops.cast(total // o.domain_dimension.value, o.dtype)
            for o in self._operators])

    def _log_abs_determinant(self):
        total = _prod_dims(o.domain_dimension for o in self._operators)
        return math_ops.add_n([math_ops.cast(total // o.domain_dimension.value, o.dtype)
                               * o.log_abs_determinant() for o in self._operators])

    def _trace(self):
        return functools.reduce(lambda a, b: a * b, [o.trace() for o in self._operators])

    def _diag_part(self):
        def kron_vectors(u, v):
            size = _prod_dims([u.shape[-1], v.shape[-1]])
            product = u[..., :, None] * v[..., None, :]
            return array_ops.reshape(product, array_ops.concat(
                [array_ops.shape(product)[:-2], [size]], 0))
        return functools.reduce(kron_vectors, [o.diag_part() for o in self._operators])


# =============================================================================
# A low-rank update
# =============================================================================


class LinearOperatorLowRankUpdate(LinearOperator):
    """L + U D V^H: a base operator L plus a rank-K update, U and V [..., N, K], D diagonal.

    Without v, V = U; without diag_update, D = I. matmul never forms the
    N x N update; solve uses the Woodbury identity and the determinant the
    matrix determinant lemma, both through the K x K capacitance matrix
    C = D^-1 + V^H L^-1 U.
    """

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowRankUpdate"):
        if is_square is False:
            raise ValueError("A low-rank update of a square operator is always square.")
        with ops.name_scope(name, values=[u, diag_update, v]):
            self._u = convert_to_tensor(u, name="u")
            self._v = self._u if v is None else convert_to_tensor(v, name="v")
            self._diag_update = None if diag_update is None else convert_to_tensor(
                diag_update, name="diag_update")
            for tensor in (self._u, self._v) + ((self._diag_update,) if diag_update is not None
                                                else ()):
                if tensor.dtype != base_operator.dtype:
                    raise TypeError("Expected u, v and diag_update of dtype %s, found %s"
                                    % (base_operator.dtype, tensor.dtype))
            self._base_operator = base_operator
            if v is None and (diag_update is None or is_diag_update_positive) \
                    and base_operator.is_self_adjoint:
                is_self_adjoint = True if is_self_adjoint is None else is_self_adjoint
                if base_operator.is_positive_definite:
                    is_positive_definite = True if is_positive_definite is None \
                        else is_positive_definite
            diag = (self._diag_update if diag_update is not None
                    else array_ops.ones(array_ops.shape(self._u)[-1:], dtype=self._u.dtype))
            self._diag_operator = LinearOperatorDiag(diag, is_non_singular=True)
        super().__init__(base_operator.dtype,
                         base_operator.graph_parents + [self._u, self._v], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name)

    @property
    def base_operator(self):
        return self._base_operator

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag_update

    def _shape(self):
        return array_ops.broadcast_static_shape(self._base_operator.shape[:-2],
                                                self._u.shape[:-2]).concatenate(
            self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = array_ops.broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(),
                                                  array_ops.shape(self._u)[:-2])
        return array_ops.concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _factors(self, adjoint):
        """(L, U, D, V) of the matrix or, for its adjoint, of L^H + V D^H U^H."""
        if adjoint:
            return (self._base_operator.adjoint(), self._v, self._diag_operator.adjoint(),
                    self._u)
        return self._base_operator, self._u, self._diag_operator, self._v

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        base, u, diag, v = self._factors(adjoint)
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        update = math_ops.matmul(u, diag.matmul(math_ops.matmul(v, x, adjoint_a=True)))
        return base.matmul(x) + update

    def _capacitance(self, adjoint=False):
        """C = D^-1 + V^H L^-1 U, K x K."""
        base, u, diag, v = self._factors(adjoint)
        return (linalg_ops.diag(1.0 / diag.diag_part())
                + math_ops.matmul(v, base.solve(u), adjoint_a=True))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        """(L + U D V^H)^-1 = L^-1 - L^-1 U C^-1 V^H L^-1 (Woodbury)."""
        base, u, _, v = self._factors(adjoint)
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        base_solution = base.solve(rhs)
        correction = linalg_ops.solve(self._capacitance(adjoint),
                                      math_ops.matmul(v, base_solution, adjoint_a=True))
        return base_solution - base.solve(math_ops.matmul(u, correction))

    def _determinant(self):
        """det(L + U D V^H) = det(C) det(D) det(L) (the matrix determinant lemma)."""
        return (linalg_ops.det(self._capacitance()) * self._diag_operator.determinant()
                * self._base_operator.determinant())

    def _log_abs_determinant(self):
        _, log_abs_capacitance = linalg_ops.slogdet(self._capacitance())
        log_abs = (log_abs_capacitance + self._diag_operator.log_abs_determinant()
                   + self._base_operator.log_abs_determinant())
        return math_ops.real(log_abs) if log_abs.dtype.is_complex else log_abs

    def _to_dense(self):
        update = math_ops.matmul(self._u, self._diag_operator.matmul(self._v, adjoint_arg=True))
        return self._base_operator.to_dense() + update


register_derived_operator("adjoint", LinearOperatorAdjoint)
register_derived_operator("inverse", LinearOperatorInversion)
register_derived_operator("composition", LinearOperatorComposition)
