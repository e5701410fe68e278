"""`tf.test.Benchmark`: timed runs of an op, reported as TensorFlow reports them."""

import pytest

import minitf as tf


class MatMulBenchmark(tf.test.Benchmark):

    def benchmark_matmul(self):
        x = tf.ones([4, 4])
        with tf.Session(config=tf.test.benchmark_config()) as sess:
            return self.run_op_benchmark(sess, tf.matmul(x, x), min_iters=5,
                                         extras={"size": 4})


def test_run_op_benchmark_reports_the_median(capsys):
    values = MatMulBenchmark().benchmark_matmul()
    assert values["iters"] == 5 and values["wall_time"] > 0 and values["extras"] == {"size": 4}
    printed = capsys.readouterr().out
    assert printed.startswith('entry {\n  name: "MatMulBenchmark.benchmark_matmul"\n'
                              '  iters: 5\n  wall_time: ')
    assert 'key: "size"' in printed and "double_value: 4.0" in printed


def test_report_benchmark_needs_a_benchmark_method_or_a_name(capsys):
    bench = tf.test.Benchmark()
    bench.report_benchmark(iters=3, wall_time=0.5, name="named")
    assert capsys.readouterr().out == 'entry {\n  name: "named"\n  iters: 3\n  wall_time: 0.5\n}\n'
    with pytest.raises(ValueError, match="Unable to determine calling Benchmark function"):
        bench.report_benchmark(iters=1)


def test_evaluate():
    assert tf.test.Benchmark().evaluate(tf.constant(2) * 3) == 6
