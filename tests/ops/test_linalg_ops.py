"""tf.linalg: values against NumPy, node names, shape checks and run-time errors.

Node names and build-time errors were read off a reference TensorFlow
(`tf.compat.v1`, graph mode) building the same expressions; the matrix
diagonal ops are TF 1.15's (MatrixDiag, MatrixDiagPart, MatrixSetDiag).
"""

import numpy as np
import pytest

import minitf as tf

RNG = np.random.RandomState(3)
A = RNG.standard_normal((2, 3, 3))
SPD = A @ np.swapaxes(A, -1, -2) + 3 * np.eye(3)  # symmetric positive definite
B = RNG.standard_normal((2, 3, 2))


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def test_determinants_inverse_and_cholesky_match_numpy():
    a, spd = tf.constant(A), tf.constant(SPD)
    det, (sign, log_abs), inv, chol, logdet, inv_adjoint = run([
        tf.linalg.det(a), tf.linalg.slogdet(a), tf.linalg.inv(a), tf.linalg.cholesky(spd),
        tf.linalg.logdet(spd), tf.linalg.inv(a, adjoint=True)])
    np.testing.assert_allclose(det, np.linalg.det(A), rtol=1e-12)
    np.testing.assert_allclose(sign * np.exp(log_abs), np.linalg.det(A), rtol=1e-12)
    np.testing.assert_allclose(inv, np.linalg.inv(A), rtol=1e-10)
    np.testing.assert_allclose(inv_adjoint, np.linalg.inv(np.swapaxes(A, -1, -2)), rtol=1e-10)
    np.testing.assert_allclose(chol, np.linalg.cholesky(SPD), rtol=1e-12)
    np.testing.assert_allclose(logdet, np.log(np.linalg.det(SPD)), rtol=1e-12)
    assert tf.linalg.det(a).shape.as_list() == [2] and tf.matrix_determinant is tf.linalg.det


def test_cholesky_reads_only_the_lower_triangle():
    upper_garbage = np.triu(np.full((3, 3), 100.0), 1) + np.tril(SPD[0])
    np.testing.assert_allclose(run(tf.cholesky(upper_garbage)), np.linalg.cholesky(SPD[0]),
                               rtol=1e-12)


def test_solvers_match_numpy():
    a, spd, b = tf.constant(A), tf.constant(SPD), tf.constant(B)
    lower = np.tril(A)
    solve, solve_adjoint, triangular, upper, chol_solve = run([
        tf.linalg.solve(a, b), tf.linalg.solve(a, b, adjoint=True),
        tf.linalg.triangular_solve(a, b), tf.linalg.triangular_solve(a, b, lower=False,
                                                                     adjoint=True),
        tf.linalg.cholesky_solve(tf.linalg.cholesky(spd), b)])
    np.testing.assert_allclose(solve, np.linalg.solve(A, B), rtol=1e-10)
    np.testing.assert_allclose(solve_adjoint, np.linalg.solve(np.swapaxes(A, 1, 2), B),
                               rtol=1e-10)
    np.testing.assert_allclose(triangular, np.linalg.solve(lower, B), rtol=1e-10)
    np.testing.assert_allclose(upper, np.linalg.solve(np.swapaxes(np.triu(A), 1, 2), B),
                               rtol=1e-10)
    np.testing.assert_allclose(chol_solve, np.linalg.solve(SPD, B), rtol=1e-10)


def test_bands_diagonals_and_trace():
    m = np.arange(12.0).reshape(3, 4)
    band, lower, diag, diag_part, set_diag, trace = run([
        tf.linalg.band_part(m, 1, 0), tf.linalg.band_part(m, -1, 0), tf.linalg.diag([[1, 2],
                                                                                     [3, 4]]),
        tf.linalg.diag_part(m), tf.linalg.set_diag(m, [-1.0, -2.0, -3.0]), tf.linalg.trace(A)])
    np.testing.assert_array_equal(band, np.tril(np.triu(m, -1)))
    np.testing.assert_array_equal(lower, np.tril(m))
    np.testing.assert_array_equal(diag, [[[1, 0], [0, 2]], [[3, 0], [0, 4]]])
    np.testing.assert_array_equal(diag_part, [0, 5, 10])
    expected = m.copy()
    expected[[0, 1, 2], [0, 1, 2]] = [-1, -2, -3]
    np.testing.assert_array_equal(set_diag, expected)
    np.testing.assert_allclose(trace, np.trace(A, axis1=1, axis2=2))
    assert tf.linalg.diag_part(tf.ones([5, 2, 3])).shape.as_list() == [5, 2]


def test_transposes_adjoints_matvec_and_eye():
    z = np.array([[1 + 2j, 3], [4j, 5 - 1j]], np.complex64)
    transposed, adjoint, matvec, eye, wide = run([
        tf.linalg.matrix_transpose(tf.constant(A)), tf.linalg.adjoint(tf.constant(z)),
        tf.linalg.matvec(tf.constant(A), tf.constant(B[..., 0])), tf.eye(2, batch_shape=[3]),
        tf.eye(2, 3, dtype=tf.int32)])
    np.testing.assert_array_equal(transposed, np.swapaxes(A, 1, 2))
    np.testing.assert_array_equal(adjoint, z.conj().T)
    np.testing.assert_allclose(matvec, np.einsum("bij,bj->bi", A, B[..., 0]))
    np.testing.assert_array_equal(eye, np.broadcast_to(np.eye(2), [3, 2, 2]))
    np.testing.assert_array_equal(wide, np.eye(2, 3))
    assert tf.linalg.transpose is tf.linalg.matrix_transpose
    with pytest.raises(ValueError, match="should be a \\(batch\\) matrix"):
        tf.linalg.matrix_transpose(tf.ones([2]))


def test_composites_have_tensorflows_node_names():
    a = tf.constant(SPD[0])
    names = [tf.linalg.trace(a).name, tf.linalg.logdet(a).name, tf.eye(2).name,
             tf.eye(2, 3).name, tf.linalg.cholesky_solve(a, a).name,
             tf.linalg.matvec(a, tf.ones([3], tf.float64)).name, tf.linalg.adjoint(a).name,
             tf.linalg.matrix_transpose(a).name, tf.linalg.det(a).name,
             tf.linalg.slogdet(a)[1].name, tf.linalg.band_part(a, 0, 1).name,
             tf.linalg.diag([1.0, 2.0]).name, tf.linalg.diag_part(a).name]
    assert names == ["Trace:0", "logdet/mul:0", "eye/diag:0", "eye_1/set_diag:0",
                     "cholesky_solve/MatrixTriangularSolve_1:0", "MatVec/Squeeze:0",
                     "adjoint/matrix_transpose/transpose:0", "matrix_transpose/transpose:0",
                     "MatrixDeterminant:0", "LogMatrixDeterminant:1", "MatrixBandPart:0",
                     "diag:0", "diag_part:0"]


def test_shapes_are_checked_when_the_op_is_built():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.det(tf.ones([2, 3]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.solve(tf.ones([2, 2]), tf.ones([3, 1]))
    with pytest.raises(ValueError, match="Shape must be at least rank 2"):
        tf.linalg.inv(tf.ones([2]))
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.linalg.det(tf.ones([2, 2], tf.int32))
    with pytest.raises(NotImplementedError, match="main diagonals only"):
        tf.linalg.diag([1.0], k=1)


@pytest.mark.parametrize("build, message", [
    (lambda m: tf.linalg.inv(m), "Input is not invertible"),
    (lambda m: tf.linalg.solve(m, tf.ones([2, 1])), "Input matrix is not invertible"),
    (lambda m: tf.linalg.triangular_solve(m, tf.ones([2, 1])), "Input matrix is not invertible"),
    (lambda m: tf.cholesky(m - 1.0), "Cholesky decomposition was not successful"),
    (lambda m: tf.linalg.band_part(m, 3, 0), "num_lower must be negative or less or equal"),
    (lambda m: tf.linalg.det(m[0]), "must have rank >= 2"),
])
def test_bad_matrices_fail_at_run_time(build, message):
    # A singular matrix or one that is not positive definite (as TF 1.15 reports it).
    m = tf.placeholder(tf.float32, None)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(build(m), {m: np.zeros([2, 2], np.float32)})


def test_complex_matrices():
    z = (A[0] + 1j * A[1]).astype(np.complex128)
    det, inv, solve = run([tf.linalg.det(z), tf.linalg.inv(z), tf.linalg.solve(z, z)])
    np.testing.assert_allclose(det, np.linalg.det(z), rtol=1e-12)
    np.testing.assert_allclose(inv, np.linalg.inv(z), rtol=1e-10)
    np.testing.assert_allclose(solve, np.eye(3), atol=1e-12)


def test_eigh_and_eigvalsh_read_the_lower_triangle():
    lower_only = np.tril(SPD) + np.triu(np.full((3, 3), 50.0), 1)
    (e, v), values = run([tf.linalg.eigh(tf.constant(lower_only)), tf.linalg.eigvalsh(SPD)])
    np.testing.assert_allclose(e, np.linalg.eigvalsh(SPD), rtol=1e-12)
    np.testing.assert_allclose(v @ (e[..., None] * np.swapaxes(v, -1, -2)), SPD, atol=1e-10)
    np.testing.assert_allclose(values, e, rtol=1e-12)
    assert tf.self_adjoint_eig is tf.linalg.eigh and tf.self_adjoint_eigvals is tf.linalg.eigvalsh
    e_op = tf.linalg.eigvalsh(tf.ones([2, 4, 4]))
    assert e_op.shape.as_list() == [2, 4] and e_op.op.outputs[1].shape.as_list() == [0]


def test_cross_products():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    np.testing.assert_allclose(run(tf.cross(a, b)), np.cross(a, b), rtol=1e-12)
    assert run(tf.linalg.cross([1, 0, 0], [0, 1, 0])).tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.cross(tf.ones([2]), tf.ones([2]))


def test_norms_match_numpy():
    m = A[0]
    results = run([tf.norm(m), tf.norm(m, ord=1, axis=[0, 1]), tf.norm(m, ord=np.inf, axis=(0, 1)),
                   tf.norm(m, ord="fro", axis=[-2, -1]), tf.norm(m, ord=3, axis=1),
                   tf.norm(m, ord=1, axis=0), tf.norm(m, ord=np.inf),
                   tf.linalg.norm(m, axis=1, keepdims=True)])
    expected = [np.linalg.norm(m), np.linalg.norm(m, 1), np.linalg.norm(m, np.inf),
                np.linalg.norm(m, "fro"), np.linalg.norm(m, 3, axis=1),
                np.linalg.norm(m, 1, axis=0), np.max(np.abs(m)),
                np.linalg.norm(m, axis=1, keepdims=True)]
    for result, want in zip(results, expected):
        np.testing.assert_allclose(result, want, rtol=1e-12)
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm"):
        tf.norm(m, ord=-1)
    with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple"):
        tf.norm(m, axis=[0, 0])
    with pytest.raises(NotImplementedError, match="matrix 2-norm"):
        tf.norm(m, ord=2, axis=[0, 1])


def test_qr_and_normalize():
    tall = RNG.standard_normal((2, 4, 3))
    (q, r), (full_q, full_r) = run([tf.linalg.qr(tall), tf.qr(tall, full_matrices=True)])
    assert q.shape == (2, 4, 3) and r.shape == (2, 3, 3)
    assert full_q.shape == (2, 4, 4) and full_r.shape == (2, 4, 3)
    for q_, r_ in ((q, r), (full_q, full_r)):
        np.testing.assert_allclose(q_ @ r_, tall, atol=1e-12)
        np.testing.assert_allclose(np.swapaxes(q_, 1, 2) @ q_, np.broadcast_to(
            np.eye(q_.shape[-1]), (2,) + (q_.shape[-1],) * 2), atol=1e-12)
        np.testing.assert_array_equal(np.tril(r_, -1), 0)
    assert tf.linalg.qr(tf.ones([5, 2, 7]))[1].shape.as_list() == [5, 2, 7]
    normalized, norm = run(tf.linalg.normalize(tall[0], axis=1))
    np.testing.assert_allclose(norm, np.linalg.norm(tall[0], axis=1, keepdims=True))
    np.testing.assert_allclose(normalized, tall[0] / norm)
