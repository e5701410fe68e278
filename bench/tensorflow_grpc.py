"""TensorFlow's figures for bench_grpc_run.py and bench_grpc_transfer.py, on this machine.

    python bench/tensorflow_grpc.py      # with TensorFlow installed (tf.compat.v1)

Run by hand, in an environment that has TensorFlow (minitf's tests and
benchmarks never need it). It measures exactly what the two minitf
benchmarks measure, the same way: the fixed cost of a run of
`tf.identity(x) * 2.0` of a fed scalar (direct, through a local server, the
same through gRPC, a server in another process), and the throughput of a
64 MB float32 tensor moved from task 0 to task 1 (two servers in this
process, two server processes). The figures go into the constants of the
two benchmarks and into docs/performance.md.
"""

import argparse

from _cluster import (free_port, rates, runs_in_turns, start_server_process, stop,
                      tiny_fed_graph, transfer_seconds)

import tensorflow.compat.v1 as tf
from tensorflow.core.protobuf import rpc_options_pb2

tf.disable_eager_execution()
tf.disable_resource_variables()  # TF1's variables, as minitf's

SERVER = """
import tensorflow.compat.v1 as tf
server = tf.train.Server(%r, job_name=%r, task_index=%d)
print("Started", flush=True)
server.join()
"""


def fixed_cost(calls, rounds):
    graph, y, feed_dict = tiny_fed_graph(tf)
    local = tf.train.Server.create_local_server()
    port = free_port()
    remote = start_server_process(SERVER % ({"local": ["127.0.0.1:%d" % port]}, "local", 0))
    try:
        rpc = tf.ConfigProto(rpc_options=rpc_options_pb2.RPCOptions(
            use_rpc_for_inprocess_master=True))
        sessions = {"direct": tf.Session(graph=graph),
                    "local server": tf.Session(local.target, graph=graph),
                    "local server, through gRPC": tf.Session(local.target, graph=graph,
                                                             config=rpc),
                    "server in another process": tf.Session("grpc://127.0.0.1:%d" % port,
                                                            graph=graph)}
        times = runs_in_turns(sessions, y, feed_dict, calls, rounds)
    finally:
        stop(remote)
    for name, values in times.items():
        print("%-28s best %5.0f µs  median %5.0f µs" % (name, values[0],
                                                        values[len(values) // 2]))


def throughput(rounds):
    nbytes = 64 * 2 ** 20
    spec = {"worker": ["127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port()]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in (0, 1)]
    best, median = rates(transfer_seconds(tf, servers[0].target, rounds), nbytes)
    print("%-28s best %5.2f GB/s median %5.2f GB/s" % ("two servers in this process", best,
                                                       median))
    spec = {"worker": ["127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port()]}
    processes = []
    try:
        for task in (0, 1):
            processes.append(start_server_process(SERVER % (spec, "worker", task)))
        best, median = rates(transfer_seconds(tf, "grpc://" + spec["worker"][0], rounds), nbytes)
    finally:
        for process in processes:
            stop(process)
    print("%-28s best %5.2f GB/s median %5.2f GB/s" % ("two server processes", best, median))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--transfers", type=int, default=15)
    args = parser.parse_args()
    print("TensorFlow %s" % tf.__version__)
    fixed_cost(args.calls, args.rounds)
    throughput(args.transfers)


if __name__ == "__main__":
    main()
