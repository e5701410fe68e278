"""The throughput of one 64 MB float32 tensor moved from one task to another.

A 64 MB variable lives on `/job:worker/task:0`; a step reads one element
of it on `/job:worker/task:1`, so the whole tensor crosses from task 0's
worker to task 1's (a RecvTensor, in 4 MB chunks), and a step that reads it
on task 0 moves nothing. The time of a transfer is the difference of the
two steps, taken in turns; the rate is 64 MB over it (best and median of
the rounds). Two set-ups:

* two servers in this process (as TensorFlow's figure was measured): the
  tensor still goes through gRPC, on 127.0.0.1;
* two server processes, the client in a third.

TensorFlow's figures were measured on the same machine by
`tensorflow_grpc.py`, run by hand with TensorFlow installed.

Target: at least 0.5x TensorFlow's throughput.
"""

import _training  # noqa: F401  before NumPy: pins the BLAS thread count

import argparse

from _cluster import free_port, rates, start_server_process, stop, transfer_seconds
from _common import BenchResult, report

import minitf as tf

MEGABYTES = 64
# TensorFlow 2.21 (tf.compat.v1), GB/s: the median of four runs' medians of 15 rounds, on
# the machine of docs/performance.md, with `python bench/tensorflow_grpc.py`.
TF_GB_PER_S = {"two servers in this process": 1.2, "two server processes": 1.3}

SERVER = """
import minitf as tf
server = tf.train.Server(%r, job_name="worker", task_index=%d)
print("Started", flush=True)
server.join()
"""


def run(rounds=15):
    nbytes = MEGABYTES * 2 ** 20
    results = {}
    spec = {"worker": ["127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port()]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in (0, 1)]
    results["two servers in this process"] = rates(
        transfer_seconds(tf, servers[0].target, rounds, MEGABYTES), nbytes)
    spec = {"worker": ["127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port()]}
    processes = []
    try:
        for task in (0, 1):
            processes.append(start_server_process(SERVER % (spec, task)))
        results["two server processes"] = rates(
            transfer_seconds(tf, "grpc://" + spec["worker"][0], rounds, MEGABYTES), nbytes)
    finally:
        for process in processes:
            stop(process)
    rows, met = [], True
    for name, (best, median) in results.items():
        ratio = median / TF_GB_PER_S[name]
        met = met and ratio >= 0.5
        rows.append([name, "%.2f" % best, "%.2f" % median, "%.2f" % TF_GB_PER_S[name],
                     "%.2fx" % ratio])
    return BenchResult(
        "Moving a %d MB float32 tensor between tasks (%d rounds)" % (MEGABYTES, rounds),
        ["set-up", "best GB/s", "median GB/s", "TensorFlow GB/s", "median / TensorFlow"],
        rows, "≥ 0.5x TensorFlow's throughput", met)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="transfers per set-up")
    args = parser.parse_args()
    report(run(args.rounds))


if __name__ == "__main__":
    main()
