"""`tf.test.TestCase`: unittest.TestCase with TensorFlow's helpers.

TF programs come with tests written against `tf.test.TestCase`; this class
lets them run unchanged. Each test starts with a fresh default graph and
fixed seeds. The helpers fall in three groups:

* sessions: `cached_session()` (one session per test, reused), `session()`
  (a new one each time), `test_session()` (the older name), `evaluate()`
  (run tensors, nested structures included, in the default session);
* comparisons that understand arrays and tensors: `assertAllClose` (nested
  lists, tuples, dicts and namedtuples too), `assertAllEqual`,
  `assertAllCloseAccordingToType`, `assertShapeEqual`, `assertArrayNear`,
  `assertNear`;
* errors: `assertRaisesOpError`, `assertRaisesWithPredicateMatch`.

Mirrors `tensorflow/python/framework/test_util.py` (TensorFlowTestCase).
"""

import collections.abc
import contextlib
import math
import random
import re
import shutil
import tempfile
import unittest

import numpy as np

from minitf.device.device import local_devices
from minitf.graph import errors, ops, random_seed
from minitf.session import ConfigProto, OptimizerOptions, Session


class TestCase(unittest.TestCase):
    """Base class for tests of minitf programs (TF's `tf.test.TestCase`)."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._cached_session = None
        self._cached_args = None
        self._tempdir = None

    def setUp(self):
        self._clear_cached_session()
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        # A failed earlier test may have left a `with g.as_default():` open.
        ops._default_graph_stack.stack.clear()
        ops.reset_default_graph()
        ops.get_default_graph().seed = random_seed.DEFAULT_GRAPH_SEED
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")  # the helper below, found by unittest's loader

    def tearDown(self):
        self._clear_cached_session()

    def get_temp_dir(self):
        """A temporary directory for this test, removed when the test ends."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(prefix="minitf_test_")
            self.addCleanup(shutil.rmtree, self._tempdir, True)
        return self._tempdir

    # --- sessions ------------------------------------------------------------------
    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A new session on `graph` (default: the default graph), made the default."""
        with self._create_session(graph, config, force_gpu) as sess:
            with self._constrain_devices(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """The test's one session, created at the first call and reused by later ones."""
        sess = self._get_cached_session(graph, config, force_gpu)
        with self._constrain_devices(sess, use_gpu, force_gpu):
            yield sess

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """The older name: `cached_session` on the default graph, `session` on another."""
        if graph is None:
            with self.cached_session(None, config, use_gpu, force_gpu) as sess:
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    test_session.__test__ = False  # a helper, not a test (pytest reads this)

    def evaluate(self, tensors):
        """The values of `tensors` (any nesting `Session.run` accepts) in the default session."""
        sess = ops.get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def _create_session(self, graph, config, force_gpu):
        if config is None:
            config = ConfigProto()
            # Without a GPU the ops asked to run on one fall back to the CPU.
            config.allow_soft_placement = not force_gpu
        # As in TensorFlow's tests: no constant folding, or a test of an op on
        # constant inputs would check the folding (on the host), not the step's kernel.
        config.graph_options.optimizer_options.opt_level = OptimizerOptions.L0
        return Session(graph=graph, config=config)

    def _get_cached_session(self, graph, config, force_gpu):
        if self._cached_session is None:
            self._cached_session = self._create_session(graph, config, force_gpu)
            self._cached_args = (graph, config, force_gpu)
            return self._cached_session
        for what, cached, given in zip(("graph", "config", "force_gpu value"), self._cached_args,
                                       (graph, config, force_gpu)):
            if cached is not given:
                raise ValueError("The %s used to get the cached session is different than the "
                                 "one that was used to create the session. Maybe create a new "
                                 "session with self.session()" % what)
        return self._cached_session

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    @contextlib.contextmanager
    def _constrain_devices(self, sess, use_gpu, force_gpu):
        """Pins the ops built inside to the CPU, unless a GPU is allowed or required."""
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device("/device:GPU:0"):
                    yield sess
            elif not use_gpu:
                with sess.graph.device("/device:CPU:0"):
                    yield sess
            else:
                yield sess

    # --- comparisons -----------------------------------------------------------------
    def _GetNdArray(self, a):  # noqa: N802 - TF's name
        """`a` as an ndarray; a tensor is evaluated first."""
        if isinstance(a, ops.Tensor):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            return np.array(a)
        return a

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        """|f1 - f2| <= err (equal infinities pass)."""
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        "%f != %f +/- %f%s" % (f1, f2, err,
                                                " (%s)" % msg if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        """Element by element assertNear over two flat sequences of the same length."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """|a - b| <= atol + rtol * |b| everywhere; a and b may be nested structures."""
        self._assert_all_close_recursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, **kwargs):  # noqa: N802
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """assertAllClose with looser tolerances for float32 and float16 values."""
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if np.float32 in (a.dtype, b.dtype) or np.complex64 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Same shape and the same elements (NaN equals NaN)."""
        msg = msg if msg else ""
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        contents = " Contents: %s. \n" % (b,) if b.ndim <= 3 or b.size < 500 else " "
        self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s.%s%s."
                         % (a.shape, b.shape, contents, msg))
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            diff = np.logical_not(same)
            msgs = [msg]
            if a.ndim:
                msgs.append("not equal where = {}".format(np.where(diff)))
                x, y = a[np.where(diff)], b[np.where(diff)]
            else:
                x, y = a, b
            msgs.append("not equal lhs = {}".format(x))
            msgs.append("not equal rhs = {}".format(y))
            np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        """The static shape of `tf_tensor` equals the shape of `np_array`."""
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, ops.Tensor):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def _assert_array_like_all_close(self, a, b, rtol, atol, msg):
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_msg = ("Shape mismatch: expected %s, got %s with contents %s."
                         % (a.shape, b.shape, b))
        else:
            shape_msg = "Shape mismatch: expected %s, got %s." % (a.shape, b.shape)
        self.assertEqual(a.shape, b.shape, shape_msg)
        if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            return
        # Name the elements that are not close, then let NumPy raise.
        cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b),
                             np.isnan(a) != np.isnan(b))
        msgs = [msg]
        if a.ndim:
            x, y = a[np.where(cond)], b[np.where(cond)]
            msgs.append("not close where = {}".format(np.where(cond)))
        else:
            x, y = a, b
        msgs.append("not close lhs = {}".format(x))
        msgs.append("not close rhs = {}".format(y))
        msgs.append("not close dif = {}".format(np.abs(x - y)))
        msgs.append("not close tol = {}".format(atol + rtol * np.abs(y)))
        msgs.append("dtype = {}, shape = {}".format(a.dtype, a.shape))
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(msgs),
                                   equal_nan=True)

    def _assert_all_close_recursive(self, a, b, rtol, atol, path=None, msg=None):
        path = path or []
        path_str = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg if msg else ""
        if hasattr(a, "_asdict"):  # namedtuples compare as dicts
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError("Can't compare dict to non-dict, a%s vs b%s. %s"
                             % (path_str, path_str, msg))
        mismatch = "Mismatched value: a%s is different from b%s. %s" % (path_str, path_str, msg)
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(),
                                  msg="mismatched keys: a%s has keys %s, but b%s has keys %s. %s"
                                  % (path_str, a.keys(), path_str, b.keys(), msg))
            for k in a:
                self._assert_all_close_recursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)):
            # One array comparison when the sequences are regular, else element by element.
            try:
                a_array, b_array = self._GetNdArray(a), self._GetNdArray(b)
            except (ValueError, TypeError):
                a_array = b_array = None
            if a_array is not None and a_array.dtype != object and b_array.dtype != object:
                self._assert_array_like_all_close(a_array, b_array, rtol, atol, mismatch)
                return
            if len(a) != len(b):
                raise ValueError("Mismatched length: a%s has %d items, but b%s has %d items. %s"
                                 % (path_str, len(a), path_str, len(b), msg))
            for i, (a_item, b_item) in enumerate(zip(a, b)):
                self._assert_all_close_recursive(a_item, b_item, rtol, atol,
                                                 path + [str(i)], msg)
        else:
            try:
                self._assert_array_like_all_close(a, b, rtol, atol, mismatch)
            except TypeError as e:
                e.args = ((e.args[0] + " : " + "Error: a%s has %s, but b%s has %s. %s"
                           % (path_str, type(a), path_str, type(b), msg),) + e.args[1:])
                raise

    # --- errors ------------------------------------------------------------------------
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type,  # noqa: N802
                                       expected_err_re_or_predicate):
        """The block raises `exception_type` whose message matches (or satisfies the predicate)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, errors.OpError) else str(e)
                return re.search(expected_err_re_or_predicate, text)
        try:
            yield
        except Exception as e:  # noqa: BLE001 - checked just below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError("Exception of type %s: %s" % (type(e), e)) from e
            return
        self.fail(exception_type.__name__ + " not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """The block raises a tf.errors.OpError whose message matches."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


def main(argv=None):
    """Runs the tests of the calling module (`tf.test.main()`)."""
    return unittest.main(argv=argv)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU device is there (CuPy imports and sees a CUDA device)."""
    del cuda_only, min_cuda_compute_capability  # every minitf GPU is a CUDA one
    return bool(gpu_device_name())


def gpu_device_name():
    """'/device:GPU:0' when a GPU is there, else ''."""
    for device in local_devices():
        if device.device_type == "GPU":
            return "/device:GPU:0"
    return ""


def is_built_with_cuda():
    """False: minitf has no compiled CUDA kernels (its GPU path goes through CuPy)."""
    return False


def is_built_with_rocm():
    return False


def is_built_with_xla():
    """False: minitf has no XLA compiler (`tf.xla` is left out, docs/coverage.md)."""
    return False


def is_built_with_gpu_support():
    return False


_module_temp_dir = None


def get_temp_dir():
    """A temporary directory shared by the tests of this process (`tf.test.get_temp_dir()`)."""
    global _module_temp_dir
    if _module_temp_dir is None:
        _module_temp_dir = tempfile.mkdtemp(prefix="minitf_test_")
    return _module_temp_dir
