"""tf.train.LooperThread: a function called in a loop until the Coordinator says stop."""

import threading

import pytest

import minitf as tf


def test_a_looper_calls_its_target_until_the_coordinator_stops(finishes_within):
    coord = tf.train.Coordinator()
    calls = []
    enough = threading.Event()

    def count(step):
        calls.append(step)
        if len(calls) == 3:
            enough.set()

    looper = tf.train.LooperThread.loop(coord, 0.01, target=count, args=(1,))
    assert enough.wait(5)
    coord.request_stop()
    finishes_within(10, coord.join, [looper], stop_grace_period_secs=5)
    assert calls[:3] == [1, 1, 1] and not looper.is_alive() and looper.daemon


def test_a_subclass_runs_start_loop_run_loop_stop_loop_and_an_error_reaches_join(
        finishes_within):
    events = []

    class Failing(tf.train.LooperThread):
        def start_loop(self):
            events.append("start")

        def run_loop(self):
            events.append("run")
            raise RuntimeError("boom")

    coord = tf.train.Coordinator()
    looper = Failing(coord, None)
    looper.start()
    with pytest.raises(RuntimeError, match="boom"):
        finishes_within(10, coord.join, [looper], stop_grace_period_secs=5)
    assert events == ["start", "run"] and coord.should_stop()


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="'coord' argument must be a Coordinator"):
        tf.train.LooperThread(None, 1)
    with pytest.raises(ValueError, match="require that you also pass 'target'"):
        tf.train.LooperThread(tf.train.Coordinator(), 1, args=(1,))
