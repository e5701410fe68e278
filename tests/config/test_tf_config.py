"""`tf.config`: process-wide settings that a session created without a ConfigProto takes."""

import pytest

import minitf as tf
from minitf.session import context


@pytest.fixture(autouse=True)
def default_settings():
    context.reset()
    yield
    context.reset()


def test_threads_go_into_a_new_sessions_config():
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    tf.config.threading.set_inter_op_parallelism_threads(2)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 2
    config = context.default_config()
    assert config.inter_op_parallelism_threads == 2 and config.intra_op_parallelism_threads == 1
    with tf.Session() as sess:
        assert sess.run(tf.constant(3.0) * 2.0) == 6.0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_a_thread_count_must_be_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        tf.config.threading.set_inter_op_parallelism_threads(bad)


def test_a_config_given_wins_over_the_settings():
    tf.config.set_soft_device_placement(True)
    assert tf.config.get_soft_device_placement()
    assert context.default_config().allow_soft_placement
    session = tf.Session(config=tf.ConfigProto())
    assert not session._config.allow_soft_placement
    session.close()


def test_soft_placement_lets_a_gpu_op_fall_back_to_the_cpu():
    with tf.device("/device:GPU:0"):
        y = tf.constant(2.0) + 1.0
    with pytest.raises(tf.errors.InvalidArgumentError), tf.Session() as sess:
        sess.run(y)
    tf.config.set_soft_device_placement(True)
    with tf.Session() as sess:
        assert sess.run(y) == 3.0


def test_the_devices():
    cpu, = tf.config.list_physical_devices("CPU")
    assert cpu == tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.get_visible_devices() == [cpu]
    assert tf.config.list_logical_devices() == [tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    assert tf.config.experimental.list_physical_devices is tf.config.list_physical_devices


def test_the_cpu_split_into_logical_devices_gives_a_session_several_cpus():
    cpu, = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    assert len(tf.config.get_logical_device_configuration(cpu)) == 2
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == [
        "/device:CPU:0", "/device:CPU:1"]
    with tf.device("/device:CPU:1"):
        y = tf.constant(1.0) + 1.0
    with tf.Session() as sess:
        assert [d.name for d in sess.list_devices()][-1].endswith("CPU:1")
        assert sess.run(y) == 2.0
    tf.config.experimental.set_virtual_device_configuration(cpu, None)
    assert tf.config.get_logical_device_configuration(cpu) is None


def test_bad_devices_are_refused():
    cpu, = tf.config.list_physical_devices("CPU")
    gpu = tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([cpu, gpu])
    with pytest.raises(ValueError, match="CPU can not be hidden"):
        tf.config.set_visible_devices([])
    with pytest.raises(ValueError, match="non-empty list of LogicalDeviceConfiguration"):
        tf.config.set_logical_device_configuration(cpu, [])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth(cpu, True)


def test_gpus_hidden_and_memory_growth(stand_in_gpu):
    gpu, = tf.config.list_physical_devices("GPU")
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu)
    assert context.default_config().gpu_options.allow_growth
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices("GPU") == []
    with tf.Session() as sess:
        assert not any("GPU" in d.name for d in sess.list_devices())
    with pytest.raises(ValueError, match="only the CPU can be split"):
        tf.config.set_logical_device_configuration(
            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=100)] * 2)


def test_the_optimizer_options_turn_constant_folding_off():
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    assert tf.config.optimizer.get_experimental_options() == {"constant_folding": False}
    options = context.default_config().graph_options.optimizer_options
    assert options.opt_level == tf.OptimizerOptions.L0


def test_what_is_only_recorded():
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly() and tf.config.experimental_functions_run_eagerly()
    tf.config.optimizer.set_jit(True)
    assert tf.config.optimizer.get_jit()
