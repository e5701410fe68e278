"""Runs every benchmark with its default settings and prints one Markdown report.

    OPENBLAS_NUM_THREADS=1 python bench/run_all.py > results.md

The report is what docs/performance.md records: the machine, then one
section per benchmark (its table, its target, the command that runs it
alone), then a summary of the targets. The core benchmarks (dispatch, the
cost of a run, memory) come first, then the training steps, then two
devices at once, then the distributed runtime (a run through grpc://, a
tensor moved between tasks), then a while loop (without `--tensorflow`: run
`bench_while_loop.py --tensorflow PYTHON` alone for the comparison and its
target; so too the CNN step and the large graph).
"""

import _training  # noqa: F401  before NumPy: pins the BLAS thread count

import os

import _common
import bench_branches
import bench_cnn_step
import bench_dispatch
import bench_embedding_step
import bench_grpc_run
import bench_grpc_transfer
import bench_large_graph
import bench_memory
import bench_mlp_step
import bench_run_overhead
import bench_two_devices
import bench_while_loop

BENCHMARKS = [("bench/bench_dispatch.py", bench_dispatch),
              ("bench/bench_run_overhead.py", bench_run_overhead),
              ("bench/bench_memory.py", bench_memory),
              ("bench/bench_mlp_step.py", bench_mlp_step),
              ("bench/bench_embedding_step.py", bench_embedding_step),
              ("bench/bench_large_graph.py", bench_large_graph),
              ("bench/bench_cnn_step.py", bench_cnn_step),
              ("bench/bench_two_devices.py", bench_two_devices),
              ("bench/bench_branches.py", bench_branches),
              ("bench/bench_grpc_run.py", bench_grpc_run),
              ("bench/bench_grpc_transfer.py", bench_grpc_transfer),
              ("bench/bench_while_loop.py", bench_while_loop)]


def main():
    threads = os.environ.get("OPENBLAS_NUM_THREADS")
    prefix = "OPENBLAS_NUM_THREADS=%s " % threads if threads is not None else ""
    print("# minitf benchmarks\n")
    print("Command: `%s`  " % _common.command_line())
    print("Machine: %s\n" % _common.machine_description())
    summary = []
    for script, module in BENCHMARKS:
        result = module.run()
        print("## %s\n" % result.title)
        print(result.markdown())
        print("\nAlone: `%spython %s`\n" % (prefix, script))
        summary.append([result.title, result.target, "met" if result.met else "**missed**"])
    print("## Summary\n")
    print(_common.markdown_table(["benchmark", "target", "result"], summary))


if __name__ == "__main__":
    main()
