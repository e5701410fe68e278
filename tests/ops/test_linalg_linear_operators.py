"""tf.linalg.LinearOperator*: every operator against its dense matrix in NumPy.

Each case builds an operator and the NumPy matrix it stands for; the
shared checks compare to_dense, matmul (plain, adjoint, adjoint_arg),
matvec, solve, solvevec, determinant, log_abs_determinant, trace,
diag_part and the adjoint and inverse operators with NumPy. Node names
and hints were read off a reference TensorFlow (`tf.compat.v1`, graph
mode).
"""

import numpy as np
import pytest

import minitf as tf

RNG = np.random.RandomState(11)


def run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def well_conditioned(*shape):
    return RNG.standard_normal(shape) + 4 * np.eye(shape[-1])


def spd(n):
    a = RNG.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def kron(a, b):
    return np.einsum("...ij,...kl->...ikjl", a, b).reshape(
        a.shape[:-2] + (a.shape[-2] * b.shape[-2], a.shape[-1] * b.shape[-1]))


def toeplitz(col, row):
    n = len(col)
    return np.array([[col[i - j] if i >= j else row[j - i] for j in range(n)]
                     for i in range(n)])


def circulant(column):
    """The circulant matrix whose first column is `column`: C[i, j] = column[i - j mod N]."""
    n = len(column)
    return np.array([[column[(i - j) % n] for j in range(n)] for i in range(n)])


def block_circulant(block):
    """Circulant blocks arranged circulantly: the 2-D analogue, indices mod the block shape."""
    n0, n1 = block.shape
    return np.array([[block[(i0 - j0) % n0, (i1 - j1) % n1]
                      for j0 in range(n0) for j1 in range(n1)]
                     for i0 in range(n0) for i1 in range(n1)])


def cases():
    """(label, build operator, NumPy matrix), built fresh in each test's graph."""
    full = well_conditioned(2, 3, 3)
    diag = RNG.uniform(1, 2, (2, 3)) * RNG.choice([-1, 1], (2, 3))
    tril = np.tril(well_conditioned(3, 3))
    positive = spd(3)
    multiplier = np.array([2.0, -3.0])
    axis = RNG.standard_normal(3)
    householder = np.eye(3) - 2 * np.outer(axis, axis) / axis.dot(axis)
    perm = np.array([[1, 2, 0], [2, 0, 1]])
    col, row = np.array([4.0, 1.0, -0.5]), np.array([4.0, 0.7, 0.2])
    tri = np.stack([RNG.standard_normal(4), RNG.standard_normal(4) + 4, RNG.standard_normal(4)])
    tri_dense = np.diag(tri[1]) + np.diag(tri[0, :-1], 1) + np.diag(tri[2, 1:], -1)
    a, b = well_conditioned(2, 2), well_conditioned(3, 3)
    u, low_rank_diag = RNG.standard_normal((3, 2)), np.array([0.5, 2.0])
    c = well_conditioned(3, 3)
    lower = RNG.standard_normal((3, 2))
    column = np.array([4.0, 1.0, -0.5, 0.3])
    block = np.array([[5.0, 1.0, 0.2], [0.5, -0.3, 0.1]])
    linop = tf.linalg
    return [
        ("full", lambda: linop.LinearOperatorFullMatrix(full), full),
        ("full_spd", lambda: linop.LinearOperatorFullMatrix(
            positive, is_self_adjoint=True, is_positive_definite=True), positive),
        ("diag", lambda: linop.LinearOperatorDiag(diag),
         np.apply_along_axis(np.diag, -1, diag)),
        ("lower_triangular", lambda: linop.LinearOperatorLowerTriangular(
            tril + np.triu(np.ones((3, 3)), 1)), tril),
        ("identity", lambda: linop.LinearOperatorIdentity(3, dtype=tf.float64), np.eye(3)),
        ("identity_batch", lambda: linop.LinearOperatorIdentity(
            3, batch_shape=[2], dtype=tf.float64), np.stack([np.eye(3)] * 2)),
        ("scaled_identity", lambda: linop.LinearOperatorScaledIdentity(3, multiplier),
         multiplier[:, None, None] * np.eye(3)),
        ("householder", lambda: linop.LinearOperatorHouseholder(axis), householder),
        ("permutation", lambda: linop.LinearOperatorPermutation(perm, dtype=tf.float64),
         np.stack([np.eye(3)[p] for p in perm])),
        ("toeplitz", lambda: linop.LinearOperatorToeplitz(col, row), toeplitz(col, row)),
        ("tridiag", lambda: linop.LinearOperatorTridiag(tri), tri_dense),
        ("circulant", lambda: linop.LinearOperatorCirculant(
            np.fft.fft(column), input_output_dtype=tf.float64), circulant(column)),
        ("circulant_2d", lambda: linop.LinearOperatorCirculant2D(
            np.fft.fft2(block), input_output_dtype=tf.float64), block_circulant(block)),
        ("adjoint", lambda: linop.LinearOperatorFullMatrix(full).adjoint(),
         np.swapaxes(full, -1, -2)),
        ("inversion", lambda: linop.LinearOperatorInversion(
            linop.LinearOperatorFullMatrix(full)), np.linalg.inv(full)),
        ("composition", lambda: linop.LinearOperatorComposition([
            linop.LinearOperatorFullMatrix(full), linop.LinearOperatorDiag(diag)]),
         full * diag[:, None, :]),
        ("block_diag", lambda: linop.LinearOperatorBlockDiag([
            linop.LinearOperatorFullMatrix(a), linop.LinearOperatorFullMatrix(b)]),
         np.block([[a, np.zeros((2, 3))], [np.zeros((3, 2)), b]])),
        ("block_lower_triangular", lambda: linop.LinearOperatorBlockLowerTriangular([
            [linop.LinearOperatorFullMatrix(a)],
            [linop.LinearOperatorFullMatrix(lower), linop.LinearOperatorFullMatrix(b)]]),
         np.block([[a, np.zeros((2, 3))], [lower, b]])),
        ("kronecker", lambda: linop.LinearOperatorKronecker([
            linop.LinearOperatorFullMatrix(a), linop.LinearOperatorFullMatrix(c)]), kron(a, c)),
        ("low_rank_update", lambda: linop.LinearOperatorLowRankUpdate(
            linop.LinearOperatorFullMatrix(b), u, diag_update=low_rank_diag),
         b + u @ np.diag(low_rank_diag) @ u.T),
        ("low_rank_update_uv", lambda: linop.LinearOperatorLowRankUpdate(
            linop.LinearOperatorDiag(np.array([2.0, 3.0, 4.0])), u, v=lower),
         np.diag([2.0, 3.0, 4.0]) + u @ lower.T),
    ]


CASES = cases()


@pytest.mark.parametrize("label,build,dense", CASES, ids=[case[0] for case in CASES])
def test_operator_matches_its_dense_matrix(label, build, dense):
    operator = build()
    assert operator.shape.as_list() == list(dense.shape)
    assert operator.batch_shape.as_list() == list(dense.shape[:-2])
    assert operator.domain_dimension.value == dense.shape[-1]
    assert operator.range_dimension.value == dense.shape[-2]
    assert operator.tensor_rank == dense.ndim and operator.is_square
    n = dense.shape[-1]
    x = RNG.standard_normal(dense.shape[:-2] + (n, 2))
    vec = RNG.standard_normal(dense.shape[:-2] + (n,))
    adjoint = np.swapaxes(dense, -1, -2)
    got = run({
        "dense": operator.to_dense(), "matmul": operator.matmul(x),
        "matmul_adjoint": operator.matmul(x, adjoint=True),
        "matmul_adjoint_arg": operator.matmul(np.swapaxes(x, -1, -2), adjoint_arg=True),
        "matvec": operator.matvec(vec), "solve": operator.solve(x),
        "solve_adjoint": operator.solve(x, adjoint=True),
        "solve_adjoint_arg": operator.solve(np.swapaxes(x, -1, -2), adjoint_arg=True),
        "solvevec": operator.solvevec(vec), "det": operator.determinant(),
        "log_abs_det": operator.log_abs_determinant(), "trace": operator.trace(),
        "diag_part": operator.diag_part(), "adjoint_dense": operator.adjoint().to_dense(),
        "inverse_dense": operator.inverse().to_dense(),
        "shape": operator.shape_tensor(), "add": operator.add_to_tensor(np.ones(dense.shape))})
    check = {"dense": dense, "matmul": dense @ x, "matmul_adjoint": adjoint @ x,
             "matmul_adjoint_arg": dense @ x, "matvec": (dense @ vec[..., None])[..., 0],
             "solve": np.linalg.solve(dense, x), "solve_adjoint": np.linalg.solve(adjoint, x),
             "solve_adjoint_arg": np.linalg.solve(dense, x),
             "solvevec": np.linalg.solve(dense, vec[..., None])[..., 0],
             "det": np.linalg.det(dense), "log_abs_det": np.linalg.slogdet(dense)[1],
             "trace": np.trace(dense, axis1=-2, axis2=-1),
             "diag_part": np.diagonal(dense, axis1=-2, axis2=-1), "adjoint_dense": adjoint,
             "inverse_dense": np.linalg.inv(dense), "shape": list(dense.shape),
             "add": dense + 1}
    for key, expected in check.items():
        np.testing.assert_allclose(got[key], expected, rtol=1e-9, atol=1e-12, err_msg=key)


def test_zeros_is_singular_and_may_be_wide():
    zeros = tf.linalg.LinearOperatorZeros(2, 3, batch_shape=[4], dtype=tf.float64,
                                          is_square=False)
    assert zeros.shape.as_list() == [4, 2, 3] and zeros.is_square is False
    assert zeros.is_non_singular is False
    product, dense, det = run([zeros.matmul(np.ones((3, 5))), zeros.to_dense(),
                               tf.linalg.LinearOperatorZeros(2).determinant()])
    assert product.shape == (4, 2, 5) and not product.any() and dense.shape == (4, 2, 3)
    assert det == 0
    with pytest.raises(NotImplementedError, match="expected to be singular"):
        zeros.solve(np.ones((2, 1)))
    with pytest.raises(ValueError, match="non square"):
        zeros.inverse()
    with pytest.raises(ValueError, match="num_rows\\(2\\) != num_columns\\(3\\)"):
        tf.linalg.LinearOperatorZeros(2, 3, is_square=True)


def test_hints_are_implied_and_contradictions_refused():
    assert tf.linalg.LinearOperatorDiag([1.0, 2.0]).is_self_adjoint is True
    assert tf.linalg.LinearOperatorDiag([1.0j, 2.0]).is_self_adjoint is None
    householder = tf.linalg.LinearOperatorHouseholder([1.0, 2.0])
    assert (householder.is_self_adjoint, householder.is_positive_definite) == (True, False)
    identity = tf.linalg.LinearOperatorIdentity(2)
    assert (identity.is_non_singular, identity.is_positive_definite) == (True, True)
    full = tf.linalg.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True)
    assert full.is_non_singular and full.is_square
    with pytest.raises(ValueError, match="A real diagonal operator is always self adjoint"):
        tf.linalg.LinearOperatorDiag([1.0, 2.0], is_self_adjoint=False)
    with pytest.raises(ValueError, match="always non-positive definite"):
        tf.linalg.LinearOperatorHouseholder([1.0, 2.0], is_positive_definite=True)
    with pytest.raises(ValueError, match="non-singular if it is positive definite"):
        tf.linalg.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True,
                                           is_non_singular=False)
    with pytest.raises(ValueError, match="identity operator is always non-singular"):
        tf.linalg.LinearOperatorIdentity(2, is_non_singular=False)
    with pytest.raises(ValueError, match="conflicts"):
        _ = tf.linalg.LinearOperatorFullMatrix(np.ones((2, 3)), is_square=True).is_square


def test_node_names_follow_tensorflow():
    matrix = tf.constant(well_conditioned(3, 3))
    x = tf.constant(RNG.standard_normal((3, 2)))
    operator = tf.linalg.LinearOperatorFullMatrix(matrix)
    assert operator.matmul(x).name == "LinearOperatorFullMatrix/matmul/MatMul:0"
    assert operator.solve(x).name == (
        "LinearOperatorFullMatrix/solve/MatrixSolveWithBroadcast/MatrixSolve:0")
    assert operator.determinant().name == "LinearOperatorFullMatrix/det/MatrixDeterminant:0"
    assert operator.log_abs_determinant().name == (
        "LinearOperatorFullMatrix/log_abs_det/LogMatrixDeterminant:1")
    assert operator.to_dense() is matrix
    assert operator.trace().name == "LinearOperatorFullMatrix/trace/Sum:0"
    diag = tf.linalg.LinearOperatorDiag(tf.constant([1.0, 2.0, 3.0], tf.float64))
    assert diag.matmul(x).name == "LinearOperatorDiag/matmul/mul:0"
    assert diag.determinant().name == "LinearOperatorDiag/det/Prod:0"
    assert diag.to_dense().name == "LinearOperatorDiag/to_dense/diag:0"
    inverse = operator.inverse()
    assert (type(inverse).__name__, inverse.name) == ("LinearOperatorInversion",
                                                      "LinearOperatorFullMatrix_inv")
    assert inverse.matmul(x).name == (
        "LinearOperatorFullMatrix_inv/matmul/LinearOperatorFullMatrix/solve/"
        "MatrixSolveWithBroadcast/MatrixSolve:0")
    composition = tf.linalg.LinearOperatorComposition([operator, diag])
    assert composition.name == "LinearOperatorFullMatrix_o_LinearOperatorDiag"
    assert tf.linalg.LinearOperatorIdentity(3, dtype=tf.float64).matmul(x) is x
    assert diag.adjoint() is diag and type(operator.H).__name__ == "LinearOperatorAdjoint"
    assert operator.adjoint().name == "LinearOperatorFullMatrix_adjoint"


def test_operators_combine_through_matmul_and_solve():
    a, b = well_conditioned(3, 3), well_conditioned(3, 3)
    op_a, op_b = tf.linalg.LinearOperatorFullMatrix(a), tf.linalg.LinearOperatorFullMatrix(b)
    product = op_a @ op_b
    quotient = op_a.solve(op_b)
    assert isinstance(product, tf.linalg.LinearOperatorComposition)
    product_dense, quotient_dense = run([product.to_dense(), quotient.to_dense()])
    np.testing.assert_allclose(product_dense, a @ b, rtol=1e-12)
    np.testing.assert_allclose(quotient_dense, np.linalg.solve(a, b), rtol=1e-10)


def test_cholesky_eigvals_and_cond_of_a_positive_definite_operator():
    matrix = spd(3)
    operator = tf.linalg.LinearOperatorFullMatrix(matrix, is_self_adjoint=True,
                                                  is_positive_definite=True)
    factor = operator.cholesky()
    assert isinstance(factor, tf.linalg.LinearOperatorLowerTriangular)
    dense, eigvals, cond = run([factor.to_dense(), operator.eigvals(), operator.cond()])
    np.testing.assert_allclose(dense, np.linalg.cholesky(matrix), rtol=1e-12)
    np.testing.assert_allclose(eigvals, np.linalg.eigvalsh(matrix), rtol=1e-12)
    np.testing.assert_allclose(cond, np.linalg.cond(matrix), rtol=1e-10)
    with pytest.raises(ValueError, match="Not a positive definite self adjoint matrix"):
        tf.linalg.LinearOperatorFullMatrix(matrix).cholesky()
    with pytest.raises(NotImplementedError, match="Only self-adjoint"):
        tf.linalg.LinearOperatorFullMatrix(matrix).eigvals()


def test_complex_diagonal_adjoint_is_the_conjugate():
    diag = np.array([1 + 2j, 3 - 1j])
    operator = tf.linalg.LinearOperatorDiag(diag)
    x = np.array([[1.0 + 0j], [2.0 + 0j]])
    adjoint, log_abs_det = run([operator.matmul(x, adjoint=True),
                                operator.log_abs_determinant()])
    np.testing.assert_allclose(adjoint, np.conj(diag)[:, None] * x)
    np.testing.assert_allclose(log_abs_det, np.log(np.abs(np.prod(diag))))


def test_arguments_are_checked():
    operator = tf.linalg.LinearOperatorFullMatrix(well_conditioned(3, 3))
    with pytest.raises(TypeError, match="Expected argument to have dtype"):
        operator.matmul(np.ones((3, 1), np.float32))
    with pytest.raises(ValueError):
        operator.matmul(np.ones((2, 1)))
    with pytest.raises(TypeError, match="must have dtype in"):
        tf.linalg.LinearOperatorFullMatrix(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="must contain `2` blocks"):
        tf.linalg.LinearOperatorBlockLowerTriangular([[operator], [operator]])
    with pytest.raises(TypeError, match="same dtype"):
        tf.linalg.LinearOperatorComposition([operator, tf.linalg.LinearOperatorIdentity(3)])


def test_the_assertions_check_the_hints_at_run_time():
    singular = tf.linalg.LinearOperatorFullMatrix(np.ones((2, 2)))
    asymmetric = tf.linalg.LinearOperatorFullMatrix(np.array([[2.0, 1.0], [0.0, 2.0]]),
                                                    is_self_adjoint=True)
    good = tf.linalg.LinearOperatorFullMatrix(spd(2), is_self_adjoint=True)
    run([good.assert_non_singular(), good.assert_positive_definite(),
         good.assert_self_adjoint()])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Singular matrix"):
        run(singular.assert_non_singular())
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to its adjoint"):
        run(asymmetric.assert_self_adjoint())


def test_shapes_known_only_at_run_time():
    matrix = well_conditioned(2, 3, 3)
    operator = tf.linalg.LinearOperatorFullMatrix(tf.placeholder_with_default(matrix, None))
    assert operator.shape.ndims is None and operator.is_square is None
    composition = tf.linalg.LinearOperatorComposition([operator, operator])
    shape, batch, dense = run([operator.shape_tensor(), operator.batch_shape_tensor(),
                               composition.to_dense()])
    assert shape.tolist() == [2, 3, 3] and batch.tolist() == [2]
    np.testing.assert_allclose(dense, matrix @ matrix, rtol=1e-12)


def test_circulant_operators_match_tensorflow():
    """TF's values for the spectrum of [1, 2, 3, 4], and the shapes of the 2-D and 3-D kinds."""
    operator = tf.linalg.LinearOperatorCirculant(np.fft.fft([1.0, 2.0, 3.0, 4.0]),
                                                 input_output_dtype=tf.float64)
    assert operator.shape.as_list() == [4, 4] and operator.block_shape.as_list() == [4]
    dense, kernel, det, trace, diag = run([
        operator.to_dense(), operator.convolution_kernel(), operator.determinant(),
        operator.trace(), operator.diag_part()])
    np.testing.assert_allclose(dense, [[1, 4, 3, 2], [2, 1, 4, 3], [3, 2, 1, 4], [4, 3, 2, 1]],
                               atol=1e-12)
    np.testing.assert_allclose(kernel, [1, 2, 3, 4], atol=1e-12)
    np.testing.assert_allclose([det, trace], [-160.0, 4.0], atol=1e-9)
    np.testing.assert_allclose(diag, [1, 1, 1, 1], atol=1e-12)
    complex_operator = tf.linalg.LinearOperatorCirculant2D(np.fft.fft2(
        np.arange(6.0).reshape(2, 3)))
    assert complex_operator.dtype == tf.complex64 and complex_operator.shape.as_list() == [6, 6]
    spectrum3 = np.fft.fftn(RNG.standard_normal((2, 2, 3, 2)), axes=(-3, -2, -1))
    operator3 = tf.linalg.LinearOperatorCirculant3D(spectrum3, input_output_dtype=tf.float64)
    assert operator3.shape.as_list() == [2, 12, 12] and operator3.block_depth == 3
    eigvals = np.sort(np.linalg.eigvals(run(operator3.to_dense())), axis=-1)
    np.testing.assert_allclose(eigvals, np.sort(spectrum3.reshape(2, 12), axis=-1), atol=1e-9)


def test_conjugate_gradient_solves_with_matvec_alone():
    matrices = np.stack([spd(4), spd(4)])
    rhs = RNG.standard_normal((2, 4))
    operator = tf.linalg.LinearOperatorFullMatrix(matrices, is_self_adjoint=True,
                                                  is_positive_definite=True)
    state = tf.linalg.experimental.conjugate_gradient(operator, rhs, tol=1e-12)
    preconditioned = tf.linalg.experimental.conjugate_gradient(
        operator, rhs, preconditioner=tf.linalg.LinearOperatorDiag(
            1.0 / np.diagonal(matrices, axis1=-2, axis2=-1)), tol=1e-12, max_iter=10)
    from_guess = tf.linalg.experimental.conjugate_gradient(operator, rhs, x=rhs, max_iter=1)
    got = run({"state": state, "preconditioned": preconditioned.x, "one_step": from_guess.i})
    expected = np.linalg.solve(matrices, rhs[..., None])[..., 0]
    np.testing.assert_allclose(got["state"].x, expected, rtol=1e-8)
    assert got["state"].i <= 5  # N steps suffice, up to rounding
    np.testing.assert_allclose(got["preconditioned"], expected, rtol=1e-8)
    assert got["one_step"] == 1
    with pytest.raises(ValueError, match="self-adjoint, positive definite"):
        tf.linalg.experimental.conjugate_gradient(tf.linalg.LinearOperatorFullMatrix(matrices),
                                                  rhs)
