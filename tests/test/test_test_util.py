"""tf.test.TestCase and the tf.test namespace.

The helpers are exercised from inside a TestCase, as TF programs use them,
and each comparison is also made to fail where it should. Messages follow
TF's test_util.py.
"""

import collections
import os
import pathlib
import subprocess
import sys
import unittest

import numpy as np

import minitf as tf


class TestCaseHelpers(tf.test.TestCase):

    # --- comparisons -------------------------------------------------------------
    def test_assert_all_close_passes_within_tolerance(self):
        self.assertAllClose([1.0, 2.0], np.array([1.0, 2.0 + 1e-7]))
        self.assertAllClose(1.0, 1.0 + 5e-7)
        self.assertAllClose([1.0, 2.0], [1.1, 2.2], rtol=0.2)

    def test_assert_all_close_fails_outside_tolerance(self):
        with self.assertRaisesRegex(AssertionError, "not close where"):
            self.assertAllClose([1.0, 2.0], [1.0, 2.001])
        with self.assertRaisesRegex(AssertionError, "not close lhs"):
            self.assertAllClose(3.0, 3.1)

    def test_assert_all_close_checks_shapes(self):
        with self.assertRaisesRegex(AssertionError, r"Shape mismatch: expected \(2,\), got \(3,\)"):
            self.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])

    def test_assert_all_close_on_nested_structures(self):
        point = collections.namedtuple("Point", ["x", "y"])
        a = {"w": [np.ones(2), (3.0, np.zeros([2, 2]))], "p": point(1.0, [2.0])}
        b = {"w": [np.ones(2), (3.0, np.zeros([2, 2]))], "p": point(1.0, [2.0])}
        self.assertAllClose(a, b)
        b["w"][1] = (3.0, np.full([2, 2], 0.5))
        with self.assertRaisesRegex(AssertionError, r"a\[w\]\[1\]\[1\] is different"):
            self.assertAllClose(a, b)
        with self.assertRaisesRegex(ValueError, "Can't compare dict to non-dict"):
            self.assertAllClose({"a": 1.0}, [1.0])
        with self.assertRaisesRegex(AssertionError, "mismatched keys"):
            self.assertAllClose({"a": 1.0}, {"b": 1.0})

    def test_assert_all_close_evaluates_tensors(self):
        self.assertAllClose(tf.constant([1.0, 2.0]) * 2.0, [2.0, 4.0])

    def test_assert_all_close_according_to_type_loosens_for_float32(self):
        a = np.array([1.0], dtype=np.float32)
        self.assertAllCloseAccordingToType(a, a + np.float32(5e-7))
        self.assertAllCloseAccordingToType(a.astype(np.float16), np.array([1.0005], np.float16))
        with self.assertRaises(AssertionError):
            self.assertAllClose(a.astype(np.float16), np.array([1.0005], np.float16))

    def test_assert_all_equal(self):
        self.assertAllEqual([[1, 2], [3, 4]], np.array([[1, 2], [3, 4]]))
        self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])
        with self.assertRaisesRegex(AssertionError, "not equal where"):
            self.assertAllEqual([1, 2, 3], [1, 2, 4])
        with self.assertRaisesRegex(AssertionError, "Shape mismatch"):
            self.assertAllEqual([1, 2], [[1, 2]])

    def test_assert_shape_equal(self):
        t = tf.placeholder(tf.float32, [2, 3])
        self.assertShapeEqual(np.zeros([2, 3]), t)
        with self.assertRaises(AssertionError):
            self.assertShapeEqual(np.zeros([3, 2]), t)
        with self.assertRaisesRegex(TypeError, "np_array must be a Numpy ndarray"):
            self.assertShapeEqual([1, 2], t)

    def test_assert_near_and_array_near(self):
        self.assertNear(1.0, 1.05, 0.1)
        self.assertNear(float("inf"), float("inf"), 0.0)
        with self.assertRaisesRegex(AssertionError, r"1.000000 != 1.200000 \+/- 0.100000"):
            self.assertNear(1.0, 1.2, 0.1)
        self.assertArrayNear([1.0, 2.0], [1.01, 1.99], 0.02)
        with self.assertRaises(AssertionError):
            self.assertArrayNear([1.0, 2.0], [1.0, 2.5], 0.1)

    # --- errors ---------------------------------------------------------------------
    def test_assert_raises_op_error_matches_runtime_errors(self):
        x = tf.placeholder(tf.float32, [2])
        with self.cached_session() as sess:
            with self.assertRaisesOpError("You must feed a value for placeholder"):
                sess.run(x * 2.0)

    def test_assert_raises_op_error_fails_on_other_messages_and_no_error(self):
        x = tf.placeholder(tf.float32, [2])
        with self.cached_session() as sess:
            with self.assertRaisesRegex(AssertionError, "Exception of type"):
                with self.assertRaisesOpError("something else entirely"):
                    sess.run(x * 2.0)
        with self.assertRaisesRegex(AssertionError, "OpError not raised"):
            with self.assertRaisesOpError("anything"):
                pass

    def test_assert_raises_with_predicate_match(self):
        with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "boom" in str(e)):
            raise ValueError("boom")
        with self.assertRaisesWithPredicateMatch(ValueError, r"b.o+m"):
            raise ValueError("a boom")
        with self.assertRaisesRegex(AssertionError, "Exception of type"):
            with self.assertRaisesWithPredicateMatch(ValueError, "boom"):
                raise TypeError("boom")

    # --- sessions -------------------------------------------------------------------
    def test_cached_session_is_reused_and_is_the_default(self):
        with self.cached_session() as first:
            self.assertIs(tf.get_default_session(), first)
            self.assertIs(first.graph, tf.get_default_graph())
        with self.cached_session() as second:
            self.assertIs(second, first)
        with self.test_session() as third:
            self.assertIs(third, first)
        with self.assertRaisesRegex(ValueError, "graph used to get the cached session"):
            with self.cached_session(graph=tf.Graph()):
                pass

    def test_session_is_new_each_time(self):
        with self.session() as first:
            self.assertIs(tf.get_default_session(), first)
        with self.session() as second:
            self.assertIsNot(second, first)

    def test_session_pins_ops_to_the_cpu_unless_a_gpu_is_allowed(self):
        with self.session():
            on_cpu = tf.constant(1.0)
        with self.session(use_gpu=True):
            free = tf.constant(2.0)
        self.assertEqual(on_cpu.op.device, "/device:CPU:0")
        self.assertEqual(free.op.device, "")

    def test_session_on_another_graph(self):
        graph = tf.Graph()
        with graph.as_default():
            c = tf.constant(3.0)
        with self.session(graph=graph) as sess:
            self.assertIs(sess.graph, graph)
            self.assertEqual(sess.run(c), 3.0)

    def test_evaluate_nested_structures(self):
        a = tf.constant([1.0, 2.0])
        b = tf.constant(3)
        point = collections.namedtuple("Point", ["x", "y"])
        result = self.evaluate({"a": a, "pair": (b, [a * 2.0]), "p": point(b, a)})
        self.assertAllEqual(result["a"], [1.0, 2.0])
        self.assertEqual(result["pair"][0], 3)
        self.assertAllEqual(result["pair"][1][0], [2.0, 4.0])
        self.assertIsInstance(result["p"], point)
        self.assertEqual(result["p"].x, 3)

    def test_evaluate_uses_the_default_session(self):
        v = tf.Variable(5.0)
        with self.cached_session() as sess:
            sess.run(v.initializer)
            self.assertEqual(self.evaluate(v), 5.0)

    # --- setUp and temp dirs ----------------------------------------------------------
    def test_setup_gives_a_fresh_seeded_graph(self):
        graph = tf.get_default_graph()
        self.assertEqual(graph.get_operations(), [])
        self.assertEqual(graph.seed, 87654321)  # random_seed.DEFAULT_GRAPH_SEED, as TF

    def test_get_temp_dir_exists_and_is_stable(self):
        path = self.get_temp_dir()
        self.assertTrue(os.path.isdir(path))
        self.assertEqual(self.get_temp_dir(), path)


def test_test_session_is_not_collected_as_a_test():
    names = unittest.defaultTestLoader.getTestCaseNames(TestCaseHelpers)
    assert "test_session" in names  # unittest's loader does find it by its name ...
    result = unittest.TestResult()
    TestCaseHelpers("test_session").run(result)
    assert len(result.skipped) == 1  # ... and TF's setUp skips it as "Not a test."
    assert TestCaseHelpers.test_session.__test__ is False  # pytest leaves it out


def test_a_failing_test_case_is_reported_by_unittest():
    class Failing(tf.test.TestCase):
        def runTest(self):  # noqa: N802 - unittest's name
            self.assertAllClose([1.0], [2.0])

    result = unittest.TestResult()
    Failing().run(result)
    assert len(result.failures) == 1
    assert "not close" in result.failures[0][1]


def test_namespace():
    assert tf.test.is_built_with_cuda() is False
    assert tf.test.is_gpu_available() == bool(tf.test.gpu_device_name())
    assert tf.test.gpu_device_name() in ("", "/device:GPU:0")
    assert os.path.isdir(tf.test.get_temp_dir())


_SCRIPT = """
import minitf as tf

class T(tf.test.TestCase):
    def test_passes(self):
        self.assertAllEqual(self.evaluate(tf.constant([1, 2]) * 2), [2, 4])

    def test_fails(self):
        self.assertAllClose(1.0, 2.0)

if __name__ == "__main__":
    tf.test.main()
"""


def test_main_runs_the_tests_of_the_script(tmp_path):
    script = tmp_path / "script_test.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(tf.__file__).parent.parent))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 1
    # unittest also finds the test_session helper, which setUp skips (as in TF).
    assert "Ran 3 tests" in done.stderr
    assert "FAILED (failures=1, skipped=1)" in done.stderr
