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

from minitf.framework.common_shapes import broadcast_shapes, merge_dims, merge_shapes, with_rank
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


# =============================================================================
# Decompositions: SVD, LU
# =============================================================================

def _svd_shape(op):
    """s [..., p] (p = min(m, n)); u [..., m, p] and v [..., n, p], square with full_matrices.

    Without compute_uv, u and v are empty: [0].
    """
    matrices = with_rank_at_least(op.inputs[0].shape, 2)
    if matrices.ndims is None:
        return [tensor_shape.unknown_shape()] * 3
    batch = matrices.dims[:-2]
    rows, cols = (tensor_shape.dimension_value(d) for d in matrices.dims[-2:])
    p = None if rows is None or cols is None else min(rows, cols)
    values = tensor_shape.TensorShape(batch + [p])
    if not op.get_attr("compute_uv"):
        return [values, tensor_shape.TensorShape([0]), tensor_shape.TensorShape([0])]
    full = op.get_attr("full_matrices")
    return [values, tensor_shape.TensorShape(batch + [rows, rows if full else p]),
            tensor_shape.TensorShape(batch + [cols, cols if full else p])]


register_op("Svd").input("input: T").output("s: T").output("u: T").output("v: T").attr(
    "compute_uv: bool = True").attr("full_matrices: bool = False").attr(
    "T: " + _LINALG_TYPES).set_shape_fn(_svd_shape)


def _lu_shape(op):
    """lu as the matrix; p, the row permutation, one index per row: [..., n]."""
    matrices = _square_matrices(op.inputs[0].shape)
    if matrices.ndims is None:
        return [matrices, tensor_shape.unknown_shape()]
    return [matrices, tensor_shape.TensorShape(matrices.dims[:-1])]


register_op("Lu").input("input: T").output("lu: T").output("p: output_idx_type").attr(
    "T: " + _LINALG_TYPES).attr("output_idx_type: {int32, int64} = int32").set_shape_fn(
    _lu_shape)


# =============================================================================
# Least squares, matrix functions
# =============================================================================

def _solve_ls_shape(op):
    """matrix [..., m, n] and rhs [..., m, k] give [..., n, k]."""
    matrix = with_rank_at_least(op.inputs[0].shape, 2)
    rhs = with_rank_at_least(op.inputs[1].shape, 2)
    with_rank(op.inputs[2].shape, 0)
    if matrix.ndims is None or rhs.ndims is None:
        return [tensor_shape.unknown_shape()]
    with_rank(rhs, matrix.ndims)
    batch = merge_shapes(tensor_shape.TensorShape(matrix.dims[:-2]),
                         tensor_shape.TensorShape(rhs.dims[:-2]))
    merge_dims(matrix[-2], rhs[-2])
    return [batch.concatenate([matrix[-1], rhs[-1]])]


register_op("MatrixSolveLs").input("matrix: T").input("rhs: T").input(
    "l2_regularizer: double").output("output: T").attr("T: " + _LINALG_TYPES).attr(
    "fast: bool = True").set_shape_fn(_solve_ls_shape)
register_op("MatrixSquareRoot").input("input: T").output("output: T").attr(
    "T: " + _LINALG_TYPES).set_shape_fn(_square_unchanged_shape)
register_op("MatrixLogarithm").input("input: T").output("output: T").attr(
    "T: {complex64, complex128}").set_shape_fn(_square_unchanged_shape)


# =============================================================================
# Tridiagonal matrices
# =============================================================================

def _tridiagonal_solve_shape(op):
    """diagonals [..., 3, m] and rhs [..., m, k] give [..., m, k]."""
    diagonals = with_rank_at_least(op.inputs[0].shape, 2)
    rhs = with_rank_at_least(op.inputs[1].shape, 2)
    if diagonals.ndims is None or rhs.ndims is None:
        return [rhs]
    with_rank(rhs, diagonals.ndims)
    merge_dims(diagonals[-2], 3)
    merge_shapes(tensor_shape.TensorShape(diagonals.dims[:-2]),
                 tensor_shape.TensorShape(rhs.dims[:-2]))
    merge_dims(diagonals[-1], rhs[-2])
    return [rhs]


def _tridiagonal_matmul_shape(op):
    """Three diagonals [..., 1, m] and rhs [..., m, k] give [..., m, k]."""
    rhs = with_rank_at_least(op.inputs[3].shape, 2)
    for diagonal in op.inputs[:3]:
        diagonal = with_rank_at_least(diagonal.shape, 2)
        if diagonal.ndims is not None and rhs.ndims is not None:
            with_rank(diagonal, rhs.ndims)
            merge_dims(diagonal[-2], 1)
            merge_dims(diagonal[-1], rhs[-2])
    return [rhs]


register_op("TridiagonalSolve").input("diagonals: T").input("rhs: T").output(
    "output: T").attr("partial_pivoting: bool = True").attr(
    "T: {float64, float32, complex64, complex128}").set_shape_fn(_tridiagonal_solve_shape)
register_op("TridiagonalMatMul").input("superdiag: T").input("maindiag: T").input(
    "subdiag: T").input("rhs: T").output("output: T").attr(
    "T: {float64, float32, complex64, complex128}").set_shape_fn(_tridiagonal_matmul_shape)


# =============================================================================
# Einsum: products and sums named by subscripts
# =============================================================================

def parse_einsum_equation(equation):
    """'ab,bc->ac' as (['ab', 'bc'], 'ac'); '...' stands for any number of broadcast axes.

    An equation without '->' gets the implicit output: the labels that
    appear once, in alphabetical order, after '...' when there is one.
    """
    equation = equation.replace(" ", "")
    inputs_text, arrow, output = equation.partition("->")
    inputs = inputs_text.split(",")
    if not arrow:
        labels = inputs_text.replace(",", "").replace(".", "")
        output = ("..." if "..." in inputs_text else "") + "".join(
            sorted(label for label in set(labels) if labels.count(label) == 1))
    for subscripts in inputs + [output]:
        if not subscripts.replace("...", "").isalpha() and subscripts.replace("...", ""):
            raise ValueError("Invalid Einsum subscripts: '%s' in equation '%s'"
                             % (subscripts, equation))
    return inputs, output


def _einsum_dims(subscripts, shape, label_dims, ellipsis_dims):
    """Records each label's dimension (and the '...' dimensions) of one operand."""
    head, has_ellipsis, tail = subscripts.partition("...")
    if shape.ndims is None:
        return False
    if has_ellipsis:
        if shape.ndims < len(head) + len(tail):
            raise ValueError("Einsum operand of rank %d has fewer than %d dimensions for "
                             "'%s'" % (shape.ndims, len(head) + len(tail), subscripts))
        middle = shape.dims[len(head):shape.ndims - len(tail)]
        ellipsis_dims.append(tensor_shape.TensorShape(middle))
    elif shape.ndims != len(head):
        raise ValueError("Einsum subscripts '%s' name %d dimensions, but the operand has "
                         "rank %d" % (subscripts, len(head), shape.ndims))
    labelled = shape.dims[:len(head)] + shape.dims[shape.ndims - len(tail):]
    for label, dim in zip(head + tail, labelled):
        label_dims[label] = merge_dims(label_dims.get(label), dim)
    return True


def _broadcast_ellipses(shapes):
    """The '...' dimensions of all operands broadcast together (NumPy's rule)."""
    result = tensor_shape.TensorShape([])
    for shape in shapes:
        result = broadcast_shapes(result, shape)
    return result


def _einsum_shape(op):
    inputs, output = parse_einsum_equation(op.get_attr("equation"))
    if len(inputs) != len(op.inputs):
        raise ValueError("Expecting %d inputs for equation '%s', got %d"
                         % (len(inputs), op.get_attr("equation"), len(op.inputs)))
    label_dims, ellipsis_dims = {}, []
    known = [_einsum_dims(subscripts, tensor.shape, label_dims, ellipsis_dims)
             for subscripts, tensor in zip(inputs, op.inputs)]
    for label in output.replace("...", ""):
        if label not in label_dims and all(known):
            raise ValueError("Einsum output label '%s' appears in no input of '%s'"
                             % (label, op.get_attr("equation")))
    if not all(known):
        return [tensor_shape.unknown_shape()]
    head, has_ellipsis, tail = output.partition("...")
    middle = list(_broadcast_ellipses(ellipsis_dims).dims) if has_ellipsis else []
    return [tensor_shape.TensorShape([label_dims[label] for label in head] + middle
                                     + [label_dims[label] for label in tail])]


register_op("Einsum").input("inputs: N * T").output("output: T").attr(
    "equation: string").attr("N: int >= 1").attr("T: type").set_shape_fn(_einsum_shape)
