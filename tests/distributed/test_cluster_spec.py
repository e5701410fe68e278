"""ClusterSpec, the ServerDef a Server is made from, and replica_device_setter.

The expected values are what TensorFlow (tf.compat.v1) gives for the same
calls; none of these tests starts a server process.
"""

import subprocess
import sys

import pytest

import minitf as tf
from minitf.distributed import server_lib
from minitf.train import device_setter

SPARSE = {"worker": ["w0:2222", "w1:2222"], "ps": {1: "ps1:2222", 3: "ps3:2222"}}


def test_a_cluster_of_dense_and_sparse_jobs():
    cluster = tf.train.ClusterSpec(SPARSE)
    assert cluster.jobs == ["worker", "ps"]
    assert cluster.as_dict() == SPARSE
    assert cluster.num_tasks("ps") == 2 and cluster.num_tasks("worker") == 2
    assert cluster.task_indices("ps") == [1, 3]
    assert cluster.task_address("worker", 1) == "w1:2222"
    assert cluster.job_tasks("ps") == [None, "ps1:2222", None, "ps3:2222"]
    assert repr(cluster) == ("ClusterSpec({'ps': {1: 'ps1:2222', 3: 'ps3:2222'}, "
                             "'worker': ['w0:2222', 'w1:2222']})")
    assert bool(cluster) and not bool(tf.train.ClusterSpec({}))


def test_equality_and_the_cluster_def_round_trip():
    cluster = tf.train.ClusterSpec(SPARSE)
    assert cluster == tf.train.ClusterSpec(cluster.as_dict())
    assert cluster != tf.train.ClusterSpec({"worker": ["w0:2222"]})
    cluster_def = cluster.as_cluster_def()
    assert [job.name for job in cluster_def.job] == ["ps", "worker"]  # sorted, as TF writes it
    assert dict(cluster_def.job[0].tasks) == {1: "ps1:2222", 3: "ps3:2222"}
    assert tf.train.ClusterSpec(cluster_def) == cluster
    assert tf.train.ClusterSpec(cluster) == cluster


@pytest.mark.parametrize("call, error, message", [
    (lambda c: c.task_address("ps", 0), ValueError, "No task with index 0 in job 'ps'"),
    (lambda c: c.num_tasks("nope"), ValueError, "No such job in cluster: 'nope'"),
    (lambda c: c.job_tasks("nope"), ValueError, "No such job in cluster: 'nope'"),
])
def test_lookups_of_what_the_cluster_lacks(call, error, message):
    with pytest.raises(error, match="^%s$" % message):
        call(tf.train.ClusterSpec(SPARSE))


@pytest.mark.parametrize("cluster, error, message", [
    ({"worker": "w0:2222"}, TypeError,
     "The tasks for job 'worker' must be a list or a dictionary from integers to strings."),
    ({"worker": [1234]}, TypeError, "Task address 1234 must be bytes or unicode"),
    ({1: ["a:1"]}, TypeError, "Job name 1 must be bytes or unicode"),
    (["a"], TypeError, "`cluster` must be a dictionary mapping one or more job names to lists "
                       "of network addresses, or a `ClusterDef` protocol buffer"),
    ({"w": {"a": "x:1"}}, ValueError, "invalid literal for int"),
])
def test_bad_specs_are_refused_as_tensorflow_refuses_them(cluster, error, message):
    with pytest.raises(error) as info:
        tf.train.ClusterSpec(cluster)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("cluster, kwargs, message", [
    ({"a": ["x:1"], "b": ["y:1"]}, {}, "Must specify an explicit `job_name`."),
    ({"a": ["x:1", "x:2"]}, {}, "Must specify an explicit `task_index`."),
])
def test_a_server_needs_a_job_and_task_when_the_cluster_leaves_a_choice(cluster, kwargs,
                                                                        message):
    with pytest.raises(ValueError, match="^%s$" % message):
        tf.train.Server(cluster, **kwargs)


def test_a_server_def_from_a_cluster():
    server_def = server_lib._make_server_def({"ps": ["a:1"], "worker": ["b:1", "c:1"]},
                                             "worker", 1, None,
                                             tf.ConfigProto(device_count={"CPU": 2}))
    assert (server_def.job_name, server_def.task_index, server_def.protocol) == (
        "worker", 1, "grpc")
    assert dict(server_def.default_session_config.device_count) == {"CPU": 2}
    assert tf.train.ClusterSpec(server_def.cluster).as_dict() == {
        "ps": ["a:1"], "worker": ["b:1", "c:1"]}
    with pytest.raises(TypeError, match="Could not convert `server_or_cluster_def`"):
        tf.train.Server(42)


def test_an_unknown_protocol_has_no_server_factory():
    with pytest.raises(tf.errors.NotFoundError,
                       match=r"The available server factories are: \[ GRPC_SERVER \]"):
        tf.train.Server({"a": ["localhost:0"]}, protocol="grpc+verbs")


def test_tf_distribute_server_is_tf_train_server():
    assert tf.distribute.Server is tf.train.Server


# =============================================================================
# replica_device_setter
# =============================================================================

def test_variables_go_round_robin_to_the_ps_tasks_and_compute_to_the_worker():
    with tf.Graph().as_default():
        setter = tf.train.replica_device_setter(
            cluster={"ps": ["a:1", "b:1"], "worker": ["c:1"]})
        with tf.device(setter):
            v1 = tf.Variable(1.0, name="v1")
            v2 = tf.Variable(2.0, name="v2")
            v3 = tf.Variable(3.0, name="v3")
            a = v1 + v2
            with tf.device("/job:ps/task:1"):
                v4 = tf.Variable(4.0, name="v4")
            with tf.device("/cpu:0"):
                v5 = tf.Variable(5.0, name="v5")
                b = a * 2
            with tf.device("/job:other"):
                v6 = tf.Variable(6.0, name="v6")
        # What TensorFlow gives for the same graph.
        expected = {"v1": "/job:ps/task:0", "v2": "/job:ps/task:1", "v3": "/job:ps/task:0",
                    "v4": "/job:ps/task:1", "v5": "/job:ps/task:0/device:CPU:0",
                    "v6": "/job:other"}
        for v in (v1, v2, v3, v4, v5, v6):
            device = expected[v.op.name]
            assert (v.op.device, v.initializer.device, v.value().device) == (device,) * 3
        assert (a.device, b.device) == ("/job:worker", "/job:worker/device:CPU:0")


def test_ps_tasks_without_a_cluster_and_a_full_worker_device():
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=3, worker_device="/job:worker/task:1/device:CPU:0")):
            v = tf.Variable(tf.zeros([10]))
            w = tf.Variable(1.0)
            c = v * 2
        assert (v.device, w.device, c.device) == (
            "/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:1/device:CPU:0")


def test_no_ps_job_means_no_device_function():
    assert tf.train.replica_device_setter(cluster={"worker": ["a:1"]}) is None
    assert tf.train.replica_device_setter() is None
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_the_greedy_strategy_balances_bytes_over_the_ps_tasks():
    strategy = device_setter.GreedyLoadBalancingStrategy(2, device_setter.byte_size_load_fn)
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
            big = tf.Variable(tf.zeros([1000]), name="big")      # 4000 bytes -> task 0
            small1 = tf.Variable(tf.zeros([10]), name="small1")  # task 1 (40 bytes)
            small2 = tf.Variable(tf.zeros([10]), name="small2")  # task 1 (80 bytes)
            medium = tf.Variable(tf.zeros([500]), name="medium")  # task 1 (2080 bytes)
            last = tf.Variable(tf.zeros([1], tf.int64), name="last")  # task 1 (2088 < 4000)
    assert [v.device for v in (big, small1, small2, medium, last)] == [
        "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:1", "/job:ps/task:1",
        "/job:ps/task:1"]
    with tf.Graph().as_default():
        two_outputs = tf.unstack(tf.zeros([2]))[0].op
        with pytest.raises(ValueError, match="must have a single output"):
            device_setter.byte_size_load_fn(two_outputs)


def test_slots_and_updates_follow_their_variable_to_its_ps_task():
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=2, worker_device="/job:worker/task:0")):
            w = tf.Variable(tf.ones([3]), name="w")
            b = tf.Variable(0.0, name="b")
            loss = tf.reduce_sum(w * 2.0) + b
            train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        slots = {v.op.name: v for v in tf.global_variables()}
        assert slots["w"].device == slots["w/Momentum"].device == "/job:ps/task:0"
        assert slots["b"].device == slots["b/Momentum"].device == "/job:ps/task:1"
        graph = tf.get_default_graph()
        update = graph.get_operation_by_name("Momentum/update_w/ApplyMomentum")
        # As in TensorFlow: the update is colocated with w, and so placed with it.
        assert update.device == "/job:ps/task:0"
        assert update.colocation_groups() == ["loc:@w"]
        assert loss.device == "/job:worker/task:0" and train.device == "/job:worker/task:0"


def test_describing_a_cluster_loads_neither_grpc_nor_protobuf():
    code = ("import sys, minitf as tf\n"
            "spec = tf.train.ClusterSpec({'ps': ['a:1'], 'worker': {3: 'b:1'}})\n"
            "spec.as_dict(); tf.train.replica_device_setter(cluster=spec)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == "[]"
