"""tf.linalg's decompositions, matrix functions, tridiagonal ops and contractions.

Values against NumPy (a function of a matrix against the same function
of its eigenvalues, V f(w) V^-1); node names, build-time shape errors and
run-time errors as a reference TensorFlow (`tf.compat.v1`, graph mode)
gives them. That reference adds a `triangular_solve` name scope inside
lu_solve which TF 1.15 (whose `tf.linalg.triangular_solve` is the bare
op) does not: the names below are TF 1.15's.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitf as tf

RNG = np.random.RandomState(7)
A = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
B = RNG.standard_normal((2, 3, 2))
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((2, 4))


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def matrix_function(matrix, function):
    """function(matrix) through an eigendecomposition: V function(w) V^-1."""
    w, v = np.linalg.eig(matrix)
    return (v * function(w)[..., None, :]) @ np.linalg.inv(v)


# =============================================================================
# SVD, pseudo-inverse, rank
# =============================================================================

@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 5)])
def test_svd_matches_numpy_and_reconstructs(shape):
    a = RNG.standard_normal(shape)
    s, u, v = run(tf.linalg.svd(tf.constant(a)))
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-12)
    assert u.shape[-1] == v.shape[-1] == min(shape[-2:])


def test_svd_shapes_and_values_only():
    a = tf.constant(RNG.standard_normal((2, 4, 3)))
    s, u, v = tf.linalg.svd(a, full_matrices=True)
    assert (s.shape.as_list(), u.shape.as_list(), v.shape.as_list()) == (
        [2, 3], [2, 4, 4], [2, 3, 3])
    values = tf.linalg.svd(a, compute_uv=False)
    assert values.name == "Svd_1:0" and values.op.outputs[1].shape.as_list() == [0]
    np.testing.assert_allclose(run(values), run(s), rtol=1e-12)
    np.testing.assert_allclose(run(tf.svd(tf.constant([[3.0, 0.0], [0.0, 4.0]]))[0]), [4, 3])
    assert tf.svd is tf.linalg.svd


def test_pinv_and_matrix_rank_match_numpy():
    deficient = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    pinv, pinv_deficient, rank, ranks = run([
        tf.linalg.pinv(tf.constant(TALL)), tf.linalg.pinv(tf.constant(deficient)),
        tf.linalg.matrix_rank(tf.constant(deficient)),
        tf.linalg.matrix_rank(tf.constant(np.stack([np.eye(3), np.diag([1.0, 1.0, 0.0])])))])
    np.testing.assert_allclose(pinv, np.linalg.pinv(TALL), rtol=1e-10)
    np.testing.assert_allclose(pinv_deficient, np.linalg.pinv(deficient), rtol=1e-10)
    assert rank == 1 and ranks.tolist() == [3, 2] and ranks.dtype == np.int32


# =============================================================================
# LU and what is built on it
# =============================================================================

def test_lu_factors_and_the_composites_built_on_them():
    lu, perm = tf.linalg.lu(tf.constant(A))
    rhs = tf.constant(B)
    values = run({"lu": lu, "perm": perm, "solve": tf.linalg.lu_solve(lu, perm, rhs),
                  "inverse": tf.linalg.lu_matrix_inverse(lu, perm),
                  "reconstruct": tf.linalg.lu_reconstruct(lu, perm)})
    lower = np.tril(values["lu"], -1) + np.eye(3)
    upper = np.triu(values["lu"])
    for i in range(2):
        np.testing.assert_allclose(A[i][values["perm"][i]], lower[i] @ upper[i], atol=1e-12)
    assert np.all(np.abs(np.tril(values["lu"], -1)) <= 1)  # partial pivoting's multipliers
    assert values["perm"].dtype == np.int32
    np.testing.assert_allclose(values["solve"], np.linalg.solve(A, B), rtol=1e-10)
    np.testing.assert_allclose(values["inverse"], np.linalg.inv(A), rtol=1e-10)
    np.testing.assert_allclose(values["reconstruct"], A, rtol=1e-12)


def test_lu_of_one_matrix_matches_tensorflow():
    lu, perm = run(tf.linalg.lu(tf.constant([[1.0, 2.0], [3.0, 4.0]])))
    np.testing.assert_allclose(lu, [[3.0, 4.0], [1 / 3, 2 / 3]], rtol=1e-6)
    assert perm.tolist() == [1, 0]
    _, perm64 = tf.linalg.lu(tf.constant(A), output_idx_type=tf.int64)
    assert perm64.dtype == tf.int64


def test_lu_composites_have_tensorflows_node_names():
    lu, perm = tf.linalg.lu(tf.constant(A[0]))
    assert (lu.name, perm.name) == ("Lu:0", "Lu:1")
    assert tf.linalg.lu_solve(lu, perm, tf.constant(B[0])).name == (
        "lu_solve/MatrixTriangularSolve_1:0")
    assert tf.linalg.lu_reconstruct(lu, perm).name == "lu_reconstruct/GatherV2:0"
    assert tf.linalg.lu_matrix_inverse(lu, perm).name == (
        "lu_matrix_inverse/lu_solve/MatrixTriangularSolve_1:0")


def test_a_singular_matrix_has_no_lu():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        run(tf.linalg.lu(tf.zeros([2, 2])))


# =============================================================================
# Least squares
# =============================================================================

def test_lstsq_matches_numpy_for_tall_and_wide_matrices():
    tall_rhs, wide_rhs = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 3))
    fast_tall, fast_wide, slow_tall, slow_wide = run([
        tf.linalg.lstsq(tf.constant(TALL), tf.constant(tall_rhs)),
        tf.linalg.lstsq(tf.constant(WIDE), tf.constant(wide_rhs)),
        tf.linalg.lstsq(tf.constant(TALL), tf.constant(tall_rhs), fast=False),
        tf.matrix_solve_ls(tf.constant(WIDE), tf.constant(wide_rhs), fast=False)])
    expected_tall = np.linalg.lstsq(TALL, tall_rhs, rcond=None)[0]
    expected_wide = np.linalg.lstsq(WIDE, wide_rhs, rcond=None)[0]  # the minimum-norm one
    np.testing.assert_allclose(fast_tall, expected_tall, rtol=1e-10)
    np.testing.assert_allclose(slow_tall, expected_tall, rtol=1e-10)
    np.testing.assert_allclose(fast_wide, expected_wide, rtol=1e-10)
    np.testing.assert_allclose(slow_wide, expected_wide, rtol=1e-10)
    assert tf.matrix_solve_ls is tf.linalg.lstsq


def test_lstsq_with_l2_regularizer_solves_the_ridge_equations():
    rhs = RNG.standard_normal((5, 1))
    x = run(tf.linalg.lstsq(tf.constant(TALL), tf.constant(rhs), l2_regularizer=0.5))
    np.testing.assert_allclose(x, np.linalg.solve(TALL.T @ TALL + 0.5 * np.eye(3), TALL.T @ rhs),
                               rtol=1e-10)


def test_lstsq_node_names_and_shape_errors():
    matrix, rhs = tf.constant(TALL), tf.constant(RNG.standard_normal((5, 2)))
    assert tf.linalg.lstsq(matrix, rhs).name == (
        "matrix_solve_ls/cholesky_solve/MatrixTriangularSolve_1:0")
    assert tf.linalg.lstsq(matrix, rhs, fast=False).name == "MatrixSolveLs:0"
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.lstsq(tf.ones([2, 3]), tf.ones([3, 2]), fast=False)


# =============================================================================
# Matrix functions
# =============================================================================

def test_sqrtm_expm_and_logm_match_functions_of_the_eigenvalues():
    a = tf.constant(A)
    root, exponential, logarithm, root32 = run([
        tf.linalg.sqrtm(a), tf.linalg.expm(a), tf.linalg.logm(tf.cast(a, tf.complex128)),
        tf.matrix_square_root(tf.constant(A.astype(np.float32)))])
    np.testing.assert_allclose(root, matrix_function(A, np.sqrt).real, rtol=1e-10)
    np.testing.assert_allclose(root @ root, A, rtol=1e-10)
    np.testing.assert_allclose(root32, root, rtol=1e-4)
    np.testing.assert_allclose(exponential, matrix_function(A, np.exp).real, rtol=1e-12)
    np.testing.assert_allclose(logarithm, matrix_function(A.astype(complex), np.log), rtol=1e-10)
    assert tf.matrix_square_root is tf.linalg.sqrtm


def test_expm_scales_and_squares_large_matrices():
    big = 20 * RNG.standard_normal((3, 3))
    small = np.array([[0.0, 1e-3], [0.0, 0.0]])  # nilpotent: exp = I + A
    big_exp, small_exp, exp32 = run([tf.linalg.expm(tf.constant(big)),
                                     tf.linalg.expm(tf.constant(small)),
                                     tf.linalg.expm(tf.constant(A[0].astype(np.float32)))])
    np.testing.assert_allclose(big_exp, matrix_function(big, np.exp).real, rtol=1e-8)
    np.testing.assert_allclose(small_exp, np.eye(2) + small, rtol=1e-15)
    np.testing.assert_allclose(exp32, matrix_function(A[0], np.exp).real, rtol=1e-5)
    assert tf.linalg.expm(tf.constant(big)).name == "matrix_exponential_3/Reshape_1:0"


def test_matrix_functions_check_their_inputs():
    assert tf.linalg.sqrtm(tf.constant(A)).name == "MatrixSquareRoot:0"
    with pytest.raises(TypeError, match="complex64, complex128"):
        tf.linalg.logm(tf.ones([2, 2]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.sqrtm(tf.ones([2, 3]))
    with pytest.raises(ValueError, match="expm does not support"):
        tf.linalg.expm(tf.ones([2, 2], dtype=tf.int32))


# =============================================================================
# Tridiagonal matrices
# =============================================================================

SUPER, MAIN, SUB = RNG.standard_normal((3, 2, 4))
MAIN = MAIN + 4.0
DENSE = (np.apply_along_axis(np.diag, -1, MAIN) + np.stack([np.diag(s[:-1], 1) for s in SUPER])
         + np.stack([np.diag(s[1:], -1) for s in SUB]))
RHS = RNG.standard_normal((2, 4, 3))


@pytest.mark.parametrize("diagonals_format", ["compact", "sequence", "matrix"])
def test_tridiagonal_solve_and_matmul_in_every_format(diagonals_format):
    diagonals = {"compact": np.stack([SUPER, MAIN, SUB], axis=-2),
                 "sequence": [tf.constant(SUPER), tf.constant(MAIN), tf.constant(SUB)],
                 "matrix": DENSE}[diagonals_format]
    solution, product = run([
        tf.linalg.tridiagonal_solve(diagonals, RHS, diagonals_format=diagonals_format),
        tf.linalg.tridiagonal_matmul(diagonals, RHS, diagonals_format=diagonals_format)])
    np.testing.assert_allclose(solution, np.linalg.solve(DENSE, RHS), rtol=1e-10)
    np.testing.assert_allclose(product, DENSE @ RHS, rtol=1e-12)


def test_tridiagonal_solve_of_vectors_and_transposed_rhs():
    diagonals = tf.constant(np.stack([SUPER, MAIN, SUB], axis=-2))
    vector, transposed = run([
        tf.linalg.tridiagonal_solve(diagonals, tf.constant(RHS[..., 0])),
        tf.linalg.tridiagonal_solve(diagonals, tf.constant(np.swapaxes(RHS, -1, -2)),
                                    transpose_rhs=True)])
    np.testing.assert_allclose(vector, np.linalg.solve(DENSE, RHS[..., :1])[..., 0], rtol=1e-10)
    np.testing.assert_allclose(transposed, np.linalg.solve(DENSE, RHS), rtol=1e-10)


def test_tridiagonal_errors():
    assert tf.linalg.tridiagonal_solve(tf.ones([3, 3]), tf.ones([3, 1])).name == (
        "TridiagonalSolve:0")
    with pytest.raises(ValueError, match="Expected 3 diagonals got 4"):
        tf.linalg.tridiagonal_solve(tf.ones([4, 3]), tf.ones([3, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="The matrix is not invertible"):
        run(tf.linalg.tridiagonal_solve(tf.zeros([3, 3]), tf.ones([3, 1])))
    with pytest.raises(ValueError, match="Unrecognized diagonals_format: banded"):
        tf.linalg.tridiagonal_matmul(tf.ones([3, 3]), tf.ones([3, 1]), diagonals_format="banded")


# =============================================================================
# einsum and tensordot
# =============================================================================

@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba,ca", [(2, 3), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ab,bc,cd,da->", [(2, 3), (3, 4), (4, 5), (5, 2)]),
])
def test_einsum_matches_numpy(equation, shapes):
    operands = [RNG.standard_normal(shape) for shape in shapes]
    result = tf.einsum(equation, *[tf.constant(x) for x in operands])
    expected = np.einsum(equation, *operands)
    assert result.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(run(result), expected, rtol=1e-12, atol=1e-12)


def test_einsum_names_equation_and_errors():
    a, b = tf.ones([2, 3]), tf.ones([3, 4])
    product = tf.einsum("i j , j k", a, b)
    assert product.name == "einsum/Einsum:0"
    assert product.op.get_attr("equation") == "ij,jk->ik"
    assert tf.linalg.einsum is tf.einsum
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.einsum("ij,jk->ik", a, tf.ones([4, 5]))
    with pytest.raises(ValueError, match="Expected 2 inputs"):
        tf.einsum("ij,jk->ik", a)
    with pytest.raises(TypeError, match="Invalid keyword arguments"):
        tf.einsum("ij->ji", a, axis=0)
    unknown = tf.placeholder(tf.float32)
    assert tf.einsum("ij,jk->ik", unknown, b).shape.ndims is None


def test_tensordot_matches_numpy():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 3, 5))
    pairs, last, outer, dynamic = run([
        tf.tensordot(tf.constant(a), tf.constant(b), [[1, 2], [1, 0]]),
        tf.tensordot(tf.constant(a), tf.constant(b), 1),
        tf.linalg.tensordot(tf.constant(a[0]), tf.constant(b[0]), 0),
        tf.tensordot(tf.placeholder_with_default(a, None), tf.constant(b), [[2], [0]])])
    np.testing.assert_allclose(pairs, np.tensordot(a, b, [[1, 2], [1, 0]]), rtol=1e-12)
    np.testing.assert_allclose(last, np.tensordot(a, b, 1), rtol=1e-12)
    np.testing.assert_allclose(outer, np.tensordot(a[0], b[0], 0), rtol=1e-12)
    np.testing.assert_allclose(dynamic, np.tensordot(a, b, [[2], [0]]), rtol=1e-12)
    assert tf.linalg.tensordot is tf.tensordot


def test_tensordot_node_names_and_errors():
    a, b = tf.ones([3, 3]), tf.ones([3, 2])
    assert tf.tensordot(a, b, 1).name == "Tensordot/MatMul:0"
    assert tf.tensordot(a, b, [[1], [0]]).name == "Tensordot_1/MatMul:0"
    assert tf.tensordot(tf.ones([2, 3, 4]), tf.ones([4, 5]), 1).shape.as_list() == [2, 3, 5]
    with pytest.raises(ValueError, match="must not be larger"):
        tf.tensordot(a, b, 3)
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(a, b, [[0, 1], [0]])


# =============================================================================
# Gradients that TensorFlow leaves undefined (the numeric checks of the defined
# ones are in tests/autodiff/test_math_grad.py)
# =============================================================================

def test_matrix_solve_ls_has_no_gradient_with_fast_false():
    a, b = tf.constant(TALL), tf.constant(RNG.standard_normal((5, 2)))
    with pytest.raises(ValueError, match="Gradient not defined for fast=False"):
        tf.gradients(tf.linalg.lstsq(a, b, fast=False), [a])


def test_lu_and_logm_have_no_gradient():
    a = tf.constant(A)
    with pytest.raises(LookupError):
        tf.gradients(tf.linalg.lu(a)[0], [a])
    with pytest.raises(LookupError):
        c = tf.cast(a, tf.complex128)
        tf.gradients(tf.linalg.logm(c), [c], grad_ys=tf.ones_like(c))


def test_einsum_gradient_with_repeated_labels_needs_known_ranks():
    unknown = tf.placeholder_with_default(A[0], None)
    with pytest.raises(NotImplementedError, match="repeated label"):
        tf.gradients(tf.einsum("ii->i", unknown), [unknown])


def test_eye_of_a_size_known_at_run_time():
    np.testing.assert_allclose(run(tf.eye(tf.constant(2))), np.eye(2))


# =============================================================================
# eigh_tridiagonal
# =============================================================================

def test_eigh_tridiagonal_matches_numpy_and_tensorflows_example():
    alpha, beta = RNG.standard_normal(5), RNG.standard_normal(4)
    dense = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    expected = np.linalg.eigvalsh(dense)
    all_values, (values, vectors), by_index, by_value, example = run([
        tf.linalg.eigh_tridiagonal(alpha, beta),
        tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False),
        tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 3]),
        tf.linalg.eigh_tridiagonal(alpha, beta, select="v", select_range=[
            (expected[0] + expected[1]) / 2, (expected[2] + expected[3]) / 2]),
        tf.linalg.eigh_tridiagonal([0.0, 0.0, 0.0], [1.0, 1.0])])
    np.testing.assert_allclose(all_values, expected, rtol=1e-10)
    np.testing.assert_allclose(dense @ vectors, vectors * values, atol=1e-10)
    np.testing.assert_allclose(by_index, expected[1:4], rtol=1e-10)
    np.testing.assert_allclose(by_value, expected[1:3], rtol=1e-10)
    np.testing.assert_allclose(example, [-np.sqrt(2.0), 0.0, np.sqrt(2.0)], rtol=1e-6,
                               atol=1e-6)


def test_eigh_tridiagonal_of_complex_and_tiny_matrices():
    alpha, beta = np.array([1.0, 2.0, 3.0]) + 0j, np.array([1 + 1j, 0.5 - 2j])
    dense = np.diag(alpha) + np.diag(beta, 1) + np.diag(np.conj(beta), -1)
    values = run(tf.linalg.eigh_tridiagonal(alpha, beta))
    np.testing.assert_allclose(values.real, np.linalg.eigvalsh(dense), rtol=1e-10)
    assert run(tf.linalg.eigh_tridiagonal([2.0], [])).tolist() == [2.0]
    half_open = tf.linalg.eigh_tridiagonal([1.0, 2.0, 3.0], [0.0, 0.0], select="v",
                                           select_range=[1.0, 2.0])  # (1, 2]
    np.testing.assert_allclose(run(half_open), [2.0])
    with pytest.raises(ValueError, match="'select must have a value in"):
        tf.linalg.eigh_tridiagonal([1.0, 2.0], [1.0], select="x")
    with pytest.raises(ValueError, match="must have the same type"):
        tf.linalg.eigh_tridiagonal(np.array([1.0, 2.0]), np.array([1.0], np.float32))


# =============================================================================
# The same kernels on a GPU
# =============================================================================

def test_the_kernels_run_on_a_gpu_through_its_array_module(stand_in_gpu):
    diagonals = np.stack([SUPER[0], MAIN[0], SUB[0]])
    with tf.device("/gpu:0"):
        s, u, v = tf.linalg.svd(tf.constant(A))
        lu, perm = tf.linalg.lu(tf.constant(A))
        cases = [
            (s, np.linalg.svd(A, compute_uv=False)),
            (tf.matmul(u * s[:, None, :], v, adjoint_b=True), A),
            (tf.linalg.lu_reconstruct(lu, perm), A),
            (tf.linalg.lstsq(tf.constant(TALL), tf.constant(TALL[:, :1]), fast=False),
             np.linalg.lstsq(TALL, TALL[:, :1], rcond=None)[0]),
            (tf.linalg.sqrtm(tf.constant(A)), matrix_function(A, np.sqrt).real),
            (tf.linalg.logm(tf.constant(A.astype(complex))),
             matrix_function(A.astype(complex), np.log)),
            (tf.linalg.tridiagonal_solve(diagonals, RHS[0]), np.linalg.solve(DENSE[0], RHS[0])),
            (tf.linalg.tridiagonal_matmul(diagonals, RHS[0]), DENSE[0] @ RHS[0]),
            (tf.einsum("bij,bjk->bik", tf.constant(A), tf.constant(B)), A @ B),
        ]
    for tensor, _ in cases:
        assert "GPU" in tensor.op.device
    for (_, expected), got in zip(cases, run([t for t, _ in cases])):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_build_time_shape_errors_match_tensorflow():
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        tf.linalg.svd(tf.ones([3]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.lu(tf.ones([2, 3]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([4, 5]))


def test_run_time_errors_name_the_problem():
    unknown = tf.placeholder(tf.float64)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="same number of rows"):
            sess.run(tf.linalg.lstsq(unknown, unknown[:2], fast=False), {unknown: np.eye(3)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be square"):
            sess.run(tf.linalg.sqrtm(unknown), {unknown: np.ones((2, 3))})
        with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
            sess.run(tf.linalg.svd(unknown, compute_uv=False), {unknown: np.ones(3)})


def test_square_roots_near_and_on_the_negative_real_axis():
    """Off the axis the principal root is found; on it minitf's iteration refuses the matrix."""
    negative = np.array([[-1.0, 0.0], [0.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="no principal square root"):
        run(tf.linalg.sqrtm(negative))
    near = np.array([[-1.0 + 0.1j, 1.0], [0.0, 4.0]])
    np.testing.assert_allclose(run(tf.linalg.sqrtm(near)), matrix_function(near, np.sqrt),
                               atol=1e-12)


@pytest.mark.parametrize("label,build,value", [
    ("expm", tf.linalg.expm, RNG.uniform(-1, 1, (3, 3))),
    ("expm_squared", tf.linalg.expm, 4 * RNG.uniform(-1, 1, (3, 3))),  # through its while_loop
    ("pinv", tf.linalg.pinv, RNG.uniform(-1, 1, (4, 3))),
    ("lstsq", lambda a: tf.linalg.lstsq(a, tf.constant(TALL[:4, :2])), RNG.uniform(-1, 1, (4, 3))),
    ("tensordot", lambda a: tf.tensordot(a, tf.constant(B[0]), [[0], [0]]),
     RNG.uniform(-1, 1, (3, 2))),
    ("lu_solve", lambda a: tf.linalg.lu_solve(*tf.linalg.lu(tf.constant(A[0])), a),
     RNG.uniform(-1, 1, (3, 2))),
])
def test_the_composites_are_differentiable(label, build, value):
    x = tf.constant(value)
    y = build(x)
    with tf.Session():
        error = tf.test.compute_gradient_error([x], [value.shape], y, y.shape.as_list(),
                                               x_init_value=[value], delta=1e-5)
    assert error < 1e-6


@st.composite
def einsum_problems(draw):
    """Two operands over up to 5 labels with random sizes, and a random output of their labels."""
    sizes = draw(st.lists(st.integers(1, 3), min_size=5, max_size=5))
    labels = "abcde"
    first = "".join(draw(st.permutations(labels))[:draw(st.integers(1, 3))])
    second = "".join(draw(st.permutations(labels))[:draw(st.integers(1, 3))])
    used = sorted(set(first + second))
    output = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.RandomState(seed)
    operands = [rng.standard_normal([sizes[labels.index(c)] for c in subscripts])
                for subscripts in (first, second)]
    return "%s,%s->%s" % (first, second, output), operands


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(einsum_problems())
def test_einsum_and_its_gradient_on_random_equations(problem):
    equation, operands = problem
    xs = [tf.constant(x) for x in operands]
    y = tf.einsum(equation, *xs)
    expected = np.einsum(equation, *operands)
    assert y.shape.as_list() == list(expected.shape)
    with tf.Session():
        np.testing.assert_allclose(y.eval(), expected, rtol=1e-12, atol=1e-12)
        error = tf.test.compute_gradient_error(xs, [x.shape for x in operands], y,
                                               list(expected.shape), x_init_value=operands,
                                               delta=1e-5)
    assert error < 1e-6
