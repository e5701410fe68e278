"""TensorProtos: minitf writes TensorFlow's bytes, reads them back, and refuses bad ones."""

import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf
from minitf.graph.tensor_proto import make_ndarray, make_tensor_proto

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "tensor_protos.json").read_text())


def _value_of(case):
    if "numpy_dtype" in case:
        return np.array(case["value"], dtype=case["numpy_dtype"])
    return case["value"]


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: json.dumps(
    {k: v for k, v in c.items() if k != "hex"}))
def test_bytes_equal_tensorflows(case):
    proto = make_tensor_proto(_value_of(case), shape=case.get("shape"))
    assert proto.SerializeToString().hex() == case["hex"]


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["hex"][:24])
def test_tensorflows_bytes_read_back(case):
    from minitf.proto import tensor_pb2

    proto = tensor_pb2.TensorProto.FromString(bytes.fromhex(case["hex"]))
    value = np.array(_value_of(case), dtype=object if isinstance(case["value"], str) or (
        isinstance(case["value"], list) and case["value"] and isinstance(
            case["value"][0], str)) else None)
    expected = value.reshape(-1) if "shape" in case else value
    got = make_ndarray(proto)
    if "shape" in case:
        assert got.shape == tuple(case["shape"])
        flat = got.reshape(-1)
        assert list(flat[:expected.size]) == list(expected)  # then the last value repeats
        assert all(v == expected[-1] for v in flat[expected.size:])
    else:
        assert got.shape == np.shape(value)
        if value.dtype == object:
            assert [v.decode() for v in got.reshape(-1)] == list(value.reshape(-1))
        else:
            np.testing.assert_array_equal(got, value)


_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_DTYPES).flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                          elements=None if dt != np.float16 else st.floats(
                              -100, 100, width=16))))
def test_every_array_round_trips_bit_for_bit(array):
    back = make_ndarray(make_tensor_proto(array))
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()


def test_a_proto_passes_through_and_strings_round_trip():
    proto = make_tensor_proto([["a", "é"], ["", "xyz"]])
    assert make_tensor_proto(proto) is proto
    assert make_ndarray(proto).tolist() == [[b"a", "é".encode()], [b"", b"xyz"]]


def test_shape_arguments_follow_tensorflow():
    assert make_ndarray(make_tensor_proto(7, shape=[2, 3])).tolist() == [[7] * 3] * 2
    with pytest.raises(ValueError, match="Too many elements provided. Needed at most 2, but "
                                         "received 3"):
        make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2,\), got \(1, 2\)"):
        make_tensor_proto([[1, 2]], shape=[2], verify_shape=True)
    with pytest.raises(TypeError, match="Expected int32"):
        make_tensor_proto(1.5, dtype=tf.int32)


def test_content_that_does_not_fit_the_shape_is_an_error_not_garbage():
    proto = make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3))
    proto.tensor_content = proto.tensor_content[:-4]
    with pytest.raises(ValueError, match="holds 20 bytes of content, expected 24"):
        make_ndarray(proto)
    short = make_tensor_proto([1, 2, 3])
    short.tensor_shape.dim[0].size = 2
    with pytest.raises(ValueError, match="holds 12 bytes"):
        make_ndarray(short)


def test_tensor_shapes_as_protos():
    for dims in ([], [2, None, 3], None):
        shape = tf.TensorShape(dims)
        proto = shape.as_proto()
        assert tf.TensorShape(proto).as_list() == shape.as_list() if dims is not None \
            else tf.TensorShape(proto).ndims is None
    assert [d.size for d in tf.TensorShape([None, 4]).as_proto().dim] == [-1, 4]
    assert tf.TensorShape(None).as_proto().unknown_rank


# =============================================================================
# GraphDefs: TensorFlow's bytes in, minitf's bytes out
# =============================================================================

TF_GRAPH = json.loads((pathlib.Path(__file__).parent / "data" / "tf_small_graph.json").read_text())
TF_GRAPH_BYTES = (pathlib.Path(__file__).parent / "data" / "tf_small_graph.pb").read_bytes()


def test_a_graph_def_tensorflow_wrote_parses_node_for_node():
    from minitf.graph.graph_def import GraphDef

    graph_def = GraphDef.FromString(TF_GRAPH_BYTES)
    assert [(n.name, n.op, n.input, n.device) for n in graph_def.node] == [
        (n["name"], n["op"], n["input"], n["device"]) for n in TF_GRAPH["nodes"]]
    by_name = {n.name: n for n in graph_def.node}
    assert by_name["x"].attr["dtype"] == tf.float32
    assert by_name["x"].attr["shape"].as_list() == [None, 3]
    assert by_name["words"].attr["value"].tolist() == [b"a", b"bc"]
    assert by_name["seven"].attr["value"].dtype == np.int64
    assert by_name["MatMul"].attr["transpose_a"] is False
    assert by_name["BiasAdd"].attr["data_format"] == "NHWC"


def test_minitfs_runtime_runs_a_graph_def_tensorflow_wrote():
    from minitf.graph.graph_def import GraphDef
    from minitf.session.direct_session import DirectSession

    session = DirectSession()
    session.extend(GraphDef.FromString(TF_GRAPH_BYTES))
    (y,) = session.run({"x:0": np.array(TF_GRAPH["feed"], np.float32)}, ["y:0"], [])
    np.testing.assert_allclose(y, TF_GRAPH["y"], rtol=1e-6)
    session.close()


def test_garbage_is_not_a_graph_def():
    from minitf.graph.graph_def import GraphDef

    with pytest.raises(ValueError, match="not a serialized GraphDef"):
        GraphDef.FromString(b"\xff\xff\xff garbage")
    with pytest.raises(ValueError, match="not a serialized GraphDef"):
        GraphDef.FromString(TF_GRAPH_BYTES[:-7])


def test_minitfs_graph_def_round_trips_through_tensorflows_message():
    from minitf.graph.graph_def import GraphDef

    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.nn.relu(tf.matmul(x, w) + tf.constant([1.0, 2.0]))
        tf.constant(["a", "b"])
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
    original = graph.as_graph_def(add_shapes=True)
    data = original.SerializeToString()
    from minitf.proto import graph_pb2

    assert graph_pb2.GraphDef.FromString(data).versions.producer == 134
    assert GraphDef.FromString(data).node == original.node
