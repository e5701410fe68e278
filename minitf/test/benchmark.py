"""`tf.test.Benchmark`: time an op over many runs and report the median.

A benchmark is a class of `benchmark*` methods; each times what it measures
and reports it with `report_benchmark(iters=..., wall_time=...)`.
`run_op_benchmark(sess, op)` does the usual case: a few runs to warm up,
then `min_iters` timed runs of `sess.run(op)`, and reports their median
wall time. A report is logged (INFO, to tf.logging) and printed as
TensorFlow prints a BenchmarkEntry:

    entry {
      name: "MatMulBenchmark.benchmark_matmul"
      iters: 10
      wall_time: 0.0012
    }

(TensorFlow also writes the entries to files when run by its own
benchmark tooling, `TEST_REPORT_FILE_PREFIX`; minitf does not. Its own
timings are in bench/, run by hand, and docs/performance.md.)

Mirrors `tensorflow/python/platform/benchmark.py`.
"""

import inspect
import time

from minitf.platform import tf_logging
from minitf.session import ConfigProto, Session


def benchmark_config():
    """The ConfigProto a benchmark's session should use.

    TensorFlow turns off grappler's dependency optimization, which could
    remove the very ops a benchmark runs; minitf's optimizer has no such
    pass, so the default config does.
    """
    return ConfigProto()


class Benchmark:
    """The base class of benchmarks: `report_benchmark` and `run_op_benchmark`."""

    def _get_name(self, overwrite_name=None):
        """"ClassName.method": the benchmark method that called, unless a name is given."""
        if overwrite_name:
            return overwrite_name
        for frame in inspect.stack()[1:]:
            if frame.function.startswith("benchmark"):
                return "%s.%s" % (type(self).__name__, frame.function)
        raise ValueError("Unable to determine calling Benchmark function.")

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Logs and prints one entry of results."""
        name = self._get_name(overwrite_name=name)
        tf_logging.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g, "
                        "throughput: %g, extras: %s, metrics: %s", name,
                        -1 if iters is None else iters, -1 if wall_time is None else wall_time,
                        -1 if cpu_time is None else cpu_time,
                        -1 if throughput is None else throughput, extras or None,
                        metrics or None)
        fields = [("name", '"%s"' % name), ("iters", iters), ("cpu_time", cpu_time),
                  ("wall_time", wall_time), ("throughput", throughput)]
        lines = ["  %s: %s" % (key, value) for key, value in fields if value is not None]
        for key, value in sorted((extras or {}).items()):
            lines.append('  extras {\n    key: "%s"\n    value {\n      %s\n    }\n  }'
                         % (key, _extra_value(value)))
        print("entry {\n%s\n}" % "\n".join(lines))

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None,
                         mbs=0):
        """Runs `op_or_tensor` `burn_iters` times, then times `min_iters` runs; reports and
        returns {"iters", "wall_time" (the median), "extras", "name", "throughput"}."""
        del store_trace, store_memory_usage  # no traces or memory stats are kept
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        median = _median(deltas)
        values = {"iters": min_iters, "wall_time": median, "extras": dict(extras or {}),
                  "name": name, "throughput": mbs / median if median else 0.0}
        self.report_benchmark(**values)
        return values

    def evaluate(self, tensors):
        """The values of `tensors`, in a session of the default graph."""
        with Session() as sess:
            return sess.run(tensors)


def _extra_value(value):
    return ("double_value: %r" % float(value) if isinstance(value, (int, float))
            else 'string_value: "%s"' % value)


def _median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0
