"""`tf.config`: the process's settings for new sessions: threads, placement, devices.

Only names: the settings are recorded in `minitf/session/context.py`, and a
session created without a `ConfigProto` takes its config from them.

* `tf.config.threading`: the inter- and intra-op thread counts;
* `tf.config.optimizer`: the graph optimizer's options;
* `tf.config.experimental`: the devices again, under TF 1.15's older names,
  and memory growth.

`run_functions_eagerly` and its kin are recorded only: minitf leaves
`tf.function` out (docs/coverage.md).

Mirrors TF 1.15's `tf.config` namespace (`tensorflow/python/framework/config.py`).
"""

from minitf.config import experimental, optimizer, threading  # noqa: F401
from minitf.graph import tf1_api as _tf1_api
from minitf.session.context import (LogicalDevice, LogicalDeviceConfiguration,  # noqa: F401
                                    PhysicalDevice, functions_run_eagerly,
                                    get_logical_device_configuration,
                                    get_soft_device_placement, get_visible_devices,
                                    list_logical_devices, list_physical_devices,
                                    run_functions_eagerly, set_logical_device_configuration,
                                    set_soft_device_placement, set_visible_devices)

experimental_functions_run_eagerly = functions_run_eagerly
experimental_run_functions_eagerly = run_functions_eagerly


def __getattr__(name):
    """Called for a name this module lacks: says so when it is one of TF 1.15's."""
    raise _tf1_api.missing_name_error("tf.config", __name__, name)
