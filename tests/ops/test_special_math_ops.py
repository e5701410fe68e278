"""The special functions: erf, erfc, lgamma, digamma, zeta, polygamma, lbeta.

Values are checked against Python's `math` module (erf, erfc, lgamma) and
known closed forms (digamma(1) = -Euler's gamma, zeta(2, 1) = pi^2 / 6,
...); the values at poles, infinities and outside the domains, and the
node names, were read off a reference TensorFlow (`tf.compat.v1`, graph
mode). Property tests compare erf and lgamma with `math` on random inputs.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf

EULER_GAMMA = 0.5772156649015329


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def test_erf_and_erfc_match_python():
    x = np.concatenate([np.linspace(-6, 6, 241), [1e-9, 27.0, -27.0]])
    erf, erfc = run([tf.erf(x), tf.math.erfc(x)])
    np.testing.assert_allclose(erf, [math.erf(v) for v in x], rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(erfc, [math.erfc(v) for v in x], rtol=1e-10, atol=1e-300)
    assert erfc[-2] > 0  # the far tail keeps its digits: erfc(27) ~ 5e-319


def test_lgamma_matches_python_and_has_poles():
    x = np.concatenate([np.linspace(-7.25, 30, 130), [1e-8, 0.5, 171.5, 1e5, -5e-324, -1e-10,
                                                      -2 + 7e-15]])
    np.testing.assert_allclose(run(tf.lgamma(x)), [math.lgamma(v) for v in x], rtol=1e-12,
                               atol=1e-13)
    poles = run(tf.math.lgamma([0.0, -1.0, -np.inf, np.inf, 1.0, 2.0]))
    assert poles.tolist() == [np.inf] * 4 + [0, 0]


def test_digamma_values_and_poles():
    values = run(tf.digamma([1.0, 0.5, -1.5, 10.0]))
    np.testing.assert_allclose(values, [-EULER_GAMMA, -EULER_GAMMA - 2 * np.log(2),
                                        0.7031566406452432, 2.251752589066721], rtol=1e-6)
    odd = run(tf.math.digamma([0.0, -1.0, np.inf, -np.inf, np.nan]))
    assert np.isnan(odd[[0, 1, 3, 4]]).all() and odd[2] == np.inf


def test_zeta_and_polygamma():
    zeta = run(tf.zeta([2.0, 4.0, 3.0, 1.0, 0.5, 2.0, 2.0, 3.0],
                       [1.0, 1.0, 0.5, 2.0, 2.0, 0.0, -1.5, -2.0]))
    np.testing.assert_allclose(zeta[:3], [np.pi ** 2 / 6, np.pi ** 4 / 90,
                                          7 * 1.2020569031595942], rtol=1e-6)
    assert zeta[3] == np.inf and np.isnan(zeta[4]) and zeta[5] == np.inf
    np.testing.assert_allclose(zeta[6], 9.379247, rtol=1e-6)
    assert np.isnan(zeta[7])
    polygamma = run(tf.polygamma([1.0, 2.0, 0.0, 1.5, -1.0], [1.0, 0.5, 2.0, 2.0, 2.0]))
    np.testing.assert_allclose(polygamma[:3], [np.pi ** 2 / 6, -16.828796644234319,
                                               1 - EULER_GAMMA], rtol=1e-6)
    assert np.isnan(polygamma[3:]).all()


def test_lbeta_over_the_last_axis():
    x = np.array([[1.0, 2.0], [0.5, 0.5]])
    lbeta = tf.lbeta(x)
    assert lbeta.name == "lbeta/sub:0" and lbeta.shape.as_list() == [2]
    np.testing.assert_allclose(run(lbeta), [np.log(0.5), np.log(np.pi)], rtol=1e-12)


def test_names_and_dtypes():
    x = tf.constant([1.0, 2.0])
    assert [t.op.name for t in (tf.erf(x), tf.zeta(x, x), tf.polygamma(x, x))] == [
        "Erf", "Zeta", "Polygamma"]
    assert run(tf.lgamma(tf.constant([3.0], tf.float16))).dtype == np.float16
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.erf([1, 2])
    with pytest.raises(TypeError, match="float64 that does not match type float32"):
        tf.zeta(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.zeta(tf.ones([2]), tf.ones([3]))


@settings(max_examples=30, deadline=None)
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=5),
                    elements=st.floats(-20, 20)))
def test_erf_and_lgamma_on_random_inputs(x):
    x = np.where((x <= 0) & (x == np.floor(x)), 0.5, x)  # no poles
    with tf.Graph().as_default():
        placeholder = tf.placeholder(tf.float64, None)
        erf, lgamma = run([tf.erf(placeholder), tf.lgamma(placeholder)], {placeholder: x})
    np.testing.assert_allclose(erf, np.vectorize(math.erf)(x), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(lgamma, np.vectorize(math.lgamma)(x), rtol=1e-10, atol=1e-12)


def test_erfinv_ndtri_and_erfcinv_invert_erf():
    y = np.array([-0.999999, -0.5, 1e-20, 0.3, 0.9, 1 - 1e-15])
    p = np.array([1e-300, 1e-20, 0.025, 0.5, 0.9, 1 - 1e-12])
    erfinv, ndtri, erfcinv = run([tf.math.erfinv(y), tf.math.ndtri(p), tf.math.erfcinv(1 - y)])
    np.testing.assert_allclose([math.erf(v) for v in erfinv], y, rtol=1e-14)
    np.testing.assert_allclose([0.5 * math.erfc(-v / math.sqrt(2)) for v in ndtri], p,
                               rtol=1e-12)
    np.testing.assert_allclose(erfcinv, erfinv, rtol=1e-6, atol=1e-12)  # 1 - y rounds
    edges = run([tf.math.erfinv([1.0, -1.0, 1.5, np.nan]), tf.math.ndtri([0.0, 1.0, -0.1])])
    assert edges[0][:2].tolist() == [np.inf, -np.inf] and np.isnan(edges[0][2:]).all()
    assert edges[1][:2].tolist() == [-np.inf, np.inf] and np.isnan(edges[1][2])
    with tf.Graph().as_default():
        names = [tf.math.erfinv([0.5]).name, tf.math.ndtri([0.5]).name,
                 tf.math.erfcinv([0.5]).name]
    assert names == ["erfinv/Erfinv:0", "ndtri/Ndtri:0", "erfcinv/mul_1:0"]


def bessel_by_quadrature(order, x):
    """e^-|x| I_order(x) = 1/pi integral_0^pi e^(|x| (cos t - 1)) cos(order t) dt.

    (Times sign(x) for I1, an odd function.)
    """
    t = np.linspace(0, np.pi, 20001)
    values = np.exp(np.abs(x) * (np.cos(t) - 1)) * np.cos(order * t)
    integral = np.sum((values[1:] + values[:-1]) / 2) * (t[1] - t[0]) / np.pi
    return integral * (np.sign(x) if order == 1 else 1)


def test_bessel_functions_match_their_integrals():
    x = np.array([-3.0, 0.0, 0.5, 1.0, 5.0, 29.5, 30.5, 100.0])
    i0e, i1e, i0, i1 = run([tf.math.bessel_i0e(x), tf.math.bessel_i1e(x), tf.math.bessel_i0(x),
                            tf.math.bessel_i1(x)])
    np.testing.assert_allclose(i0e, [bessel_by_quadrature(0, v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(i1e, [bessel_by_quadrature(1, v) for v in x], rtol=1e-12,
                               atol=1e-300)
    np.testing.assert_allclose(i0, i0e * np.exp(np.abs(x)), rtol=1e-14)
    np.testing.assert_allclose(i1, i1e * np.exp(np.abs(x)), rtol=1e-14)
    with tf.Graph().as_default():
        assert tf.math.bessel_i0e([1.0]).name == "bessel_i0e/BesselI0e:0"
        assert tf.math.bessel_i1([1.0]).name == "bessel_i1/mul:0"


def test_betainc_is_the_beta_cdf():
    x = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    f = np.float64
    results = run([tf.math.betainc(f(2.5), f(1), x), tf.betainc(f(1), f(3.5), x),
                   tf.betainc(f(2), f(2), x), tf.betainc(f(0.5), f(0.5), x),
                   tf.betainc(f(7), f(30), x) + tf.betainc(f(30), f(7), 1 - x)])
    expected = [x ** 2.5, 1 - (1 - x) ** 3.5, 3 * x ** 2 - 2 * x ** 3,
                2 / np.pi * np.arcsin(np.sqrt(x)), np.ones(5)]
    for result, want in zip(results, expected):
        np.testing.assert_allclose(result, want, rtol=1e-12)
    edges = run(tf.math.betainc([2.0, 2.0, -1.0, 2.0], [3.0, 3.0, 1.0, 2.0],
                                [0.0, 1.0, 0.5, 1.5]))
    assert edges[:2].tolist() == [0, 1] and np.isnan(edges[2:]).all()
    assert tf.betainc(2.0, 3.0, [0.1, 0.2]).shape.as_list() == [2]
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.math.betainc(tf.ones([2]), tf.ones([3]), tf.ones([2]))
    a = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shapes of a, b and x"):
        run(tf.betainc(a, 1.0, [0.5, 0.5]), {a: [1.0, 2.0, 3.0]})
