"""The namespaces that name other chapters' functions again: tf.dtypes, tf.random, ..."""

import sys

import pytest

import minitf as tf
from minitf.graph import tf1_api


def test_tf_dtypes_has_every_dtype_under_its_name():
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.string is tf.string
    assert tf.dtypes.as_dtype("int64") is tf.int64 and tf.dtypes.DType is tf.DType
    assert tf.dtypes.cast is tf.cast
    assert not hasattr(tf.dtypes, "float32_ref")
    assert tf.dtypes.QUANTIZED_DTYPES == frozenset()


def test_an_alias_is_looked_up_once_then_kept():
    assert "cast" not in vars(tf.dtypes) or vars(tf.dtypes)["cast"] is tf.cast
    tf.dtypes.cast  # noqa: B018
    assert vars(tf.dtypes)["cast"] is tf.cast


def test_an_alias_whose_target_is_missing_fails_as_a_missing_name():
    module = type(sys)("minitf_test_aliases")
    sys.modules[module.__name__] = module
    try:
        module.__getattr__ = tf1_api.alias_getattr("tf.math", module.__name__, {
            "is_nan": "no_such_module.is_nan", "add": "add"})
        assert module.add is tf.add
        with pytest.raises(AttributeError, match="tf.math.is_nan is part of TensorFlow 1.15's "
                                                 "API but not yet of minitf"):
            module.is_nan  # noqa: B018
        with pytest.raises(AttributeError, match="^module 'minitf_test_aliases' has no "
                                                 "attribute 'nope'$"):
            module.nope  # noqa: B018
    finally:
        del sys.modules[module.__name__]


def test_tf_initializers_are_the_initializers_and_the_init_ops():
    assert tf.initializers.zeros is tf.zeros_initializer
    assert tf.initializers.glorot_uniform is tf.glorot_uniform_initializer
    assert tf.initializers.global_variables is tf.global_variables_initializer
    assert tf.initializers.variables is tf.variables_initializer
    assert tf.initializers.tables_initializer is tf.tables_initializer
    v = tf.Variable(tf.initializers.ones()([2]))
    with tf.Session() as sess:
        sess.run(tf.initializers.global_variables())
        assert sess.run(v).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("make, scale, distribution", [
    ("lecun_normal", 1.0, "truncated_normal"), ("lecun_uniform", 1.0, "uniform"),
    ("he_normal", 2.0, "truncated_normal"), ("he_uniform", 2.0, "uniform"),
])
def test_the_named_variance_scalings(make, scale, distribution):
    init = getattr(tf.initializers, make)(seed=1)
    assert init.get_config() == {"scale": scale, "mode": "fan_in",
                                 "distribution": distribution, "seed": 1, "dtype": "float32"}
    with tf.Session() as sess:
        values = sess.run(init([400, 300]))
    assert abs(values.std() - (scale / 400) ** 0.5) < 0.005
    if distribution == "uniform":
        assert abs(values).max() <= (3 * scale / 400) ** 0.5


def test_gfile_stat(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"12345")
    stat = tf.io.gfile.stat(str(path))
    assert stat.length == 5 and not stat.is_directory
    assert stat.mtime_nsec == path.stat().st_mtime_ns
    assert tf.gfile.Stat(str(tmp_path)).is_directory
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.gfile.Stat(str(tmp_path / "none"))


# --- tf.io, tf.train and tf.data: names minitf has under another TF name -------------------

def test_tf_io_has_the_base64_string_ops_of_tf():
    assert tf.io.encode_base64 is tf.encode_base64
    assert tf.io.decode_base64 is tf.decode_base64
    with tf.Session() as sess:
        assert sess.run(tf.io.decode_base64(tf.io.encode_base64(b"minitf?"))) == b"minitf?"


def test_tf_train_has_the_cluster_messages():
    job = tf.train.JobDef(name="worker", tasks={0: "localhost:2222"})
    server = tf.train.ServerDef(cluster=tf.train.ClusterDef(job=[job]), job_name="worker")
    assert server.cluster.job[0].tasks[0] == "localhost:2222"
    assert tf.train.ServerDef.DESCRIPTOR.full_name == "tensorflow.ServerDef"
    assert tf.train.ClusterSpec({"worker": ["localhost:2222"]}).as_cluster_def() == server.cluster


def test_tf_data_constants_are_tensorflows():
    # tf.data.AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY in TF 2.21: -1 -1 -2
    assert (tf.data.AUTOTUNE, tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY) == (
        -1, -1, -2)
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE
