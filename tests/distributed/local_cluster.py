"""Real clusters for the tests: one OS process per task, on free ports of 127.0.0.1.

`LocalCluster({"ps": 1, "worker": 2})` picks a free port for every task;
`start()` starts each task as `python -m minitf.distributed.grpc_tensorflow_server`
in a process group of its own and waits (bounded) for its "Started server"
line. `kill(job, index)` SIGKILLs one task's process group, `restart(job,
index)` starts it again on the same port, and `close()` kills everything
left; the `cluster` fixtures call it in a `finally`, so a failing test
leaves no process behind. Client programs run through `run_python`, also
in a process group of their own, killed when they outlive their timeout.
"""

import contextlib
import os
import pathlib
import selectors
import signal
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
START_TIMEOUT_SECS = 60


def free_port():
    """A port of 127.0.0.1 that nothing listens on (the system's choice)."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment():
    """The environment of a child process: this checkout first on its path, one BLAS thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def kill_group(process):
    """SIGKILLs a child's whole process group and reaps the child."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()


class LocalCluster:
    """Tasks as processes (see the module docstring)."""

    def __init__(self, jobs, num_cpus=1):
        self.addresses = {job: ["127.0.0.1:%d" % free_port() for _ in range(count)]
                          for job, count in jobs.items()}
        self.num_cpus = num_cpus
        self._processes = {}

    @property
    def spec(self):
        """The cluster as a dict of job -> addresses (what tf.train.ClusterSpec takes)."""
        return {job: list(addresses) for job, addresses in self.addresses.items()}

    def spec_text(self):
        return ",".join("%s|%s" % (job, ";".join(addresses))
                        for job, addresses in self.addresses.items())

    def target(self, job, index):
        return "grpc://" + self.addresses[job][index]

    def start(self, only=None):
        """Starts every task not running (of the jobs `only` names); returns once all serve."""
        started = [(job, index, self._spawn(job, index))
                   for job, addresses in self.addresses.items()
                   if only is None or job in only
                   for index in range(len(addresses)) if (job, index) not in self._processes]
        for job, index, process in started:
            self._processes[job, index] = process
        for job, index, process in started:
            wait_for_line(process, "Started server with target:", "%s:%d" % (job, index))
        return self

    def _spawn(self, job, index):
        return subprocess.Popen(
            [sys.executable, "-m", "minitf.distributed.grpc_tensorflow_server",
             "--cluster_spec", self.spec_text(), "--job_name", job, "--task_id", str(index),
             "--num_cpus", str(self.num_cpus)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
            cwd=str(ROOT), start_new_session=True)

    def kill(self, job, index):
        process = self._processes.pop((job, index), None)
        if process is not None:
            kill_group(process)

    def restart(self, job, index):
        self.kill(job, index)
        return self.start()

    def pid(self, job, index):
        return self._processes[job, index].pid

    def close(self):
        for key in list(self._processes):
            self.kill(*key)


def wait_for_line(process, prefix, what):
    """Reads the process' output until a line starts with `prefix` (bounded in time)."""
    deadline = time.monotonic() + START_TIMEOUT_SECS
    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                break
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("task %s exited before serving:\n%s" % (what, "".join(seen)))
            seen.append(line)
            if line.startswith(prefix):
                return line
    raise RuntimeError("task %s did not start within %d s:\n%s"
                       % (what, START_TIMEOUT_SECS, "".join(seen)))


def run_python(code, timeout, args=()):
    """Runs `code` in a new Python process (own process group); its CompletedProcess.

    The process is killed, and an AssertionError raised, when it outlives `timeout`.
    """
    process = subprocess.Popen([sys.executable, "-c", code] + [str(a) for a in args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=environment(), cwd=str(ROOT), start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        raise AssertionError("the program did not finish within %s s" % timeout) from None
    finally:
        kill_group(process)
    return subprocess.CompletedProcess(process.args, process.returncode, output)


def start_python(code, args=()):
    """Starts `code` in a new Python process (own process group); the Popen."""
    return subprocess.Popen([sys.executable, "-c", code] + [str(a) for a in args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=environment(), cwd=str(ROOT), start_new_session=True)
