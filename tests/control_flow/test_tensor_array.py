"""tf.TensorArray: reads and writes, whole-array ops, growing arrays, shapes and errors.

Error messages are those of TensorFlow's TensorArray kernels.
"""

import numpy as np
import pytest

import minitf as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_write_then_read_and_stack():
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]).write(2, [5.0, 6.0])
    assert ta.read(1).shape.as_list() == [2]
    assert ta.stack().shape.as_list() == [None, 2]
    np.testing.assert_array_equal(_run(ta.stack()), [[1, 2], [3, 4], [5, 6]])


def test_tensor_array_builds_tensorflows_ops():
    ta = tf.TensorArray(tf.float32, size=2, name="ta")
    written = ta.write(0, 1.0).write(1, 2.0)
    written.stack()
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["ta"] == "TensorArrayV3"
    assert ops["TensorArrayWrite/TensorArrayWriteV3"] == "TensorArrayWriteV3"
    assert ops["TensorArrayStack/TensorArrayGatherV3"] == "TensorArrayGatherV3"
    assert ops["TensorArrayStack/TensorArraySizeV3"] == "TensorArraySizeV3"
    # Each write gives a new TensorArray object: same handle, a new flow.
    assert written.handle is ta.handle and written.flow is not ta.flow
    assert ta.handle.dtype == tf.resource and ta.flow.dtype == tf.float32


def test_unstack_gather_scatter_concat_split_and_size():
    value = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    unstacked = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(value)
    gathered = unstacked.gather([3, 0])
    scattered = tf.TensorArray(tf.float32, size=4).scatter([3, 2, 1, 0], value).stack()
    pieces = tf.TensorArray(tf.float32, size=3, infer_shape=False,
                            clear_after_read=False).split(value, [1, 0, 3])
    concatenated = pieces.concat()
    results = _run([gathered, scattered, concatenated, unstacked.size(), pieces.read(2)])
    np.testing.assert_array_equal(results[0], value[[3, 0]])
    np.testing.assert_array_equal(results[1], value[::-1])
    np.testing.assert_array_equal(results[2], value)
    assert results[3] == 4
    np.testing.assert_array_equal(results[4], value[1:])


def test_a_dynamic_size_array_grows_with_its_writes():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, t: i < 6, lambda i, t: (i + 1, t.write(i, 2 * i)), [0, ta])
    assert _run(ta.stack()).tolist() == [0, 2, 4, 6, 8, 10]
    fixed = tf.TensorArray(tf.int32, size=2).write(2, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=(
            "Tried to write to index 2 but array is not resizeable and size is: 2")):
        _run(fixed.flow)


def test_elements_are_cleared_after_a_read_unless_asked_otherwise():
    ta = tf.TensorArray(tf.float32, size=1).write(0, 3.0)
    first = ta.read(0)
    with tf.control_dependencies([first]):
        second = ta.read(0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=(
            r"Could not read index 0 twice because it was cleared after a previous read "
            r"\(perhaps try setting clear_after_read = false\?\)")):
        _run(second)
    kept = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 3.0)
    assert _run([kept.read(0), kept.read(0)]) == [3.0, 3.0]


@pytest.mark.parametrize("build, message", [
    (lambda: tf.TensorArray(tf.float32, size=2).read(0),
     "Could not read from TensorArray index 0 because it has not yet been written to."),
    (lambda: tf.TensorArray(tf.float32, size=2).read(5),
     "Tried to read from index 5 but array size is: 2"),
    (lambda: tf.TensorArray(tf.float32, size=1).write(0, 1.0).write(0, 2.0).flow,
     "Could not write to TensorArray index 0 because it has already been written to."),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(
        1, [1.0, 2.0]).stack(), "TensorArray has inconsistent shapes.  Index 0 has shape: "
     r"\[1\] but index 1 has shape: \[2\]"),
    (lambda: tf.TensorArray(tf.float32, size=0).stack(),
     "TensorArray has size zero, but element shape <unknown> is not fully defined."),
    (lambda: tf.TensorArray(tf.float32, size=2).scatter([0], [[1.0], [2.0]]).flow,
     r"Expected len\(indices\) == values.shape\[0\], but saw: 1 vs. 2"),
])
def test_kernel_errors(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(build())


def test_an_empty_array_of_known_element_shape_stacks_to_zero_rows():
    ta = tf.TensorArray(tf.float32, size=0, element_shape=[2, 3])
    assert _run(ta.stack()).shape == (0, 2, 3)


def test_inferred_element_shapes_must_agree():
    ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
    assert ta.element_shape.as_list() == [2]
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
        ta.write(1, [1.0, 2.0, 3.0])


def test_a_closed_array_cannot_be_used():
    ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)
    closed = ta.close()
    with tf.control_dependencies([closed]):
        after = ta.read(0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="has already been closed"):
        _run(after)


def test_constructor_errors():
    with pytest.raises(ValueError, match="Size must be provided if handle is not provided"):
        tf.TensorArray(tf.float32)
    ta = tf.TensorArray(tf.float32, size=1)
    with pytest.raises(ValueError, match="Cannot provide both a handle and size"):
        tf.TensorArray(tf.float32, size=1, handle=ta.handle, flow=ta.flow)
    with pytest.raises(ValueError, match="flow must not be None"):
        tf.TensorArray(tf.float32, handle=ta.handle)


def test_each_step_has_its_own_arrays():
    ta = tf.TensorArray(tf.float32, size=1).write(0, tf.placeholder(tf.float32, [], name="x"))
    value = ta.read(0)
    with tf.Session() as sess:
        assert [sess.run(value, {"x:0": v}) for v in (1.0, 2.0)] == [1.0, 2.0]
