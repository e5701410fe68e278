"""apply_op: from an op constructor's arguments to a typed, validated Operation.

Every op constructor (`tf.add`, `tf.matmul`, ...) ends in `apply_op(op_type,
name, **arguments)`. Guided by the OpDef it converts each input to a Tensor,
infers type attrs such as `T` from the inputs (in order: the first input
fixes `T`, later ones must agree), checks dtypes against the allowed lists,
fills in attr defaults and creates the op under a name scope named after the
op. Errors are TF's: TypeError for a wrong dtype, ValueError for a wrong
static shape (from the shape function).

Mirrors `tensorflow/python/framework/op_def_library.py`.
"""

import contextlib

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_conversion
from minitf.graph import tensor_shape
from minitf.framework.op_def import get_op_def


def apply_op(op_type, name=None, **keywords):
    """Adds an `op_type` op built from `keywords`; returns its output(s), or the op if none."""
    op_def = get_op_def(op_type)
    input_values = [keywords.pop(arg.name) if arg.name in keywords else _missing(op_type, arg)
                    for arg in op_def.input_args]
    graph = ops._get_graph_from_inputs(_flat_values(input_values))
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        attrs = {}
        inputs = []
        for arg, value in zip(op_def.input_args, input_values):
            inputs.extend(_convert_arg(op_type, arg, value, attrs, op_def))
        attrs.update(_attr_values(op_type, op_def, keywords))
        _check_allowed_types(op_type, op_def, attrs)
        attrs = op_def.attrs_with_defaults(attrs)
        _check_all_attrs_set(op_type, op_def, attrs)
        with _colocated_with_ref_inputs(graph, op_def, inputs):
            op = graph.create_op(op_type, inputs, op_def.output_dtypes(attrs), name=scope,
                                 attrs=attrs, op_def=op_def)
    return _op_outputs(op)


def _colocated_with_ref_inputs(graph, op_def, inputs):
    """An op that changes a variable in place must live where the variable lives."""
    ref_inputs = [t for t in inputs if t.dtype.is_ref_dtype]
    if not ref_inputs or not any(arg.is_ref for arg in op_def.input_args):
        return contextlib.nullcontext()
    return graph.colocate_with(ref_inputs[0].op)


def _missing(op_type, arg):
    raise TypeError("%s Op missing argument: '%s'" % (op_type, arg.name))


def _flat_values(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


def _op_outputs(op):
    """What a constructor returns: the op (no outputs), a tensor, or a list of tensors."""
    op_def = op.op_def
    if not op_def.output_args:
        return op
    if op_def.single_output:
        return op.outputs[0]
    if len(op_def.output_args) == 1:
        return op.outputs
    return op.outputs


# --- inputs -----------------------------------------------------------------------

def _convert_arg(op_type, arg, value, attrs, op_def):
    """Converts one input argument to tensors, recording the type attrs it implies."""
    if arg.number_attr is not None:
        return _convert_list_arg(op_type, arg, value, attrs, op_def)
    if arg.type_list_attr is not None:
        if not isinstance(value, (list, tuple)):
            raise TypeError("Expected list for '%s' argument to '%s' Op, not %s."
                            % (arg.name, op_type, value))
        tensors = [tensor_conversion.convert_to_tensor(v, name="%s_%d" % (arg.name, i))
                   for i, v in enumerate(value)]
        attrs[arg.type_list_attr] = [t.dtype.base_dtype for t in tensors]
        return tensors
    return [_convert_single(op_type, arg, value, attrs, op_def)]


def _convert_list_arg(op_type, arg, values, attrs, op_def):
    if not isinstance(values, (list, tuple)):
        raise TypeError("Expected list for '%s' argument to '%s' Op, not %s."
                        % (arg.name, op_type, values))
    attrs[arg.number_attr] = len(values)
    minimum = op_def.attrs[arg.number_attr].minimum
    if minimum is not None and len(values) < minimum:
        raise ValueError("List argument '%s' to '%s' Op with length %d shorter than minimum "
                         "length %d." % (arg.name, op_type, len(values), minimum))
    dtype = arg.dtype or attrs.get(arg.type_attr)
    if dtype is None:
        # The first value that is already a tensor decides T for the whole list.
        for v in values:
            if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_element"):
                dtype = tensor_conversion.convert_to_tensor(v).dtype.base_dtype
                break
    tensors = []
    for i, v in enumerate(values):
        try:
            tensors.append(tensor_conversion.convert_to_tensor(
                v, dtype=dtype, name="%s_%d" % (arg.name, i),
                preferred_dtype=_default_type(op_def, arg)))
        except (TypeError, ValueError):
            raise TypeError("Tensors in list passed to '%s' of '%s' Op have types [%s] that "
                            "don't all match." % (arg.name, op_type, ", ".join(
                                _dtype_name(x) for x in values))) from None
        if dtype is None:
            dtype = tensors[-1].dtype.base_dtype
    if arg.type_attr is not None:
        attrs.setdefault(arg.type_attr, dtype if dtype is not None else dtypes.float32)
    return tensors


def _convert_single(op_type, arg, value, attrs, op_def):
    if arg.is_ref:
        tensor = _ref_input(op_type, arg, value)
        if arg.type_attr is not None:
            attrs.setdefault(arg.type_attr, tensor.dtype.base_dtype)
        return tensor
    expected = arg.dtype or attrs.get(arg.type_attr)
    try:
        tensor = tensor_conversion.convert_to_tensor(
            value, dtype=expected, name=arg.name, preferred_dtype=_default_type(op_def, arg))
    except (TypeError, ValueError) as e:
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
            got = tensor_conversion.convert_to_tensor(value).dtype.base_dtype
            if expected is not None:
                raise TypeError("Input '%s' of '%s' Op has type %s that does not match type "
                                "%s of argument '%s'." % (arg.name, op_type, got.name,
                                                          expected.name, _first_arg_name(
                                                              op_def, arg)))
        raise TypeError("Expected %s passed to parameter '%s' of op '%s', got %r of type "
                        "'%s' instead. Error: %s" % (
                            expected.name if expected else "a tensor", arg.name, op_type,
                            value, type(value).__name__, e)) from None
    if arg.type_attr is not None and arg.type_attr not in attrs:
        attrs[arg.type_attr] = tensor.dtype.base_dtype
    return tensor


def _ref_input(op_type, arg, value):
    tensor = value
    if hasattr(value, "_ref"):
        tensor = value._ref()
    if not isinstance(tensor, ops.Tensor) or not tensor.dtype.is_ref_dtype:
        raise TypeError("'%s' Op requires that input '%s' be a mutable tensor (e.g.: a "
                        "tf.Variable)" % (op_type, arg.name))
    return tensor


def _first_arg_name(op_def, arg):
    for other in op_def.input_args:
        if other.type_attr == arg.type_attr:
            return other.name
    return arg.name


def _default_type(op_def, arg):
    attr = op_def.attrs.get(arg.type_attr) if arg.type_attr else None
    if attr is not None and attr.has_default:
        return attr.default
    return None


def _dtype_name(value):
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "name", type(value).__name__)


# --- attrs ---------------------------------------------------------------------------

def _attr_values(op_type, op_def, keywords):
    result = {}
    for key, value in keywords.items():
        if key not in op_def.attrs:
            raise TypeError("%s got unexpected keyword argument '%s'" % (op_type, key))
        result[key] = _coerce_attr(op_type, op_def.attrs[key], value)
    return result


def _coerce_attr(op_type, attr, value):
    value = _coerce_attr_type(op_type, attr, value)
    _check_attr_constraints(op_type, attr, value)
    return value


def _coerce_attr_type(op_type, attr, value):
    kind = attr.type
    try:
        if kind == "type":
            return dtypes.as_dtype(value).base_dtype
        if kind == "shape":
            return tensor_shape.as_shape(value)
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "bool":
            if not isinstance(value, bool):
                raise TypeError("Expected bool for argument '%s' not %r." % (attr.name, value))
            return value
        if kind == "list(int)":
            return [int(v) for v in value]
        if kind == "list(float)":
            return [float(v) for v in value]
        if kind == "list(type)":
            return [dtypes.as_dtype(v).base_dtype for v in value]
        if kind == "list(shape)":
            return [tensor_shape.as_shape(v) for v in value]
        if kind == "string":
            if isinstance(value, bytes):
                return value.decode("utf-8")
            if not isinstance(value, str):
                raise TypeError("Expected string for argument '%s' not %r." % (attr.name, value))
            return value
    except (TypeError, ValueError) as e:
        raise TypeError("Attr '%s' of '%s' Op: %s" % (attr.name, op_type, e)) from None
    return value


def _check_attr_constraints(op_type, attr, value):
    """The `>= minimum` and `{'a', 'b'}` parts of an attr's spec (TF's messages)."""
    if attr.minimum is not None:
        if attr.type.startswith("list(") and len(value) < attr.minimum:
            raise ValueError("Attr '%s' of '%s' Op passed list of length %d less than minimum "
                             "%d." % (attr.name, op_type, len(value), attr.minimum))
        if attr.type == "int" and value < attr.minimum:
            raise ValueError("Attr '%s' of '%s' Op passed %d less than minimum %d."
                             % (attr.name, op_type, value, attr.minimum))
    if attr.type == "string" and attr.allowed_values is not None:
        if value not in attr.allowed_values:
            raise ValueError("Attr '%s' of '%s' Op passed string '%s' not in: \"%s\"."
                             % (attr.name, op_type, value, '", "'.join(attr.allowed_values)))


def _check_allowed_types(op_type, op_def, attrs):
    for attr in op_def.attrs.values():
        if attr.allowed_values is None or attr.type != "type" or attr.name not in attrs:
            continue
        value = dtypes.as_dtype(attrs[attr.name]).base_dtype
        if value not in attr.allowed_values:
            arg_names = [a.name for a in op_def.input_args if a.type_attr == attr.name]
            raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                            "allowed values: %s" % (arg_names[0] if arg_names else attr.name,
                                                    value.name, ", ".join(
                                                        t.name for t in attr.allowed_values)))


def _check_all_attrs_set(op_type, op_def, attrs):
    for name in op_def.attrs:
        if name not in attrs:
            raise TypeError("No argument for attr %s of %s Op" % (name, op_type))
