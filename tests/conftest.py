"""Shared test setup: chapter markers from folder names, a fresh default graph per test,
and the stand-in GPU (`tests/gpu_standin.py`) for the tests of the GPU path."""

import pathlib
import threading

import pytest

import minitf as tf
from gpu_standin import STAND_IN_XP
from minitf.device import device as device_lib

_CHAPTERS = {"graph", "ops", "session", "executor", "kernels", "device", "autodiff", "train",
             "layers", "feature_column", "saver", "course", "framework",
             "data", "distributed", "control_flow", "config", "losses", "metrics", "platform",
             "profiler", "proto", "summary", "test"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        chapter = pathlib.Path(str(item.fspath)).parent.name
        if chapter in _CHAPTERS:
            item.add_marker(getattr(pytest.mark, chapter))


@pytest.fixture(autouse=True)
def fresh_default_graph():
    """Every test starts with an empty default graph."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def stand_in_gpu():
    """Sessions created in the test see one `GPU:0` backed by the stand-in array module.

    Returns the module (`STAND_IN_XP`); its arrays are `stand_in_gpu.DeviceArray`s.
    """
    previous = device_lib.set_gpu_array_module(STAND_IN_XP, device_count=1)
    yield STAND_IN_XP
    device_lib.restore_gpu_array_module(previous)


def _finishes_within(seconds, fn, *args, **kwargs):
    """fn(*args, **kwargs) run on a thread: its value, or its error re-raised here.

    Fails the test when fn has not returned after `seconds`, so that a hang
    (a Recv nobody wakes, a pool that deadlocks) is a failure, not a stuck run.
    """
    outcome = {}

    def target():
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            outcome["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "did not finish within %s s (hang?)" % seconds
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def finishes_within():
    """`finishes_within(seconds, fn, *args, **kwargs)`: fn's value, failing the test on a hang."""
    return _finishes_within
