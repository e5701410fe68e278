"""The fixed cost of one `session.run` through `grpc://`, against a direct session.

The graph is tiny and fed (`tf.identity(x) * 2.0` of a fed float32 scalar),
so the time of a run is what the runtime costs, whatever the graph. Four
ways to run it:

* `tf.Session()`: DirectSession, in this process;
* `tf.Session(server.target)` to a `create_local_server()` of this process:
  the session calls the server's master directly (TensorFlow's LocalMaster),
  the master runs the step on its own worker;
* the same with `RPCOptions(use_rpc_for_inprocess_master=True)`: one real
  gRPC round trip to the master per run;
* a server in another process: a gRPC round trip between two processes.

The cases take turns, a loop of calls each per round, so that they meet
the same background load; each figure is the best, and the median, of the
rounds. TensorFlow's figures were measured on the same machine by
`tensorflow_grpc.py`, run by hand with TensorFlow installed.

Target: every grpc:// case at most 2x TensorFlow's figure for the same case.
"""

import _training  # noqa: F401  before NumPy: pins the BLAS thread count

import argparse

from _cluster import free_port, runs_in_turns, start_server_process, stop, tiny_fed_graph
from _common import BenchResult, report

import minitf as tf
from minitf.session.config import RPCOptions

# TensorFlow 2.21 (tf.compat.v1), median of 7 rounds of 500 runs, measured on the
# machine of docs/performance.md, idle, with `python bench/tensorflow_grpc.py` (busy, its
# figures grow: up to 2x).
TF_US = {"direct": 150.0, "local server": 270.0, "local server, through gRPC": 510.0,
         "server in another process": 550.0}

SERVER = """
import minitf as tf
server = tf.train.Server({"local": ["127.0.0.1:%d"]}, job_name="local", task_index=0)
print("Started", flush=True)
server.join()
"""


def run(calls=500, rounds=7):
    graph, y, feed_dict = tiny_fed_graph(tf)
    local = tf.train.Server.create_local_server()
    port = free_port()
    remote = start_server_process(SERVER % port)
    try:
        sessions = {
            "direct": tf.Session(graph=graph),
            "local server": tf.Session(local.target, graph=graph),
            "local server, through gRPC": tf.Session(
                local.target, graph=graph,
                config=tf.ConfigProto(rpc_options=RPCOptions(use_rpc_for_inprocess_master=True))),
            "server in another process": tf.Session("grpc://127.0.0.1:%d" % port, graph=graph),
        }
        times = runs_in_turns(sessions, y, feed_dict, calls, rounds)
    finally:
        stop(remote)
    rows, met = [], True
    for name, values in times.items():
        best, median = values[0], values[len(values) // 2]
        ratio = median / TF_US[name]
        if name != "direct":
            met = met and ratio <= 2.0
        rows.append([name, "%.0f" % best, "%.0f" % median, "%.0f" % TF_US[name],
                     "%.2fx" % ratio])
    return BenchResult(
        "Fixed cost of one run through grpc:// (%d rounds of %d runs)" % (rounds, calls),
        ["session", "best µs", "median µs", "TensorFlow µs", "median / TensorFlow"], rows,
        "every grpc:// case ≤ 2x TensorFlow's", met)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="runs per case and round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of every case")
    args = parser.parse_args()
    report(run(args.calls, args.rounds))


if __name__ == "__main__":
    main()
