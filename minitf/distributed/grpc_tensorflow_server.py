"""A task of a cluster as a process of its own, serving until it is killed.

    python -m minitf.distributed.grpc_tensorflow_server \\
        --cluster_spec='ps|127.0.0.1:2222,worker|127.0.0.1:2223;127.0.0.1:2224' \\
        --job_name=worker --task_id=1 [--num_cpus=2]

`--cluster_spec` lists the jobs separated by commas, each as
`name|address;address;...` (task 0 first). Once the server is up it prints
`Started server with target: grpc://...` on stdout, which a program that
starts it can wait for.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_tensorflow_server.cc`
(its flags and its message).
"""

import argparse
import sys

from minitf.distributed.server_lib import ClusterSpec, Server
from minitf.session.config import ConfigProto


def parse_cluster_spec(text):
    """`ps|a:1,worker|b:2;c:3` -> ClusterSpec({"ps": ["a:1"], "worker": ["b:2", "c:3"]})."""
    jobs = {}
    for job in text.split(","):
        name, bar, addresses = job.partition("|")
        if not bar or not name or not addresses:
            raise ValueError("Malformed job in --cluster_spec: %r (expected name|host:port;...)"
                             % job)
        if name in jobs:
            raise ValueError("Job %r appears twice in --cluster_spec" % name)
        jobs[name] = addresses.split(";")
    return ClusterSpec(jobs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster_spec", required=True)
    parser.add_argument("--job_name", required=True)
    parser.add_argument("--task_id", type=int, default=0)
    parser.add_argument("--num_cpus", type=int, default=1)
    args = parser.parse_args(argv)
    server = Server(parse_cluster_spec(args.cluster_spec), job_name=args.job_name,
                    task_index=args.task_id,
                    config=ConfigProto(device_count={"CPU": args.num_cpus}))
    print("Started server with target: %s" % server.target, flush=True)
    server.join()


if __name__ == "__main__":
    sys.exit(main())
