"""`tf.config.experimental`: the devices under their older names, and GPU memory growth.

Only names, from `minitf/session/context.py`; TF 1.15 had the device
functions here before they moved up to `tf.config`
(`VirtualDeviceConfiguration` is `LogicalDeviceConfiguration`).

Mirrors TF 1.15's `tf.config.experimental`.
"""

from minitf.session.context import LogicalDeviceConfiguration as VirtualDeviceConfiguration  # noqa: F401,E501
from minitf.session.context import (get_logical_device_configuration,  # noqa: F401
                                    get_memory_growth, get_visible_devices,
                                    list_logical_devices, list_physical_devices,
                                    set_logical_device_configuration, set_memory_growth,
                                    set_visible_devices)

get_virtual_device_configuration = get_logical_device_configuration
set_virtual_device_configuration = set_logical_device_configuration
