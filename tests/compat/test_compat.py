"""`import minitf.compat.v1 as tf`, `tf.compat`'s helpers and the TF1/TF2 switches."""

import datetime
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import minitf as tf
from minitf.compat import compat, v2_compat

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def tf1_switches():
    yield
    v2_compat.disable_v2_behavior()


def test_a_tf1_program_runs_with_only_its_import_changed():
    code = ("import minitf.compat.v1 as tf\n"
            "tf.disable_eager_execution()\n"
            "tf.disable_v2_behavior()\n"
            "x = tf.placeholder(tf.float32, [None, 2])\n"
            "w = tf.get_variable('w', initializer=tf.ones([2, 1]))\n"
            "y = tf.matmul(x, w)\n"
            "with tf.Session() as sess:\n"
            "    sess.run(tf.global_variables_initializer())\n"
            "    print(sess.run(y, {x: [[1.0, 2.0]]}))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[[3.]]"


def test_compat_v1_is_the_minitf_namespace():
    import minitf.compat.v1 as v1
    assert tf.compat.v1 is v1
    assert v1.nn is tf.nn and v1.train is tf.train and v1.Session is tf.Session
    assert v1.compat.v1 is v1 and v1.__version__ == tf.__version__
    assert v1.disable_eager_execution is tf.disable_eager_execution


def test_compat_v1_says_when_a_name_is_tf_1_15s():
    import minitf.compat.v1 as v1
    with pytest.raises(AttributeError, match="tf.keras is a name of TensorFlow 1.15 that "
                                             "minitf leaves out"):
        v1.keras  # noqa: B018
    with pytest.raises(AttributeError, match="^module 'minitf.compat.v1' has no attribute "
                                             "'no_such_name'$"):
        v1.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="tf.compat.v2 is a name of TensorFlow 1.15 that "
                                             "minitf leaves out"):
        tf.compat.v2  # noqa: B018


# --- strings and shapes either way -------------------------------------------------------

def test_as_bytes_and_as_text():
    assert tf.compat.as_bytes("héllo") == "héllo".encode("utf-8")
    assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert tf.compat.as_bytes("é", encoding="latin-1") == b"\xe9"
    assert tf.compat.as_text(b"h\xc3\xa9") == "hé" and tf.compat.as_str("x") == "x"
    assert tf.compat.as_str_any(b"ab") == "ab" and tf.compat.as_str_any(3) == "3"
    assert tf.compat.path_to_str(pathlib.Path("a/b")) == "a/b"
    assert tf.compat.path_to_str(7) == 7
    for convert in (tf.compat.as_bytes, tf.compat.as_text):
        with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
            convert(3)
    with pytest.raises(LookupError):
        tf.compat.as_bytes("a", encoding="no-such-codec")


def test_the_type_tuples_take_numpys_scalars():
    assert isinstance(np.int8(1), tf.compat.integral_types)
    assert not isinstance(1.5, tf.compat.integral_types)
    assert isinstance(np.float16(1), tf.compat.real_types)
    assert isinstance(1j, tf.compat.complex_types) and isinstance(b"", tf.compat.bytes_or_text_types)


def test_dimension_value_reads_both_kinds_of_dimension():
    shape = tf.TensorShape([3, None])
    assert tf.compat.dimension_value(shape[0]) == 3 and tf.compat.dimension_value(7) == 7
    assert tf.compat.dimension_at_index(shape, 1).value is None


# --- forward compatibility ---------------------------------------------------------------

def test_forward_compatible_compares_with_the_horizon():
    assert tf.compat.forward_compatible(2019, 10, 15)
    assert not tf.compat.forward_compatible(2019, 10, 16)
    with tf.compat.forward_compatibility_horizon(2030, 1, 2):
        assert tf.compat.forward_compatible(2030, 1, 1)
    assert not tf.compat.forward_compatible(2030, 1, 1)


def test_the_horizon_cannot_move_into_the_past(caplog):
    with tf.compat.forward_compatibility_horizon(2000, 1, 1):
        assert compat._horizon == compat.HORIZON
    assert "Trying to set the forward compatibility date to the past" in caplog.text


def test_the_environment_moves_the_horizon(monkeypatch):
    monkeypatch.setenv(compat.DELTA_DAYS_VARIABLE, "10")
    compat._set_horizon()
    try:
        assert compat._horizon == compat.HORIZON + datetime.timedelta(days=10)
        assert tf.compat.forward_compatible(2019, 10, 20)
    finally:
        monkeypatch.delenv(compat.DELTA_DAYS_VARIABLE)
        compat._set_horizon()


# --- the switches --------------------------------------------------------------------------

def test_the_switches_towards_tf1_are_no_ops():
    tf.disable_eager_execution()
    tf.disable_v2_behavior()
    tf.disable_v2_tensorshape()
    assert not tf.executing_eagerly() and not tf.executing_eagerly_outside_functions()
    assert isinstance(tf.constant(1.0), tf.Tensor)            # still a graph
    assert isinstance(tf.TensorShape([3])[0], tf.Dimension)


@pytest.mark.parametrize("switch", ["enable_eager_execution", "enable_v2_behavior"])
def test_eager_execution_cannot_be_switched_on(switch):
    with pytest.raises(ValueError, match="has no eager execution"):
        getattr(tf, switch)()
    assert not tf.executing_eagerly()


def test_tf2_shapes_cannot_be_switched_on():
    with pytest.raises(ValueError, match="tf.compat.dimension_value"):
        tf.enable_v2_tensorshape()


@pytest.mark.parametrize("feature, reported_by", [
    ("resource_variables", "resource_variables_enabled"),
    ("control_flow_v2", "control_flow_v2_enabled"),
])
def test_recorded_switches_are_reported_and_disable_v2_behavior_resets_them(feature,
                                                                            reported_by):
    assert not getattr(tf, reported_by)()
    getattr(tf, "enable_" + feature)()
    assert getattr(tf, reported_by)()
    tf.disable_v2_behavior()
    assert not getattr(tf, reported_by)()


def test_with_the_switches_on_the_graph_computes_the_same():
    tf.enable_resource_variables()
    tf.enable_control_flow_v2()
    tf.enable_tensor_equality()
    v = tf.Variable(2.0, use_resource=True)
    y = v * 3.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y) == 6.0
    assert (y == y) is True
    tf.disable_tensor_equality()
