"""Reading checkpoints without a Saver, and initializing variables from one.

- `tf.train.NewCheckpointReader(prefix)` opens a checkpoint and answers
  `get_tensor(name)`, `has_tensor(name)`, `get_variable_to_shape_map()`,
  `get_variable_to_dtype_map()`: handy to look inside a file.
- `tf.train.list_variables(dir_or_prefix)` lists (name, shape) pairs and
  `tf.train.load_variable(dir_or_prefix, name)` returns one value; a
  directory stands for its latest checkpoint.
- `tf.train.init_from_checkpoint(dir_or_prefix, assignment_map)` is the
  warm start of fine-tuning: it *replaces the initializers* of the mapped
  variables with RestoreV2 ops reading the checkpoint, so that the usual
  `tf.global_variables_initializer()` loads them. The map takes
  `{"ckpt_scope/": "graph_scope/"}` (every variable of a scope),
  `{"ckpt/name": "graph/name"}` or `{"ckpt/name": variable}`.
- `tf.train.checkpoints_iterator(dir)` yields each new checkpoint of a
  directory as a trainer writes it: the loop of a separate evaluator.

Mirrors `tensorflow/python/training/checkpoint_utils.py` and
`py_checkpoint_reader.py` (CheckpointReader).
"""

import logging
import os
import time

from minitf.framework import tensor_bundle
from minitf.graph import ops
from minitf.ops import variable_scope
from minitf.ops import variables
from minitf.saver import checkpoint_management
from minitf.saver import io_ops
from minitf.saver import saveable_object

__all__ = ["NewCheckpointReader", "list_variables", "load_variable", "load_checkpoint",
           "init_from_checkpoint", "checkpoints_iterator"]

_logger = logging.getLogger("minitf")


class CheckpointReader:
    """Reads the tensors of one checkpoint (TF's pywrap CheckpointReader)."""

    def __init__(self, filepattern):
        self._reader = tensor_bundle.CheckpointReader(_as_text(filepattern))

    def has_tensor(self, name):
        return self._reader.has_tensor(_as_text(name))

    def get_tensor(self, name):
        """The tensor's value: a NumPy array, a NumPy scalar for 0-d, bytes for a 0-d string.

        NotFoundError "Key <name> not found in checkpoint" when it is not there.
        """
        value = self._reader.read(_as_text(name))
        return value[()] if value.ndim == 0 else value

    def get_variable_to_shape_map(self):
        """{name: shape as a list of ints}."""
        return self._reader.shape_map()

    def get_variable_to_dtype_map(self):
        """{name: DType}."""
        return self._reader.dtype_map()

    def debug_string(self):
        """One line per tensor, "name (dtype) [shape]", as bytes."""
        lines = ["%s (%s) %s\n" % (name, _dtype_name(entry), entry.shape)
                 for name, entry in sorted(self._reader.entries.items())]
        return "".join(lines).encode("utf-8")


def _dtype_name(entry):
    return entry.dtype.name if entry.dtype is not None else "dtype %d" % entry.dtype_enum


def NewCheckpointReader(filepattern):  # noqa: N802 - TF's public name
    """A CheckpointReader of the checkpoint prefix `filepattern`; NotFoundError if none."""
    return CheckpointReader(filepattern)


def _as_text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else os.fspath(value)


# =============================================================================
# Looking inside a checkpoint
# =============================================================================

def _get_checkpoint_filename(ckpt_dir_or_file):
    """A directory stands for its latest checkpoint; anything else is a prefix."""
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of `ckpt_dir_or_file` (a directory's latest checkpoint, or a prefix)."""
    filename = _get_checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s"
                         % ckpt_dir_or_file)
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """The value of tensor `name` (a trailing ":0" is ignored) in the checkpoint."""
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name.removesuffix(":0"))


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


# =============================================================================
# init_from_checkpoint
# =============================================================================

def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Makes the initializers of the mapped variables load their values from a checkpoint.

    `assignment_map` maps checkpoint names to graph variables:

    - `{"ckpt/scope/": "graph/scope/"}`: every variable (made by
      `tf.get_variable`) under `graph/scope/` from the same name under
      `ckpt/scope/`; `"/"` on either side stands for the top level;
    - `{"ckpt/name": "graph/name"}` or `{"ckpt/name": variable}`: one variable.

    Nothing is read now: each mapped variable's initializer becomes an
    Assign from a RestoreV2 of the checkpoint, run by
    `tf.global_variables_initializer()` as usual. A name missing from the
    checkpoint, or a shape that does not match, is a ValueError here.
    """
    ckpt_file = _get_checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    store_vars = variable_scope._get_default_variable_store()._vars
    for tensor_name_in_ckpt, current in sorted(assignment_map.items(), key=lambda x: x[0]):
        var = current if isinstance(current, variables.Variable) else store_vars.get(current)
        if var is not None:
            _init_one_variable(var, tensor_name_in_ckpt, ckpt_dir_or_file, ckpt_file, shapes)
        else:
            _init_scope(tensor_name_in_ckpt, current, ckpt_dir_or_file, ckpt_file, shapes,
                        store_vars)


def _init_one_variable(var, tensor_name_in_ckpt, ckpt_dir_or_file, ckpt_file, shapes):
    if tensor_name_in_ckpt not in shapes:
        raise ValueError("Tensor %s is not found in %s checkpoint %s" % (
            tensor_name_in_ckpt, ckpt_dir_or_file, shapes))
    if not var.get_shape().is_compatible_with(shapes[tensor_name_in_ckpt]):
        raise ValueError("Shape of variable %s (%s) doesn't match with shape of tensor %s (%s) "
                         "from checkpoint reader." % (var.name, var.get_shape(),
                                                      tensor_name_in_ckpt,
                                                      shapes[tensor_name_in_ckpt]))
    _set_checkpoint_initializer(var, ckpt_file, tensor_name_in_ckpt)
    _logger.debug("Initialize variable %s from checkpoint %s with %s", var.name,
                  ckpt_dir_or_file, tensor_name_in_ckpt)


def _init_scope(tensor_name_in_ckpt, current_scope, ckpt_dir_or_file, ckpt_file, shapes,
                store_vars):
    """A `"ckpt_scope/": "graph_scope/"` entry: every store variable of the graph scope."""
    if not isinstance(current_scope, str):
        raise TypeError("assignment_map values must be variable names or Variables, got %r"
                        % (current_scope,))
    scopes = current_scope[:current_scope.rindex("/")] if "/" in current_scope else ""
    if not tensor_name_in_ckpt.endswith("/"):
        raise ValueError("Assignment map with scope only name {} should map to scope only {}. "
                         "Should be 'scope/': 'other_scope/'.".format(scopes,
                                                                      tensor_name_in_ckpt))
    scope_variables = sorted(name for name in store_vars
                             if not scopes or name.startswith(scopes + "/"))
    for var_name in scope_variables:
        full_tensor_name = var_name[len(scopes):]
        if current_scope != "/":
            full_tensor_name = full_tensor_name[1:]
        if tensor_name_in_ckpt != "/":
            full_tensor_name = tensor_name_in_ckpt + full_tensor_name
        full_tensor_name = full_tensor_name.removesuffix("/")
        if full_tensor_name not in shapes:
            raise ValueError("Tensor %s (%s in %s) is not found in %s checkpoint" % (
                full_tensor_name, var_name[len(scopes) + 1:], tensor_name_in_ckpt,
                ckpt_dir_or_file))
        _set_checkpoint_initializer(store_vars[var_name], ckpt_file, full_tensor_name)
        _logger.debug("Initialize variable %s from checkpoint %s with %s", var_name,
                      ckpt_dir_or_file, full_tensor_name)


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name,
                                name="checkpoint_initializer"):
    """Replaces `variable`'s initializer with an Assign from RestoreV2(ckpt_file, tensor_name).

    The RestoreV2 runs on the CPU of the variable's job and task (its only
    kernel is a CPU one); the Assign is colocated with the variable.
    """
    base_type = variable.dtype.base_dtype
    with ops.device(variable.device), ops.device("/cpu:0"):
        restore_op = io_ops.restore_v2(ckpt_file, [tensor_name], [""], [base_type],
                                       name=name)[0]
    saveable = saveable_object.ReferenceVariableSaveable(variable._ref(), "", variable.op.name)
    init_op = saveable.restore([restore_op], restored_shapes=None)
    restore_op.set_shape(variable.shape)
    variable._initializer_op = init_op.op
    variable._initial_value = restore_op


# =============================================================================
# Following a directory that a trainer writes checkpoints to
# =============================================================================

def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None):
    """The latest checkpoint of `checkpoint_dir` once it is not `last_checkpoint`; None when
    `timeout` seconds pass first."""
    _logger.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = checkpoint_management.latest_checkpoint(checkpoint_dir)
        if checkpoint_path is not None and checkpoint_path != last_checkpoint:
            _logger.info("Found new checkpoint at %s", checkpoint_path)
            return checkpoint_path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of `checkpoint_dir`, at most one per `min_interval_secs`.

    It ends when `timeout` seconds pass without a new one, unless `timeout_fn`
    is given: then it asks `timeout_fn()` and ends only when that is true.
    """
    checkpoint_path = None
    while True:
        new_checkpoint_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path,
                                                      timeout=timeout)
        if new_checkpoint_path is None:
            if not timeout_fn:
                _logger.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_checkpoint_path
        yield checkpoint_path
        time_to_next = start + min_interval_secs - time.time()
        if time_to_next > 0:
            time.sleep(time_to_next)
