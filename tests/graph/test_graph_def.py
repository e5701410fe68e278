"""GraphDef: as_graph_def, TensorFlow's message and text format, and import_graph_def.

import_graph_def's names, messages and scope behaviour were checked against
the reference TensorFlow (where TF 2's wording differs from TF 1.15, the
TF 1.15 wording is kept and the test says so).
"""

import math

import numpy as np
import pytest

import minitf as tf
from minitf.graph import graph_def_proto
from minitf.framework import op_def as op_def_lib
from minitf.graph.graph_def import GraphDef, NodeDef

if not op_def_lib.is_registered("TestTwoOutputs"):
    op_def_lib.register_op("TestTwoOutputs").input("x: float32").output("a: float32").output(
        "b: float32")


def two_outputs(x, name=None):
    return tf.get_default_graph().create_op("TestTwoOutputs", [x], name=name).outputs


# --- as_graph_def ---------------------------------------------------------------------

def test_node_defs_follow_tf_conventions():
    g = tf.get_default_graph()
    a = tf.constant(1.0, name="a")
    p, q = two_outputs(a, name="two")
    with tf.control_dependencies([a]):
        with tf.device("/device:CPU:0"):
            tf.add(p, q, name="sum")
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert list(nodes) == ["a", "two", "sum"]
    assert nodes["two"].input == ["a"]
    assert nodes["sum"].input == ["two", "two:1", "^a"]
    assert nodes["sum"].op == "Add" and nodes["sum"].device == "/device:CPU:0"
    assert nodes["sum"].attr == {"T": tf.float32}
    assert nodes["a"].attr["dtype"] == tf.float32
    np.testing.assert_array_equal(nodes["a"].attr["value"], np.float32(1.0))
    with tf.control_dependencies([a]):
        tf.constant(2.0, name="after")
    assert g.as_graph_def().node[-1].input == ["^a"]


def test_from_version_gives_only_the_new_nodes():
    g = tf.get_default_graph()
    tf.constant(1.0, name="a")
    first = g.as_graph_def()
    assert first.version == g.version == 1
    x = tf.placeholder(tf.float32, name="x")
    tf.identity(x, name="y")
    assert g.version == 3
    assert [n.name for n in g.as_graph_def(from_version=first.version).node] == ["x", "y"]
    assert [n.name for n in g.as_graph_def(from_version=0).node] == ["a", "x", "y"]
    assert g.as_graph_def(from_version=3).node == []
    assert g.as_graph_def(from_version=1).version == 3


def test_add_shapes():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    two_outputs(x, name="two")
    nodes = {n.name: n for n in tf.get_default_graph().as_graph_def(add_shapes=True).node}
    assert nodes["x"].attr["_output_shapes"] == [tf.TensorShape([None, 2])]
    assert [s.dims for s in nodes["two"].attr["_output_shapes"]] == [None, None]
    assert "_output_shapes" not in tf.get_default_graph().as_graph_def().node[0].attr


def test_format_node_reads_like_the_op():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:0"):
        y = tf.add(x, x, name="y")
    assert str(y.op) == "y = Add(x, x) {T=float32} @ /device:CPU:0"
    assert str(tf.get_default_graph().as_graph_def()).splitlines()[1] == str(y.op)


# --- JSON: every attr kind round-trips -------------------------------------------------------

NUMERIC = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64"]

ATTR_VALUES = {
    "str": "NHWC",
    "empty_str": "",
    "unicode_str": "h\u00e9llo \u4e16\u754c",
    "bytes": b"\x00\xffraw",
    "int": 3,
    "big_int": 2**62,
    "negative_int": -7,
    "float": 0.5,
    "float_nan": math.nan,
    "float_inf": math.inf,
    "float_neg_inf": -math.inf,
    "true": True,
    "false": False,
    "none": None,  # an AttrValue with no value set
    "type": tf.float32,
    "ref_type": tf.int32_ref,
    "shape": tf.TensorShape([2, None, 3]),
    "scalar_shape": tf.TensorShape([]),
    "unknown_shape": tf.TensorShape(None),
    "string_tensor": np.array([[b"a", b""], [b"\xff\x00", "t\u00e9".encode()]], dtype=object),
    "string_scalar": np.array(b"x", dtype=object),
    "bool_tensor": np.array([True, False, True]),
    "empty_tensor": np.zeros((0, 3), np.float32),
    "numpy_scalar": np.float32(2.5),
    "list_of_int": [1, 2, 3],
    "list_of_float": [0.5, -1.0],
    "list_of_str": ["a", "b"],
    "list_of_bytes": [b"\xffa", b"\x80"],
    "list_of_bool": [True, False],
    "list_of_type": [tf.float32, tf.int64, tf.string],
    "list_of_shape": [tf.TensorShape([1]), tf.TensorShape(None), tf.TensorShape([None])],
    "list_of_tensor": [np.arange(3, dtype=np.int64), np.array(1.5)],
    "empty_list": [],
}
for _name in NUMERIC:
    _np = np.dtype(tf.as_dtype(_name).as_numpy_dtype)
    ATTR_VALUES[_name + "_tensor"] = (np.arange(6) * 3 + 1).astype(_np).reshape(2, 3)
    ATTR_VALUES[_name + "_scalar"] = np.array(7, dtype=_np)


def assert_same_attr(got, want):
    if isinstance(want, (np.ndarray, np.generic)):
        want = np.asarray(want)
        assert isinstance(got, np.ndarray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert got.flags.writeable
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_attr(g, w)
    elif isinstance(want, tf.TensorShape):
        assert isinstance(got, tf.TensorShape) and got.dims is None if want.dims is None \
            else got.as_list() == want.as_list()
    elif isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert type(got) is type(want) and got == want


@pytest.mark.parametrize("key", sorted(ATTR_VALUES))
def test_every_attr_kind_round_trips_through_tensorflows_message(key):
    node = NodeDef("n", "SomeOp", ["x", "y:1", "^z"], "/job:w/device:CPU:0",
                   {key: ATTR_VALUES[key]})
    data = GraphDef([node]).SerializeToString()
    back = GraphDef.FromString(data)
    (got,) = back.node
    assert (got.name, got.op, got.input, got.device) == (node.name, node.op, node.input,
                                                         node.device)
    assert list(got.attr) == [key]
    assert_same_attr(got.attr[key], ATTR_VALUES[key])
    assert back.SerializeToString() == data  # stable
    assert graph_def_proto.graph_def_from_text(graph_def_proto.graph_def_to_text(back)) == back


def test_floats_are_float32_and_utf8_bytes_come_back_as_text():
    """TensorFlow's AttrValue keeps a float in 32 bits, and strings as bytes."""
    node = NodeDef("n", "Op", [], "", {"f": 0.1, "s": b"abc", "l": [b"a", "b"]})
    (got,) = GraphDef.FromString(GraphDef([node]).SerializeToString()).node
    assert got.attr["f"] == float(np.float32(0.1))
    assert got.attr["s"] == "abc" and got.attr["l"] == ["a", "b"]


def test_the_text_format_is_tensorflows():
    node = NodeDef("n", "Op", ["x"], "", {"f": math.nan, "T": tf.float32, "s": "x", "i": 3,
                                          "shape": tf.TensorShape([None, 2])})
    text = graph_def_proto.graph_def_to_text(GraphDef([node]))
    assert text == (
        'node {\n  name: "n"\n  op: "Op"\n  input: "x"\n'
        '  attr {\n    key: "T"\n    value {\n      type: DT_FLOAT\n    }\n  }\n'
        '  attr {\n    key: "f"\n    value {\n      f: nan\n    }\n  }\n'
        '  attr {\n    key: "i"\n    value {\n      i: 3\n    }\n  }\n'
        '  attr {\n    key: "s"\n    value {\n      s: "x"\n    }\n  }\n'
        '  attr {\n    key: "shape"\n    value {\n      shape {\n        dim {\n'
        '          size: -1\n        }\n        dim {\n          size: 2\n        }\n'
        '      }\n    }\n  }\n}\nversions {\n  producer: 134\n}\n')


def test_tensor_content_is_little_endian():
    node = NodeDef("n", "Const", [], "", {"value": np.array([1, 256], dtype=">i4")})
    proto = graph_def_proto.graph_def_to_proto(GraphDef([node]))
    assert proto.node[0].attr["value"].tensor.tensor_content == b"\x01\0\0\0\0\x01\0\0"


def test_a_whole_graph_round_trips():
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.constant([[1.0], [2.0]], name="w")
    with tf.control_dependencies([w]):
        tf.matmul(x, w, name="y")
    original = tf.get_default_graph().as_graph_def()
    data = original.SerializeToString()
    # TensorFlow's GraphDef message carries the nodes, not minitf's graph version.
    assert GraphDef.FromString(data).node == original.node
    parsed = GraphDef()
    assert parsed.ParseFromString(data) == len(data) and parsed.node == original.node
    text = graph_def_proto.graph_def_to_text(original)
    assert graph_def_proto.graph_def_from_text(text).node == original.node


def test_node_def_equality_compares_attr_values():
    a = NodeDef("n", "Const", [], "", {"value": np.array([1.0], np.float32)})
    b = NodeDef("n", "Const", [], "", {"value": np.array([1.0], np.float32)})
    c = NodeDef("n", "Const", [], "", {"value": np.array([2.0], np.float32)})
    d = NodeDef("n", "Const", [], "", {"value": np.array([1.0], np.float64)})
    assert a == b and a != c and a != d
    assert NodeDef("n", "Op", [], "", {"f": math.nan}) == NodeDef("n", "Op", [], "",
                                                                    {"f": math.nan})


@pytest.mark.parametrize("value", [object(), {"a": 1}, {1, 2}, lambda: 1, 1 + 2j, [[1, 2]]])
def test_unsupported_attr_values_are_refused(value):
    with pytest.raises(TypeError, match="in an AttrValue|cannot store"):
        GraphDef([NodeDef("n", "Op", [], "", {"bad": value})]).SerializeToString()


@pytest.mark.parametrize("data", [b"\xff\xff\xff garbage", b"\x0a\x05\x0a\x03ab"])
def test_bytes_that_are_not_a_graph_def_are_a_clear_value_error(data):
    with pytest.raises(ValueError, match="Bytes are not a serialized GraphDef"):
        GraphDef.FromString(data)


@pytest.mark.parametrize("text, message", [
    ("node { name: ", "Text is not a GraphDef in text format"),
    ('node { nme: "x" }', 'has no field named "nme"'),
    ('node { attr { key: "a" value { type: DT_FLOAT33 } } }', "DT_FLOAT33"),
])
def test_text_that_is_not_a_graph_def_is_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        graph_def_proto.graph_def_from_text(text)


# --- import_graph_def --------------------------------------------------------------------

def build_y_equals_x_plus_a():
    """a = 1.0; x = placeholder; y = x + a (with a control input on y)."""
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        x = tf.placeholder(tf.float32, name="x")
        c = tf.constant(0.0, name="c")
        with tf.control_dependencies([c]):
            tf.add(x, a, name="y")
    return g.as_graph_def()


def test_import_with_input_map_and_return_elements():
    graph_def = build_y_equals_x_plus_a()
    z = tf.constant(5.0, name="z")
    y, a_op, y_op = tf.import_graph_def(graph_def, input_map={"x": z},
                                        return_elements=["y:0", "a", "y"])
    assert (y.name, a_op.name, y_op.name) == ("import/y:0", "import/a", "import/y")
    assert isinstance(y, tf.Tensor) and isinstance(a_op, tf.Operation) and y_op is y.op
    assert y_op.inputs == (z, a_op.outputs[0])
    assert [c.name for c in y_op.control_inputs] == ["import/c"]
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "z", "import/a", "import/x", "import/c", "import/y"]
    with tf.Session() as sess:
        assert sess.run(y) == 6.0


def test_import_returns_none_without_return_elements():
    assert tf.import_graph_def(build_y_equals_x_plus_a()) is None
    assert tf.get_default_graph().get_operation_by_name("import/y").type == "Add"


def test_import_name_prefixes():
    graph_def = build_y_equals_x_plus_a()

    def imported_y(**kwargs):
        return tf.import_graph_def(graph_def, return_elements=["y:0"], **kwargs)[0].name

    assert imported_y() == "import/y:0"
    assert imported_y() == "import_1/y:0"
    assert imported_y(name="imp") == "imp/y:0"
    assert imported_y(name="imp") == "imp_1/y:0"
    with tf.name_scope("outer"):
        assert imported_y() == "outer/import/y:0"
    assert imported_y(name="") == "y:0"
    y = tf.import_graph_def(graph_def, return_elements=["y:0"], name="")[0]
    assert y.name == "y_1:0"  # names are made unique, and the inputs follow
    assert [t.name for t in y.op.inputs] == ["x_1:0", "a_1:0"]
    assert tf.constant(1.0, name="a").op.name == "a_2"  # imported names are reserved


def test_import_into_an_enclosing_control_dependency_and_device_scope():
    graph_def = build_y_equals_x_plus_a()
    graph_def.node[0].device = "/device:GPU:0"  # a asks for a device of its own
    z = tf.constant(1.0, name="z")
    with tf.device("/job:foo/device:CPU:0"):
        with tf.control_dependencies([z]):
            y_op, a_op = tf.import_graph_def(graph_def, return_elements=["y", "a"], name="d")
            after = tf.constant(1.0)
    assert [c.name for c in y_op.control_inputs] == ["d/c", "z"]
    assert [c.name for c in a_op.control_inputs] == ["z"]
    assert a_op.device == "/job:foo/device:GPU:0"  # the node's own request wins
    assert y_op.device == "/job:foo/device:CPU:0"
    assert [c.name for c in after.op.control_inputs] == ["z"]


def test_import_keeps_colocation_within_the_imported_graph():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/device:GPU:1"):
            x = tf.constant(1.0, name="x")
        with tf.colocate_with(x):
            tf.identity(x, name="y")
    y, = tf.import_graph_def(g.as_graph_def(), return_elements=["y"], name="im")
    assert y.get_attr("_class") == ["loc:@im/x"]
    assert y.device == "/device:GPU:1"


def test_import_control_input_remapping():
    graph_def = build_y_equals_x_plus_a()
    z = tf.constant(1.0, name="z")
    y, = tf.import_graph_def(graph_def, input_map={"^c": z.op}, return_elements=["y"])
    assert [c.name for c in y.control_inputs] == ["z"]


def test_python_values_in_input_map_become_constants():
    y, = tf.import_graph_def(build_y_equals_x_plus_a(), input_map={"x:0": 2.0},
                             return_elements=["y:0"])
    assert y.op.inputs[0].name == "import/_inputs/Const:0"
    with tf.Session() as sess:
        assert sess.run(y) == 3.0
    with pytest.raises(ValueError, match="requires a non-empty `name` if `input_map` contains "
                                         "non-Tensor values"):
        tf.import_graph_def(build_y_equals_x_plus_a(), input_map={"x:0": 2.0}, name="")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(input_map={"nope:0": None}), ValueError,
     r"Attempted to map inputs that were not found in graph_def: \[nope:0\]"),
    (dict(input_map={"x:3": None}), ValueError,
     r"Attempted to map inputs that were not found in graph_def: \[x:3\]"),
    (dict(return_elements=["nope"]), ValueError,
     "Requested return node 'nope' not found in graph def"),
    (dict(return_elements=["nope:0"]), ValueError,
     "Requested return tensor 'nope:0' not found in graph def"),
    (dict(return_elements=["y:4"]), ValueError,
     r"Invalid return output 4 of node 'y', which has 1 output\(s\)"),
    (dict(return_elements="y"), TypeError, "return_elements must be a list of strings"),
    (dict(input_map=["x"]), TypeError,
     "input_map must be a dictionary mapping strings to Tensor objects"),
    (dict(input_map={0: None}), TypeError, "input_map must be a dictionary"),
])
def test_import_argument_errors(kwargs, error, message):
    if "input_map" in kwargs and isinstance(kwargs["input_map"], dict):
        kwargs["input_map"] = {k: tf.constant(1.0, name="m") for k in kwargs["input_map"]}
    with pytest.raises(error, match=message):
        tf.import_graph_def(build_y_equals_x_plus_a(), **kwargs)
    assert all(op.name == "m" for op in tf.get_default_graph().get_operations())


def test_import_rejects_a_mapped_tensor_of_the_wrong_dtype():
    with pytest.raises(ValueError, match="Input 0 of node import/y was passed int32 from "
                                         "i:0 incompatible with expected float32"):
        tf.import_graph_def(build_y_equals_x_plus_a(),
                            input_map={"x:0": tf.constant(1, name="i")})


def test_import_rejects_what_is_not_a_graph_def():
    with pytest.raises(TypeError, match="graph_def must be a GraphDef proto"):
        tf.import_graph_def("not a graph")


@pytest.mark.parametrize("nodes, message", [
    ([NodeDef("a", "Identity", ["b"], "", {"T": tf.float32}),
      NodeDef("b", "Identity", ["a"], "", {"T": tf.float32})], "GraphDef has a cycle"),
    ([NodeDef("a", "Identity", ["q"], "", {"T": tf.float32})],
     "Node 'a': Unknown input node 'q'"),
    ([NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
      NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)})],
     "Node 'a' is not unique"),
    ([NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
      NodeDef("b", "Identity", ["a:1"], "", {"T": tf.float32})],
     "Node 'b': Connecting to invalid output 1 of source node a"),
    ([NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
      NodeDef("b", "Identity", ["a", "a"], "", {"T": tf.float32})],
     "Node 'b': expected 1 inputs, got 2"),
    ([NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1),
                                     "_class": ["loc:@ghost"]})],
     "Node 'a' expects to be colocated with unknown node 'ghost'"),
    ([NodeDef("a", "Const", [], "", {"dtype": tf.float32,
                                     "value": np.ones((2, 3), np.float32)}),
      NodeDef("m", "MatMul", ["a", "a"], "", {"T": tf.float32})],
     "Dimensions must be equal, but are 3 and 2 for 'import/m'"),
])
def test_import_rejects_broken_graph_defs(nodes, message):
    g = tf.get_default_graph()
    tf.constant(1.0, name="before")
    with pytest.raises(ValueError, match=message):
        tf.import_graph_def(GraphDef(nodes))
    assert [op.name for op in g.get_operations()] == ["before"]  # nothing half-imported
    assert g.version == 1
    assert [c.name for c in g.get_operation_by_name("before").outputs[0].consumers()] == []


def test_an_unknown_op_or_attr_is_refused_before_anything_is_imported():
    tf.constant(1.0, name="before")
    unknown_op = [NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1)}),
                  NodeDef("b", "NoSuchOp", ["a"])]
    with pytest.raises(tf.errors.NotFoundError, match="Node 'b': Op type not registered "
                                                      "'NoSuchOp'"):
        tf.import_graph_def(GraphDef(unknown_op))
    unknown_attr = [NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(1),
                                                   "_internal": 3}),
                    NodeDef("b", "Identity", ["a"], "", {"T": tf.float32, "novel": True})]
    with pytest.raises(ValueError, match="NodeDef mentions attr 'novel' not in "
                                         r"Op<name=Identity; attrs=T>; NodeDef: {{node b}}"):
        tf.import_graph_def(GraphDef(unknown_attr))
    assert [op.name for op in tf.get_default_graph().get_operations()] == ["before"]


def test_import_accepts_tensorflows_graph_def_message():
    tf.constant(1.0, name="before")
    proto = graph_def_proto.graph_def_to_proto(build_y_equals_x_plus_a())
    y, = tf.import_graph_def(proto, return_elements=["y:0"], name="m")
    assert y.name == "m/y:0"


def test_import_sorts_nodes_by_their_inputs():
    nodes = [NodeDef("b", "Identity", ["a"], "", {"T": tf.float32}),
             NodeDef("a", "Const", [], "", {"dtype": tf.float32, "value": np.float32(4)})]
    b, = tf.import_graph_def(GraphDef(nodes), return_elements=["b:0"], name="")
    with tf.Session() as sess:
        assert sess.run(b) == 4.0


def test_a_model_survives_bytes_and_import():
    x_value = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    w_value = np.array([[0.5], [-1.0]], np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.constant(w_value, name="w")
        tf.add(tf.matmul(x, w), tf.constant(0.25), name="y")
    data = g.as_graph_def().SerializeToString()
    y, = tf.import_graph_def(tf.GraphDef.FromString(data), return_elements=["y:0"], name="m")
    feed_x = tf.get_default_graph().get_tensor_by_name("m/x:0")
    assert y.shape.as_list() == [None, 1]  # shape functions ran again on import
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {feed_x: x_value}), x_value @ w_value + 0.25)
