"""tf.train.Saver: checkpoints as ops in the graph, and the bookkeeping around them.

Building a Saver adds two small subgraphs under the name scope `save/`:

```
save/filename        PlaceholderWithDefault("model")
save/Const           PlaceholderWithDefault(save/filename)   the prefix, fed by save()/restore()
save/SaveV2          SaveV2(save/Const, names, "", v1, v2, ...)
save/control_dependency  Identity(save/Const) after ^save/SaveV2   -> fetched by save()
save/RestoreV2       RestoreV2(save/Const, names, "") -> one output per variable (on CPU:0)
save/Assign, save/Assign_1, ...   Assign(v_i, save/RestoreV2:i), each placed with v_i
save/restore_all     NoOp after every Assign                 -> run by restore()
```

`saver.save(sess, "ckpt/model", global_step=1000)` runs
`save/control_dependency` with `save/Const` fed "ckpt/model-1000"; the
session places and runs SaveV2 like any op, and its kernel writes
`model-1000.index` and `model-1000.data-00000-of-00001`. Then the Saver
updates the `checkpoint` state file, deletes checkpoints beyond
`max_to_keep` (except one every `keep_checkpoint_every_n_hours`) and, with
`write_meta_graph`, writes `model-1000.meta`. The names of these nodes are
the Saver's `saver_def`, which the meta graph stores so that
`tf.train.import_meta_graph` can rebuild a Saver from them.

`saver.restore(sess, path)` checks the checkpoint against the graph
(every key present, dtypes and shapes as the variables expect) before it
runs `save/restore_all`; RestoreV2 verifies every tensor's checksum before
it outputs any. So a restore that fails leaves every variable as it was.

Differences from TensorFlow: only TF1 reference variables and
SaveableObjects are saved (no partitioned variables); `write_version` V1 is
accepted but writes the V2 format; a sharded save writes its per-device
parts next to the final checkpoint (`<prefix>-00000-of-00002`) rather than
in a `<prefix>_temp` directory, and merges them with MergeV2Checkpoints.

`tf.train.import_meta_graph`, at the end, imports a meta graph
(`meta_graph.py`) and makes the Saver its SaverDef describes.

Mirrors `tensorflow/python/training/saver.py` (Saver, BaseSaverBuilder,
BulkSaverBuilder, import_meta_graph).
"""

import logging
import numbers
import os
import time

import numpy as np

from minitf.framework import tensor_bundle
from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.device_spec import DeviceSpec
from minitf.graph.op_def_library import apply_op
from minitf.ops import array_ops
from minitf.ops import control_flow_ops
from minitf.ops import variables
from minitf.saver import checkpoint_management
from minitf.saver import io_ops
from minitf.saver import meta_graph
from minitf.saver import saveable_object
from minitf.saver.meta_graph import SaverDef
from minitf.saver.meta_graph import saver_def_as_dict

__all__ = ["Saver", "SaverDef", "import_meta_graph"]

_logger = logging.getLogger("minitf")


# =============================================================================
# The builder: the save and restore subgraphs
# =============================================================================

def _cpu0_of(device):
    """The CPU:0 of the job/task of `device` (where a device's I/O ops run)."""
    spec = DeviceSpec.from_string(device or "")
    return spec.replace(device_type="CPU", device_index=0).to_string()


class BulkSaverBuilder:
    """Adds a Saver's nodes to the graph and returns their names as a SaverDef.

    "Bulk": one RestoreV2 reads every tensor (per shard when sharded), the
    builder TF's Saver uses by default for the V2 format.
    """

    def __init__(self, write_version=SaverDef.V2):
        self._write_version = write_version

    # --- the two ops -----------------------------------------------------------------
    def save_op(self, filename_tensor, saveables):
        """One SaveV2 writing every spec of `saveables` to the prefix `filename_tensor`."""
        specs = [spec for saveable in saveables for spec in saveable.specs]
        return io_ops.save_v2(filename_tensor, [s.name for s in specs],
                              [s.slice_spec for s in specs], [s.tensor for s in specs])

    def bulk_restore(self, filename_tensor, saveables):
        """One RestoreV2 on CPU:0 reading every spec; its outputs, in order."""
        specs = [spec for saveable in saveables for spec in saveable.specs]
        with ops.device("/device:CPU:0"):
            return io_ops.restore_v2(filename_tensor, [s.name for s in specs],
                                     [s.slice_spec for s in specs], [s.dtype for s in specs])

    # --- non-sharded -------------------------------------------------------------------
    def _add_save_ops(self, filename_tensor, saveables):
        """The prefix, returned once SaveV2 has written it (save/control_dependency)."""
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _add_restore_ops(self, filename_tensor, saveables, reshape, name="restore_all",
                         restored_tensors=None, wait_for=()):
        """RestoreV2, then one restore op (an Assign) per saveable, grouped under `name`.

        The restore ops also wait for the ops `wait_for` (control inputs).
        """
        if restored_tensors is None:
            restored_tensors = self.bulk_restore(filename_tensor, saveables)
        assign_ops, index = [], 0
        for saveable in saveables:
            count = len(saveable.specs)
            shapes = _restored_shapes(saveable) if reshape else None
            with ops.control_dependencies(wait_for):
                assign_ops.append(saveable.restore(restored_tensors[index:index + count],
                                                   shapes))
            index += count
        return control_flow_ops.group(*assign_ops, name=name)

    # --- sharded: one SaveV2 per device, merged ---------------------------------------
    @staticmethod
    def _group_by_devices(saveables):
        """[(device, saveables on it)], sorted by device."""
        per_device = {}
        for saveable in saveables:
            devices = {DeviceSpec.from_string(spec.device or "").to_string()
                       for spec in saveable.specs}
            if len(devices) != 1:
                raise ValueError("All tensors of a saveable object must be on the same device: "
                                 "%s" % saveable.name)
            per_device.setdefault(devices.pop(), []).append(saveable)
        return sorted(per_device.items(), key=lambda item: item[0])

    def _add_sharded_save_ops(self, filename_tensor, per_device):
        """Each device's CPU writes its variables to a part; MergeV2Checkpoints joins the parts."""
        num_shards = constant_op.constant(len(per_device), name="num_shards")
        sharded_saves, sharded_prefixes = [], []
        for shard, (device, saveables) in enumerate(per_device):
            with ops.device(_cpu0_of(device)):
                sharded_prefix = io_ops.sharded_filename(filename_tensor, shard, num_shards)
                sharded_prefixes.append(sharded_prefix)
                sharded_saves.append(self._add_save_ops(sharded_prefix, saveables))
        with ops.control_dependencies([s.op for s in sharded_saves]):
            with ops.device(_cpu0_of(per_device[-1][0])):
                merge = io_ops.merge_v2_checkpoints(sharded_prefixes, filename_tensor,
                                                    delete_old_dirs=True)
                with ops.control_dependencies([merge]):
                    return array_ops.identity(filename_tensor)

    def _add_sharded_restore_ops(self, filename_tensor, per_device, reshape):
        """A RestoreV2 and its Assigns per device, under one `restore_all`.

        Every Assign also waits for every RestoreV2, so a shard that fails to
        read stops the whole restore before any variable changes.
        """
        restored = []
        for device, saveables in per_device:
            with ops.device(device):
                restored.append(self.bulk_restore(filename_tensor, saveables))
        reads = [tensors[0].op for tensors in restored]
        sharded_restores = []
        for (device, saveables), tensors in zip(per_device, restored):
            with ops.device(device):
                sharded_restores.append(self._add_restore_ops(
                    filename_tensor, saveables, reshape, name="restore_shard",
                    restored_tensors=tensors, wait_for=reads))
        return control_flow_ops.group(*sharded_restores, name="restore_all")

    # --- everything ---------------------------------------------------------------------
    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None,
                        restore_sequentially=False, filename="model"):
        """Adds the save and restore subgraphs; returns the SaverDef naming them.

        `restore_sequentially` is accepted and, as in TF's bulk builder, ignored.
        """
        saveables = saveable_object.validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        with ops.name_scope(name, "save", [s.op for s in saveables]):
            # The prefix is fed at run time; "Const" is its historical name.
            filename_tensor = apply_op("PlaceholderWithDefault", name="filename",
                                       input=filename or "model",
                                       shape=tensor_shape.scalar(), dtype=dtypes.string)
            filename_tensor = array_ops.placeholder_with_default(filename_tensor, shape=(),
                                                                 name="Const")
            if sharded:
                per_device = self._group_by_devices(saveables)
                save_tensor = self._add_sharded_save_ops(filename_tensor, per_device)
                restore_op = self._add_sharded_restore_ops(filename_tensor, per_device,
                                                           reshape)
            else:
                save_tensor = self._add_save_ops(filename_tensor, saveables)
                restore_op = self._add_restore_ops(filename_tensor, saveables, reshape)
        return SaverDef(filename_tensor_name=filename_tensor.name,
                        save_tensor_name=save_tensor.name, restore_op_name=restore_op.name,
                        max_to_keep=max_to_keep, sharded=sharded,
                        keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                        version=self._write_version)


BaseSaverBuilder = BulkSaverBuilder  # minitf has one builder; TF's base one differs in restore


def _restored_shapes(saveable):
    """With `reshape`, each restored value is reshaped to its variable's shape."""
    shapes = []
    for spec in saveable.specs:
        shape = spec.tensor.shape
        shapes.append(shape.as_list() if shape.is_fully_defined()
                      else array_ops.shape(spec.tensor))
    return shapes


# =============================================================================
# Checking a checkpoint against the restore subgraph, before restoring
# =============================================================================

class _RestoreTarget:
    """One variable the restore op writes: its checkpoint key and what it expects."""

    def __init__(self, key, variable_name, dtype, shape, reshaped):
        self.key = key
        self.variable_name = variable_name
        self.dtype = dtype
        self.shape = shape  # a list of ints, or None when not checked
        self.reshaped = reshaped


def _restore_targets(graph, restore_op_name):
    """The Assigns that the restore op runs, read back from the graph.

    Found by walking back from the restore op through control and data
    inputs to each Assign whose value comes (maybe through a Reshape) from a
    RestoreV2 output. It works as well for a Saver rebuilt from a SaverDef.
    """
    targets, seen = [], set()
    stack = [graph.as_graph_element(restore_op_name, allow_tensor=False)]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "Assign":
            target = _target_of_assign(op)
            if target is not None:
                targets.append(target)
            continue
        if op.type == "RestoreV2":
            continue
        stack.extend(op.control_inputs)
        stack.extend(t.op for t in op.inputs)
    return targets


def _target_of_assign(assign):
    value, reshaped = assign.inputs[1], False
    if value.op.type == "Reshape":
        value, reshaped = value.op.inputs[0], True
    if value.op.type != "RestoreV2":
        return None
    names = tensor_util.constant_value(value.op.inputs[1])
    if names is None:
        return None
    key = names.reshape(-1)[value.value_index]
    key = key.decode("utf-8") if isinstance(key, bytes) else str(key)
    variable = assign.inputs[0]
    shape = variable.shape.as_list() if variable.shape.is_fully_defined() else None
    if not reshaped and not assign.get_attr("validate_shape"):
        shape = None
    return _RestoreTarget(key, variable.op.name, variable.dtype.base_dtype, shape, reshaped)


def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def _check_checkpoint_fits(targets, prefix):
    """Raises TF's error for the first target the checkpoint cannot fill.

    Only the index is read: this finds missing keys, wrong dtypes and wrong
    shapes before any variable is assigned.
    """
    entries = tensor_bundle.CheckpointReader(prefix).entries
    for target in targets:
        entry = entries.get(target.key)
        if entry is None:
            raise errors.NotFoundError(
                None, None, "Key %s not found in checkpoint (needed by variable %s; checkpoint "
                "%s)" % (target.key, target.variable_name, prefix))
        tensor_bundle.check_readable(entry, prefix)
        if entry.dtype != target.dtype:
            raise errors.InvalidArgumentError(
                None, None, "tensor_name = %s; expected dtype %s does not equal original dtype "
                "%s (variable %s; checkpoint %s)" % (target.key, target.dtype.name,
                                                    entry.dtype.name, target.variable_name,
                                                    prefix))
        if target.shape is None:
            continue
        fits = (int(np.prod(entry.shape)) == int(np.prod(target.shape)) if target.reshaped
                else entry.shape == target.shape)
        if not fits:
            raise errors.InvalidArgumentError(
                None, None, "Assign requires shapes of both tensors to match. lhs shape= %s rhs "
                "shape= %s (variable %s; tensor %s of checkpoint %s)" % (
                    _shape_text(target.shape), _shape_text(entry.shape), target.variable_name,
                    target.key, prefix))


def _wrap_restore_error_with_msg(err, extra_verbiage):
    message = ("Restoring from checkpoint failed. This is most likely due to %s from the "
               "checkpoint. Please ensure that you have not altered the graph expected based "
               "on the checkpoint. Original error:\n\n%s" % (extra_verbiage, err.message))
    return type(err)(err.node_def, err.op, message)


# =============================================================================
# Saver
# =============================================================================

def _prepend_name_scope(name, scope):
    """`scope/name` (keeping a leading "^"), as TF's ops.prepend_name_scope."""
    if not scope:
        return name
    scope = scope.rstrip("/")
    if name.startswith("^"):
        return "^%s/%s" % (scope, name[1:])
    return "%s/%s" % (scope, name)


def _copy_saver_def(saver_def):
    """A SaverDef from a SaverDef, any object with its fields, or a dict of them."""
    if isinstance(saver_def, dict):
        return SaverDef.from_dict(saver_def)
    if not all(hasattr(saver_def, field) for field in SaverDef.FIELDS):
        raise ValueError("saver_def must be a saver_pb2.SaverDef: %s" % (saver_def,))
    return SaverDef(**{field: getattr(saver_def, field) for field in SaverDef.FIELDS})


class Saver:
    """Saves and restores variables (see the module docstring for what it builds).

        saver = tf.train.Saver()                       # every global variable
        saver = tf.train.Saver([v1, v2])               # keys "v1", "v2" (their op names)
        saver = tf.train.Saver({"old_name": v1})       # key of your choice
        ...
        path = saver.save(sess, "/tmp/ckpt/model", global_step=step)
        saver.restore(sess, tf.train.latest_checkpoint("/tmp/ckpt"))
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=SaverDef.V2, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = None if saver_def is None else _copy_saver_def(saver_def)
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints = []  # [(prefix, time saved)], oldest first
        self._checkpoints_to_be_deleted = []
        self._restore_targets = None
        if write_version != SaverDef.V2:
            _logger.warning("minitf writes checkpoints in the V2 format only; "
                            "write_version=%s is ignored.", write_version)
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths

    # --- building ------------------------------------------------------------------------
    def build(self):
        """Adds the save and restore ops (done by the constructor unless `defer_build`)."""
        if self._is_built:
            return
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = _all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded,
                max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                name=self._name, restore_sequentially=self._restore_sequentially,
                filename=self._filename)
        elif self._name:
            # Rebuilt from a SaverDef imported under a scope: `name` is that scope.
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(self.saver_def, field,
                        _prepend_name_scope(getattr(self.saver_def, field), self._name))
        self._check_saver_def()
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600)

    def _check_saver_def(self):
        if not self.saver_def.save_tensor_name:
            raise ValueError("saver_def must specify the save_tensor_name: %s"
                             % (self.saver_def,))
        if not self.saver_def.restore_op_name:
            raise ValueError("saver_def must specify the restore_op_name: %s"
                             % (self.saver_def,))

    def as_saver_def(self):
        """The SaverDef: the names of this Saver's nodes and its retention settings."""
        return self.saver_def

    # --- which checkpoints are kept -------------------------------------------------------
    @property
    def last_checkpoints(self):
        """The prefixes of the checkpoints this Saver keeps, oldest first."""
        return [prefix for prefix, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Replaces the list of kept checkpoints (timestamp +inf: never time-preserved)."""
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list, got %r" % (last_checkpoints,))
        self._last_checkpoints = [(prefix, np.inf) for prefix in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the list of kept checkpoints with [(prefix, timestamp)]."""
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list, got %r"
                            % (last_checkpoints_with_time,))
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over checkpoints left by an earlier run, with their files' times.

        Paths whose files are gone are dropped. Usually given
        `get_checkpoint_state(dir).all_model_checkpoint_paths`.
        """
        with_times = []
        for path in checkpoint_paths:
            mtimes = checkpoint_management.get_checkpoint_mtimes([path])
            if mtimes:
                with_times.append((path, mtimes[0]))
        self.set_last_checkpoints_with_time(with_times)

    def _record_last_checkpoint(self, latest_save_path):
        """Appends the new checkpoint; the oldest beyond max_to_keep is marked for deletion."""
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints
                                  if p != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix="meta"):
        """Deletes the checkpoint that fell off the list, unless it is kept for its age.

        With `keep_checkpoint_every_n_hours`, the first checkpoint saved
        after each such period is preserved for good.
        """
        if not self._checkpoints_to_be_deleted:
            return
        prefix, saved_at = self._checkpoints_to_be_deleted.pop(0)
        if saved_at > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            checkpoint_management.remove_checkpoint(prefix, self.saver_def.version,
                                                    meta_graph_suffix)
        except OSError as e:
            _logger.warning("Ignoring: %s", e)

    # --- saving --------------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables to `save_path[-global_step]`; returns that checkpoint prefix.

        Then (with `write_state`) records it in the `checkpoint` file of its
        directory and deletes checkpoints beyond `max_to_keep`, and (with
        `write_meta_graph`) writes `<prefix>.meta`. Returns None for an
        empty Saver (`allow_empty=True` and nothing to save).
        """
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        checkpoint_file = self._checkpoint_file(sess, save_path, global_step, latest_filename)
        if not callable(getattr(sess, "run", None)):
            raise TypeError("'sess' must be a Session; %s" % (sess,))
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = sess.run(
                    self.saver_def.save_tensor_name,
                    {self.saver_def.filename_tensor_name: checkpoint_file})
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if not os.path.isdir(save_path_parent):
                    raise ValueError("Parent directory of {} doesn't exist, can't save.".format(
                        save_path)) from exc
                raise
            model_checkpoint_path = _as_text(model_checkpoint_path)
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                checkpoint_management.update_checkpoint_state(
                    save_dir=save_path_parent, model_checkpoint_path=model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths)
                self._maybe_delete_old_checkpoints(meta_graph_suffix=meta_graph_suffix)
        if write_meta_graph:
            meta_graph_file = checkpoint_management.meta_graph_filename(checkpoint_file,
                                                                         meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(meta_graph_file, strip_default_attrs=strip_default_attrs,
                                       save_debug_info=save_debug_info)
        return model_checkpoint_path

    def _checkpoint_file(self, sess, save_path, global_step, latest_filename):
        """`save_path`, with `-<global_step>` appended when one is given."""
        if global_step is None:
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError("'latest_filename' collides with 'save_path': '%s' and '%s'"
                                 % (latest_filename, save_path))
            return save_path
        if not isinstance(global_step, numbers.Integral):
            global_step = int(sess.run(global_step))
        if self._pad_step_number:
            return "%s-%s" % (save_path, "{:08d}".format(global_step))
        return "%s-%d" % (save_path, global_step)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes the default graph with this Saver's SaverDef as a meta graph; returns it."""
        return meta_graph.export_meta_graph(
            filename=filename, graph_def=ops.get_default_graph().as_graph_def(add_shapes=True),
            saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
            export_scope=export_scope, clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    # --- restoring -----------------------------------------------------------------------
    def restore(self, sess, save_path):
        """Restores the variables from the checkpoint `save_path` (a prefix).

        ValueError when no checkpoint has that prefix; NotFoundError,
        InvalidArgumentError or DataLossError (with TF's "Restoring from
        checkpoint failed" preamble where TF has one) when it does not fit
        the graph or is damaged. In every failing case no variable changes.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        checkpoint_prefix = _as_text(save_path)
        if not checkpoint_management.checkpoint_exists(checkpoint_prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: "
                             + checkpoint_prefix)
        _logger.info("Restoring parameters from %s", checkpoint_prefix)
        try:
            _check_checkpoint_fits(self._targets(sess.graph), checkpoint_prefix)
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: checkpoint_prefix})
        except errors.NotFoundError as err:
            raise _wrap_restore_error_with_msg(
                err, "a Variable name or other graph key that is missing") from None
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error_with_msg(
                err, "a mismatch between the current graph and the graph") from None

    def _targets(self, graph):
        if self._restore_targets is None:
            self._restore_targets = _restore_targets(graph, self.saver_def.restore_op_name)
        return self._restore_targets


def _all_saveable_objects():
    """TF's default var_list: every global variable and every SAVEABLE_OBJECTS entry."""
    return (variables.global_variables()
            + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS))


def _as_text(value):
    if isinstance(value, np.ndarray):
        value = value.item()
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


# =============================================================================
# tf.train.import_meta_graph: a saved graph and its Saver
# =============================================================================

def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Recreates a saved graph in the default graph; returns a Saver for it (or None).

    Args:
      meta_graph_or_file: a MetaGraphDef, or the path of a `.meta` file.
      clear_devices: drop the nodes' devices, to run the graph anywhere.
      import_scope: a name scope to put every imported node (and collection
        item) under.
      **kwargs: `input_map` ({tensor name: Tensor} to replace imported
        inputs), `restore_collections_predicate` (which collections to
        rebuild), `unbound_inputs_col_name`, `return_elements`, `graph`.

    Returns:
      `tf.train.Saver(saver_def=...)` when the meta graph has a SaverDef; a
      new `tf.train.Saver()` when it has none but the graph has variables;
      else None.
    """
    saver, _ = _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs)
    return saver


def _import_meta_graph_with_return_elements(meta_graph_or_file, clear_devices=False,
                                            import_scope=None, graph=None, input_map=None,
                                            unbound_inputs_col_name="unbound_inputs",
                                            restore_collections_predicate=(lambda key: True),
                                            return_elements=None):
    if isinstance(meta_graph_or_file, meta_graph.MetaGraphDef):
        meta_graph_def = meta_graph_or_file
    else:
        meta_graph_def = meta_graph.read_meta_graph_file(meta_graph_or_file)
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        scope, returned = meta_graph.import_scoped_meta_graph_with_return_elements(
            meta_graph_def, _saver_from_def, clear_devices, import_scope, graph, input_map,
            unbound_inputs_col_name, restore_collections_predicate, return_elements)
        saver = _saver_for_imported_graph(graph, meta_graph_def, scope)
    return saver, returned


def _saver_for_imported_graph(graph, meta_graph_def, scope):
    """TF's rule: the stored Saver if any; else a new one if there are variables; else None."""
    if meta_graph_def.saver_def is not None:
        return _saver_from_def(meta_graph_def.saver_def, scope + "/" if scope else None)
    if (graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope or None)
            or graph.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS, scope or None)):
        return Saver()
    _logger.info("Saver not created because there are no variables in the graph to restore")
    return None


def _saver_from_def(saver_def, name):
    """A Saver around the imported nodes `saver_def` names, under the scope `name`.

    It gets a fresh copy of the SaverDef: a Saver rebuilt under a scope
    prefixes the names in its own.
    """
    return Saver(saver_def=SaverDef.from_dict(saver_def_as_dict(saver_def)), name=name)
