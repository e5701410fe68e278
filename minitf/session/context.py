"""The process's settings for new sessions: what `tf.config` sets, and `tf.Session()` reads.

A TF1 program configures a session with a `ConfigProto`. TF 1.15 added a
second way, process-wide: `tf.config.threading.set_inter_op_parallelism_threads(2)`,
`tf.config.set_soft_device_placement(True)`, `tf.config.set_visible_devices([], "GPU")`.
These record the settings in one place (TensorFlow's eager "context"), and
a session created without a config (`tf.Session()`) takes its config from
there: `default_config()`. A session given a `ConfigProto` uses that one
alone, as in TensorFlow.

The devices: `list_physical_devices()` gives the hardware (one CPU, and a
GPU per CUDA device or per stand-in, `minitf/device/device.py`);
`list_logical_devices()` gives the devices a session will have. The CPU can
be split into several logical CPUs (`set_logical_device_configuration`,
which becomes `device_count={"CPU": n}`), GPUs can be hidden, from the last
one (`set_visible_devices`, which becomes `device_count={"GPU": n}`).

Mirrors `tensorflow/python/eager/context.py` (its settings and `config`)
and `tensorflow/python/framework/config.py`.
"""

import collections

from minitf.device import device as device_lib
from minitf.session.config import ConfigProto, OptimizerOptions

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(
        collections.namedtuple("LogicalDeviceConfiguration",
                               ["memory_limit", "experimental_priority",
                                "experimental_device_ordinal"])):
    """One logical device to make of a physical one (`memory_limit` in MB, for GPUs)."""

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


class _Settings:
    """The recorded settings; TF 1.15's defaults until something is set."""

    def __init__(self):
        self.intra_op_parallelism_threads = 0
        self.inter_op_parallelism_threads = 0
        self.soft_device_placement = False
        self.log_device_placement = False
        self.visible_gpus = None            # how many GPUs stay visible; None: all
        self.logical_devices = {}           # PhysicalDevice -> [LogicalDeviceConfiguration]
        self.memory_growth = {}             # PhysicalDevice (a GPU) -> bool
        self.optimizer_options = {}         # tf.config.optimizer's experimental options
        self.jit = False
        self.run_functions_eagerly = False


_settings = _Settings()


def settings():
    """The recorded settings (read them; change them with the functions below)."""
    return _settings


def default_config():
    """The ConfigProto of a session created without one, from the recorded settings."""
    s = _settings
    config = ConfigProto(intra_op_parallelism_threads=s.intra_op_parallelism_threads,
                         inter_op_parallelism_threads=s.inter_op_parallelism_threads,
                         allow_soft_placement=s.soft_device_placement,
                         log_device_placement=s.log_device_placement)
    cpus = s.logical_devices.get(_physical_cpu())
    if cpus:
        config.device_count["CPU"] = len(cpus)
    if s.visible_gpus is not None:
        config.device_count["GPU"] = s.visible_gpus
    if any(s.memory_growth.values()):
        config.gpu_options.allow_growth = True
    if s.optimizer_options.get("constant_folding") is False \
            or s.optimizer_options.get("disable_meta_optimizer"):
        config.graph_options.optimizer_options.opt_level = OptimizerOptions.L0
    return config


# --- threads, placement (tf.config.threading, tf.config, tf.debugging) --------------------

def get_intra_op_parallelism_threads():
    """The threads one op may use (0: the system picks)."""
    return _settings.intra_op_parallelism_threads


def set_intra_op_parallelism_threads(num_threads):
    """Records the threads one op may use (a new session's `intra_op_parallelism_threads`)."""
    _settings.intra_op_parallelism_threads = _thread_count(num_threads)


def get_inter_op_parallelism_threads():
    """The threads that run independent ops at the same time (0: one per core)."""
    return _settings.inter_op_parallelism_threads


def set_inter_op_parallelism_threads(num_threads):
    """Records the threads that run independent ops at the same time."""
    _settings.inter_op_parallelism_threads = _thread_count(num_threads)


def _thread_count(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("The number of threads must be a non-negative int, got %r" % (value,))
    return value


def get_soft_device_placement():
    """Whether an op may move to another device when its own cannot run it."""
    return _settings.soft_device_placement


def set_soft_device_placement(enabled):
    _settings.soft_device_placement = bool(enabled)


def get_log_device_placement():
    """Whether a session prints the device of every node it places."""
    return _settings.log_device_placement


def set_log_device_placement(enabled):
    _settings.log_device_placement = bool(enabled)


# --- tf.function and XLA, which minitf leaves out: recorded only --------------------------

def run_functions_eagerly(run_eagerly):
    """Recorded (`functions_run_eagerly` reports it); minitf has no `tf.function` to run."""
    _settings.run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly():
    return _settings.run_functions_eagerly


def get_jit():
    """Whether XLA compilation was asked for (recorded; minitf has no XLA)."""
    return _settings.jit


def set_jit(enabled):
    _settings.jit = bool(enabled)


# --- tf.config.optimizer ------------------------------------------------------------------

def get_experimental_options():
    """The graph optimizer's options set so far ({"constant_folding": False, ...})."""
    return dict(_settings.optimizer_options)


def set_experimental_options(options):
    """Records options of the graph optimizer; `constant_folding: False` (or
    `disable_meta_optimizer: True`) turns minitf's passes off for new sessions, as
    `OptimizerOptions.L0` does (minitf/session/graph_optimizer.py)."""
    _settings.optimizer_options.update(options)


# --- devices -----------------------------------------------------------------------------

def _physical_cpu():
    return PhysicalDevice("/physical_device:CPU:0", "CPU")


def _physical_gpus():
    _, count = device_lib.gpu_array_module()
    return [PhysicalDevice("/physical_device:GPU:%d" % i, "GPU") for i in range(count)]


def list_physical_devices(device_type=None):
    """The machine's devices: one CPU, and its GPUs (all of them, hidden or not)."""
    devices = [_physical_cpu()] + _physical_gpus()
    return [d for d in devices if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type=None):
    """The physical devices a session may use."""
    gpus = _physical_gpus()
    if _settings.visible_gpus is not None:
        gpus = gpus[:_settings.visible_gpus]
    devices = [_physical_cpu()] + gpus
    return [d for d in devices if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    """Makes only `devices` (of `device_type`, or of every type) visible to new sessions.

    The CPU cannot be hidden (the host runs what no other device can), and
    minitf hides GPUs from the last one: the visible GPUs must be the first ones.
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        if not isinstance(d, PhysicalDevice) or d not in list_physical_devices():
            raise ValueError("Unrecognized device: %r" % (d,))
    if device_type in (None, "CPU") and _physical_cpu() not in devices:
        raise ValueError("CPU can not be hidden: a session always needs the host's CPU")
    if device_type in (None, "GPU"):
        visible = [d for d in devices if d.device_type == "GPU"]
        if visible != _physical_gpus()[:len(visible)]:
            raise ValueError("minitf hides GPUs from the last one: the visible GPUs must be "
                             "GPU:0 to GPU:%d, got %s" % (len(visible) - 1,
                                                          [d.name for d in visible]))
        _settings.visible_gpus = len(visible)


def get_logical_device_configuration(device):
    """The LogicalDeviceConfigurations set for a physical device, or None."""
    return _settings.logical_devices.get(device)


def set_logical_device_configuration(device, logical_devices):
    """Makes several logical devices of one physical device (several CPUs of the CPU).

    None removes the setting. minitf splits only the CPU; a GPU takes one
    configuration (its `memory_limit` is recorded, not enforced).
    """
    if device not in list_physical_devices():
        raise ValueError("Unrecognized device: %r" % (device,))
    if logical_devices is None:
        _settings.logical_devices.pop(device, None)
        return
    logical_devices = list(logical_devices)
    if not logical_devices or not all(isinstance(c, LogicalDeviceConfiguration)
                                      for c in logical_devices):
        raise ValueError("logical_devices must be a non-empty list of "
                         "LogicalDeviceConfiguration, got %r" % (logical_devices,))
    if device.device_type == "GPU" and len(logical_devices) > 1:
        raise ValueError("minitf cannot split %s into %d logical devices: only the CPU can "
                         "be split" % (device.name, len(logical_devices)))
    _settings.logical_devices[device] = logical_devices


def list_logical_devices(device_type=None):
    """The devices a session created now will have (`/device:CPU:0`, ...)."""
    config = default_config()
    cpus = config.device_count.get("CPU", 1)
    gpus = len(get_visible_devices("GPU"))
    devices = ([LogicalDevice("/device:CPU:%d" % i, "CPU") for i in range(cpus)]
               + [LogicalDevice("/device:GPU:%d" % i, "GPU") for i in range(gpus)])
    return [d for d in devices if device_type is None or d.device_type == device_type]


def set_memory_growth(device, enable):
    """Records that `device` (a GPU) should take memory as it needs it (`allow_growth`)."""
    if device not in _physical_gpus():
        raise ValueError("Unrecognized device: %r" % (device,))
    _settings.memory_growth[device] = bool(enable)


def get_memory_growth(device):
    if device not in _physical_gpus():
        raise ValueError("Unrecognized device: %r" % (device,))
    return _settings.memory_growth.get(device, False)


def reset():
    """Back to the defaults (for tests)."""
    global _settings
    _settings = _Settings()
