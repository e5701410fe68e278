"""tf.sparse: every name, its values against NumPy and TensorFlow, its errors.

The expressions of tests/ops/sparse_reference_cases.py are built with
minitf and compared with what the reference TensorFlow computed and built
for them (tests/ops/data/sparse_reference.json, written by
scripts/record_sparse_reference.py): the same values (dtype, shape,
elements) and, for the composites, the same node names.
"""

import json
import pathlib
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf
from minitf.graph import tf1_api
from tests.ops import sparse_reference_cases

RECORDED = json.loads((pathlib.Path(__file__).parent / "data"
                       / "sparse_reference.json").read_text())
CASES = sparse_reference_cases.cases(tf)


# Where the reference (TF 2.21) builds other nodes than TF 1.15 does, or where
# minitf knows less of a static shape: the nodes left out of the comparison.
_NODE_DIFFERENCES = {
    # TF 2.21 slices with a tensor bound by Slice, TF 1.15 (and minitf) by StridedSlice.
    "expand_dims": r"expand_dims/(Slice_[23]|strided_slice_[12])(/.*)?$",
    # TF infers the merged dense shape statically (through ConcatV2) and writes a
    # constant; minitf's sparse_reorder keeps the shape tensor through an Identity.
    "to_indicator": r"SparseToIndicator/(SparseTensor_2/dense_shape|Identity)$",
    "merge": r"SparseMerge/(SparseTensor_1/dense_shape|Identity)$",
    # TF 2.21's ones_like names the constant shape it folds.
    "reset_shape_tight": r"ones_like/Shape(/shape_as_tensor)?$",
}


def _compared_nodes(case, nodes):
    pattern = next((p for prefix, p in _NODE_DIFFERENCES.items() if case.startswith(prefix)),
                   None)
    return [n for n in nodes if pattern is None or not re.match(pattern, n)]


def _run(fetch, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed_dict=feed_dict)


def _leaves(value):
    """The arrays of a fetched value, in order (a SparseTensorValue gives three)."""
    if isinstance(value, (tf.SparseTensorValue, list, tuple)):
        return [leaf for part in value for leaf in _leaves(part)]
    return [np.asarray(value)]


def _recorded_leaves(record):
    """The recorded arrays ({dtype, shape, value}), in the order _leaves gives them."""
    if isinstance(record, dict) and "sparse" in record:
        record = record["sparse"]
    if isinstance(record, list):
        return [leaf for part in record for leaf in _recorded_leaves(part)]
    return [record]


def _assert_same(actual, expected, where):
    got, recorded = _leaves(actual), _recorded_leaves(expected)
    assert len(got) == len(recorded), where
    for array, record in zip(got, recorded):
        assert (array.dtype.name, list(array.shape)) == (record["dtype"], record["shape"]), where
        np.testing.assert_allclose(array.reshape(-1), record["value"], rtol=1e-6,
                                   err_msg=where)


def test_every_case_was_recorded_and_every_record_has_a_case():
    assert set(CASES) == set(RECORDED) - {"_note"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_node_names_match_tensorflow(name):
    with tf.Graph().as_default() as graph:
        fetch = CASES[name]()
        nodes = [op.name for op in graph.get_operations()]
        _assert_same(_run(fetch), RECORDED[name]["value"], name)
    assert _compared_nodes(name, nodes) == _compared_nodes(name, RECORDED[name]["nodes"])


def test_the_module_has_every_name_of_tf_sparse_but_those_left_out():
    names = tf1_api.tf1_names()["tf.sparse"]
    missing = sorted(n for n in names if n not in vars(tf.sparse))
    assert missing == []
    assert tf.sparse.to_dense is tf.sparse_tensor_to_dense
    assert tf.sparse.matmul is tf.sparse.sparse_dense_matmul is tf.sparse_tensor_dense_matmul
    assert tf.sparse.reorder is tf.sparse_reorder and tf.sparse.mask is tf.sparse_mask


# --- Values against NumPy, on random SparseTensors ---------------------------------------

def _random_sparse(rng, shape, density=0.4, dtype=np.float64):
    dense = rng.uniform(-3, 3, size=shape).astype(dtype)
    dense[rng.uniform(size=shape) > density] = 0
    indices = np.argwhere(dense != 0)
    return dense, tf.SparseTensorValue(indices, dense[tuple(indices.T)], np.array(shape))


_SPARSE_SETTINGS = settings(max_examples=25, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow])


@_SPARSE_SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4),
       dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
       seed=st.integers(0, 2 ** 16), keepdims=st.booleans(), data=st.data())
def test_reductions_match_numpy(shape, dtype, seed, keepdims, data):
    dense, value = _random_sparse(np.random.RandomState(seed), shape, dtype=dtype)
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape),
                              unique_by=lambda a: a % len(shape)))
    with tf.Graph().as_default():
        sp = tf.sparse.placeholder(tf.as_dtype(dtype), shape=[None] * len(shape))
        total, largest = (tf.sparse.reduce_sum(sp, axes or None, keepdims=keepdims),
                          tf.sparse.reduce_max(sp, axes or None, keepdims=keepdims))
        got_sum, got_max = _run([total, largest], {sp: value})
    axis = tuple(axes) if axes else None
    np.testing.assert_allclose(got_sum, dense.sum(axis=axis, keepdims=keepdims), rtol=1e-5)
    # Max over the entries only: the missing ones do not count (an empty group is the lowest).
    lowest = np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min
    present = np.where(dense != 0, dense, lowest)
    np.testing.assert_array_equal(got_max, present.max(axis=axis, keepdims=keepdims))
    assert got_sum.dtype == dtype and got_max.dtype == dtype


def test_matmul_softmax_and_slice_match_numpy():
    rng = np.random.RandomState(0)
    dense, value = _random_sparse(rng, (5, 6))
    b, c = rng.normal(size=(6, 3)), rng.normal(size=(3, 5))
    with tf.Graph().as_default():
        sp = tf.sparse.placeholder(tf.float64)
        product = tf.sparse.matmul(sp, b)
        product_t = tf.sparse.matmul(sp, c, adjoint_a=True, adjoint_b=True)
        soft = tf.sparse.to_dense(tf.sparse.softmax(sp))
        box = tf.sparse.to_dense(tf.sparse.slice(sp, [1, 2], [3, 10]))
        got = _run([product, product_t, soft, box], {sp: value})
    np.testing.assert_allclose(got[0], dense @ b)
    np.testing.assert_allclose(got[1], dense.T @ c.T)
    exps = np.where(dense != 0, np.exp(dense), 0)
    sums = exps.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got[2], np.divide(exps, sums, out=np.zeros_like(exps),
                                                 where=sums > 0))
    np.testing.assert_array_equal(got[3], dense[1:4, 2:])


def test_split_maximum_and_minimum_match_numpy():
    rng = np.random.RandomState(1)
    dense_a, a = _random_sparse(rng, (4, 7))
    dense_b, b = _random_sparse(rng, (4, 7))
    with tf.Graph().as_default():
        sp_a, sp_b = tf.sparse.placeholder(tf.float64), tf.sparse.placeholder(tf.float64)
        pieces = [tf.sparse.to_dense(p) for p in tf.sparse.split(sp_input=sp_a, num_split=3,
                                                                 axis=1)]
        extremes = [tf.sparse.to_dense(tf.sparse.maximum(sp_a, sp_b)),
                    tf.sparse.to_dense(tf.sparse.minimum(sp_a, sp_b))]
        got = _run(pieces + extremes, {sp_a: a, sp_b: b})
    for piece, expected in zip(got[:3], np.split(dense_a, [3, 5], axis=1)):
        np.testing.assert_array_equal(piece, expected)
    np.testing.assert_array_equal(got[3], np.maximum(dense_a, dense_b))
    np.testing.assert_array_equal(got[4], np.minimum(dense_a, dense_b))


# --- Errors: at build time when the shapes are known, when it runs otherwise ------------

_SP = tf.SparseTensorValue([[0, 0], [1, 2]], np.array([1.0, 2.0], np.float32), [2, 3])


def test_build_time_errors():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(_SP.indices, _SP.values, _SP.dense_shape)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4.*SparseTensorDenseMatMul"):
            tf.sparse.matmul(sp, tf.zeros([4, 2]))
        with pytest.raises(ValueError, match="Invalid reduction dimension"):
            tf.sparse.reduce_sum(sp, 2)
        with pytest.raises(ValueError, match="should have dimension sizes >="):
            tf.sparse.reset_shape(sp, [1, 5])
        with pytest.raises(ValueError, match="Keyword arguments are required"):
            tf.sparse.split(sp, 2, 1)
        with pytest.raises(TypeError, match="num_rows must be an integer"):
            tf.sparse.eye(2.5)
        with pytest.raises(TypeError, match="axis must be an int"):
            tf.sparse.expand_dims(sp, 1.0)
        with pytest.raises(ValueError, match="mutually exclusive"):
            tf.sparse.bincount([1, 2], weights=[1.0, 2.0], binary_output=True)
        with pytest.raises(ValueError, match="Only 0 and -1"):
            tf.sparse.bincount([1, 2], axis=1)
        with pytest.raises(ValueError, match="rank 1 or 2 but is rank 3"):
            tf.sparse.bincount(tf.zeros([2, 2, 2], tf.int32), axis=-1)


def _fails_when_run(build, match, value=_SP):
    with tf.Graph().as_default():
        sp = tf.sparse.placeholder(value.values.dtype)
        fetch = build(sp)
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            _run(fetch, {sp: value})


def test_run_time_errors():
    _fails_when_run(lambda sp: tf.sparse.matmul(sp, tf.placeholder_with_default(
        tf.zeros([4, 2]), None)), "inner dimension does not match")
    _fails_when_run(lambda sp: tf.sparse.matmul(sp, tf.zeros([3, 2])), "out of bounds",
                    tf.SparseTensorValue([[0, 5]], np.float32([1]), [2, 3]))
    _fails_when_run(lambda sp: tf.sparse.reduce_sum(sp, 2), "Invalid reduction dimension")
    _fails_when_run(lambda sp: tf.sparse.softmax(sp).values, "rank >= 2",
                    tf.SparseTensorValue([[0]], np.float32([1]), [2]))
    _fails_when_run(lambda sp: tf.sparse.maximum(sp, tf.SparseTensor(
        [[0, 0]], [1.0], [2, 4])).values, "shapes do not match")
    _fails_when_run(lambda sp: tf.sparse.split(sp_input=sp, num_split=5, axis=0)[0].values,
                    "num_split should be between 1 and 2")
    _fails_when_run(lambda sp: tf.sparse.reset_shape(sp, tf.placeholder_with_default(
        np.int64([1, 5]), [None])).dense_shape, "did not hold|x <= y")
    _fails_when_run(lambda sp: tf.sparse.bincount(sp, axis=-1).values, "non-negative",
                    tf.SparseTensorValue([[0, 1]], np.int32([-2]), [2, 3]))
    _fails_when_run(lambda sp: tf.sparse.bincount(sp, weights=tf.SparseTensor(
        [[0, 0]], [1.0], [2, 3])).values, "same shape",
                    tf.SparseTensorValue([[0, 1], [1, 1]], np.int32([2, 3]), [2, 3]))
