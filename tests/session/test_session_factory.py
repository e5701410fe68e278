"""Session targets: the client asks the registry of session factories which runtime serves one."""

import ast
import pathlib

import pytest

import minitf as tf
from minitf.session import session_factory
from minitf.session.direct_session import DirectSession

SESSION_DIR = pathlib.Path(session_factory.__file__).parent


class _RecordingRuntime:
    def __init__(self, target):
        self.target = target
        self.closed = False

    def close(self):
        self.closed = True


class _GrpcFactory(session_factory.SessionFactory):
    """A stand-in for the factory the distributed runtime registers."""

    accepted_targets = '"grpc://..."'

    def __init__(self):
        self.resets = []

    def accepts(self, target):
        return target.startswith("grpc://")

    def new_session(self, target, config):
        return _RecordingRuntime(target)

    def reset(self, target, containers, config):
        self.resets.append((target, containers))


@pytest.mark.parametrize("target", ["", "local", "localhost"])
def test_the_local_targets_get_a_direct_session(target):
    with tf.Session(target) as sess:
        assert isinstance(sess._runtime, DirectSession)
        assert sess.sess_str == target
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0


def test_a_grpc_target_gets_the_distributed_runtimes_factory():
    from minitf.distributed.grpc_session_factory import GrpcSessionFactory

    assert isinstance(session_factory.get_factory("grpc://localhost:2222"), GrpcSessionFactory)


def test_without_the_distributed_runtime_a_grpc_target_is_unimplemented(monkeypatch):
    monkeypatch.delitem(session_factory._factories, "GRPC_SESSION")
    with pytest.raises(tf.errors.UnimplementedError) as info:
        tf.Session("grpc://localhost:2222")
    message = info.value.message
    assert "'grpc://localhost:2222'" in message
    assert "the distributed runtime (minitf.distributed), which is not loaded" in message
    assert '"" or "local..." (DIRECT_SESSION)' in message
    with pytest.raises(tf.errors.UnimplementedError, match="distributed runtime"):
        tf.Session.reset("grpc://localhost:2222", ["experiment0"])


def test_an_unknown_target_is_an_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown session target: foo://bar"):
        tf.Session("foo://bar")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown session target: foo://bar"):
        tf.Session.reset("foo://bar")


def test_a_registered_factory_serves_its_targets(monkeypatch):
    factory = _GrpcFactory()
    monkeypatch.setitem(session_factory._factories, "GRPC_SESSION", factory)
    sess = tf.Session("grpc://localhost:2222")
    assert isinstance(sess._runtime, _RecordingRuntime)
    assert sess._runtime.target == "grpc://localhost:2222"
    sess.close()
    assert sess._runtime.closed
    tf.Session.reset("grpc://localhost:2222", ["experiment0"])
    assert factory.resets == [("grpc://localhost:2222", ["experiment0"])]


def test_two_factories_for_one_target_are_an_internal_error(monkeypatch):
    monkeypatch.setitem(session_factory._factories, "GRPC_SESSION", _GrpcFactory())
    monkeypatch.setitem(session_factory._factories, "OTHER_GRPC_SESSION", _GrpcFactory())
    with pytest.raises(tf.errors.InternalError, match="GRPC_SESSION, OTHER_GRPC_SESSION"):
        tf.Session("grpc://localhost:2222")


def test_a_runtime_name_registers_once():
    with pytest.raises(tf.errors.AlreadyExistsError, match="DIRECT_SESSION"):
        session_factory.register("DIRECT_SESSION", _GrpcFactory())


def _imports(path):
    """(module imported, whether the import is inside a function) for each import of a file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    local = {id(node) for function in ast.walk(tree)
             if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
             for node in ast.walk(function)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, id(node) in local) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "minitf":
            found.extend(("minitf." + alias.name, id(node) in local) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, id(node) in local))
    return found


def test_the_session_package_imports_only_its_own_floor_and_the_ones_below():
    allowed = {"session", "executor", "device", "kernels", "graph", "framework"}
    for path in sorted(SESSION_DIR.glob("*.py")):
        for module, _ in _imports(path):
            parts = module.split(".")
            if parts[0] == "minitf":
                assert len(parts) > 1 and parts[1] in allowed, (path.name, module)


def test_the_client_session_has_no_function_local_imports():
    assert [m for m, local in _imports(SESSION_DIR / "session.py") if local] == []
