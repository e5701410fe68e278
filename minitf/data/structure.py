"""The structure of a dataset's element: nested tuples and dicts of tensors, flattened.

An element may be a tensor, a SparseTensor, or a tuple (namedtuples
included) or dict of elements, nested as deep as you like. The runtime
only knows flat lists of dense tensors, so every element has two forms:

- the *structure* users see, with a `ComponentSpec` (dtype, static shape,
  dense or sparse) at each leaf: what `output_types`, `output_shapes` and
  `output_classes` report;
- the *flat* list the ops carry: the leaves in order (a dict's keys
  sorted), a SparseTensor as one `variant` vector (`SerializeSparse`).

A Python list is not a structure but a value: `from_tensor_slices([1, 2])`
slices one tensor, as in TensorFlow. `trace` calls a user's function on
placeholders shaped like an element, in a FuncGraph, and returns its
FunctionDef, the tensors it captured and the structure of its result.

Mirrors `tensorflow/python/data/util/nest.py`, `structure.py` and
`StructuredFunctionWrapper` of `python/data/ops/dataset_ops.py`.
"""

import itertools

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph.func_graph import FuncGraph
from minitf.graph.op_def_library import apply_op


class ComponentSpec:
    """One leaf of an element: its dtype and static shape, and whether it is a SparseTensor."""

    def __init__(self, dtype, shape, is_sparse=False):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = tensor_shape.as_shape(shape)
        self.is_sparse = is_sparse

    @property
    def flat_dtype(self):
        return dtypes.variant if self.is_sparse else self.dtype

    @property
    def flat_shape(self):
        # A SparseTensor's variant is [3], a batch of them [batch, 3]: any shape will do.
        return tensor_shape.unknown_shape() if self.is_sparse else self.shape

    @property
    def output_class(self):
        return sparse_tensor.SparseTensor if self.is_sparse else ops.Tensor

    def batched(self, batch_size):
        """The spec of a batch of these: a new first dimension."""
        return ComponentSpec(self.dtype, tensor_shape.TensorShape([batch_size]).concatenate(
            self.shape), self.is_sparse)

    def unbatched(self):
        if self.shape.ndims == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return ComponentSpec(self.dtype, self.shape[1:] if self.shape.ndims is not None
                             else tensor_shape.unknown_shape(), self.is_sparse)

    def __repr__(self):
        kind = "SparseTensorSpec" if self.is_sparse else "TensorSpec"
        return "%s(shape=%s, dtype=%r)" % (kind, self.shape, self.dtype)


# =============================================================================
# Nesting
# =============================================================================

def _is_structure(value):
    return isinstance(value, (tuple, dict))


def flatten(structure):
    """The leaves of a nested tuple/dict structure, in order (a dict's keys sorted)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat):
    """`flat`'s leaves put back into the shape of `structure`."""
    leaves = iter(flat)
    packed = _pack(structure, leaves)
    if next(leaves, None) is not None:
        raise ValueError("Too many leaves to pack into the structure.")
    return packed


def _pack(structure, leaves):
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return {key: packed[key] for key in structure}
    if isinstance(structure, tuple):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    return next(leaves)


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])


def assert_same_structure(a, b):
    if not same_structure(a, b):
        raise TypeError("The two structures don't have the same nested structure.\n\n"
                        "First structure: %s\n\nSecond structure: %s" % (a, b))


def same_structure(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True


# =============================================================================
# Elements and their specs
# =============================================================================

def normalize_element(element):
    """Every leaf as a Tensor or SparseTensor (lists and NumPy arrays become tensors)."""
    leaves = flatten(element)
    converted = [sparse_tensor.convert_to_tensor_or_sparse_tensor(leaf, name="component_%d" % i)
                 if not isinstance(leaf, sparse_tensor.SparseTensor) else leaf
                 for i, leaf in enumerate(leaves)]
    return pack_sequence_as(element, converted)


def spec_of(element):
    """The structure of ComponentSpecs of a normalized element."""
    def spec(leaf):
        if isinstance(leaf, sparse_tensor.SparseTensor):
            return ComponentSpec(leaf.dtype, _sparse_static_shape(leaf), is_sparse=True)
        return ComponentSpec(leaf.dtype.base_dtype, leaf.shape)
    return map_structure(spec, element)


def _sparse_static_shape(sparse):
    shape = getattr(sparse, "shape", None)
    if shape is not None:
        return shape
    return tensor_shape.unknown_shape(sparse.dense_shape.shape.as_list()[0]
                                      if sparse.dense_shape.shape.ndims == 1 else None)


def to_flat_tensors(element):
    """A normalized element as the flat list of tensors ops carry."""
    flat = []
    for leaf in flatten(element):
        if isinstance(leaf, sparse_tensor.SparseTensor):
            flat.append(apply_op("SerializeSparse", sparse_indices=leaf.indices,
                                 sparse_values=leaf.values, sparse_shape=leaf.dense_shape,
                                 out_type=dtypes.variant))
        else:
            flat.append(leaf)
    return flat


def from_flat_tensors(spec, flat):
    """The element of `spec` from its flat tensors (SparseTensors deserialized)."""
    leaves = []
    for component, tensor in zip(flatten(spec), flat):
        if component.is_sparse:
            indices, values, dense_shape = apply_op("DeserializeSparse",
                                                    serialized_sparse=tensor,
                                                    dtype=component.dtype)
            rank = component.shape.ndims
            indices.set_shape([None, rank])
            dense_shape.set_shape([rank])
            leaves.append(sparse_tensor.SparseTensor(indices, values, dense_shape))
        else:
            tensor.set_shape(component.shape)
            leaves.append(tensor)
    return pack_sequence_as(spec, leaves)


def flat_types(spec):
    return [c.flat_dtype for c in flatten(spec)]


def flat_shapes(spec):
    return [c.flat_shape for c in flatten(spec)]


def output_types(spec):
    return map_structure(lambda c: c.dtype, spec)


def output_shapes(spec):
    return map_structure(lambda c: c.shape, spec)


def output_classes(spec):
    return map_structure(lambda c: c.output_class, spec)


def spec_from_types(types, shapes=None, classes=None):
    """A spec from the structures `from_structure` takes: types, shapes and classes."""
    shapes = map_structure(lambda _: tensor_shape.unknown_shape(), types) \
        if shapes is None else shapes
    classes = map_structure(lambda _: ops.Tensor, types) if classes is None else classes
    assert_same_structure(types, shapes)
    flat_classes = flatten(classes) if _is_structure(classes) or not _is_structure(types) \
        else [classes] * len(flatten(types))
    leaves = [ComponentSpec(t, s, c is sparse_tensor.SparseTensor) for t, s, c in zip(
        flatten(types), flatten(shapes), flat_classes)]
    return pack_sequence_as(types, leaves)


class HasElementSpec:
    """What datasets and iterators report of their element: its spec, types, shapes, classes."""

    _element_spec = None

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def output_types(self):
        return output_types(self._element_spec)

    @property
    def output_shapes(self):
        return output_shapes(self._element_spec)

    @property
    def output_classes(self):
        return output_classes(self._element_spec)


# =============================================================================
# Tracing a function on an element
# =============================================================================

_function_ids = itertools.count()


class TracedFunction:
    """A user's function traced on an element: its FunctionDef, captures and result's spec."""

    def __init__(self, function_def, captured_inputs, output_spec):
        self.function_def = function_def
        self.captured_inputs = captured_inputs
        self.output_spec = output_spec


def trace(fn, input_spec, transformation, unpack_tuples=True):
    """Calls `fn` once, on placeholders shaped like `input_spec`, inside a FuncGraph.

    A tuple element is passed as separate arguments (`map(lambda x, y: ...)`),
    any other as one. The result is normalized: a list becomes a tuple,
    Python and NumPy values become tensors.
    """
    name = "%s_%s_%d" % (transformation, getattr(fn, "__name__", "fn").strip("<>"),
                         next(_function_ids))
    graph = FuncGraph(name)
    with graph.as_default():
        args = [] if input_spec is None else [
            graph.add_argument(c.flat_dtype, c.flat_shape, "arg") for c in flatten(input_spec)]
        element = from_flat_tensors(input_spec, args) if input_spec is not None else None
        if input_spec is None:
            result = fn()
        elif unpack_tuples and type(element) is tuple:
            result = fn(*element)
        else:
            result = fn(element)
        if isinstance(result, list):
            result = tuple(result)
        result = normalize_element(result)
        outputs = to_flat_tensors(result)
        graph.outputs = [t if t.graph is graph else graph._capture(t, name) for t in outputs]
    return TracedFunction(graph.to_function_def(), graph.captured_inputs, spec_of(result))
