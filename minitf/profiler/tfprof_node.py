"""One graph node as the profiler sees it: a NodeDef, its op log entry, and the steps it ran.

A `TFGraphNode` is built from a NodeDef of the GraphDef the profiler is
given (with `_output_shapes`), then learns its FLOPs and extra types from
the op log, and its run times from each traced step (`RunMetadata`). Its
**parameters** are the number of elements of its `shape` attr, which only
variables and placeholders have; accounting decides which of them count.

When the node ran, its FLOPs are its static count times the number of
times it ran, and its times are the average over the steps the profiler
was given (or one step's, when a step is asked for).

Mirrors `tensorflow/core/profiler/internal/tfprof_node.{h,cc}`.
"""

import re

_CPU_TIME_DEVICE = re.compile(r".*/(device:gpu|gpu|device:cpu|cpu):\d+")


def count_as_accelerator_time(device):
    return "stream:all" in device


def count_as_cpu_time(device):
    """A canonical device (`.../device:cpu:0`, `.../gpu:1`): time there is the op's own."""
    return _CPU_TIME_DEVICE.fullmatch(device) is not None


def is_placed_on_accelerator(device):
    return "gpu" in device


def shape_to_vec(shape):
    """A static shape as the profiler keeps it: dims (-1 unknown), [1] for a scalar, [] unknown."""
    if shape is None or shape.dims is None:
        return []
    if not shape.dims:
        return [1]
    return [-1 if d.value is None else d.value for d in shape.dims]


class ExecStep:
    """One step's executions of one node: (start, micros) per device, and the run count."""

    def __init__(self):
        self.cpu_execs = {}
        self.accelerator_execs = {}
        self.devices = set()
        self.run_count = 0
        self.all_start_micros = 0
        self.latest_end_micros = 0

    def add_time_stats(self, device, node_stats):
        self.devices.add(device)
        if node_stats.all_start_micros <= 0:
            return
        start = node_stats.all_start_micros
        self.all_start_micros = min(self.all_start_micros or start, start)
        micros = node_stats.op_end_rel_micros or 1  # a quick op counts as one microsecond
        self.latest_end_micros = max(self.latest_end_micros, start + micros)
        if count_as_accelerator_time(device):
            self.accelerator_execs.setdefault(device, []).append((start, micros))
        elif count_as_cpu_time(device):
            self.cpu_execs.setdefault(device, []).append((start, micros))
            self.run_count += 1  # a node in a loop runs several times under one name

    def accelerator_exec_micros(self):
        return sum(micros for execs in self.accelerator_execs.values() for _, micros in execs)

    def cpu_exec_micros(self):
        return sum(micros for execs in self.cpu_execs.values() for _, micros in execs)

    def exec_micros(self):
        return self.accelerator_exec_micros() + self.cpu_exec_micros()


class TFGraphNode:
    """A NodeDef with what the op log and the traced steps add to it."""

    def __init__(self, node_def, node_id, nodes_map):
        self.name = node_def.name
        self.op = node_def.op
        self.id = node_id
        self._nodes_map = nodes_map
        self.static_float_ops = 0
        self.canonical_device = ""
        self.host_device = ""
        self.op_types = {node_def.op}
        self.inputs = {}            # input index -> input node name
        self.src_output_idx = {}    # input node name -> its output index
        self.execs = {}             # step -> ExecStep
        shape = node_def.attr.get("shape")
        self.shape = shape_to_vec(shape) if hasattr(shape, "dims") else []
        self.output_shapes = {i: shape_to_vec(s)
                              for i, s in enumerate(node_def.attr.get("_output_shapes", []))}

    def add_input(self, input_name, output_index, input_index):
        self.inputs[input_index] = input_name
        self.src_output_idx[input_name] = output_index

    def add_op_type(self, op_type):
        self.op_types.add(op_type)

    def add_float_ops(self, float_ops):
        self.static_float_ops = float_ops

    def add_step_stat(self, step, device, node_stats):
        device = device.lower()
        if count_as_cpu_time(device):
            if self.canonical_device and self.canonical_device != device:
                return  # TensorFlow, too, keeps a node to its first canonical device
            if not self.canonical_device:
                self.canonical_device = device
                self.host_device = re.sub(r"gpu:\d+", "cpu:0", device)
                self.add_op_type(device)
        self.execs.setdefault(step, ExecStep()).add_time_stats(device, node_stats)

    # --- per-step values: one step's, or the average over all steps (step < 0) ----------
    def _per_step(self, step, value_of):
        if not self.execs:
            return 0
        if step >= 0:
            return value_of(self.execs[step]) if step in self.execs else 0
        return sum(value_of(e) for e in self.execs.values()) // len(self.execs)

    def run_count(self, step):
        return self._per_step(step, lambda e: e.run_count)

    def exec_micros(self, step):
        return self._per_step(step, ExecStep.exec_micros)

    def accelerator_exec_micros(self, step):
        return self._per_step(step, ExecStep.accelerator_exec_micros)

    def cpu_exec_micros(self, step):
        return self._per_step(step, ExecStep.cpu_exec_micros)

    def float_ops(self, step):
        """The static count, or, once the node ran, the static count times its runs."""
        if not self.execs:
            return self.static_float_ops
        return self.static_float_ops * self.run_count(step)

    def parameters(self):
        if self.shape and all(d >= 0 for d in self.shape):
            params = 1
            for d in self.shape:
                params *= d
            return params
        return 0

    def input_shapes(self):
        """Input index -> the static shape of that input ([] when unknown)."""
        shapes = {}
        for index, input_name in sorted(self.inputs.items()):
            source = self._nodes_map.get(input_name)
            output_index = self.src_output_idx.get(input_name)
            found = source is not None and output_index in source.output_shapes
            shapes[index] = list(source.output_shapes[output_index]) if found else []
        return shapes
