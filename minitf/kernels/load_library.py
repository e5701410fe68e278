"""load_op_library: adding ops to minitf from a Python file of your own.

In TensorFlow a user op is C++ compiled to a shared library: `REGISTER_OP`
describes it, `REGISTER_KERNEL_BUILDER` gives its kernel, and
`tf.load_op_library("zero_out.so")` dlopens the library (which registers
both) and returns a module of generated Python wrappers. minitf keeps the
same three steps with a Python file as the "library":

    # zero_out.py, the op library
    from minitf.framework.op_def import register_op
    from minitf.framework.kernel_registry import register_kernel

    register_op("ZeroOut").input("to_zero: int32").output("zeroed: int32")

    @register_kernel("ZeroOut", ("CPU", "GPU"))
    def zero_out(ctx, to_zero):
        ...

    # the user's program
    zero_out_module = tf.load_op_library("zero_out.py")
    zero_out_module.zero_out([[1, 2], [3, 4]])

Loading runs the file once (a second load of the same path returns the same
module), notes which op types it registered, and builds for each one a
wrapper like TensorFlow's generated `gen_*_ops` functions: named in
snake_case (`ZeroOut` -> `zero_out`), taking the inputs in order, then the
attrs that cannot be inferred from the inputs, then `name=None`, and
ending in `apply_op`. A library that fails while loading leaves nothing
registered behind, so it can be fixed and loaded again.

`tf.load_library(path)` loads kernels rather than a module of wrappers: a
library file, or every library file of a directory, run the same way, with
nothing returned; `tf.load_file_system_library(path)` is the same run for a
library that registers a file system with `tf.io.gfile`.

Mirrors `tensorflow/python/framework/load_library.py` (load_op_library,
load_library, load_file_system_library) and
the wrapper generator `tensorflow/python/framework/python_op_gen.cc`.
"""

import inspect
import keyword
import os
import threading
import types

from minitf.framework import kernel_registry
from minitf.framework import op_def as op_def_lib
from minitf.framework.kernel_registry import register_kernel  # noqa: F401  re-exported for op libraries
from minitf.framework.op_def import register_op  # noqa: F401  re-exported for op libraries
from minitf.graph import errors
from minitf.graph.op_def_library import apply_op

__all__ = ["load_op_library", "register_op", "register_kernel"]  # load_library: minitf/__init__.py

_COMPILED_SUFFIXES = (".so", ".dylib", ".dll")
_loaded_modules = {}  # real path of a library -> the module load_op_library returned
_load_lock = threading.RLock()  # an RLock: a library may itself load another library


def load_op_library(library_filename):
    """Runs the op library `library_filename` once; returns a module of op wrappers.

    The module has one wrapper per op type the library registered and
    `OP_LIST`, the list of their OpDefs. A missing file is a NotFoundError;
    an error raised while the library runs is raised again, naming the file.
    """
    path = os.path.realpath(library_filename)
    with _load_lock:
        module = _loaded_modules.get(path)
        if module is None:
            library, op_types = _run_library(library_filename, path)
            module = _wrapper_module(library, [op_def_lib.get_op_def(t) for t in op_types])
            _loaded_modules[path] = module
    return module


def load_library(library_location):
    """Runs the op library at `library_location`, or each one in that directory; returns None.

    A missing path is a NotFoundError, as in TensorFlow.
    """
    if os.path.isdir(library_location):
        paths = sorted(os.path.join(library_location, entry)
                       for entry in os.listdir(library_location)
                       if entry.endswith((".py",) + _COMPILED_SUFFIXES))
    elif os.path.exists(library_location):
        paths = [library_location]
    else:
        raise errors.NotFoundError(None, None, "The file or folder to load kernel libraries "
                                   "from does not exist. %s" % library_location)
    for path in paths:
        load_op_library(path)


def load_file_system_library(library_filename):
    """Deprecated in TF 1.15 in favour of load_library: runs one library file; returns None."""
    load_op_library(library_filename)


# --- running the library -----------------------------------------------------------

def _run_library(library_filename, path):
    """Executes the file as a fresh module; returns it and the op types it registered.

    If the file fails, the ops and kernels it registered so far are removed.
    """
    _check_loadable(library_filename, path)
    name = os.path.splitext(os.path.basename(path))[0]
    library = types.ModuleType(name + "_op_library")
    library.__file__ = path
    ops_before = set(op_def_lib.registered_ops())
    kernels_before = set(kernel_registry.registered_kernels())
    try:
        with open(path, encoding="utf-8") as source_file:
            source = source_file.read()
        # Running the file is the point: it is the user's own code, like a dlopen'ed .so.
        exec(compile(source, path, "exec"), library.__dict__)  # noqa: S102
    except Exception as error:
        _undo_registrations(ops_before, kernels_before)
        raise _naming_library(error, library_filename) from error
    new_op_types = [t for t in op_def_lib.registered_ops() if t not in ops_before]
    return library, new_op_types


def _check_loadable(library_filename, path):
    if not os.path.isfile(path):
        raise errors.NotFoundError(None, None, "%s: cannot open op library: No such file"
                                   % library_filename)
    if path.endswith(_COMPILED_SUFFIXES):
        raise errors.NotFoundError(
            None, None, "%s: cannot load a compiled op library: a minitf op library is a "
            "Python file that calls register_op and register_kernel (see "
            "docs/examples/zero_out.py)" % library_filename)


def _undo_registrations(ops_before, kernels_before):
    """Removes the ops and kernels registered since the `*_before` snapshots."""
    for op_type in set(op_def_lib.registered_ops()) - ops_before:
        # The OpDef registry has no public removal: taking back what a library
        # that failed half-way registered is the one reason to remove an op.
        op_def_lib._REGISTRY.pop(op_type, None)
    for op_type, device_type in set(kernel_registry.registered_kernels()) - kernels_before:
        kernel_registry.unregister_kernel(op_type, device_type)


def _naming_library(error, library_filename):
    """The same kind of error, its message prefixed with the library's file name."""
    message = "Failed to load op library '%s': %s" % (library_filename, error)
    if isinstance(error, errors.OpError):
        return type(error)(None, None, message)
    try:
        return type(error)(message)
    except Exception:  # noqa: BLE001 - an exception class with an unusual constructor
        return RuntimeError(message)


# --- the module of wrappers ------------------------------------------------------------

def _wrapper_module(library, op_defs):
    module = types.ModuleType(os.path.splitext(os.path.basename(library.__file__))[0])
    module.__file__ = library.__file__
    module.__doc__ = "Op wrappers generated by load_op_library from %s." % library.__file__
    module.OP_LIST = op_defs
    module.LIB_HANDLE = library  # the executed library itself, as TF keeps its dlopen handle
    for op_def in op_defs:
        wrapper = make_op_wrapper(op_def)
        setattr(module, wrapper.__name__, wrapper)
    return module


def make_op_wrapper(op_def):
    """A Python function that adds an `op_def.name` op, like a TF generated wrapper."""
    python_names = {arg: _python_name(arg) for arg in _wrapper_arg_names(op_def)}
    signature = _wrapper_signature(op_def, python_names)
    function_name = _python_name(camel_to_snake_case(op_def.name))

    def wrapper(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s() %s" % (function_name, e)) from None
        given = dict(bound.arguments)
        name = given.pop("name", None)
        op_arguments = {arg: given[python] for arg, python in python_names.items()
                        if python in given}
        return apply_op(op_def.name, name=name, **op_arguments)

    wrapper.__name__ = wrapper.__qualname__ = function_name
    wrapper.__signature__ = signature
    wrapper.__doc__ = _wrapper_doc(op_def, python_names)
    return wrapper


def _wrapper_arg_names(op_def):
    """Inputs in order, then attrs without a default, then attrs with one (TF's order)."""
    inferred = _inferred_attrs(op_def)
    attrs = [a for a in op_def.attrs.values() if a.name not in inferred]
    required = [a.name for a in attrs if not a.has_default]
    optional = [a.name for a in attrs if a.has_default]
    return [arg.name for arg in op_def.input_args] + required + optional


def _inferred_attrs(op_def):
    """Attrs that apply_op reads off the inputs (`T`, `N`, ...): not wrapper arguments."""
    inferred = set()
    for arg in op_def.input_args:
        inferred.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    return inferred


def _wrapper_signature(op_def, python_names):
    parameters = []
    for arg, python in python_names.items():
        attr = op_def.attrs.get(arg)
        default = attr.default if attr is not None and attr.has_default else \
            inspect.Parameter.empty
        parameters.append(inspect.Parameter(
            python, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
    parameters.append(inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=None))
    return inspect.Signature(parameters)


def _wrapper_doc(op_def, python_names):
    lines = ["Adds a `%s` op to the graph (wrapper generated from its OpDef)." % op_def.name,
             "", "Args:"]
    for arg in op_def.input_args:
        lines.append("  %s: a Tensor of type %s." % (python_names[arg.name], _arg_type(arg)))
    for name, python in python_names.items():
        attr = op_def.attrs.get(name)
        if attr is not None:
            default = " (default %r)" % (attr.default,) if attr.has_default else ""
            lines.append("  %s: attr of type %s%s." % (python, attr.type, default))
    lines.append("  name: a name for the operation (optional).")
    lines += ["", "Returns:"]
    if not op_def.output_args:
        lines.append("  The created Operation.")
    for arg in op_def.output_args:
        lines.append("  %s: a Tensor of type %s." % (arg.name, _arg_type(arg)))
    return "\n".join(lines)


def _arg_type(arg):
    base = arg.dtype.name if arg.dtype is not None else (arg.type_attr or arg.type_list_attr)
    return "%s * %s" % (arg.number_attr, base) if arg.number_attr else base


# --- names ---------------------------------------------------------------------------------

def camel_to_snake_case(op_type):
    """`ZeroOut` -> `zero_out`, `BatchMatMulV2` -> `batch_mat_mul_v2`, `Conv3D` -> `conv3d`.

    TF's rule: an upper-case letter starts a new word when the letter before
    it is lower case, or when the letter after it is (the last capital of an
    acronym: `CTCLoss` -> `ctc_loss`).
    """
    words = []
    for i, char in enumerate(op_type):
        if char.isupper() and i > 0 and words and words[-1] != "_":
            after_lower = op_type[i - 1].islower()
            before_lower = i + 1 < len(op_type) and op_type[i + 1].islower()
            if after_lower or before_lower:
                words.append("_")
        words.append(char.lower())
    return "".join(words)


def _python_name(name):
    """Names that are Python keywords get a trailing underscore (`lambda` -> `lambda_`)."""
    return name + "_" if keyword.iskeyword(name) else name
