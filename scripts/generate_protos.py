"""Regenerates the Python modules of minitf's protocol buffers from their `.proto` files.

    python scripts/generate_protos.py            # writes minitf/proto/*_pb2.py
    python scripts/generate_protos.py OUT_DIR    # writes them under OUT_DIR instead

The `.proto` files under `minitf/proto/` are the source (TensorFlow's
message names and field numbers, written for minitf); the generated
`*_pb2.py` (and, for services, `*_pb2_grpc.py`) modules are checked in, so
that using minitf needs the `protobuf` runtime only. They are made with the
protocol compiler of `grpcio-tools`, at the version pinned in
pyproject.toml's dev dependencies; `tests/proto/test_protos.py` runs
this script into a temporary directory and fails when the checked-in
modules differ from what their sources give.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "minitf" / "proto"


def proto_files():
    return sorted(PROTO_DIR.glob("*.proto"))


def has_service(path):
    return any(line.lstrip().startswith("service ") for line in path.read_text().splitlines())


def generate(out_dir):
    """Compiles every .proto into `out_dir` (keeping the minitf/proto/ layout)."""
    from grpc_tools import protoc  # the dev dependency that holds the compiler
    import grpc_tools

    include = str(pathlib.Path(grpc_tools.__file__).parent / "_proto")
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in proto_files():
        args = ["protoc", "-I%s" % ROOT, "-I%s" % include, "--python_out=%s" % out_dir]
        if has_service(path):
            args.append("--grpc_python_out=%s" % out_dir)
        args.append(str(path.relative_to(ROOT)))
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed on %s" % path.relative_to(ROOT))


if __name__ == "__main__":
    generate(sys.argv[1] if len(sys.argv) > 1 else ROOT)
