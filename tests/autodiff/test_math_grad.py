"""Gradients of the math ops: numeric checks for every op, symbolic structure, None paths.

`GRADIENT_CASES` maps each op type with a gradient function in
`minitf/autodiff/math_grad.py` to the cases `test_gradient_matches_finite_differences`
runs: the Jacobian `tf.gradients` builds is compared with central finite
differences (`tf.test.compute_gradient_error`), in float64 (delta 1e-4, so
that the differences' own error stays far below 1e-6), at inputs kept
away from kinks (no ties in max, no integers under floor, ...).
`tests/autodiff/test_gradient_coverage.py` reads the dict to check that no
registered gradient goes untested.

The forward values of the ops added for gradients (BroadcastGradientArgs,
UnsortedSegmentSum, Cumsum/Cumprod, the fused *Grad ops) are tested here
too. Expected node names and error messages were read off a reference
TensorFlow (`tf.compat.v1`, graph mode) building the same expressions; the
TF 1.15 gradient node names follow its `math_grad.py`.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff import registry
from minitf.graph.op_def_library import apply_op
from minitf.ops import math_ops

# =============================================================================
# Cases
# =============================================================================


class Case:
    """One numeric gradient check: `build(*inputs)` differentiated at `values`.

    With `static=False` the inputs are placeholders with defaults and no
    static shape, so the gradient must compute shapes at run time.
    `no_gradient=True` marks ops whose gradient is None (locally flat
    functions): the test checks that, and that finite differences agree.
    """

    def __init__(self, build, *values, static=True, tolerance=1e-6, delta=1e-4,
                 no_gradient=False, label=""):
        self.build = build
        self.delta = delta
        self.values = [np.asarray(v, dtype=np.float64) for v in values]
        self.static = static
        self.tolerance = tolerance
        self.no_gradient = no_gradient
        self.label = label

    def inputs(self):
        if self.static:
            return [tf.constant(v) for v in self.values]
        return [tf.placeholder_with_default(v, shape=None) for v in self.values]

    def __repr__(self):
        shapes = "_".join("x".join(map(str, v.shape)) or "scalar" for v in self.values)
        return "%s%s%s" % (shapes, "_dynamic" if not self.static else "",
                           "_" + self.label if self.label else "")


def uniform(shape, low=-1.0, high=1.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, size=shape)


def away_from_zero(shape, seed=0):
    """Values in ±[0.5, 1.5]: safe for division, abs, reciprocal."""
    rng = np.random.RandomState(seed)
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 1.5, size=shape)


def positive(shape, seed=0):
    return uniform(shape, 0.5, 2.0, seed)


def distinct(shape, seed=0, offset=0.0):
    """Values at least 0.1 apart from each other (and from those of another `offset`)."""
    size = int(np.prod(shape))
    steps = np.random.RandomState(seed).permutation(size) - size // 2
    return (steps * 0.2 + offset).reshape(shape)


# Pairs of operand shapes for broadcasting binary ops.
BROADCAST_PAIRS = [([2, 3], [2, 3]), ([3, 1], [1, 4]), ([2, 3], [3]), ([], [2, 3]),
                   ([2, 2], [])]


def binary_cases(build, x_values=uniform, y_values=uniform, dynamic_pair=([3, 1], [1, 4])):
    """One case per broadcasting pair, plus one without static shapes."""
    cases = [Case(build, x_values(sx, seed=1), y_values(sy, seed=2))
             for sx, sy in BROADCAST_PAIRS]
    sx, sy = dynamic_pair
    cases.append(Case(build, x_values(sx, seed=3), y_values(sy, seed=4), static=False))
    return cases


def unary_cases(build, values=uniform, **options):
    cases = [Case(build, values(shape, seed=i), **options)
             for i, shape in enumerate([[], [4], [2, 3]])]
    cases.append(Case(build, values([2, 2], seed=5), static=False, **options))
    return cases


def maximum_minimum_cases(build):
    """Operands that never tie: x on even tenths, y on odd ones."""
    return [Case(build, distinct(sx, seed=1), distinct(sy, seed=2, offset=0.1))
            for sx, sy in BROADCAST_PAIRS] + [
        Case(build, distinct([3, 1], seed=3), distinct([1, 4], seed=4, offset=0.1),
             static=False)]


def floor_mod_cases():
    """x in [0.2, 0.8] + k y: x / y stays well away from the integers where floor jumps."""
    cases = []
    for sx, sy in [([2, 3], [2, 3]), ([2, 3], [3]), ([2, 3], [1, 3])]:
        y = positive(sy, seed=7)
        k = np.random.RandomState(1).randint(-2, 3, size=sx)
        x = (uniform(sx, 0.2, 0.8, 2) + k) * np.broadcast_to(y, sx)
        cases.append(Case(tf.floormod, x, y))
    # Both broadcast: divisors close together, so each x / y stays between two integers.
    x, y = np.array([[0.5], [2.5], [-1.5]]), np.array([[1.0, 1.05, 1.1, 1.15]])
    cases.append(Case(tf.floormod, x, y))
    cases.append(Case(tf.floormod, x, y, static=False))
    cases.append(Case(tf.floormod, np.array(-0.7), np.array([1.5, 2.5])))
    return cases


def matmul_cases():
    a, b = uniform([2, 3], seed=1), uniform([3, 4], seed=2)
    cases = []
    for transpose_a in (False, True):
        for transpose_b in (False, True):
            def build(x, y, ta=transpose_a, tb=transpose_b):
                return tf.matmul(x, y, transpose_a=ta, transpose_b=tb)
            cases.append(Case(build, a.T if transpose_a else a, b.T if transpose_b else b,
                              label="ta%d_tb%d" % (transpose_a, transpose_b)))
    cases.append(Case(tf.matmul, uniform([1, 3], seed=3), uniform([3, 1], seed=4)))
    return cases


def batch_matmul_cases():
    cases = []
    x, y = uniform([2, 2, 3], seed=1), uniform([2, 3, 2], seed=2)
    for adj_x in (False, True):
        for adj_y in (False, True):
            def build(a, b, ax=adj_x, ay=adj_y):
                return tf.matmul(a, b, adjoint_a=ax, adjoint_b=ay)
            cases.append(Case(build, np.swapaxes(x, 1, 2) if adj_x else x,
                              np.swapaxes(y, 1, 2) if adj_y else y,
                              label="adj%d%d" % (adj_x, adj_y)))
    # Batch dimensions broadcast: the gradient is summed over them.
    cases.append(Case(tf.matmul, uniform([2, 2, 3], seed=3), uniform([3, 2], seed=4)))
    cases.append(Case(tf.matmul, uniform([2, 3], seed=5), uniform([2, 3, 2], seed=6)))
    cases.append(Case(tf.matmul, uniform([2, 1, 2, 3], seed=7), uniform([3, 3, 2], seed=8)))
    cases.append(Case(lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
                      uniform([1, 3, 2], seed=9), uniform([2, 2, 3], seed=10), static=False))
    return cases


def reduction_cases(reduce, values=uniform):
    x = values([2, 3, 2], seed=1)
    return [
        Case(lambda t: reduce(t), x, label="all"),
        Case(lambda t: reduce(t, axis=1), x, label="axis1"),
        Case(lambda t: reduce(t, axis=[0, -1]), x, label="axes0_-1"),
        Case(lambda t: reduce(t, axis=[2], keepdims=True), x, label="keepdims"),
        Case(lambda t: reduce(t, axis=[]), values([2, 2], seed=2), label="no_axes"),
        Case(lambda t: reduce(t), values([], seed=3), label="scalar"),
        Case(lambda t: reduce(t, axis=[1, 0]), x, static=False, label="axes1_0"),
        Case(lambda t: reduce(t, axis=-1, keepdims=True), x, static=False, label="keepdims"),
    ]


def prod_cases():
    with_zero = uniform([2, 3, 2], seed=1)
    with_zero[0, 1, 0] = 0.0
    two_zeros = uniform([3, 2], seed=2)
    two_zeros[0, 1] = two_zeros[2, 1] = 0.0
    return reduction_cases(tf.reduce_prod) + [
        Case(lambda t: tf.reduce_prod(t, axis=1), with_zero, label="zero"),
        Case(lambda t: tf.reduce_prod(t, axis=0), two_zeros, label="two_zeros"),
        Case(lambda t: tf.reduce_prod(t, axis=[0, 2]), with_zero, static=False, label="zero"),
    ]


def scan_cases(scan, values=uniform):
    x = values([3, 4], seed=1)
    return [
        Case(lambda t: scan(t), x, label="axis0"),
        Case(lambda t: scan(t, axis=1, exclusive=True), x, label="exclusive"),
        Case(lambda t: scan(t, axis=-1, reverse=True), x, label="reverse"),
        Case(lambda t: scan(t, axis=0, exclusive=True, reverse=True), x, label="both"),
        Case(lambda t: scan(t, axis=1), values([2, 3], seed=2), static=False),
    ]


def segment_sum_cases():
    return [
        Case(lambda d: tf.unsorted_segment_sum(d, [0, 2, 0, -1, 1], 4), uniform([5, 2], seed=1),
             label="rows"),
        Case(lambda d: tf.unsorted_segment_sum(d, [1, 1, 0], 2), uniform([3], seed=2),
             label="vector"),
        Case(lambda d: tf.unsorted_segment_sum(d, [[0, 1, 1], [2, 0, -1]], 3),
             uniform([2, 3, 2], seed=3), label="matrix_ids"),
    ]


def select_cases():
    condition = np.array([[True, False, True], [False, False, True]])
    return [
        Case(lambda x, y: tf.where(condition, x, y), uniform([2, 3], seed=1),
             uniform([2, 3], seed=2), label="elementwise"),
        Case(lambda x, y: tf.where([False, True], x, y), uniform([2, 3], seed=3),
             uniform([2, 3], seed=4), label="rows"),
        Case(lambda x, y: tf.where(True, x, y), uniform([2], seed=5), uniform([2], seed=6),
             label="scalar_condition"),
    ]


def select_v2_cases():
    condition = np.array([[True, False, True], [False, False, True]])
    return [
        Case(lambda x, y: tf.where_v2(condition, x, y), uniform([2, 3], seed=1),
             uniform([2, 3], seed=2), label="elementwise"),
        Case(lambda x, y: tf.where_v2(condition, x, y), uniform([3], seed=3),
             uniform([2, 1], seed=4), label="broadcast_branches"),
        Case(lambda x, y: tf.where_v2([True, False], x, y), uniform([3, 1], seed=5),
             uniform([], seed=6), static=False, label="dynamic_shapes"),
    ]


def cast_cases():
    # float32 keeps ~7 digits, float16 ~3: finite differences are only that precise.
    return [
        Case(lambda x: tf.cast(tf.cast(x, tf.float32) * 3.0, tf.float64), uniform([2, 3]),
             tolerance=1e-3, delta=1e-2, label="via_float32"),
        Case(lambda x: tf.cast(x, tf.float16), uniform([3], seed=1), tolerance=2e-2,
             delta=1e-1, label="to_float16"),
        Case(lambda x: tf.cast(tf.cast(x, tf.int32), tf.float64) + x, uniform([3], 1, 4),
             label="through_int32"),
    ]


def complex_cases():
    """Real functions of real inputs that pass through complex numbers.

    Finite differences need real inputs and outputs: each case builds
    complex numbers from pairs of reals, computes with them, and takes a
    real part, imaginary part or magnitude at the end.
    """
    def product(x, y):
        return tf.complex(x, y) * tf.complex(y, 2.0 * x)

    return {
        "Complex": binary_cases(lambda x, y: tf.real(tf.complex(x, y)) * 3.0
                                + tf.imag(tf.complex(x, y)) * 2.0),
        "Real": [Case(lambda x, y: tf.real(product(x, y)), uniform([2, 3], seed=1),
                      uniform([2, 3], seed=2))],
        "Imag": [Case(lambda x, y: tf.imag(product(x, y)), uniform([2, 3], seed=1),
                      uniform([2, 3], seed=2)),
                 Case(lambda x, y: tf.imag(product(x, y)), uniform([3], seed=3),
                      uniform([3], seed=4), static=False)],
        "Angle": [Case(lambda x, y: tf.angle(tf.complex(x, y)), away_from_zero([2, 3], 1),
                       away_from_zero([2, 3], 2))],
        "Conj": [Case(lambda x, y: tf.real(tf.conj(product(x, y)) * tf.complex(x, x)),
                      uniform([4], seed=1), uniform([4], seed=2)),
                 Case(lambda x, y: tf.imag(tf.conj(product(x, y)) * tf.complex(y, x)),
                      uniform([4], seed=3), uniform([4], seed=4))],
        "ComplexAbs": [Case(lambda x, y: tf.abs(tf.complex(x, y)), away_from_zero([2, 3], 1),
                            away_from_zero([2, 3], 2)),
                       Case(lambda x, y: tf.abs(product(x, y)), away_from_zero([3], 3),
                            away_from_zero([3], 4), static=False)],
    }


def complex_function_cases():
    """The unary and binary gradients on complex numbers: TF conjugates the derivative."""
    def through(fn):
        return lambda x, y: tf.real(fn(tf.complex(x, y))) + tf.imag(fn(tf.complex(y, x)))

    def pair(fn):
        return lambda a, b, c, d: tf.real(fn(tf.complex(a, b), tf.complex(c, d)))

    inputs = (away_from_zero([2, 3], 1), away_from_zero([2, 3], 2))
    four = [away_from_zero([2, 2], seed) for seed in range(4)]
    return {
        op_type: [Case(through(fn), *inputs, label="complex")]
        for op_type, fn in [("Exp", tf.exp), ("Log", tf.log), ("Log1p", tf.log1p),
                            ("Square", tf.square), ("Sqrt", tf.sqrt), ("Rsqrt", tf.rsqrt),
                            ("Sin", tf.sin), ("Cos", tf.cos), ("Tanh", tf.tanh),
                            ("Sigmoid", tf.sigmoid), ("Reciprocal", tf.reciprocal),
                            ("Neg", tf.negative)]
    } | {
        # z ** w grows fast: its finite differences are a little less precise.
        op_type: [Case(pair(fn), *four, label="complex",
                       tolerance=1e-5 if op_type == "Pow" else 1e-6)]
        for op_type, fn in [("Mul", tf.multiply), ("RealDiv", tf.divide),
                            ("DivNoNan", tf.div_no_nan), ("Pow", tf.pow), ("Sub", tf.subtract),
                            ("MatMul", tf.matmul),
                            ("BatchMatMulV2", lambda a, b: tf.matmul(
                                a[None], b, adjoint_a=True))]
    }


def more_elementwise_cases():
    """The trigonometric and hyperbolic functions, x log y and friends."""
    inside_one = lambda shape, seed: uniform(shape, -0.8, 0.8, seed)  # noqa: E731
    above_one = lambda shape, seed: uniform(shape, 1.2, 3.0, seed)  # noqa: E731
    return {
        "Acos": unary_cases(tf.acos, inside_one),
        "Asin": unary_cases(tf.asin, inside_one),
        "Atan": unary_cases(lambda x: tf.atan(3.0 * x)),
        "Tan": unary_cases(tf.tan),
        "Acosh": unary_cases(tf.acosh, above_one),
        "Asinh": unary_cases(lambda x: tf.asinh(3.0 * x)),
        "Atanh": unary_cases(tf.atanh, inside_one),
        "Cosh": unary_cases(tf.cosh),
        "Sinh": unary_cases(tf.sinh),
        "Expm1": unary_cases(tf.expm1),
        "Rint": unary_cases(tf.rint, lambda shape, seed: uniform(shape, -0.4, 0.4, seed) + 1,
                            no_gradient=True),
        "TruncateDiv": [Case(tf.truncatediv, uniform([2, 3], 0.1, 0.9, 1) - 3,
                             np.full([3], 2.0), no_gradient=True)],
        "Atan2": binary_cases(tf.atan2, y_values=away_from_zero),
        "Xdivy": binary_cases(tf.math.xdivy, y_values=away_from_zero),
        "Xlogy": binary_cases(tf.math.xlogy, y_values=positive),
        "Xlog1py": binary_cases(tf.math.xlog1py, y_values=positive),
        "MulNoNan": binary_cases(tf.math.multiply_no_nan, y_values=away_from_zero),
        "NextAfter": binary_cases(lambda x, y: tf.math.nextafter(x, y) * 1.0),
    }


def linalg_cases():
    """The matrix ops: well-conditioned matrices, symmetric positive definite where needed."""
    def well_conditioned(shape, seed=0):
        return uniform(shape, seed=seed) + 3 * np.eye(shape[-1])

    def spd(x):  # a symmetric positive definite matrix made from any x
        return tf.matmul(x, x, transpose_b=True) + 3 * tf.eye(3, dtype=tf.float64)

    batch = well_conditioned([2, 3, 3], 1)
    return {
        "MatrixBandPart": [Case(lambda x: tf.linalg.band_part(x, 1, 0), uniform([3, 4], seed=1)),
                           Case(lambda x: tf.linalg.band_part(x, -1, 0), uniform([2, 3, 3], 2),
                                static=False)],
        "MatrixDiag": [Case(tf.linalg.diag, uniform([2, 3], seed=1))],
        "MatrixDiagPart": [Case(tf.linalg.diag_part, uniform([2, 3, 3], seed=1)),
                           Case(tf.linalg.diag_part, uniform([3, 4], seed=2), label="wide"),
                           Case(tf.linalg.diag_part, uniform([3, 3], seed=3), static=False)],
        "MatrixSetDiag": [Case(tf.linalg.set_diag, uniform([2, 3, 4], seed=1),
                               uniform([2, 3], seed=2))],
        "MatrixDeterminant": [Case(tf.linalg.det, batch),
                              Case(tf.linalg.det, well_conditioned([3, 3], 2), static=False)],
        "LogMatrixDeterminant": [Case(lambda x: tf.linalg.slogdet(x)[1], batch)],
        "MatrixInverse": [Case(tf.linalg.inv, batch),
                          Case(lambda x: tf.linalg.inv(x, adjoint=True), batch,
                               label="adjoint")],
        "Cholesky": [Case(lambda x: tf.cholesky(spd(x)), uniform([3, 3], seed=1)),
                     Case(lambda x: tf.linalg.logdet(spd(x)), uniform([3, 3], seed=2),
                          label="logdet")],
        "SelfAdjointEigV2": [
            Case(lambda x: tf.linalg.eigvalsh(spd(x)), uniform([3, 3], seed=1)),
            # Eigenvectors have a free sign: functions of v v^T do not see it.
            Case(lambda x: tf.reduce_sum(tf.square(tf.linalg.eigh(spd(x))[1])
                                         * tf.constant([1.0, 2.0, 3.0], tf.float64))
                 + tf.reduce_sum(tf.linalg.eigh(spd(x))[0]), uniform([3, 3], seed=2),
                 label="vectors")],
        "Qr": [Case(lambda x: tf.reduce_sum(tf.linalg.qr(x)[0] * tf.constant(
                        np.arange(12.0).reshape(4, 3))) + tf.reduce_sum(tf.linalg.qr(x)[1]),
                    uniform([4, 3], seed=1), label="tall"),
               Case(lambda x: tf.linalg.qr(x)[1] + tf.linalg.qr(x)[0], well_conditioned([3, 3], 2),
                    label="square")],
        "Cross": [Case(tf.cross, uniform([4, 3], seed=1), uniform([4, 3], seed=2))],
        "MatrixSolve": [Case(tf.linalg.solve, batch, uniform([2, 3, 2], seed=2)),
                        Case(lambda a, b: tf.linalg.solve(a, b, adjoint=True), batch,
                             uniform([2, 3, 2], seed=3), label="adjoint")],
        "MatrixTriangularSolve": [
            Case(tf.linalg.triangular_solve, batch, uniform([2, 3, 2], seed=2)),
            Case(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
                 batch, uniform([2, 3, 2], seed=3), label="upper_adjoint")],
    }


def decomposition_cases():
    """SVD, least squares, the square root, tridiagonal systems and Einsum.

    Singular vectors have a free sign, so the SVD cases differentiate
    functions that do not see it (squares of the entries).
    """
    def sign_free(s, u, v):
        def weights(t, start):
            shape = t.shape.as_list()
            return tf.constant(np.arange(start, start + np.prod(shape)).reshape(shape))
        return (tf.reduce_sum(tf.square(u) * weights(u, 1.0))
                + tf.reduce_sum(tf.square(v) * weights(v, 2.0))
                + tf.reduce_sum(s * weights(s, 1.0)))

    def solve_ls(matrix, rhs):  # the op itself: tf.linalg.lstsq builds a composite when fast
        return apply_op("MatrixSolveLs", matrix=matrix, rhs=rhs, l2_regularizer=0.5, fast=True)

    def diagonals(shape, seed):  # compact tridiagonal diagonals, the main one dominant
        return uniform(shape, seed=seed) + np.array([[0.0], [4.0], [0.0]])

    def svd_case(shape, seed, label, **options):
        return Case(lambda a: sign_free(*tf.linalg.svd(a, **options)), uniform(shape, seed=seed),
                    delta=1e-5, label=label)

    def einsum_case(equation, *shapes, **options):
        values = [uniform(shape, seed=i) for i, shape in enumerate(shapes)]
        return Case(lambda *xs: tf.einsum(equation, *xs), *values, label=equation.replace(
            "...", "E").replace(",", "_").replace("->", "_to_"), **options)

    well_conditioned = uniform([2, 3, 3], seed=1) + 3 * np.eye(3)
    return {
        "Svd": [Case(lambda a: tf.linalg.svd(a, compute_uv=False), uniform([2, 3, 4], seed=1),
                     label="values_only"),
                svd_case([3, 3], 2, "square"), svd_case([4, 3], 3, "tall"),
                svd_case([2, 3, 4], 4, "wide"),
                svd_case([3, 4], 5, "full_matrices", full_matrices=True)],
        "MatrixSolveLs": [Case(solve_ls, uniform([4, 3], seed=1), uniform([4, 2], seed=2),
                               label="tall"),
                          Case(solve_ls, uniform([2, 2, 3], seed=3), uniform([2, 2, 2], seed=4),
                               label="wide")],
        "MatrixSquareRoot": [Case(tf.linalg.sqrtm, well_conditioned[0], label="single"),
                             Case(tf.linalg.sqrtm, well_conditioned, label="batch")],
        "TridiagonalSolve": [
            Case(tf.linalg.tridiagonal_solve, diagonals([3, 4], 1), uniform([4, 2], seed=2)),
            Case(tf.linalg.tridiagonal_solve, diagonals([2, 3, 4], 3), uniform([2, 4, 2], seed=4),
                 static=False)],
        "TridiagonalMatMul": [
            Case(tf.linalg.tridiagonal_matmul, uniform([3, 4], seed=1), uniform([4, 2], seed=2)),
            Case(lambda d, rhs: tf.linalg.tridiagonal_matmul(d, rhs, diagonals_format="matrix"),
                 uniform([2, 4, 4], seed=3), uniform([2, 4, 3], seed=4), label="matrix")],
        "Einsum": [einsum_case("ij,jk->ik", [2, 3], [3, 4]), einsum_case("ij->i", [2, 3]),
                   einsum_case("ij,k->ik", [2, 3], [4]),  # k is summed in no operand
                   einsum_case("...ij,...jk->...ik", [2, 1, 2, 3], [3, 3, 2]),
                   einsum_case("ijk->kji", [2, 3, 4]),
                   einsum_case("ij,jk,kl->il", [2, 3], [3, 4], [4, 2]),
                   einsum_case("ij,ij->ij", [2, 3], [2, 3], static=False),
                   einsum_case("ii->i", [3, 3]), einsum_case("iij,jj->ij", [2, 2, 3], [3, 3]),
                   einsum_case("...ii->...", [2, 3, 3])],
    }


def reduction_composite_cases():
    """accumulate_n, and the reductions built from reductions (through their ops)."""
    return {
        "EuclideanNorm": [
            Case(lambda x: tf.math.reduce_euclidean_norm(x), away_from_zero([2, 3], 1)),
            Case(lambda x: tf.math.reduce_euclidean_norm(x, axis=1), away_from_zero([2, 3], 2),
                 label="axis1"),
            Case(lambda x: tf.math.reduce_euclidean_norm(x, axis=0, keepdims=True),
                 away_from_zero([3, 2], 3), static=False, label="keepdims")],
        "CumulativeLogsumexp": [
            Case(lambda x: tf.math.cumulative_logsumexp(x, axis=1), uniform([2, 3], seed=1)),
            Case(lambda x: tf.math.cumulative_logsumexp(x, reverse=True) * 1.0,
                 uniform([4], seed=2), label="reverse")],
        "AccumulateNV2": [Case(lambda x, y: tf.accumulate_n([x, y, x]), uniform([2, 3], seed=1),
                               uniform([2, 3], seed=2))],
        "Exp": [Case(lambda x: tf.reduce_logsumexp(x, axis=1), uniform([2, 3], seed=3),
                     label="logsumexp")],
        "Sqrt": [Case(lambda x: tf.math.reduce_std(x, axis=0), uniform([3, 2], seed=4),
                      label="reduce_std")],
        "UnsortedSegmentSum": [Case(lambda d: tf.unsorted_segment_mean(d, [0, 1, 0], 2),
                                    uniform([3, 2], seed=5), label="mean")],
    }


def special_function_cases():
    """erf, erfc, lgamma, digamma, and zeta and polygamma in their second argument."""
    positive_far = lambda shape, seed: uniform(shape, 0.5, 4.0, seed)  # noqa: E731
    return {
        "Erf": unary_cases(tf.erf),
        "Erfc": unary_cases(tf.erfc),
        "Lgamma": unary_cases(tf.lgamma, positive_far) + [
            Case(tf.lgamma, uniform([3], -0.8, -0.2, 1), label="negative", tolerance=1e-5)],
        "Digamma": unary_cases(tf.digamma, positive_far),
        "BesselI0e": unary_cases(lambda x: tf.math.bessel_i0e(3.0 * x), away_from_zero),
        "BesselI1e": unary_cases(lambda x: tf.math.bessel_i1e(3.0 * x), away_from_zero) + [
            # At 0 the second derivative jumps: finite differences err by delta / 2 there.
            Case(tf.math.bessel_i1e, np.array([0.0, 40.0]), delta=1e-6, tolerance=1e-5,
                 label="zero_and_far")],
        "Erfinv": unary_cases(tf.math.erfinv, lambda shape, seed: uniform(shape, -0.9, 0.9, seed)),
        "Ndtri": unary_cases(tf.math.ndtri, lambda shape, seed: uniform(shape, 0.2, 0.8, seed)),
        "Zeta": [Case(lambda q: tf.zeta(tf.constant([2.0, 3.0, 2.5], tf.float64), q),
                      uniform([3], 1.0, 4.0, 1)),
                 Case(lambda q: tf.zeta(tf.constant([[2.0], [3.0]], tf.float64), q),
                      uniform([3], 1.0, 4.0, 2), label="broadcast")],
        "Betainc": [Case(lambda x: tf.betainc(tf.constant([2.0, 0.7, 5.0], tf.float64),
                                              tf.constant([3.0, 1.5, 2.0], tf.float64), x),
                         uniform([3], 0.2, 0.8, 1)),
                    Case(lambda x: tf.betainc(tf.constant(2.0, tf.float64),
                                              tf.constant(3.0, tf.float64), x),
                         uniform([2, 2], 0.2, 0.8, 2), label="scalar_parameters")],
        "Igamma": [Case(lambda x: tf.igamma(tf.constant([0.5, 2.0, 7.0], tf.float64), x),
                        uniform([3], 0.3, 9.0, 1)),
                   Case(lambda x: tf.math.igamma(tf.constant([[1.5], [4.0]], tf.float64), x),
                        uniform([3], 0.3, 6.0, 2), label="broadcast")],
        "Igammac": [Case(lambda x: tf.igammac(tf.constant([0.5, 2.0, 7.0], tf.float64), x),
                         uniform([3], 0.3, 9.0, 3))],
        "Polygamma": [Case(lambda x: tf.polygamma(tf.constant([1.0, 2.0, 0.0], tf.float64), x),
                           positive_far([3], 1)),
                      Case(lambda x: tf.polygamma(tf.constant(1.0, tf.float64), x),
                           positive_far([2, 2], 2), label="broadcast")],
    }


def merged(*case_dicts):
    """One dict of cases from several, the lists of an op type joined."""
    result = {}
    for cases in case_dicts:
        for op_type, op_cases in cases.items():
            result.setdefault(op_type, []).extend(op_cases)
    return result


GRADIENT_CASES = {
    # --- binary arithmetic ----------------------------------------------------------
    "Add": binary_cases(tf.add),
    "AddV2": binary_cases(lambda x, y: x + y),
    "Sub": binary_cases(tf.subtract),
    "Mul": binary_cases(tf.multiply),
    "RealDiv": binary_cases(tf.divide, y_values=away_from_zero),
    "DivNoNan": binary_cases(tf.div_no_nan, y_values=away_from_zero),
    "FloorDiv": [Case(tf.floordiv, uniform([2, 3], 0.1, 0.9, 1) + 3, np.full([3], 2.0),
                      no_gradient=True),
                 Case(tf.floordiv, uniform([3, 1], 0.1, 0.9, 2) + 1, np.ones([1, 2]),
                      no_gradient=True)],
    "FloorMod": floor_mod_cases(),
    "Pow": binary_cases(tf.pow, x_values=positive) + [
        Case(tf.pow, np.array([0.0, 3.0]), np.array([2.0, 1.5]), label="x_zero")],
    "Maximum": maximum_minimum_cases(tf.maximum),
    "Minimum": maximum_minimum_cases(tf.minimum),
    "SquaredDifference": binary_cases(tf.squared_difference),
    # --- unary ----------------------------------------------------------------------
    "Neg": unary_cases(tf.negative),
    "Abs": unary_cases(tf.abs, away_from_zero),
    "Sign": unary_cases(tf.sign, away_from_zero),
    "Square": unary_cases(tf.square),
    "Sqrt": unary_cases(tf.sqrt, positive),
    "Rsqrt": unary_cases(tf.rsqrt, positive),
    "Reciprocal": unary_cases(tf.reciprocal, away_from_zero),
    "Exp": unary_cases(tf.exp),
    "Log": unary_cases(tf.log, positive),
    "Log1p": unary_cases(tf.log1p, positive),
    "Sin": unary_cases(tf.sin),
    "Cos": unary_cases(tf.cos),
    "Tanh": unary_cases(tf.tanh),
    "Sigmoid": unary_cases(lambda x: tf.sigmoid(3.0 * x)),
    "Floor": unary_cases(tf.floor, lambda shape, seed: uniform(shape, 0.1, 0.9, seed) + 2,
                         no_gradient=True),
    "Ceil": unary_cases(tf.ceil, lambda shape, seed: uniform(shape, 0.1, 0.9, seed) - 2,
                        no_gradient=True),
    "Round": unary_cases(tf.round, lambda shape, seed: uniform(shape, -0.4, 0.4, seed) + 1,
                         no_gradient=True),
    # --- second derivatives: the fused gradient ops ----------------------------------
    "SqrtGrad": [Case(math_ops.sqrt_grad, positive([2, 3], 1), uniform([2, 3], seed=2)),
                 Case(lambda x: tf.gradients(tf.sqrt(x), x)[0], positive([3], 3),
                      label="second_derivative")],
    "RsqrtGrad": [Case(math_ops.rsqrt_grad, positive([2, 3], 1), uniform([2, 3], seed=2)),
                  Case(lambda x: tf.gradients(tf.rsqrt(x), x)[0], positive([3], 3),
                       label="second_derivative")],
    "TanhGrad": [Case(math_ops.tanh_grad, uniform([2, 3], seed=1), uniform([2, 3], seed=2)),
                 Case(lambda x: tf.gradients(tf.tanh(x), x)[0], uniform([3], seed=3),
                      label="second_derivative")],
    "SigmoidGrad": [Case(math_ops.sigmoid_grad, uniform([2, 3], seed=1),
                         uniform([2, 3], seed=2)),
                    Case(lambda x: tf.gradients(tf.sigmoid(x), x)[0], uniform([3], seed=3),
                         label="second_derivative")],
    "ReciprocalGrad": [Case(math_ops.reciprocal_grad, uniform([2, 3], seed=1),
                            uniform([2, 3], seed=2)),
                       Case(lambda x: tf.gradients(tf.reciprocal(x), x)[0],
                            away_from_zero([3], 3), label="second_derivative")],
    # --- cast, select, add_n --------------------------------------------------------
    "Cast": cast_cases(),
    "Select": select_cases(),
    "SelectV2": select_v2_cases(),
    "AddN": [Case(lambda x, y, z: tf.add_n([x, y, z]), uniform([2, 3], seed=1),
                  uniform([2, 3], seed=2), uniform([2, 3], seed=3)),
             Case(lambda x, y: tf.add_n([x, y, x]), uniform([], seed=4), uniform([], seed=5),
                  label="repeated_input"),
             Case(lambda x, y: tf.add_n([x, y]), uniform([3], seed=6), uniform([3], seed=7),
                  static=False)],
    # --- matrix products ------------------------------------------------------------
    "MatMul": matmul_cases(),
    # float32 only: finite differences through a cast, so a looser tolerance.
    "SparseMatMul": [Case(lambda a, b, transpose_b=transpose_b: tf.cast(tf.sparse_matmul(
        tf.cast(a, tf.float32), tf.cast(b, tf.float32), transpose_b=transpose_b,
        a_is_sparse=True), tf.float64), uniform([2, 3], seed=1),
        uniform([4, 3] if transpose_b else [3, 4], seed=2), tolerance=5e-3, delta=1e-2,
        label="transpose_b" if transpose_b else "") for transpose_b in (False, True)],
    "BatchMatMulV2": batch_matmul_cases(),
    # --- reductions -----------------------------------------------------------------
    "Sum": reduction_cases(tf.reduce_sum),
    "Mean": reduction_cases(tf.reduce_mean),
    "Prod": prod_cases(),
    "Max": reduction_cases(tf.reduce_max, distinct),
    "Min": reduction_cases(tf.reduce_min, distinct),
    # --- scans and segments ---------------------------------------------------------
    "Cumsum": scan_cases(tf.cumsum),
    "Cumprod": scan_cases(tf.cumprod, away_from_zero),
    "UnsortedSegmentSum": segment_sum_cases(),
}
GRADIENT_CASES = merged(GRADIENT_CASES, complex_cases(), complex_function_cases(),
                        more_elementwise_cases(), linalg_cases(), decomposition_cases(),
                        reduction_composite_cases(), special_function_cases())

ALL_CASES = [(op_type, case) for op_type, cases in GRADIENT_CASES.items() for case in cases]


def _ops_feeding(tensor):
    """Every op `tensor` depends on, itself included."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(t.op for t in op.inputs)
    return seen


@pytest.mark.parametrize("op_type, case", ALL_CASES,
                         ids=["%s-%r" % (op_type, case) for op_type, case in ALL_CASES])
def test_gradient_matches_finite_differences(op_type, case):
    xs = case.inputs()
    y = case.build(*xs)
    assert op_type in {op.type for op in _ops_feeding(y)}, "the case must exercise the op"
    with tf.Session() as sess:
        y_shape = sess.run(y).shape
        if case.no_gradient:
            assert tf.gradients(y, xs) == [None] * len(xs)
        error = tf.test.compute_gradient_error(xs, [v.shape for v in case.values], y, y_shape,
                                               x_init_value=case.values, delta=case.delta)
    assert error < case.tolerance


def test_x_log_y_and_friends_pass_no_gradient_to_x_where_x_is_zero():
    # TF's choice: at x = 0 the x-gradient of x * log(y) is 0, not log(y), so that
    # an entropy's 0 * log 0 terms contribute nothing, not NaN.
    x, y = tf.constant([0.0, 2.0]), tf.constant([0.0, 3.0])
    for function in (tf.math.xlogy, tf.math.xdivy, tf.math.xlog1py):
        gx, gy = tf.gradients(function(x, y), [x, y])
        gx, gy = tf.Session().run([gx, gy])
        assert gx[0] == 0 and gy[0] == 0 and np.isfinite(gx[1])


# =============================================================================
# Symbolic structure
# =============================================================================

def test_mul_gradient_nodes_live_under_the_op_scope():
    # The names TF 1.15's _MulGrad gives (newer TF skips the reduction for static shapes).
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    y = tf.placeholder(tf.float64, [3], name="y")
    gx, gy = tf.gradients(x * y, [x, y])
    assert gx.name == "gradients/mul_grad/Reshape:0"
    assert gy.name == "gradients/mul_grad/Reshape_1:0"
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"gradients/mul_grad/BroadcastGradientArgs", "gradients/mul_grad/Mul",
            "gradients/mul_grad/Mul_1", "gradients/mul_grad/Sum",
            "gradients/mul_grad/Sum_1"} <= names
    assert gx.shape.as_list() == [2, 3] and gy.shape.as_list() == [3]


def test_same_static_shapes_skip_the_broadcast_reduction():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.placeholder(tf.float32, [2, 3])
    gx, gy = tf.gradients(x * y, [x, y])
    assert gx.op.type == "Mul" and gy.op.type == "Mul"
    ops = tf.get_default_graph().get_operations()
    assert not any(op.type == "BroadcastGradientArgs" for op in ops)
    ga, gb = tf.gradients(x + y, [x, y])
    assert ga is gb  # the incoming gradient itself, passed to both


def test_matmul_gradient_is_one_matmul_per_input_with_transposes_folded_in():
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4, 3])
    ga, gb = tf.gradients(tf.matmul(a, b, transpose_b=True), [a, b])
    assert ga.name == "gradients/MatMul_grad/MatMul:0"
    assert gb.name == "gradients/MatMul_grad/MatMul_1:0"
    assert (ga.op.get_attr("transpose_a"), ga.op.get_attr("transpose_b")) == (False, False)
    assert (gb.op.get_attr("transpose_a"), gb.op.get_attr("transpose_b")) == (True, False)
    assert ga.shape.as_list() == [2, 3] and gb.shape.as_list() == [4, 3]


def test_unary_gradients_use_the_fused_ops_on_the_forward_output():
    x = tf.placeholder(tf.float32, [3])
    for fn, fused in [(tf.tanh, "TanhGrad"), (tf.sigmoid, "SigmoidGrad"),
                      (tf.sqrt, "SqrtGrad"), (tf.rsqrt, "RsqrtGrad"),
                      (tf.reciprocal, "ReciprocalGrad")]:
        y = fn(x)
        (g,) = tf.gradients(y, x)
        assert g.op.type == fused
        assert g.op.inputs[0] is y


def test_gradient_of_a_sum_of_everything_is_a_tile():
    x = tf.placeholder(tf.float32, [2, 3])
    (g,) = tf.gradients(tf.reduce_sum(x), x)
    assert g.op.type == "Tile"
    assert g.shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {x: np.zeros([2, 3])}), np.ones([2, 3]))


# =============================================================================
# Values that finite differences cannot check
# =============================================================================

def run_gradients(y, xs, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(tf.gradients(y, xs), feed_dict)


def test_max_and_min_share_the_gradient_equally_among_ties():
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    g_max, = run_gradients(tf.reduce_max(x, axis=1), x)
    np.testing.assert_allclose(g_max, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    g_min, = run_gradients(tf.reduce_min(x), x)
    np.testing.assert_allclose(g_min, [[1, 0, 0], [0, 0, 0]])


def test_maximum_and_minimum_give_ties_to_x():
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 5.0, 0.0])
    gx, gy = run_gradients(tf.maximum(x, y), [x, y])
    np.testing.assert_array_equal(gx, [1, 0, 1])
    np.testing.assert_array_equal(gy, [0, 1, 0])
    gx, gy = run_gradients(tf.minimum(x, y), [x, y])
    np.testing.assert_array_equal(gx, [1, 1, 0])
    np.testing.assert_array_equal(gy, [0, 0, 1])


def test_pow_gradient_for_the_exponent_is_zero_where_the_base_is_not_positive():
    x, y = tf.constant([0.0, -2.0, 4.0]), tf.constant([2.0, 2.0, 0.5])
    gx, gy = run_gradients(tf.pow(x, y), [x, y])
    np.testing.assert_allclose(gx, [0.0, -4.0, 0.25])
    np.testing.assert_allclose(gy, [0.0, 0.0, 2.0 * np.log(4.0)])


def test_prod_gradient_is_right_at_zeros():
    x = tf.constant([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]])
    g, = run_gradients(tf.reduce_prod(x, axis=1), x)
    np.testing.assert_array_equal(g, [[0, 6, 0], [0, 0, 0]])


def test_abs_and_sign_at_zero():
    x = tf.constant([0.0, -2.0, 3.0])
    g_abs, = run_gradients(tf.abs(x), x)
    g_sign, = run_gradients(tf.sign(x), x)
    np.testing.assert_array_equal(g_abs, [0.0, -1.0, 1.0])
    np.testing.assert_array_equal(g_sign, [0.0, 0.0, 0.0])


def test_float16_gradients_keep_float16():
    x = tf.constant([1.0, 4.0], dtype=tf.float16)
    g, = tf.gradients(tf.reduce_mean(tf.sqrt(x) * x), x)
    assert g.dtype == tf.float16
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [0.75, 1.5], rtol=1e-3)


def test_unknown_rank_input_gets_its_reduction_gradient():
    x = tf.placeholder(tf.float64)
    y = tf.reduce_sum(tf.reduce_max(x, axis=0) * tf.reduce_mean(x, axis=[1]))
    g, = tf.gradients(y, x)
    value = np.array([[1.0, 4.0], [3.0, 2.0]])
    with tf.Session() as sess:
        result = sess.run(g, {x: value})
    # y = sum_j max_i x[i, j] * mean_k x[j, k]
    means, maxima = value.mean(axis=1), value.max(axis=0)
    expected = np.zeros_like(value)
    expected[value == maxima] += means
    expected += np.repeat((maxima / 2)[:, None], 2, axis=1)
    np.testing.assert_allclose(result, expected)


def test_prod_gradient_with_axes_known_only_at_run_time():
    x = tf.placeholder(tf.float64, [2, 3])
    axis = tf.placeholder(tf.int32)
    g, = tf.gradients(tf.reduce_prod(x, axis), x)
    value = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: value, axis: 1}),
                                   [[6, 3, 2], [0, 24, 0]])
        np.testing.assert_allclose(sess.run(g, {x: value, axis: -2}),
                                   [[4, 0, 6], [1, 2, 3]])


# =============================================================================
# Sparse gradients (IndexedSlices, from a gather) arriving at math ops
# =============================================================================

PARAMS = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
GATHERED_ROWS = [0, 0, 2]
ROW_COUNTS = np.array([2.0, 0.0, 1.0])[:, None]  # how often each row is gathered


@pytest.mark.parametrize("build, derivative", [
    (lambda x: -x, lambda x: -np.ones_like(x)),
    (lambda x: tf.cos(x), lambda x: -np.sin(x)),
    (lambda x: tf.squared_difference(x, tf.constant([1.0, 1.0], tf.float64)),
     lambda x: 2 * (x - 1)),
    (lambda x: x * 3.0, lambda x: np.full_like(x, 3.0)),
    (lambda x: tf.tanh(x), lambda x: 1 - np.tanh(x) ** 2),
], ids=["neg", "cos", "squared_difference", "mul", "tanh"])
def test_gather_gradients_flow_through_math_gradients(build, derivative):
    x = tf.constant(PARAMS)
    g, = tf.gradients(tf.gather(build(x), GATHERED_ROWS), x)
    with tf.Session() as sess:
        value = sess.run(tf.convert_to_tensor(g))
    np.testing.assert_allclose(value, ROW_COUNTS * derivative(PARAMS))


def test_neg_and_cast_keep_a_sparse_gradient_sparse():
    x = tf.constant(PARAMS)
    g_neg, = tf.gradients(tf.gather(-x, GATHERED_ROWS), x)
    g_cast, = tf.gradients(tf.gather(tf.cast(x, tf.float32), GATHERED_ROWS), x)
    assert isinstance(g_neg, tf.IndexedSlices) and isinstance(g_cast, tf.IndexedSlices)
    assert g_cast.dtype == tf.float64


def test_scalar_mul():
    x = tf.constant([1.0, 2.0])
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    scaled = tf.scalar_mul(3.0, slices)
    assert isinstance(scaled, tf.IndexedSlices) and scaled.indices is slices.indices
    assert tf.math.scalar_mul is tf.scalar_mul
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.scalar_mul(2.0, x)), [2.0, 4.0])
        np.testing.assert_array_equal(sess.run(scaled.values), [[3.0, 6.0]])
    with pytest.raises(ValueError, match="Only scalar multiply works"):
        tf.scalar_mul([1.0, 2.0], x)


# =============================================================================
# None gradients and non-differentiable ops
# =============================================================================

def test_unconnected_inputs_get_none():
    x, y = tf.constant(1.0), tf.constant(2.0)
    gx, gy = tf.gradients(x * 3.0, [x, y])
    assert gy is None
    with tf.Session() as sess:
        assert sess.run(gx) == 3.0


def test_integer_casts_cut_the_gradient():
    x = tf.constant([1.5, 2.5])
    y = tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert tf.gradients(y, x) == [None]


def test_cast_between_floats_casts_the_gradient_back():
    x = tf.constant([1.5, 2.5], dtype=tf.float64)
    g, = tf.gradients(tf.cast(x, tf.float32) * 2.0, x)
    assert g.dtype == tf.float64
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g), [2.0, 2.0])


def test_floor_div_gives_no_gradient_to_either_operand():
    x, y = tf.constant([7.0]), tf.constant([2.0])
    assert tf.gradients(tf.floordiv(x, y), [x, y]) == [None, None]


@pytest.mark.parametrize("build", [
    lambda x: tf.cast(tf.less(x, 1.0), tf.float32),
    lambda x: tf.cast(tf.equal(x, x), tf.float32),
    lambda x: tf.cast(tf.logical_not(tf.greater(x, 0.0)), tf.float32),
    lambda x: tf.cast(tf.argmax(x), tf.float32),
    lambda x: tf.cast(tf.argmin(x), tf.float32),
    lambda x: tf.cast(tf.where(x > 0.0), tf.float32),
    lambda x: tf.cast(tf.reduce_any(x > 0.0), tf.float32),
], ids=["less", "equal", "logical_not", "argmax", "argmin", "where", "any"])
def test_non_differentiable_ops_stop_gradients_quietly(build):
    x = tf.constant([1.0, 2.0])
    assert tf.gradients(build(x), x) == [None]


@pytest.mark.parametrize("op_type", [
    "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
    "LogicalOr", "LogicalNot", "Any", "All", "ArgMax", "ArgMin", "Range", "Where",
    "BroadcastGradientArgs"])
def test_non_differentiable_ops_are_declared(op_type):
    assert registry.is_registered(op_type)
    assert op_type not in registry.registered_gradients()


def test_gradient_through_range_based_computation_is_none_for_the_limit():
    n = tf.constant(3)
    x = tf.constant(2.0)
    y = x * tf.cast(tf.reduce_sum(tf.range(n)), tf.float32)
    gx, gn = tf.gradients(y, [x, n])
    assert gn is None
    with tf.Session() as sess:
        assert sess.run(gx) == 3.0


# =============================================================================
# The ops gradients are built from
# =============================================================================

@pytest.mark.parametrize("s0, s1, r0, r1", [
    ([2, 3, 1], [3, 4], [2], [0]),
    ([], [2, 3], [0, 1], []),
    ([2, 3], [], [], [0, 1]),
    ([1, 1], [1], [0, 1], [0, 1]),  # both 1: TF lists the axis for both
    ([2, 1, 3], [2, 1, 3], [], []),  # the same shape: nothing to reduce
    ([3, 1], [1, 4], [1], [0]),
])
def test_broadcast_gradient_args(s0, s1, r0, r1):
    out = math_ops.broadcast_gradient_args(s0, s1)
    assert [t.op.type for t in out] == ["BroadcastGradientArgs"] * 2
    assert [t.shape.as_list() for t in out] == [[None], [None]]
    with tf.Session() as sess:
        got0, got1 = sess.run(out)
    assert got0.dtype == np.int32 and got0.tolist() == r0 and got1.tolist() == r1


def test_broadcast_gradient_args_in_int64_and_errors():
    out = math_ops.broadcast_gradient_args(tf.constant([2, 1], tf.int64), [1])
    with tf.Session() as sess:
        r0, r1 = sess.run(out)
        assert r0.dtype == np.int64 and r0.tolist() == [1] and r1.tolist() == [0, 1]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Incompatible shapes: \[2,3\] vs. \[4\]"):
            sess.run(math_ops.broadcast_gradient_args([2, 3], [4]))
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        math_ops.broadcast_gradient_args([[2, 3]], [4])


def test_unsorted_segment_sum_values_shape_and_name():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)
    out = tf.unsorted_segment_sum(data, [0, 2, 0], 4)
    assert out.op.type == "UnsortedSegmentSum" and out.op.name == "UnsortedSegmentSum"
    assert out.shape.as_list() == [4, 2] and out.dtype == tf.float32
    assert tf.math.unsorted_segment_sum is tf.unsorted_segment_sum
    ints = tf.unsorted_segment_sum(np.ones((2, 3), np.int8), [1, 1], 3)
    dropped = tf.unsorted_segment_sum([1, 2, 3], [-1, 0, 0], 2)  # a negative id is dropped
    with tf.Session() as sess:
        values, int_values, dropped_values = sess.run([out, ints, dropped])
    np.testing.assert_array_equal(values, [[6, 8], [0, 0], [3, 4], [0, 0]])
    assert int_values.dtype == np.int8
    np.testing.assert_array_equal(int_values, [[0, 0, 0], [2, 2, 2], [0, 0, 0]])
    np.testing.assert_array_equal(dropped_values, [5, 0])


@pytest.mark.parametrize("ids", [
    [0, 1, 2, 3],  # every id once: the rows are copied
    [2, 2, 2, 2],  # one id: one run summed
    [3, 0, 3, -1, 1, 0, 3, 2, -1],  # singles, repeats and dropped ids together
    [-1, -2],  # nothing kept
    [],
])
def test_unsorted_segment_sum_adds_runs_and_copies_single_rows(ids):
    rng = np.random.default_rng(len(ids))
    data = rng.standard_normal((len(ids), 3, 2)).astype(np.float32)
    expected = np.zeros((5, 3, 2), np.float32)
    for i, segment in enumerate(ids):  # the definition, one row at a time
        if segment >= 0:
            expected[segment] += data[i]
    out = tf.unsorted_segment_sum(data, tf.constant(ids, tf.int32, shape=[len(ids)]), 5)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), expected, rtol=1e-6)


def test_unsorted_segment_sum_static_shapes():
    data = tf.placeholder(tf.float32, [5, None, 3])
    ids = tf.placeholder(tf.int32, [5, 2])
    assert tf.unsorted_segment_sum(data, ids, 7).shape.as_list() == [7, 3]
    assert tf.unsorted_segment_sum(data, ids, tf.placeholder(tf.int32)).shape.as_list() == [
        None, 3]
    assert tf.unsorted_segment_sum(data, tf.placeholder(tf.int32), 7).shape.ndims is None


def test_unsorted_segment_sum_errors():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
        tf.unsorted_segment_sum([[1, 2, 3]], [0, 0], 2)
    with pytest.raises(ValueError, match="must be non-negative but is -1"):
        tf.unsorted_segment_sum([1, 2, 3], [0, 0, 0], -1)
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.unsorted_segment_sum([True], [0], 1)
    ids = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"segment_ids\[0\] = 3 is out of range \[0, 2\)"):
            sess.run(tf.unsorted_segment_sum([1, 2, 3], tf.constant([3, 0, 0]), 2))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"data.shape = \[1,3\] does not start with "
                                 r"segment_ids.shape = \[2\]"):
            sess.run(tf.unsorted_segment_sum([[1, 2, 3]], ids, 2), {ids: [0, 0]})


def test_cumsum_and_cumprod_values():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = [tf.cumsum(x, 1, exclusive=True, reverse=True), tf.cumprod(x, 0, exclusive=True),
           tf.cumprod(x, -1, reverse=True), tf.cumsum(tf.constant([1, 2, 3], tf.int8))]
    assert [t.op.type for t in out] == ["Cumsum", "Cumprod", "Cumprod", "Cumsum"]
    assert out[0].name == "Cumsum:0"
    with tf.Session() as sess:
        values = sess.run(out)
    np.testing.assert_array_equal(values[0], [[5, 3, 0], [11, 6, 0]])
    np.testing.assert_array_equal(values[1], [[1, 1, 1], [1, 2, 3]])
    np.testing.assert_array_equal(values[2], [[6, 6, 3], [120, 30, 6]])
    assert values[3].dtype == np.int8 and values[3].tolist() == [1, 3, 6]
    with tf.Session() as sess:
        empty = sess.run(tf.cumsum(np.zeros((2, 0)), 1, exclusive=True))
    assert empty.shape == (2, 0)


def test_scan_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.cumsum(x, [0, 1])
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.cumsum([True])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2"):
            sess.run(tf.cumsum(x, 2))


def test_fused_gradient_ops_values():
    y = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    out = [math_ops.sqrt_grad(y, y), math_ops.rsqrt_grad(y, y), math_ops.tanh_grad(y, y),
           math_ops.sigmoid_grad(y, y), math_ops.reciprocal_grad(y, y)]
    with tf.Session() as sess:
        values = sess.run(out)
    expected = [y * 0.5 / y, y * -0.5 * y ** 3, y * (1 - y * y), y * y * (1 - y), -y * y * y]
    for got, want in zip(values, expected):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want)


def test_reduced_shape():
    with tf.Session() as sess:
        assert sess.run(math_ops.reduced_shape([2, 3, 5, 7], [1, -2])).tolist() == [2, 1, 1, 7]
        shape, axes = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
        dynamic = math_ops.reduced_shape(shape, axes)
        assert sess.run(dynamic, {shape: [2, 3, 5, 7], axes: [1, -1]}).tolist() == [2, 1, 5, 1]
        assert sess.run(dynamic, {shape: [2, 3], axes: 0}).tolist() == [1, 3]
        assert sess.run(dynamic, {shape: [], axes: []}).tolist() == []


# =============================================================================
# The GPU path (the stand-in GPU of tests/gpu_standin.py)
# =============================================================================

def test_gradient_kernels_run_on_a_gpu_through_its_array_module(stand_in_gpu):
    x_value = np.array([[0.5, 2.0, 1.5], [1.0, 3.0, 0.25]])
    with tf.device("/gpu:0"):
        x = tf.constant(x_value)
        y = tf.constant([1.0, 2.0, 4.0], dtype=tf.float64)
        loss = tf.reduce_sum(tf.reduce_prod(tf.tanh(x) * y, axis=1)) + tf.reduce_max(x, 0)[0]
        g, = tf.gradients(loss, x)
        cases = [
            (tf.unsorted_segment_sum(x, [1, -1], 3), [[0, 0, 0], x_value[0], [0, 0, 0]]),
            (math_ops.broadcast_gradient_args([2, 1], [3])[0], [1]),
            (tf.cumsum(x, 1, exclusive=True, reverse=True),
             np.cumsum(x_value[:, ::-1], 1)[:, ::-1] - x_value),
            (tf.cumprod(x, 0), np.cumprod(x_value, 0)),
            (math_ops.sqrt_grad(x, x), np.full([2, 3], 0.5)),
        ]
    assert "GPU" in g.op.device
    with tf.Session() as sess:
        values = sess.run([g] + [t for t, _ in cases])
    t = np.tanh(x_value) * [1.0, 2.0, 4.0]
    expected_g = (np.prod(t, 1, keepdims=True) / t) * (1 - np.tanh(x_value) ** 2) * [1, 2, 4]
    expected_g[1, 0] += 1.0  # reduce_max(x, 0)[0] picks x[1, 0]
    np.testing.assert_allclose(values[0], expected_g)
    for (_, expected), got in zip(cases, values[1:]):
        assert isinstance(got, np.ndarray)  # copied back to the host
        np.testing.assert_allclose(got, expected)
