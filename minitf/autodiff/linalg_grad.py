"""Gradients of the linear algebra ops.

Matrix calculus, one identity per op: for C = A^-1, dA = -C^H dC C^H; for
d = det(A), dA = d dd A^-H; for X = A^-1 B, dB = A^-H dX and dA = -dB X^H.
Each is written with the ops themselves (a solve, not an inverse times a
matrix), as TensorFlow writes it, so that second derivatives come for free.

Mirrors `tensorflow/python/ops/linalg_grad.py` and the matrix gradients of
`array_grad.py` (TF 1.15).
"""

import builtins
import string

from minitf.autodiff.registry import RegisterGradient
from minitf.framework.op_defs.linalg import parse_einsum_equation
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
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


# =============================================================================
# Decompositions, least squares, matrix functions
# =============================================================================

def _safe_reciprocal(x, epsilon=1e-20):
    """1 / x, but 0 (not inf) where x is 0: the terms of equal singular values."""
    return x * math_ops.reciprocal(x * x + epsilon)


@RegisterGradient("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    """Giles' formulas (and Townsend's for reduced u, v); undefined for repeated singular values.

    For a wide matrix the gradient of its adjoint's SVD is taken, and adjointed.
    """
    a = op.inputs[0]
    a_shape = a.shape.with_rank_at_least(2)
    grad_s = math_ops.cast(grad_s, a.dtype)
    grad_s_mat = linalg_ops.diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = math_ops.matmul(u, math_ops.matmul(grad_s_mat, v, adjoint_b=True))
        grad_a.set_shape(a_shape)
        return grad_a
    full_matrices = op.get_attr("full_matrices")
    m, n = (linalg_ops.tensor_dimension(d) for d in a_shape[-2:])
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    s, u, v = op.outputs
    use_adjoint = m > n
    if use_adjoint:  # the gradient of A^H = V S U^H, adjointed at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    with ops.control_dependencies([grad_s, grad_u, grad_v]):
        if full_matrices and abs(m - n) > 1:
            raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when "
                                      "full_matrices is True.")
        s_mat = linalg_ops.diag(s)
        s2 = math_ops.square(s)
        f = linalg_ops.set_diag(
            _safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)),
            array_ops.zeros_like(s))
        s_inv_mat = linalg_ops.diag(_safe_reciprocal(s))
        v1 = v[..., :, :m]
        grad_v1 = grad_v[..., :, :m]
        u_gu = math_ops.matmul(u, grad_u, adjoint_a=True)
        v_gv = math_ops.matmul(v1, grad_v1, adjoint_a=True)
        f_u = f * u_gu
        f_v = f * v_gv
        term1_nouv = (grad_s_mat + math_ops.matmul(f_u + linalg_ops.adjoint(f_u), s_mat)
                      + math_ops.matmul(s_mat, f_v + linalg_ops.adjoint(f_v)))
        grad_a = math_ops.matmul(u, math_ops.matmul(term1_nouv, v1, adjoint_b=True))
        if m != n:
            gv1t = linalg_ops.matrix_transpose(grad_v1, conjugate=True)
            gv1t_v1 = math_ops.matmul(gv1t, v1)
            term2_nous = gv1t - math_ops.matmul(gv1t_v1, v1, adjoint_b=True)
            if full_matrices:
                v2 = v[..., :, m:n]
                grad_v2 = grad_v[..., :, m:n]
                v1t_gv2 = math_ops.matmul(v1, grad_v2, adjoint_a=True)
                term2_nous -= math_ops.matmul(v1t_gv2, v2, adjoint_b=True)
            grad_a += math_ops.matmul(math_ops.matmul(u, s_inv_mat), term2_nous)
        if a.dtype.is_complex:
            s_shape = array_ops.shape(s)
            eye = linalg_ops.eye(s_shape[-1], batch_shape=s_shape[:-1], dtype=a.dtype)
            l = eye * v_gv  # noqa: E741 - the paper's name
            term3_nouv = math_ops.matmul(s_inv_mat, linalg_ops.adjoint(l) - l)
            grad_a += 0.5 * math_ops.matmul(u, math_ops.matmul(term3_nouv, v1, adjoint_b=True))
        if use_adjoint:
            grad_a = linalg_ops.matrix_transpose(grad_a, conjugate=True)
        grad_a.set_shape(a_shape)
        return grad_a


@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op, grad):
    """Through the regularized normal equations: only for fast=True, as in TensorFlow.

    Tall A: X = (A^H A + l I)^-1 A^H B; wide A: X = A^H (A A^H + l I)^-1 B.
    """
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    a, b = op.inputs[0], op.inputs[1]
    l2_regularizer = math_ops.cast(op.inputs[2], a.dtype.base_dtype)
    rows, cols = (linalg_ops.tensor_dimension(d) for d in a.shape[-2:])
    if rows is None or cols is None:
        raise NotImplementedError("minitf's MatrixSolveLs gradient needs the matrix's last two "
                                  "dimensions known when the graph is built")
    if rows >= cols:
        x = op.outputs[0]
        chol = linalg_ops._regularized_gramian_cholesky(a, l2_regularizer, first_kind=True)
        z = linalg_ops.cholesky_solve(chol, grad)
        xzt = math_ops.matmul(x, z, adjoint_b=True)
        zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
        grad_a = -math_ops.matmul(a, zx_sym) + math_ops.matmul(b, z, adjoint_b=True)
        return grad_a, math_ops.matmul(a, z), None
    chol = linalg_ops._regularized_gramian_cholesky(a, l2_regularizer, first_kind=False)
    grad_b = linalg_ops.cholesky_solve(chol, math_ops.matmul(a, grad))
    tmp = linalg_ops.cholesky_solve(chol, b)
    a1 = -math_ops.matmul(grad_b, math_ops.matmul(tmp, a, adjoint_a=True))
    a2 = math_ops.matmul(tmp, grad - math_ops.matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return a1 + a2, grad_b, None


def _kronecker_product(b1, b2):
    """kron(b1[i], b2[i]) for each pair of square matrices of two batches of the same shape."""
    b1_shape, b2_shape = array_ops.shape(b1), array_ops.shape(b2)
    b1_order, b2_order = b1_shape[-1], b2_shape[-1]
    batch = b1_shape[:-2]
    b1 = array_ops.reshape(b1, array_ops.concat([batch, [b1_order, 1, b1_order, 1]], 0))
    b2 = array_ops.reshape(b2, array_ops.concat([batch, [1, b2_order, 1, b2_order]], 0))
    order = b1_order * b2_order
    return array_ops.reshape(b1 * b2, array_ops.concat([batch, [order, order]], 0))


@RegisterGradient("MatrixSquareRoot")
def _matrix_square_root_grad(op, grad):
    """A = R R, so dA = R dR + dR R: the gradient G solves R^T G + G R^T = grad (Sylvester).

    Solved as one linear system of size m^2: (R^T (x) I + I (x) R) vec(G) = vec(grad),
    with vec stacking rows.
    """
    sqrtm = op.outputs[0]
    shape = array_ops.shape(sqrtm)
    order = shape[-1]
    eye = linalg_ops.eye(order, batch_shape=shape[:-2], dtype=sqrtm.dtype)
    sqrtm_transpose = linalg_ops.matrix_transpose(sqrtm)
    k = _kronecker_product(sqrtm_transpose, eye) + _kronecker_product(eye, sqrtm)
    vec_shape = array_ops.concat([shape[:-2], [order * order, 1]], 0)
    grad_vec = array_ops.reshape(grad, vec_shape)
    return array_ops.reshape(linalg_ops.solve(k, grad_vec), shape)


# =============================================================================
# Tridiagonal matrices
# =============================================================================

def _shift_rows(x, up):
    """x's rows (the next-to-last axis) moved one up (zeros enter at the bottom), or down."""
    rank = array_ops.rank(x)
    zeros = array_ops.zeros(array_ops.stack([rank - 2, 2]), dtype="int32")
    pad = [[0, 1], [0, 0]] if up else [[1, 0], [0, 0]]
    pad = array_ops.concat([zeros, constant(pad)], axis=0)
    return array_ops.pad(x[..., 1:, :] if up else x[..., :-1, :], pad)


@RegisterGradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op, grad):
    """Each diagonal's gradient: grad times the (shifted) rhs, row by row; rhs's: A^H grad."""
    superdiag_conj = linalg_ops.matrix_transpose(op.inputs[0], conjugate=True)
    maindiag_conj = linalg_ops.matrix_transpose(op.inputs[1], conjugate=True)
    subdiag_conj = linalg_ops.matrix_transpose(op.inputs[2], conjugate=True)
    rhs_conj = math_ops.conj(op.inputs[3])
    superdiag_grad = math_ops.reduce_sum(_shift_rows(rhs_conj, up=True) * grad, axis=-1)
    maindiag_grad = math_ops.reduce_sum(rhs_conj * grad, axis=-1)
    subdiag_grad = math_ops.reduce_sum(_shift_rows(rhs_conj, up=False) * grad, axis=-1)
    rhs_grad = (_shift_rows(superdiag_conj * grad, up=False) + maindiag_conj * grad
                + _shift_rows(subdiag_conj * grad, up=True))
    return (array_ops.expand_dims(superdiag_grad, -2), array_ops.expand_dims(maindiag_grad, -2),
            array_ops.expand_dims(subdiag_grad, -2), rhs_grad)


def _transpose_tridiagonal(diags):
    """The compact diagonals [..., 3, m] of A^T: superdiagonal and subdiagonal swap places."""
    rank = array_ops.rank(diags)
    zeros = array_ops.zeros(array_ops.stack([rank - 2, 2]), dtype="int32")
    superdiag = array_ops.pad(diags[..., 2, 1:],
                              array_ops.concat((zeros, constant([[0, 1]])), axis=0))
    subdiag = array_ops.pad(diags[..., 0, :-1],
                            array_ops.concat((zeros, constant([[1, 0]])), axis=0))
    return array_ops.stack([superdiag, diags[..., 1, :], subdiag], axis=-2)


def _matmul_three_diagonals(x, y_tr):
    """The three diagonals of x y_tr^T in compact form, without the full product."""
    diag = math_ops.reduce_sum(x * y_tr, axis=-1)
    superdiag = math_ops.reduce_sum(x[..., :-1, :] * y_tr[..., 1:, :], axis=-1)
    subdiag = math_ops.reduce_sum(x[..., 1:, :] * y_tr[..., :-1, :], axis=-1)
    rank = array_ops.rank(x)
    zeros = array_ops.zeros(array_ops.stack([rank - 2, 2]), dtype="int32")
    superdiag = array_ops.pad(superdiag, array_ops.concat((zeros, constant([[0, 1]])), axis=0))
    subdiag = array_ops.pad(subdiag, array_ops.concat((zeros, constant([[1, 0]])), axis=0))
    return array_ops.stack([superdiag, diag, subdiag], axis=-2)


@RegisterGradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op, grad):
    """X = A^-1 B: dB = A^-T dX (a tridiagonal solve), dA = -dB X^T on A's three diagonals."""
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = linalg_ops.tridiagonal_solve(_transpose_tridiagonal(diags), grad,
                                            partial_pivoting=op.get_attr("partial_pivoting"))
    return -_matmul_three_diagonals(grad_rhs, x), grad_rhs


# =============================================================================
# Einsum
# =============================================================================

def _without_repeated_labels(subscripts, operand, output, others):
    """'ii' read as 'iz' times an identity matrix 'iz': an operand's repeated labels renamed.

    x's diagonal is einsum('ii->i', x) = einsum('iz,iz->i', x, I), where x
    has no repeated label: each repeat gets a fresh label and an identity
    of its size joins the other operands.
    """
    head, has_ellipsis, tail = subscripts.partition("...")
    labels = head + tail
    if len(set(labels)) == len(labels):
        return subscripts, others
    used = set(subscripts + output + "".join(s for s, _ in others))
    fresh = (c for c in string.ascii_letters if c not in used)
    positions = list(builtins.range(len(head))) + [
        operand.shape.ndims - len(tail) + i for i in builtins.range(len(tail))]
    seen, renamed, identities = set(), [], []
    for label, position in zip(labels, positions):
        if label in seen:
            new_label = next(fresh)
            identities.append((label + new_label, linalg_ops.eye(
                array_ops.shape(operand)[position], dtype=operand.dtype)))
            label = new_label
        seen.add(label)
        renamed.append(label)
    renamed = "".join(renamed)
    subscripts = renamed[:len(head)] + has_ellipsis + renamed[len(head):]
    return subscripts, list(others) + identities


def _einsum_operand_grad(grad, output, subscripts, operand, others):
    """The gradient of one operand: an Einsum of grad with the other operands.

    Labels the operand sums away alone (in no other operand, not in the
    output) have a gradient constant along them: broadcast back. Broadcast
    '...' axes are summed back to the operand's own.
    """
    subscripts, others = _without_repeated_labels(subscripts, operand, output, others)
    elsewhere = output + "".join(s for s, _ in others)
    kept = "".join(label if label == "." or label in elsewhere else "" for label in subscripts)
    equation = ",".join([output] + [s for s, _ in others]) + "->" + kept
    partial = apply_op("Einsum", inputs=[grad] + [x for _, x in others], equation=equation)
    if "..." in subscripts:
        partial = _sum_ellipsis_to(partial, kept, operand, subscripts)
    if kept == subscripts:
        return partial
    # Put size-1 axes where the summed-alone labels were, then broadcast.
    expanded_shape = []
    operand_shape = array_ops.shape(operand)
    head, _, tail = subscripts.partition("...")
    rank = operand.shape.ndims
    for position, label in enumerate(head):
        expanded_shape.append(operand_shape[position] if label in elsewhere else 1)
    if "..." in subscripts:
        expanded_shape.extend(operand_shape[position]
                              for position in builtins.range(len(head), rank - len(tail)))
    for offset, label in enumerate(tail):
        position = rank - len(tail) + offset
        expanded_shape.append(operand_shape[position] if label in elsewhere else 1)
    partial = array_ops.reshape(partial, array_ops.stack(expanded_shape))
    return array_ops.broadcast_to(partial, operand_shape)


def _sum_ellipsis_to(partial, kept, operand, subscripts):
    """partial's '...' axes (all operands' broadcast) summed to the operand's '...' axes."""
    head, _, tail = subscripts.partition("...")
    kept_head = kept.partition("...")[0]
    operand_ellipsis = array_ops.shape(operand)[len(head):operand.shape.ndims - len(tail)]
    partial_rank = partial.shape.ndims
    kept_tail = len(kept) - len(kept_head) - 3
    start, stop = len(kept_head), partial_rank - kept_tail
    partial_shape = array_ops.shape(partial)
    partial_ellipsis = partial_shape[start:stop]
    _, reduce_axes = math_ops.broadcast_gradient_args(partial_ellipsis, operand_ellipsis)
    summed = math_ops.reduce_sum(partial, reduce_axes + start, keepdims=True)
    return array_ops.reshape(summed, array_ops.concat(
        [partial_shape[:start], operand_ellipsis, partial_shape[stop:]], 0))


@RegisterGradient("Einsum")
def _einsum_grad(op, grad):
    """Each operand's gradient is an Einsum of the output's gradient with the other operands."""
    subscripts, output = parse_einsum_equation(op.get_attr("equation"))
    operands = list(op.inputs)
    repeats = any(len(set(sub)) < len(sub) for sub in subscripts)
    if any(x.shape.ndims is None for x in operands) and ("..." in op.get_attr("equation")
                                                         or repeats):
        raise NotImplementedError("minitf's Einsum gradient needs the ranks of '...' operands "
                                  "(and of those with a repeated label) known when the graph "
                                  "is built: %s" % op.get_attr("equation"))
    return [_einsum_operand_grad(grad, output, subscripts[i], operands[i],
                                 [(subscripts[j], operands[j])
                                  for j in builtins.range(len(operands)) if j != i])
            for i in builtins.range(len(operands))]
