"""minitf's protocol buffers: the generated modules match their sources, and load lazily."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import generate_protos  # noqa: E402 - scripts/ is not a package


def test_the_checked_in_modules_are_what_their_protos_generate(tmp_path):
    generate_protos.generate(tmp_path)
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py"))
    checked_in = sorted(p.relative_to(ROOT) for p in (ROOT / "minitf/proto").glob("*_pb2*.py"))
    assert generated == checked_in
    assert len(generated) >= len(generate_protos.proto_files())
    for path in generated:
        assert (tmp_path / path).read_bytes() == (ROOT / path).read_bytes(), (
            "%s is stale: run `python scripts/generate_protos.py`" % path)


def test_import_minitf_does_not_load_protobuf():
    code = ("import sys, minitf as tf\n"
            "tf.constant(1.0); tf.Session().run(tf.constant(2.0))\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m.startswith(('google.protobuf', 'google_crc32c'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("message, fields", [
    ("tensorflow.TensorProto", {"dtype": 1, "tensor_shape": 2, "tensor_content": 4,
                                "float_val": 5, "int_val": 7, "string_val": 8,
                                "int64_val": 10, "bool_val": 11, "half_val": 13}),
    ("tensorflow.NodeDef", {"name": 1, "op": 2, "input": 3, "device": 4, "attr": 5}),
    ("tensorflow.GraphDef", {"node": 1, "version": 3, "versions": 4}),
    ("tensorflow.BundleHeaderProto", {"num_shards": 1, "endianness": 2, "version": 3}),
    ("tensorflow.BundleEntryProto", {"dtype": 1, "shape": 2, "shard_id": 3, "offset": 4,
                                     "size": 5, "crc32c": 6, "slices": 7}),
    ("tensorflow.AttrValue", {"list": 1, "s": 2, "i": 3, "f": 4, "b": 5, "type": 6, "shape": 7,
                              "tensor": 8, "placeholder": 9, "func": 10}),
])
def test_messages_keep_tensorflows_names_and_field_numbers(message, fields):
    from google.protobuf import descriptor_pool

    import minitf.proto.graph_pb2  # noqa: F401  registers the messages below
    import minitf.proto.tensor_bundle_pb2  # noqa: F401

    descriptor = descriptor_pool.Default().FindMessageTypeByName(message)
    assert {f.name: f.number for f in descriptor.fields if f.name in fields} == fields
