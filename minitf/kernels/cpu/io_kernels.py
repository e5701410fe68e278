"""Kernels of the checkpoint ops (SaveV2, RestoreV2, ...) and of ReadFile, WriteFile, MatchingFiles.

They run on the CPU only (like TF's), so the placer puts them there and a
variable held by another device reaches SaveV2 through a Send/Recv copy.

- SaveV2 creates the checkpoint's directory if it is missing (one level,
  as TF 1.15's BundleWriter), then writes data and index atomically.
- RestoreV2 reads and checks *every* requested tensor (present, of the
  expected dtype and shape, bytes matching their checksum) before it
  returns any: a damaged checkpoint fails the op, and the Assigns that
  consume its outputs never run, so no variable is half restored.

Errors are TF's: NotFoundError for a missing checkpoint or key,
DataLossError for damaged bytes, InvalidArgumentError for a dtype or shape
that does not match, each naming the tensor and the file.

The file format itself is `minitf/framework/tensor_bundle.py`, on the floor
beneath both these kernels and the Saver.

Mirrors `tensorflow/core/kernels/save_restore_v2_ops.cc` and
`save_restore_tensor.cc` (RestoreTensorsV2).
"""

import errno
import glob
import os

import numpy as np

from minitf.framework import tensor_bundle
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text
from minitf.kernels.kernel_util import text
from minitf.kernels.kernel_util import texts


def _check_prefix_and_names(prefix, tensor_names, shape_and_slices, num_tensors):
    """TF's ValidateInputs: one prefix, and one name and one spec per tensor."""
    if np.size(prefix) != 1:
        raise invalid("Input prefix should have a single element, got %d instead."
                      % np.size(prefix))
    if np.ndim(tensor_names) != 1 or np.ndim(shape_and_slices) != 1:
        raise invalid("Input tensor_names and shape_and_slices should be an 1-D tensors, got "
                      "%s and %s instead." % (list(np.shape(tensor_names)),
                                              list(np.shape(shape_and_slices))))
    if np.size(tensor_names) != np.size(shape_and_slices):
        raise invalid("tensor_names and shape_and_slices have different number of elements: "
                      "%d vs. %d" % (np.size(tensor_names), np.size(shape_and_slices)))
    if np.size(tensor_names) != num_tensors:
        raise invalid("Got %d tensor names but %d tensors" % (np.size(tensor_names),
                                                              num_tensors))


def _os_error(e, what):
    """An OSError as the TF error class of its errno."""
    message = "%s: %s; %s" % (what, e.filename or "", e.strerror or e)
    if e.errno == errno.ENOENT:
        return errors.NotFoundError(None, None, message)
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return errors.PermissionDeniedError(None, None, message)
    if e.errno == errno.ENOSPC:
        return errors.ResourceExhaustedError(None, None, message)
    return errors.UnknownError(None, None, message)


def _make_parent_directory(prefix):
    directory = os.path.dirname(prefix)
    if not directory or os.path.isdir(directory):
        return
    try:
        os.mkdir(directory)
    except FileExistsError:
        pass
    except OSError as e:
        raise _os_error(e, "Failed to create a directory") from None


# =============================================================================
# SaveV2
# =============================================================================

@register_kernel("SaveV2", "CPU")
def save_v2(ctx, prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    _check_prefix_and_names(prefix, tensor_names, shape_and_slices, len(tensors))
    prefix = text(prefix)
    for name, spec in zip(texts(tensor_names), texts(shape_and_slices)):
        if spec:
            raise errors.UnimplementedError(
                None, None, "minitf saves whole tensors only; got shape_and_slice %r for "
                "tensor %s" % (spec, name))
    host_values = [host_array(ctx, t) for t in tensors]
    _make_parent_directory(prefix)
    try:
        tensor_bundle.write_checkpoint(prefix, list(zip(texts(tensor_names), host_values,
                                                    dtypes)))
    except OSError as e:
        raise _os_error(e, "Failed to write checkpoint %s" % prefix) from None


# =============================================================================
# RestoreV2
# =============================================================================

@register_kernel("RestoreV2", "CPU")
def restore_v2(ctx, prefix, tensor_names, shape_and_slices, *, dtypes):
    _check_prefix_and_names(prefix, tensor_names, shape_and_slices, len(dtypes))
    prefix = text(prefix)
    reader = tensor_bundle.CheckpointReader(prefix)
    names = texts(tensor_names)
    # Everything the index can tell is checked for all tensors before any bytes are read.
    for name, spec, dtype in zip(names, texts(shape_and_slices), dtypes):
        _check_entry(reader.entry(name), spec, dtype, prefix)
    return [reader.read(name) for name in names]


def _check_entry(entry, spec, dtype, prefix):
    tensor_bundle.check_readable(entry, prefix)
    if entry.dtype != dtype.base_dtype:
        raise invalid("tensor_name = %s; expected dtype %s does not equal original dtype %s "
                      "(checkpoint %s)" % (entry.name, dtype.base_dtype.name, entry.dtype.name,
                                           prefix))
    try:
        full_shape = tensor_bundle.parse_shape_and_slice(spec)
    except ValueError as e:
        raise invalid("tensor_name = %s; %s" % (entry.name, e)) from None
    if full_shape is not None and full_shape != entry.shape:
        raise invalid("tensor_name = %s; shape in shape_and_slice spec %s does not match the "
                      "shape stored in checkpoint: %s (checkpoint %s)" % (
                          entry.name, shape_text(full_shape), shape_text(entry.shape),
                          prefix))


# =============================================================================
# Sharded saving
# =============================================================================

@register_kernel("ShardedFilename", "CPU", is_expensive=False)
def sharded_filename(ctx, basename, shard, num_shards):
    filename = "%s-%05d-of-%05d" % (text(basename), int(shard), int(num_shards))
    return np.array(filename.encode("utf-8"), dtype=object)


@register_kernel("MergeV2Checkpoints", "CPU")
def merge_v2_checkpoints(ctx, checkpoint_prefixes, destination_prefix, *, delete_old_dirs):
    sources = texts(checkpoint_prefixes)
    destination = text(destination_prefix)
    try:
        tensor_bundle.merge_checkpoints(sources, destination)
    except OSError as e:
        raise _os_error(e, "Failed to merge checkpoints into %s" % destination) from None
    if delete_old_dirs:
        _remove_empty_source_directories(sources, destination)


def _remove_empty_source_directories(sources, destination):
    """TF's delete_old_dirs: the sources' directories go if empty (never the destination's)."""
    kept = os.path.dirname(destination)
    for directory in {os.path.dirname(s) for s in sources} - {kept}:
        try:
            os.rmdir(directory)
        except OSError:
            pass


# =============================================================================
# Whole files: ReadFile, WriteFile, MatchingFiles
# =============================================================================

@register_kernel("ReadFile", "CPU")
def read_file(ctx, filename):
    path = text(filename)
    try:
        with open(path, "rb") as f:
            return np.array(f.read(), dtype=object)
    except OSError as e:
        raise errors.from_os_error(e, path) from None


@register_kernel("WriteFile", "CPU")
def write_file(ctx, filename, contents):
    """Creates the missing directories, then writes through a temporary file and a rename:
    a reader never sees half a file."""
    path = text(filename)
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    data = data if isinstance(data, bytes) else text(data).encode("utf-8")
    temporary = "%s.tmp%d" % (path, os.getpid())
    try:
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except OSError as e:
        if os.path.isfile(temporary):
            os.remove(temporary)
        raise errors.from_os_error(e, path) from None


@register_kernel("MatchingFiles", "CPU")
def matching_files(ctx, pattern):
    """The files matching any of the patterns (a scalar or a vector), sorted per pattern."""
    found = [name.encode("utf-8") for p in texts(np.reshape(pattern, -1))
             for name in sorted(glob.glob(p))]
    return np.array(found, dtype=object).reshape(len(found))
