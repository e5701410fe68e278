"""The OpDefs of the checkpoint ops (SaveV2, RestoreV2, ...) and of the whole-file ops.

ReadFile, WriteFile and MatchingFiles are `tf.io.read_file`, `write_file`
and `matching_files` (wrappers in `minitf/data/file_ops.py`).

A Saver adds these ops to the graph and runs them; their shape functions
check the rank of every input. The wrappers the Saver calls are in
`minitf/saver/io_ops.py`, the kernels in `minitf/kernels/cpu/io_kernels.py`,
the file format in `minitf/framework/tensor_bundle.py`.

Mirrors `tensorflow/core/ops/io_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import with_rank, with_rank_at_most
from minitf.framework.op_def import register_op
from minitf.framework.tensor_bundle import parse_shape_and_slice
from minitf.graph import tensor_shape, tensor_util

# =============================================================================
# Shape functions
# =============================================================================


def _check_names_and_slices(op, num_tensors):
    """prefix is a scalar; tensor_names and shape_and_slices are vectors of one entry per tensor."""
    with_rank(op.inputs[0].shape, 0, "'prefix'")
    for i, what in ((1, "tensor_names"), (2, "shape_and_slices")):
        shape = op.inputs[i].shape
        with_rank(shape, 1, "'%s'" % what)
        entries = shape.as_list()[0] if shape.ndims == 1 else None
        if entries is not None and entries != num_tensors:
            raise ValueError("Dimension 0 in both shapes must be equal, but are %d and %d "
                             "(%s has %d entries for %d tensors)" % (
                                 entries, num_tensors, what, entries, num_tensors))


def _save_v2_shape(op):
    _check_names_and_slices(op, len(op.get_attr("dtypes")))
    return []


def _restore_v2_shape(op):
    """Unknown shapes, unless a constant shape_and_slices spec names the full shape."""
    num_tensors = len(op.get_attr("dtypes"))
    _check_names_and_slices(op, num_tensors)
    specs = tensor_util.constant_value(op.inputs[2])
    if specs is None:
        return [tensor_shape.unknown_shape() for _ in range(num_tensors)]
    shapes = []
    for spec in specs.reshape(-1):
        full_shape = parse_shape_and_slice(spec)
        shapes.append(tensor_shape.unknown_shape() if full_shape is None
                      else tensor_shape.TensorShape(full_shape))
    return shapes


def _merge_v2_checkpoints_shape(op):
    with_rank(op.inputs[0].shape, 1, "'checkpoint_prefixes'")
    with_rank(op.inputs[1].shape, 0, "'destination_prefix'")
    return []


# =============================================================================
# OpDefs
# =============================================================================

register_op("SaveV2").input("prefix: string").input("tensor_names: string").input(
    "shape_and_slices: string").input("tensors: dtypes").attr(
    "dtypes: list(type)").set_is_stateful().set_shape_fn(_save_v2_shape)

register_op("RestoreV2").input("prefix: string").input("tensor_names: string").input(
    "shape_and_slices: string").output("tensors: dtypes").attr(
    "dtypes: list(type) >= 1").set_is_stateful().set_shape_fn(_restore_v2_shape)

register_op("MergeV2Checkpoints").input("checkpoint_prefixes: string").input(
    "destination_prefix: string").attr("delete_old_dirs: bool = true").set_is_stateful(
    ).set_shape_fn(_merge_v2_checkpoints_shape)

register_op("ShardedFilename").input("basename: string").input("shard: int32").input(
    "num_shards: int32").output("filename: string").set_shape_fn(common_shapes.scalar_shape)


# =============================================================================
# Whole files: ReadFile, WriteFile, MatchingFiles (tf.io.read_file, ...)
# =============================================================================

def _write_file_shape(op):
    with_rank(op.inputs[0].shape, 0)
    with_rank(op.inputs[1].shape, 0)
    return []


def _read_file_shape(op):
    with_rank(op.inputs[0].shape, 0)
    return [tensor_shape.TensorShape([])]


def _matching_files_shape(op):
    with_rank_at_most(op.inputs[0].shape, 1)
    return [tensor_shape.TensorShape([None])]


register_op("ReadFile").input("filename: string").output("contents: string").set_shape_fn(
    _read_file_shape)

register_op("WriteFile").input("filename: string").input("contents: string").set_is_stateful(
    ).set_shape_fn(_write_file_shape)

register_op("MatchingFiles").input("pattern: string").output("filenames: string").set_shape_fn(
    _matching_files_shape)
