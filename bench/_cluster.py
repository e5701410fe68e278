"""Helpers of the distributed benchmarks: servers in processes, and the two measurements.

Both minitf's benchmarks and `tensorflow_grpc.py` (the same measurements
with TensorFlow, run by hand in an environment that has it) use them: the
measurements take the `tf` module to build their graphs with, minitf or
`tensorflow.compat.v1`, which share the API they need.
"""

import os
import time
import selectors
import signal
import socket
import subprocess
import sys


def free_port():
    """A port of 127.0.0.1 that nothing listens on (the system's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server_process(code, env=None, timeout=120):
    """Runs `code` (which prints "Started" when it serves) in a process group of its own."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env,
                               start_new_session=True)
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while selector.select(timeout):
            line = process.stdout.readline()
            if not line:
                break
            if line.startswith("Started"):
                return process
    stop(process)
    raise RuntimeError("the server process did not start")


def stop(process):
    """Kills a process started by `start_server_process`, and its group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()


def rates(seconds_per_step, nbytes):
    """(best, median) GB/s of steps that each moved `nbytes`."""
    ordered = sorted(seconds_per_step)
    return nbytes / ordered[0] / 1e9, nbytes / ordered[len(ordered) // 2] / 1e9


def tiny_fed_graph(tf):
    """(graph, fetch, feed_dict): `tf.identity(x) * 2.0` of a fed float32 scalar."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.identity(x) * 2.0
    return graph, y, {x: 1.5}


def per_run_us(sess, fetch, feed_dict, calls):
    """Microseconds per `sess.run(fetch, feed_dict)`, over `calls` runs."""
    start = time.perf_counter()
    for _ in range(calls):
        sess.run(fetch, feed_dict)
    return (time.perf_counter() - start) / calls * 1e6


def runs_in_turns(sessions, fetch, feed_dict, calls, rounds):
    """{name: sorted µs per run, one figure per round}, the sessions taking turns.

    Each session is warmed up first (its first runs register graphs and build
    executors), and closed at the end.
    """
    for sess in sessions.values():
        per_run_us(sess, fetch, feed_dict, 50)
    times = {name: [] for name in sessions}
    for _ in range(rounds):
        for name, sess in sessions.items():
            times[name].append(per_run_us(sess, fetch, feed_dict, calls))
    for sess in sessions.values():
        sess.close()
    return {name: sorted(values) for name, values in times.items()}


def transfer_seconds(tf, target, rounds, megabytes=64):
    """Seconds per transfer of a float32 tensor from task 0 to task 1, one figure per round.

    A step that reads the tensor on task 1, minus one that reads it on task
    0 (where it lives), taken in turns.
    """
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            tensor = tf.Variable(tf.ones([megabytes * 2 ** 20 // 4]), name="tensor")
            read_here = tensor[0:1] * 1.0
        with tf.device("/job:worker/task:1"):
            read_there = tensor[0:1] * 1.0
        with tf.Session(target) as sess:
            sess.run(tensor.initializer)
            for _ in range(3):
                sess.run([read_here])
                sess.run([read_there])
            seconds = []
            for _ in range(rounds):
                start = time.perf_counter()
                sess.run(read_there)
                there = time.perf_counter() - start
                start = time.perf_counter()
                sess.run(read_here)
                seconds.append(there - (time.perf_counter() - start))
    return seconds
