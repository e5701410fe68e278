"""tf.data pipelines: the elements TensorFlow gives, structures, shapes, iterators, errors."""

import gc
import json
import pathlib
import threading
import time

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest

import minitf as tf

DATA = pathlib.Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "datasets.json").read_text())  # scripts/record_tf_datasets.py


def describe(value):
    """As scripts/record_tf_datasets.py writes an element: [dtype, nested list] leaves."""
    if isinstance(value, (dict, tuple, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        described = {k: describe(v) for k, v in items}
        return described if isinstance(value, dict) else list(described.values())
    array = np.asarray(value)
    if array.dtype.kind in "OS":
        return ["string", np.vectorize(lambda b: bytes(b).decode("latin-1"), otypes=[object])(
            array).tolist() if array.size else array.tolist()]
    return [array.dtype.name, array.tolist()]


def drain(tensor, sess, feed_dict=None):
    out = []
    try:
        while True:
            out.append(sess.run(tensor, feed_dict))
    except tf.errors.OutOfRangeError:
        return out


def elements(dataset):
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        return drain(next_element, sess)


@pytest.mark.parametrize("case", RECORDED, ids=[c["code"][:60] for c in RECORDED])
def test_pipeline_gives_tensorflows_elements(case):
    dataset = eval(case["code"], {"tf": tf, "np": np})  # noqa: S307 - the recorded source
    assert [describe(e) for e in elements(dataset)] == case["elements"]


def test_structure_types_shapes_and_classes():
    dataset = tf.data.Dataset.from_tensor_slices(
        {"x": np.zeros((5, 3), np.float32), "y": (np.arange(5), np.array([b"a"] * 5))})
    assert dataset.output_types == {"x": tf.float32, "y": (tf.int64, tf.string)}
    assert dataset.output_shapes["x"].as_list() == [3]
    assert dataset.output_classes == {"x": tf.Tensor, "y": (tf.Tensor, tf.Tensor)}
    batched = dataset.batch(2)
    assert batched.output_shapes["x"].as_list() == [None, 3]
    assert dataset.batch(2, drop_remainder=True).output_shapes["x"].as_list() == [2, 3]
    next_element = tf.data.make_one_shot_iterator(batched).get_next()
    assert next_element["x"].shape.as_list() == [None, 3]
    assert next_element["x"].op.type == "IteratorGetNext"


def test_dataset_ops_are_graph_nodes_with_their_functions_traced_once():
    calls = []

    def double(x):
        calls.append(x)
        return x * 2

    dataset = tf.data.Dataset.range(100).map(double)
    node = dataset._variant_tensor.op.node_def
    assert node.op == "MapDataset" and calls and len(calls) == 1
    function = node.attr["f"]
    assert [n.op for n in function.node if n.op in ("_Arg", "_Retval")] == ["_Arg", "_Retval"]
    assert len(elements(dataset)) == 100 and len(calls) == 1
    graph_def = tf.get_default_graph().as_graph_def()
    # The function survives TensorFlow's message, in its library.
    assert tf.GraphDef.FromString(graph_def.SerializeToString()).node == graph_def.node


def test_captured_tensors_are_inputs_and_placeholders_are_fed_at_initialization():
    offset = tf.placeholder(tf.int64, [])
    limit = tf.placeholder(tf.int64, [])
    dataset = tf.data.Dataset.range(limit).map(lambda x: x + offset)
    iterator = tf.data.make_initializable_iterator(dataset)
    next_element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {offset: 10, limit: 3})
        assert drain(next_element, sess) == [10, 11, 12]
        sess.run(iterator.initializer, {offset: 0, limit: 2})  # starts over
        assert drain(next_element, sess) == [0, 1]


def test_get_next_raises_out_of_range_at_the_end_and_again_after():
    next_element = tf.data.make_one_shot_iterator(tf.data.Dataset.range(2)).get_next()
    with tf.Session() as sess:
        assert [sess.run(next_element) for _ in range(2)] == [0, 1]
        for _ in range(3):
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(next_element)


def test_uninitialized_iterator_is_failed_precondition():
    iterator = tf.data.make_initializable_iterator(tf.data.Dataset.range(2))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(iterator.get_next())


def test_one_shot_iterator_rejects_placeholders():
    with pytest.raises(ValueError, match="one-shot iterator"):
        tf.data.make_one_shot_iterator(tf.data.Dataset.range(tf.placeholder(tf.int64, [])))


def test_reinitializable_iterator_switches_datasets():
    train, validation = tf.data.Dataset.range(3), tf.data.Dataset.range(100, 102)
    iterator = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    next_element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.make_initializer(train))
        assert drain(next_element, sess) == [0, 1, 2]
        sess.run(iterator.make_initializer(validation))
        assert drain(next_element, sess) == [100, 101]
    with pytest.raises(TypeError, match="Expected output types"):
        iterator.make_initializer(tf.data.Dataset.from_tensors(1.0))


def test_feedable_iterator_reads_the_iterator_its_string_handle_names():
    handle = tf.placeholder(tf.string, [])
    train = tf.data.Dataset.range(3)
    iterator = tf.data.Iterator.from_string_handle(handle, train.output_types,
                                                   train.output_shapes)
    next_element = iterator.get_next()
    a = tf.data.make_one_shot_iterator(train)
    b = tf.data.make_one_shot_iterator(tf.data.Dataset.range(100, 200))
    with tf.Session() as sess:
        handle_a, handle_b = sess.run([a.string_handle(), b.string_handle()])
        assert [sess.run(next_element, {handle: h}) for h in (handle_a, handle_b, handle_a)] \
            == [0, 100, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="string handle"):
            sess.run(next_element, {handle: b"not a handle"})


def test_sparse_components_batch_and_come_back_sparse():
    sparse = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    dataset = tf.data.Dataset.from_tensors(sparse).repeat(3).batch(2)
    assert dataset.output_classes is tf.SparseTensor
    assert dataset.output_shapes.as_list() == [None, 2, 3]
    first, second = elements(dataset)
    np.testing.assert_array_equal(first.indices, [[0, 0, 0], [0, 1, 2], [1, 0, 0], [1, 1, 2]])
    np.testing.assert_array_equal(first.dense_shape, [2, 2, 3])
    np.testing.assert_array_equal(second.dense_shape, [1, 2, 3])


def test_batch_of_different_shapes_is_invalid_argument():
    dataset = tf.data.Dataset.range(3).map(lambda x: tf.fill([x], x)).batch(3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors with "
                       "different shapes in component 0"):
        elements(dataset)


def test_map_function_that_raises_is_the_iterators_error():
    def fails_on_two(x):
        if x == 2:
            raise ValueError("two is not allowed")
        return x

    dataset = tf.data.Dataset.range(4).map(lambda x: tf.py_func(fails_on_two, [x], tf.int64))
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        assert [sess.run(next_element) for _ in range(2)] == [0, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="two is not allowed"):
            sess.run(next_element)
    with pytest.raises(TypeError, match="does not match type int64"):
        tf.data.Dataset.range(2).map(lambda x: x + "text")  # raises while tracing


def test_filter_predicate_must_be_a_scalar_bool():
    with pytest.raises(ValueError, match="scalar boolean"):
        tf.data.Dataset.range(3).filter(lambda x: x)


def test_seeded_shuffle_repeats_across_graphs_and_reshuffles_each_epoch():
    def epochs(seed, reshuffle):
        tf.reset_default_graph()
        dataset = tf.data.Dataset.range(20).shuffle(5, seed=seed,
                                                    reshuffle_each_iteration=reshuffle)
        values = [int(v) for v in elements(dataset.repeat(2))]
        return values[:20], values[20:]

    first, second = epochs(7, True)
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != list(range(20)) and first != second
    assert epochs(7, True) == (first, second)
    same_each_epoch = epochs(7, False)
    assert same_each_epoch[0] == same_each_epoch[1]
    tf.reset_default_graph()
    tf.set_random_seed(3)
    graph_seeded = elements(tf.data.Dataset.range(20).shuffle(20))
    tf.reset_default_graph()
    tf.set_random_seed(3)
    assert elements(tf.data.Dataset.range(20).shuffle(20)) == graph_seeded


def test_shuffle_window_is_bounded_by_the_buffer():
    values = [int(v) for v in elements(tf.data.Dataset.range(100).shuffle(3, seed=1))]
    assert sorted(values) == list(range(100))
    assert all(v <= i + 2 for i, v in enumerate(values))  # never more than 2 ahead


def test_from_generator_runs_the_generator_again_each_pass():
    passes = []

    def generate():
        passes.append(1)
        yield from ([1, 2], [3, 4])

    dataset = tf.data.Dataset.from_generator(generate, tf.int32, tf.TensorShape([2])).repeat(2)
    assert [e.tolist() for e in elements(dataset)] == [[1, 2], [3, 4], [1, 2], [3, 4]]
    assert len(passes) == 2
    wrong = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int32,
                                           tf.TensorShape([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        elements(wrong)


def test_autotune_and_experimental_transformations():
    dataset = tf.data.Dataset.range(6).apply(tf.data.experimental.map_and_batch(
        lambda x: x + 1, 4, num_parallel_calls=tf.data.experimental.AUTOTUNE))
    assert [e.tolist() for e in elements(dataset.prefetch(tf.data.experimental.AUTOTUNE))] == \
        [[1, 2, 3, 4], [5, 6]]
    shuffled = tf.data.Dataset.range(5).apply(tf.data.experimental.shuffle_and_repeat(5, 2, 1))
    values = [int(v) for v in elements(shuffled)]
    assert sorted(values) == sorted(list(range(5)) * 2)


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(rows=st.integers(1, 30), columns=st.integers(1, 3), buffer=st.integers(1, 40),
                  batch=st.integers(1, 8), seed=st.integers(0, 2 ** 31 - 1))
def test_shuffled_batches_are_a_permutation_of_the_rows(rows, columns, buffer, batch, seed):
    tf.reset_default_graph()
    x = np.random.default_rng(seed).normal(size=(rows, columns)).astype(np.float32)
    batches = elements(tf.data.Dataset.from_tensor_slices(x).shuffle(buffer, seed).batch(batch))
    assert [len(b) for b in batches] == [batch] * (rows // batch) + (
        [rows % batch] if rows % batch else [])
    got = np.concatenate(batches)
    assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, x.tolist()))
    again = elements(tf.data.Dataset.from_tensor_slices(x).shuffle(buffer, seed).batch(batch))
    np.testing.assert_array_equal(np.concatenate(again), got)  # the seed repeats the order


def test_a_variable_in_a_dataset_is_read_when_the_iterator_starts():
    v = tf.Variable([1, 2])
    iterator = tf.data.make_initializable_iterator(
        tf.data.Dataset.from_tensors(v.value()).repeat(2).map(lambda x: x + v))
    next_element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(iterator.initializer)
        sess.run(tf.assign(v, [10, 20]))
        assert [e.tolist() for e in drain(next_element, sess)] == [[2, 4], [2, 4]]


def test_from_generator_with_args_and_unknown_shapes():
    def count_to(n):
        yield from range(int(n))

    dataset = tf.data.Dataset.from_generator(count_to, tf.int64, args=(tf.constant(3),))
    assert dataset.output_shapes.ndims is None
    assert [int(v) for v in elements(dataset)] == [0, 1, 2]


def test_prefetch_thread_ends_when_its_iterator_is_gone():
    def prefetch_threads():
        return [t for t in threading.enumerate() if t.name == "minitf_prefetch" and t.is_alive()]

    before = len(prefetch_threads())
    next_element = tf.data.make_one_shot_iterator(
        tf.data.Dataset.range(1000).prefetch(2)).get_next()
    sess = tf.Session()
    assert sess.run(next_element) == 0  # the thread now waits for room in its buffer
    assert len(prefetch_threads()) == before + 1
    sess.close()
    del sess
    gc.collect()
    deadline = time.time() + 5
    while len(prefetch_threads()) > before and time.time() < deadline:
        time.sleep(0.05)
    assert len(prefetch_threads()) == before


def test_dataset_functions_travel_in_the_graph_defs_library():
    w = tf.constant(3, tf.int64)
    dataset = tf.data.Dataset.range(6).map(lambda x: x * w).filter(
        lambda x: tf.equal(x % 2, 0)).flat_map(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(2)).batch(3)
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    data = tf.get_default_graph().as_graph_def().SerializeToString()
    tf.reset_default_graph()
    tf.import_graph_def(tf.GraphDef.FromString(data), name="")
    imported = tf.get_default_graph().get_tensor_by_name(next_element.name)
    with tf.Session() as sess:
        assert [sess.run(imported).tolist() for _ in range(2)] == [[0, 0, 6], [6, 12, 12]]


def test_a_dataset_graph_tensorflow_wrote_runs():
    # scripts/record_tf_records.py: range(6).map(x * 3).filter(x % 2 == 0).batch(2)
    graph_def = tf.GraphDef.FromString((DATA / "tf_dataset_graph.pb").read_bytes())
    tf.import_graph_def(graph_def, name="")
    next_element = tf.get_default_graph().get_tensor_by_name("IteratorGetNext:0")
    with tf.Session() as sess:
        assert [v.tolist() for v in drain(next_element, sess)] == [[0, 6], [12]]


def test_conds_loops_and_checks_in_a_map_function():
    def fn(x):
        large = tf.cond(x > 2, lambda: x * 10, lambda: x)
        _, steps = tf.while_loop(lambda i, total: i < x, lambda i, total: (i + 1, total + 2),
                                 [tf.constant(0, tf.int64), tf.constant(0, tf.int64)])
        as_float = tf.cast(x, tf.float32)
        with tf.control_dependencies([tf.assert_less(as_float, 5.0)]):  # a guarded Assert
            return large, steps + 0

    assert elements(tf.data.Dataset.range(5).map(fn)) == [
        (0, 0), (1, 2), (2, 4), (30, 6), (40, 8)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        elements(tf.data.Dataset.range(6).map(fn))
