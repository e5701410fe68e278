"""Complex numbers: the dtypes, their TensorProtos, the ops, and TF's Mandelbrot tutorial.

Expected node names, dtypes, values and error messages were read off a
reference TensorFlow (`tf.compat.v1`, graph mode) building the same
expressions; values are also checked against NumPy.
"""

import numpy as np
import pytest

import minitf as tf

Z = np.array([1 + 2j, -3 - 4j, 0j], np.complex64)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


# =============================================================================
# TensorFlow's Mandelbrot tutorial
# =============================================================================

def test_the_mandelbrot_tutorial_runs_as_written():
    # TensorFlow's tutorial "Mandelbrot set" (tensorflow/docs, site/en/r1/tutorials/
    # non-ml/mandelbrot.ipynb), its computation step by step, on its own grid.
    sess = tf.InteractiveSession()
    Y, X = np.mgrid[-1.3:1.3:0.005, -2:1:0.005]
    Z = X + 1j * Y
    xs = tf.constant(Z.astype(np.complex64))
    zs = tf.Variable(xs)
    ns = tf.Variable(tf.zeros_like(xs, tf.float32))
    tf.global_variables_initializer().run()
    zs_ = zs * zs + xs
    not_diverged = tf.abs(zs_) < 4
    step = tf.group(
        zs.assign(zs_),
        ns.assign_add(tf.cast(not_diverged, tf.float32))
    )
    for i in range(200):
        step.run()
    counts = ns.eval()
    sess.close()

    c = Z.astype(np.complex64)
    z, expected = c.copy(), np.zeros(c.shape, np.float32)
    with np.errstate(all="ignore"):  # the diverged points overflow to inf and nan, as in TF
        for _ in range(200):
            z = z * z + c
            expected += np.abs(z) < 4
    np.testing.assert_array_equal(counts, expected)
    assert counts.shape == (520, 600) and counts.max() == 200 and counts.min() == 1
    assert zs.dtype == tf.complex64._as_ref and not_diverged.op.inputs[0].op.type == "ComplexAbs"


# =============================================================================
# The dtypes
# =============================================================================

@pytest.mark.parametrize("dtype, enum, numpy_type, real_dtype, size", [
    (tf.complex64, 8, np.complex64, tf.float32, 8),
    (tf.complex128, 18, np.complex128, tf.float64, 16),
])
def test_complex_dtypes(dtype, enum, numpy_type, real_dtype, size):
    assert tf.as_dtype(enum) is dtype and tf.as_dtype(numpy_type) is dtype
    assert tf.as_dtype(dtype.name) is dtype and dtype.as_numpy_dtype is numpy_type
    assert dtype.is_complex and not dtype.is_floating and not dtype.is_integer
    assert dtype.real_dtype is real_dtype and dtype.size == size
    assert dtype._as_ref.as_datatype_enum == enum + 100 and dtype._as_ref.real_dtype is real_dtype
    assert tf.float32.real_dtype is tf.float32 and not tf.float32.is_complex
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        dtype.min
    with pytest.raises(ValueError, match="does not have defined limits"):
        dtype.limits


def test_python_complex_numbers_make_complex128_constants():
    assert tf.constant([1, 1j]).dtype == tf.complex128
    assert tf.constant(np.complex64(1j)).dtype == tf.complex64
    # Numbers of any kind fit a complex dtype; a complex number does not fit a float one.
    assert run(tf.constant([1, 2.5, True], tf.complex64)).tolist() == [1, 2.5, 1]
    with pytest.raises(TypeError, match=r"Expected float32, got \(1\+2j\) of type 'complex'"):
        tf.constant(1 + 2j, tf.float32)
    with pytest.raises(TypeError, match="Cannot convert value"):
        tf.as_dtype(complex)


def test_tensor_protos_hold_complex_numbers_as_pairs_of_parts():
    proto = tf.make_tensor_proto(np.array([1 + 2j, 3j], np.complex64))
    assert proto.dtype == 8 and not proto.tensor_content
    assert list(proto.scomplex_val) == [1, 2, 0, 3]
    proto = tf.make_tensor_proto(np.complex128(1 + 2j), shape=[3])
    assert list(proto.dcomplex_val) == [1, 2]
    np.testing.assert_array_equal(tf.make_ndarray(proto), np.full(3, 1 + 2j))
    assert tf.make_ndarray(proto).dtype == np.complex128
    # TensorFlow itself writes complex tensors as raw bytes from C++: readable too.
    content = tf.make_tensor_proto(np.zeros(2, np.complex64))
    content.ClearField("scomplex_val")
    content.tensor_content = Z[:2].tobytes()
    np.testing.assert_array_equal(tf.make_ndarray(content), Z[:2])
    odd = tf.make_tensor_proto(np.complex64(1j), shape=[2])
    odd.scomplex_val.append(5.0)
    with pytest.raises(ValueError, match="odd number"):
        tf.make_ndarray(odd)


def test_a_complex_constant_survives_the_graph_def():
    c = tf.constant(Z, name="z")
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        (imported,) = tf.import_graph_def(graph_def, return_elements=["z:0"], name="")
        np.testing.assert_array_equal(run(imported), Z)
    assert c.dtype == tf.complex64


# =============================================================================
# Making and taking apart complex numbers
# =============================================================================

def test_complex_builds_from_parts_converted_outside_its_scope():
    z = tf.complex([1.0, -2.0], [0.5, 3.0], name="z")
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()] == [
        ("real", "Const"), ("imag", "Const"), ("z", "Complex")]
    assert z.dtype == tf.complex64 and z.shape.as_list() == [2]
    np.testing.assert_array_equal(run(z), [1 + 0.5j, -2 + 3j])
    wide = tf.complex(tf.constant([[1.0], [2.0]], tf.float64), tf.constant([3.0, 4.0], tf.float64))
    assert wide.dtype == tf.complex128 and wide.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(run(wide), [[1 + 3j, 1 + 4j], [2 + 3j, 2 + 4j]])


def test_complex_keeps_infinite_parts():
    z = run(tf.complex([np.inf, 1.0], [0.0, -np.inf]))
    assert z[0].real == np.inf and z[0].imag == 0
    assert z[1].real == 1 and z[1].imag == -np.inf


@pytest.mark.parametrize("real, imag", [
    (tf.constant(1.0), tf.constant(1.0, tf.float64)),
    (1, 2),
    (tf.constant(1.0, tf.float16), tf.constant(1.0, tf.float16)),
])
def test_complex_wants_two_float32_or_two_float64_parts(real, imag):
    with pytest.raises(TypeError, match="real and imag have incorrect types"):
        tf.complex(real, imag)


def test_complex_of_parts_that_cannot_broadcast_fails_at_run_time():
    real = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        run(tf.complex(real, [1.0, 2.0, 3.0]), {real: [1.0, 2.0]})
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.complex([1.0, 2.0], [1.0, 2.0, 3.0])


def test_parts_angle_magnitude_and_conjugate():
    c = tf.constant(Z)
    parts = [tf.real(c), tf.imag(c), tf.angle(c), tf.abs(c), tf.conj(c)]
    assert [t.op.type for t in parts] == ["Real", "Imag", "Angle", "ComplexAbs", "Conj"]
    assert [t.dtype for t in parts] == [tf.float32] * 4 + [tf.complex64]
    real, imag, angle, magnitude, conjugate = run(parts)
    np.testing.assert_array_equal(real, [1, -3, 0])
    np.testing.assert_array_equal(imag, [2, -4, 0])
    np.testing.assert_allclose(angle, np.angle(Z), rtol=1e-6)
    np.testing.assert_allclose(magnitude, [np.sqrt(5), 5, 0], rtol=1e-6)
    np.testing.assert_array_equal(conjugate, np.conj(Z))
    assert tf.abs(c).name == "Abs_1:0"  # under tf.abs's scope, as TF names it
    assert tf.math.real(tf.constant(Z.astype(np.complex128))).dtype == tf.float64


def test_real_tensors_pass_through_as_tf_builds_them():
    x = tf.constant([1.0, -2.0])
    assert tf.real(x) is x and tf.conj(x) is x
    imag, angle = tf.imag(x), tf.angle(x)
    assert imag.name == "Imag/zeros_like:0" and angle.op.type == "Select"
    np.testing.assert_allclose(run([imag, angle]), [[0, 0], [0, np.pi]])
    assert tf.conj(1.0).name == "Conj/x:0"
    with pytest.raises(TypeError, match="Expected numeric or variant tensor, got dtype tf.string"):
        tf.conj(tf.constant("a"))


# =============================================================================
# Arithmetic and the rest
# =============================================================================

def test_elementwise_arithmetic_matches_numpy():
    c = tf.constant(Z)
    d = tf.constant(np.array([2 - 1j, 0.5j, 1 + 1j], np.complex64))
    results = run([c + d, c - d, c * d, c / d, -c, tf.square(c), tf.exp(c), tf.sqrt(c),
                   tf.log(d), tf.sin(c), tf.cos(c), tf.tanh(c), tf.sigmoid(c),
                   tf.reciprocal(d), tf.pow(c, d), tf.sign(c), c - 1, 2 * c,
                   tf.add_n([c, d, c])])
    z, w = Z.astype(np.complex64), np.array([2 - 1j, 0.5j, 1 + 1j], np.complex64)
    expected = [z + w, z - w, z * w, z / w, -z, z * z, np.exp(z), np.sqrt(z), np.log(w),
                np.sin(z), np.cos(z), np.tanh(z), 1 / (1 + np.exp(-z)), 1 / w, z ** w,
                [(1 + 2j) / np.sqrt(5), (-3 - 4j) / 5, 0], z - 1, 2 * z, z + w + z]
    for result, want in zip(results, expected):
        assert result.dtype == np.complex64
        np.testing.assert_allclose(result, want, rtol=2e-6, atol=1e-6)


def test_division_by_complex_zero_gives_nan_as_in_tf():
    zero = tf.constant(np.zeros(1, np.complex64))
    quotient, reciprocal = run([zero / zero, tf.reciprocal(zero)])
    assert np.isnan(quotient[0].real) and np.isnan(quotient[0].imag)
    assert np.isinf(reciprocal[0].real) or np.isnan(reciprocal[0].real)


def test_reductions_scans_and_comparisons():
    c = tf.constant(Z)
    total, mean, product, running, same = run([
        tf.reduce_sum(c), tf.reduce_mean(c), tf.reduce_prod(c[:2]), tf.cumsum(c),
        tf.equal(c, tf.conj(c))])
    assert total == -2 - 2j and product == (1 + 2j) * (-3 - 4j)
    np.testing.assert_allclose(mean, (-2 - 2j) / 3, rtol=1e-6)
    np.testing.assert_array_equal(running, np.cumsum(Z))
    np.testing.assert_array_equal(same, [False, False, True])


def test_casts_keep_the_real_part_and_make_complex_numbers():
    c = tf.constant(Z)
    to_int, to_bool, back = run([tf.cast(c, tf.int32), tf.cast(c, tf.bool),
                                 tf.cast(tf.constant([1.5, -2.0]), tf.complex128)])
    np.testing.assert_array_equal(to_int, [1, -3, 0])
    np.testing.assert_array_equal(to_bool, [True, True, False])
    assert back.dtype == np.complex128 and back.tolist() == [1.5, -2]
    assert tf.to_complex64(tf.constant([1.0])).name == "ToComplex64:0"
    assert tf.to_complex128(tf.constant([1.0])).dtype == tf.complex128


def test_matmul_adjoints_conjugate():
    a = np.array([[1 + 1j, 2], [3j, -1 - 2j]], np.complex64)
    b = np.array([[2, 1j], [1 - 1j, 4]], np.complex64)
    ta, tb = tf.constant(a), tf.constant(b)
    plain, adjoint_a = tf.matmul(ta, tb), tf.matmul(ta, tb, adjoint_a=True)
    transpose_b = tf.matmul(ta, tb, transpose_b=True)
    batched = tf.matmul(ta[None], tb, adjoint_b=True)
    batched_transpose = tf.matmul(ta[None], tb, transpose_a=True)
    assert adjoint_a.op.type == "MatMul" and adjoint_a.op.inputs[0].op.type == "Conj"
    assert batched.op.type == "BatchMatMulV2"
    assert batched_transpose.op.inputs[0].op.type == "Conj"  # TF: conj, then adjoint
    results = run([plain, adjoint_a, transpose_b, batched, batched_transpose])
    for result, want in zip(results, [a @ b, a.conj().T @ b, a @ b.T, [a @ b.conj().T],
                                      [a.T @ b]]):
        np.testing.assert_allclose(result, want, rtol=1e-6)


def test_no_promotion_and_no_ordering_of_complex_numbers():
    c = tf.constant(Z)
    with pytest.raises(TypeError):
        tf.add(c, tf.constant([1.0, 2.0, 3.0]))
    for fn in (tf.maximum, tf.floordiv, tf.less):
        with pytest.raises(TypeError, match="complex64 not in list of allowed values"):
            fn(c, c)
    for fn in (tf.reduce_max, tf.argmax, tf.floor, tf.round):
        with pytest.raises(TypeError, match="complex64 not in list of allowed values"):
            fn(c)


def test_variables_of_complex_numbers_assign_and_save(tmp_path):
    v = tf.Variable(Z, name="v")
    update = v.assign(v * tf.constant(np.complex64(1j)))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        path = saver.save(sess, str(tmp_path / "model"))
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(v), Z * 1j)
