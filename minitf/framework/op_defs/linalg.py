"""The OpDefs of the linear algebra ops, and their shape functions.

Every op works on the last two dimensions of its input, a matrix, and
repeats over the dimensions before them (a batch of matrices): bands and
diagonals, determinants, the inverse, the Cholesky factor, eigenvalues of
Hermitian matrices and the solvers of linear systems; and Cross, the cross
product of 3-vectors.

The constructors are in `minitf/ops/linalg_ops.py`, the kernels in
`minitf/kernels/cpu/linalg_kernels.py`.

Mirrors `tensorflow/core/ops/linalg_ops.cc` and the matrix ops of
`tensorflow/core/ops/array_ops.cc` (MatrixBandPart, MatrixDiag,
MatrixDiagPart, MatrixSetDiag).
"""

from minitf.framework.common_shapes import merge_dims, merge_shapes, with_rank
from minitf.framework.common_shapes import with_rank_at_least
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

_LINALG_TYPES = "{float64, float32, float16, complex64, complex128}"


# =============================================================================
# Bands and diagonals
# =============================================================================

def _band_part_shape(op):
    with_rank(op.inputs[1].shape, 0)
    with_rank(op.inputs[2].shape, 0)
    return [with_rank_at_least(op.inputs[0].shape, 2)]


def _matrix_diag_shape(op):
    """A batch of vectors [..., n] becomes a batch of matrices [..., n, n]."""
    diagonal = with_rank_at_least(op.inputs[0].shape, 1)
    if diagonal.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [diagonal.concatenate([diagonal[-1]])]


def _matrix_diag_part_shape(op):
    """[..., m, n] gives [..., min(m, n)]."""
    matrices = with_rank_at_least(op.inputs[0].shape, 2)
    if matrices.ndims is None:
        return [tensor_shape.unknown_shape()]
    rows, cols = (tensor_shape.dimension_value(d) for d in matrices.dims[-2:])
    size = None if rows is None or cols is None else min(rows, cols)
    return [tensor_shape.TensorShape(matrices.dims[:-2] + [size])]


def _matrix_set_diag_shape(op):
    matrices = with_rank_at_least(op.inputs[0].shape, 2)
    diagonal = with_rank_at_least(op.inputs[1].shape, 1)
    if matrices.ndims is not None and diagonal.ndims is not None:
        with_rank(diagonal, matrices.ndims - 1)
        merge_shapes(tensor_shape.TensorShape(matrices.dims[:-2]),
                     tensor_shape.TensorShape(diagonal.dims[:-1]))
        (size,) = _matrix_diag_part_shape(op)[0].dims[-1:]
        merge_dims(size, diagonal[-1])
    return [matrices]


register_op("MatrixBandPart").input("input: T").input("num_lower: Tindex").input(
    "num_upper: Tindex").output("band: T").attr("T: type").attr(
    "Tindex: {int32, int64} = int64").set_shape_fn(_band_part_shape)
register_op("MatrixDiag").input("diagonal: T").output("output: T").attr("T: type").set_shape_fn(
    _matrix_diag_shape)
register_op("MatrixDiagPart").input("input: T").output("diagonal: T").attr(
    "T: type").set_shape_fn(_matrix_diag_part_shape)
register_op("MatrixSetDiag").input("input: T").input("diagonal: T").output("output: T").attr(
    "T: type").set_shape_fn(_matrix_set_diag_shape)


# =============================================================================
# Square matrices: determinants, inverse, Cholesky factor
# =============================================================================

def _square_matrices(shape):
    """`shape` checked to be a batch of square matrices (rank >= 2, last two dims equal)."""
    shape = with_rank_at_least(shape, 2)
    if shape.ndims is None:
        return shape
    size = merge_dims(shape[-2], shape[-1])
    return tensor_shape.TensorShape(shape.dims[:-2] + [size, size])


def _square_unchanged_shape(op):
    return [_square_matrices(op.inputs[0].shape)]


def _determinant_shape(op):
    """One number per matrix: the batch dimensions."""
    matrices = _square_matrices(op.inputs[0].shape)
    if matrices.ndims is None:
        return [tensor_shape.unknown_shape()] * len(op.outputs)
    return [tensor_shape.TensorShape(matrices.dims[:-2])] * len(op.outputs)


register_op("MatrixDeterminant").input("input: T").output("output: T").attr(
    "T: " + _LINALG_TYPES).set_shape_fn(_determinant_shape)
register_op("LogMatrixDeterminant").input("input: T").output("sign: T").output(
    "log_abs_determinant: T").attr("T: " + _LINALG_TYPES).set_shape_fn(_determinant_shape)
register_op("MatrixInverse").input("input: T").output("output: T").attr(
    "adjoint: bool = False").attr("T: " + _LINALG_TYPES).set_shape_fn(_square_unchanged_shape)
register_op("Cholesky").input("input: T").output("output: T").attr(
    "T: " + _LINALG_TYPES).set_shape_fn(_square_unchanged_shape)


def _self_adjoint_eig_shape(op):
    """Eigenvalues [..., n]; eigenvectors [..., n, n], or [0] without compute_v."""
    matrices = _square_matrices(op.inputs[0].shape)
    if matrices.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    values = tensor_shape.TensorShape(matrices.dims[:-1])
    vectors = matrices if op.get_attr("compute_v") else tensor_shape.TensorShape([0])
    return [values, vectors]


register_op("SelfAdjointEigV2").input("input: T").output("e: T").output("v: T").attr(
    "compute_v: bool = True").attr("T: " + _LINALG_TYPES).set_shape_fn(_self_adjoint_eig_shape)


def _qr_shape(op):
    """[..., m, n] gives q [..., m, k] and r [..., k, n]: k = min(m, n), or m with full_matrices."""
    matrices = with_rank_at_least(op.inputs[0].shape, 2)
    if matrices.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    batch = matrices.dims[:-2]
    rows, cols = (tensor_shape.dimension_value(d) for d in matrices.dims[-2:])
    if op.get_attr("full_matrices"):
        k = rows
    else:
        k = None if rows is None or cols is None else min(rows, cols)
    return [tensor_shape.TensorShape(batch + [rows, k]),
            tensor_shape.TensorShape(batch + [k, cols])]


register_op("Qr").input("input: T").output("q: T").output("r: T").attr(
    "full_matrices: bool = False").attr("T: " + _LINALG_TYPES).set_shape_fn(_qr_shape)


def _cross_shape(op):
    a = with_rank_at_least(op.inputs[0].shape, 1)
    b = with_rank_at_least(op.inputs[1].shape, 1)
    shape = merge_shapes(a, b)
    if shape.ndims is not None:
        merge_dims(shape[-1], 3)
    return [shape]


register_op("Cross").input("a: T").input("b: T").output("product: T").attr(
    "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, "
    "uint64}").set_shape_fn(_cross_shape)


# =============================================================================
# Linear systems
# =============================================================================

def _solve_shape(op):
    """matrix [..., n, n] and rhs [..., n, k] give [..., n, k]."""
    matrix = _square_matrices(op.inputs[0].shape)
    rhs = with_rank_at_least(op.inputs[1].shape, 2)
    if matrix.ndims is None or rhs.ndims is None:
        return [tensor_shape.unknown_shape()]
    with_rank(rhs, matrix.ndims)
    batch = merge_shapes(tensor_shape.TensorShape(matrix.dims[:-2]),
                         tensor_shape.TensorShape(rhs.dims[:-2]))
    rows = merge_dims(matrix[-1], rhs[-2])
    return [batch.concatenate([rows, rhs[-1]])]


register_op("MatrixSolve").input("matrix: T").input("rhs: T").output("output: T").attr(
    "adjoint: bool = False").attr("T: " + _LINALG_TYPES).set_shape_fn(_solve_shape)
register_op("MatrixTriangularSolve").input("matrix: T").input("rhs: T").output(
    "output: T").attr("lower: bool = True").attr("adjoint: bool = False").attr(
    "T: " + _LINALG_TYPES).set_shape_fn(_solve_shape)
