"""Queues, queue runners and the queue-based input functions (seed 004's listing among them)."""

import logging
import threading
import time

import numpy as np
import pytest

import minitf as tf
from minitf.train import queue_runner_impl


def drain(tensor, sess):
    out = []
    try:
        while True:
            out.append(sess.run(tensor))
    except tf.errors.OutOfRangeError:
        return out


def test_fifo_queue_enqueue_dequeue_many_and_sizes():
    q = tf.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
    enqueue = q.enqueue([1, [1.0, 2.0]])
    enqueue_many = q.enqueue_many([[2, 3], [[3.0, 4.0], [5.0, 6.0]]])
    one, many = q.dequeue(), q.dequeue_many(2)
    assert one[1].shape.as_list() == [2] and many[1].shape.as_list() == [2, 2]
    assert one[0].op.name == "fifo_queue_Dequeue" and one[0].op.type == "QueueDequeueV2"
    with tf.Session() as sess:
        sess.run(enqueue)
        sess.run(enqueue_many)
        assert sess.run(q.size()) == 3
        first = sess.run(one)
        assert first[0] == 1 and first[1].tolist() == [1.0, 2.0]
        ints, floats = sess.run(many)
        assert ints.tolist() == [2, 3] and floats.tolist() == [[3.0, 4.0], [5.0, 6.0]]


def test_single_component_and_named_queues():
    q = tf.queue.FIFOQueue(2, tf.int64)
    named = tf.FIFOQueue(2, [tf.int64, tf.string], shapes=[[], []], names=["id", "word"])
    with tf.Session() as sess:
        sess.run(q.enqueue(7))
        assert sess.run(q.dequeue()) == 7
        sess.run(named.enqueue({"id": 1, "word": "a"}))
        assert sess.run(named.dequeue()) == {"id": 1, "word": b"a"}
    with pytest.raises(ValueError, match="dictionary"):
        named.enqueue([1, "a"])


def test_blocked_dequeue_holds_no_thread_and_other_steps_run(finishes_within):
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    enqueue, dequeue = q.enqueue(5), q.dequeue()
    config = tf.ConfigProto(inter_op_parallelism_threads=1)  # no pool: one thread per run
    with tf.Session(config=config) as sess:
        got = []
        waiter = threading.Thread(target=lambda: got.append(sess.run(dequeue)))
        waiter.start()
        time.sleep(0.2)
        assert waiter.is_alive() and not got
        finishes_within(5, sess.run, tf.constant(1) + 1)  # another step runs meanwhile
        sess.run(enqueue)
        waiter.join(5)
        assert got == [5]


def test_close_releases_a_blocked_dequeue_with_out_of_range():
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    dequeue, close = q.dequeue(), q.close()
    with tf.Session() as sess:
        threading.Timer(0.2, lambda: sess.run(close)).start()
        with pytest.raises(tf.errors.OutOfRangeError, match="FIFOQueue 'fifo_queue' is closed "
                           "and has insufficient elements \\(requested 1, current size 0\\)"):
            sess.run(dequeue)
        assert sess.run(q.is_closed())
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            sess.run(q.enqueue(1))


def test_deadline_releases_a_blocked_dequeue_and_loses_no_element():
    q = tf.FIFOQueue(5, tf.int32, shapes=[[]])
    dequeue, enqueue = q.dequeue(), q.enqueue(3)
    with tf.Session() as sess:
        start = time.time()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(dequeue, options=tf.RunOptions(timeout_in_ms=200))
        assert time.time() - start < 5
        sess.run(enqueue)
        assert sess.run(dequeue) == 3  # the timed-out dequeue did not take it


def test_full_queue_blocks_enqueue_until_a_dequeue():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue(1))
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(q.enqueue(2), options=tf.RunOptions(timeout_in_ms=200))
        assert sess.run(q.dequeue()) == 1 and sess.run(q.size()) == 0


def test_dequeue_up_to_after_close_and_cancel_pending_enqueues():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[1, 2, 3]]))
        sess.run(q.close())
        assert sess.run(q.dequeue_up_to(5)).tolist() == [1, 2, 3]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(q.dequeue_up_to(5))
    full = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(full.enqueue(1))
        threading.Timer(0.2, lambda: sess.run(full.close(cancel_pending_enqueues=True))).start()
        with pytest.raises(tf.errors.CancelledError):
            sess.run(full.enqueue(2))


def test_wrong_shape_is_an_error():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[2]])
    with pytest.raises(ValueError):
        q.enqueue([1, 2, 3])
    placeholder = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in tuple "
                           "component 0. Expected \\[2\\], got \\[3\\]"):
            sess.run(q.enqueue([placeholder]), {placeholder: [1, 2, 3]})


def test_random_shuffle_queue_keeps_min_after_dequeue_and_repeats_with_a_seed():
    def order():
        tf.reset_default_graph()
        q = tf.RandomShuffleQueue(20, 5, tf.int32, shapes=[[]], seed=3)
        with tf.Session() as sess:
            sess.run(q.enqueue_many([list(range(10))]))
            with pytest.raises(tf.errors.DeadlineExceededError):  # only 5 would be left
                sess.run(q.dequeue_many(6), options=tf.RunOptions(timeout_in_ms=200))
            first = sess.run(q.dequeue_many(5)).tolist()
            sess.run(q.close())
            return first + drain(q.dequeue(), sess)

    values = order()
    assert sorted(values) == list(range(10)) and values != list(range(10))
    assert order() == values


def test_padding_fifo_queue_pads_dequeue_many():
    q = tf.PaddingFIFOQueue(5, tf.int32, shapes=[[None]])
    with tf.Session() as sess:
        sess.run(q.enqueue([[1]]))
        sess.run(q.enqueue([[2, 3, 4]]))
        assert sess.run(q.dequeue_many(2)).tolist() == [[1, 0, 0], [2, 3, 4]]


def test_priority_queue_dequeues_lowest_first():
    q = tf.PriorityQueue(5, [tf.string], shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[3, 1, 2], ["c", "a", "b"]]))
        assert [sess.run(q.dequeue())[1] for _ in range(3)] == [b"a", b"b", b"c"]


def test_shared_name_shares_the_queue_between_graph_nodes():
    a = tf.FIFOQueue(2, tf.int32, shapes=[[]], shared_name="shared")
    b = tf.FIFOQueue(2, tf.int32, shapes=[[]], shared_name="shared")
    with tf.Session() as sess:
        sess.run(a.enqueue(4))
        assert sess.run(b.dequeue()) == 4


def test_seed_004_queue_listing():
    """The XMonitor of seed 004 ("chpt 10 Queue"): one shared FIFOQueue per device as a flag."""

    class XMonitor:
        def __init__(self, num):
            self._queues, self._enqueue_ops, self._qsize_ops = {}, {}, {}
            for i in range(num):
                device = "/device:CPU:0"
                with tf.device(device):
                    queue = tf.queue.FIFOQueue(1, tf.int32, shared_name="X_" + str(i))
                    self._queues[i] = queue
                    self._enqueue_ops[i] = queue.enqueue(1)
                    self._qsize_ops[i] = queue.size()

        def is_x_uninitialized(self, sess, device):
            if device in self._qsize_ops:
                return sess.run(self._qsize_ops[device]) == 0
            return True

        def setup_x_initialized_state(self, sess):
            for device in self._queues:
                if sess.run(self._qsize_ops[device]) == 0:
                    sess.run(self._enqueue_ops[device])

    monitor = XMonitor(2)
    with tf.Session() as sess:
        assert monitor.is_x_uninitialized(sess, 0)
        monitor.setup_x_initialized_state(sess)
        assert not monitor.is_x_uninitialized(sess, 1)
        monitor.setup_x_initialized_state(sess)  # full queues: nothing enqueued, no block
        assert sess.run(monitor._qsize_ops[0]) == 1


def test_queue_runners_fill_and_close_with_a_coordinator():
    files = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    name = files.dequeue()
    x = tf.constant(np.arange(10, dtype=np.float32))
    batched = tf.train.batch(tf.train.slice_input_producer([x], shuffle=False, num_epochs=1), 4,
                             allow_smaller_final_batch=True)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert drain(name, sess) == [b"a", b"b", b"c"] * 2
        assert [b[0].tolist() for b in drain(batched, sess)] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                                 [8, 9]]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)


def test_queue_runner_error_stops_the_coordinator():
    q = tf.FIFOQueue(5, tf.float32, shapes=[[]])
    bad = q.enqueue(tf.py_func(lambda: np.float32(1 / 0), [], tf.float32))
    runner = tf.train.QueueRunner(q, [bad])
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = runner.create_threads(sess, coord=coord, start=True)
        with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError"):
            coord.join(threads, stop_grace_period_secs=5)


def test_monitored_training_session_starts_queue_runners():
    values = tf.train.input_producer(tf.constant(np.arange(100, dtype=np.int64)), shuffle=False)
    batch = tf.train.shuffle_batch([values.dequeue()], 10, capacity=50, min_after_dequeue=20,
                                   seed=1)
    with tf.train.MonitoredTrainingSession() as sess:
        first = sess.run(batch)[0]
    assert first.shape == (10,) and len(set(first.tolist())) == 10 and first.max() < 100


def test_deprecation_is_logged_as_tensorflow_does(caplog):
    queue_runner_impl._warned.discard("QueueRunner.__init__")
    with caplog.at_level(logging.WARNING, logger="minitf"):
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        tf.train.QueueRunner(q, [q.enqueue(1)])
    assert "QueueRunner.__init__ (from tensorflow.python.training.queue_runner_impl) is " \
        "deprecated" in caplog.text
    assert "use the `tf.data` module" in caplog.text


def test_enqueued_variable_values_are_copies():
    q = tf.FIFOQueue(3, tf.float32, shapes=[[]])
    counter = tf.Variable(0.0)
    enqueue = q.enqueue(tf.assign_add(counter, 1.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(enqueue)
        assert sess.run(q.dequeue_many(3)).tolist() == [1.0, 2.0, 3.0]


def test_dequeue_many_needs_shapes_and_batch_takes_dicts_and_pads():
    shapeless = tf.FIFOQueue(2, tf.int32)
    with tf.Session() as sess:
        sess.run(shapeless.enqueue(1))
        with pytest.raises(tf.errors.InvalidArgumentError, match="require the components to "
                           "have specified shapes"):
            sess.run(shapeless.dequeue_many(1))
    tf.reset_default_graph()
    lengths = tf.train.range_input_producer(3, shuffle=False).dequeue() + 1
    batched = tf.train.batch({"v": tf.fill([lengths], lengths), "n": lengths}, 3,
                             dynamic_pad=True, shapes=[[], [None]])
    assert sorted(batched) == ["n", "v"]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        value = sess.run(batched)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert value["n"].tolist() == [1, 2, 3]
    assert value["v"].tolist() == [[1, 0, 0], [2, 2, 0], [3, 3, 3]]


def test_batch_join_enqueues_from_one_thread_per_element_into_one_queue():
    first = tf.train.range_input_producer(3, shuffle=False).dequeue()
    second = tf.train.range_input_producer(3, shuffle=False).dequeue() + 10
    batched = tf.train.batch_join([[first], [second]], 6)
    assert [op.type for op in tf.get_default_graph().get_operations()
            if op.name.startswith("batch_join/")].count("QueueEnqueueV2") == 2
    # Producers of their own: sharing `first` and `second` would split their values between
    # the two joins' threads, and batch_join might never see some of them.
    third = tf.train.range_input_producer(3, shuffle=False).dequeue()
    fourth = tf.train.range_input_producer(3, shuffle=False).dequeue() + 10
    shuffled = tf.train.shuffle_batch_join([{"x": third}, {"x": fourth}], 4, capacity=20,
                                           min_after_dequeue=5, seed=1)
    assert sorted(shuffled) == ["x"] and shuffled["x"].shape.as_list() == [4]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        values = np.concatenate([sess.run(batched)[0] for _ in range(20)])
        mixed = sess.run(shuffled)["x"]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert set(values.tolist()) == {0, 1, 2, 10, 11, 12}
    assert {v >= 10 for v in values.tolist()} == {False, True}
    assert set(mixed.tolist()) <= {0, 1, 2, 10, 11, 12}


def test_batch_join_needs_elements_of_one_structure_and_dtype():
    with pytest.raises(ValueError, match="at least one tensor"):
        tf.train.batch_join([], 2)
    with pytest.raises(ValueError, match="same structure"):
        tf.train.batch_join([[tf.constant(1)], [tf.constant(1), tf.constant(2)]], 2)
    with pytest.raises(TypeError, match="types to be consistent"):
        tf.train.batch_join([[tf.constant(1)], [tf.constant(1.0)]], 2)


def test_the_io_and_train_names_of_queues_and_queue_runners_are_the_same_objects():
    assert tf.io.PaddingFIFOQueue is tf.PaddingFIFOQueue is tf.queue.PaddingFIFOQueue
    assert tf.io.RandomShuffleQueue is tf.RandomShuffleQueue
    assert tf.io.PriorityQueue is tf.PriorityQueue and tf.io.QueueBase is tf.QueueBase
    assert tf.train.queue_runner.QueueRunner is tf.train.QueueRunner
    assert tf.train.queue_runner.add_queue_runner is tf.train.add_queue_runner
    assert tf.train.queue_runner.start_queue_runners is tf.train.start_queue_runners


def test_maybe_batch_enqueues_only_what_keep_input_keeps():
    index = tf.train.range_input_producer(6, shuffle=False).dequeue()
    evens = tf.train.maybe_batch([index], tf.equal(index % 2, 0), 3)
    rows = tf.constant([[1], [2], [3], [4]])
    kept = tf.train.maybe_batch_join([[rows]], [True, False, True, False], 2, enqueue_many=True)
    other = tf.train.range_input_producer(6, shuffle=False).dequeue()
    shuffled = tf.train.maybe_shuffle_batch([other], 2, capacity=10, min_after_dequeue=0,
                                            keep_input=other < 3, seed=1)
    shuffled_join = tf.train.maybe_shuffle_batch_join([[rows]], 2, 10, 0,
                                                      [False, True, False, True],
                                                      enqueue_many=True, seed=1)
    assert evens[0].op.name == "batch" and kept[0].op.name == "batch_join"
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sess.run(evens)[0].tolist() == [0, 2, 4]
        assert sess.run(kept)[0].tolist() == [[1], [3]]
        assert set(sess.run(shuffled)[0].tolist()) <= {0, 1, 2}
        assert set(sess.run(shuffled_join)[0].ravel().tolist()) <= {2, 4}  # rows repeat
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)


def test_keep_input_must_be_a_known_scalar_or_a_vector_with_enqueue_many():
    with pytest.raises(ValueError, match="cannot be a vector when `enqueue_many=False`"):
        tf.train.maybe_batch([tf.constant(1)], [True], 1)
    with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
        tf.train.maybe_batch([tf.constant([1])], [[True]], 1, enqueue_many=True)
    with pytest.raises(ValueError, match="must be known at graph construction"):
        tf.train.maybe_batch([tf.constant(1)], tf.placeholder(tf.bool), 1)
