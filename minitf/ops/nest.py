"""nest: nested structures of values (lists, tuples, namedtuples, dicts) as flat lists.

`tf.cond`'s branches and `tf.while_loop`'s body may return any nesting of
lists, tuples, namedtuples and dicts of tensors. The graph only knows flat
lists of tensors, so these helpers go back and forth:

    flatten(((a, b), {"c": c}))            -> [a, b, c]
    pack_sequence_as(((0, 0), {"c": 0}), [x, y, z])  -> ((x, y), {"c": z})

Dicts are flattened in sorted key order. With `expand_composites=True`, a
SparseTensor (indices, values, dense_shape) and an IndexedSlices (values,
indices, and dense_shape when it has one) are taken apart into their
tensors too; otherwise they are single values, like a tensor.

Mirrors `tensorflow/python/util/nest.py`.
"""

from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.sparse_tensor import SparseTensor

__all__ = []


def is_sequence(value):
    """Whether `value` is a structure nest goes into: a list, tuple or dict (not a string)."""
    return isinstance(value, (list, tuple, dict))


def _is_composite(value):
    return isinstance(value, (SparseTensor, IndexedSlices))


def _is_nested(value, expand_composites):
    return is_sequence(value) or (expand_composites and _is_composite(value))


def _children(value):
    """The items of one level of a structure, in the order `flatten` uses."""
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    if isinstance(value, IndexedSlices):
        parts = [value.values, value.indices]
        return parts + [value.dense_shape] if value.dense_shape is not None else parts
    return list(value)


def _rebuilt(value, children):
    """A structure like `value` holding `children` instead of its own items."""
    if isinstance(value, dict):
        return type(value)(zip(sorted(value), children))
    if isinstance(value, SparseTensor):
        return SparseTensor(children[0], children[1], children[2])
    if isinstance(value, IndexedSlices):
        return IndexedSlices(children[0], children[1],
                             children[2] if len(children) > 2 else None)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*children)
    return type(value)(children)


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first; a single leaf gives a list of one."""
    if not _is_nested(structure, expand_composites):
        return [structure]
    result = []
    for child in _children(structure):
        result.extend(flatten(child, expand_composites))
    return result


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` poured into the shape of `structure`."""
    flat_sequence = list(flat_sequence)
    if not _is_nested(structure, expand_composites):
        if len(flat_sequence) != 1:
            raise ValueError("Structure is a scalar but len(flat_sequence) == %d > 1"
                             % len(flat_sequence))
        return flat_sequence[0]
    expected = len(flatten(structure, expand_composites))
    if expected != len(flat_sequence):
        raise ValueError("Could not pack sequence. Structure had %d elements, but "
                         "flat_sequence had %d elements.  Structure: %s, flat_sequence: %s."
                         % (expected, len(flat_sequence), structure, flat_sequence))
    packed, _ = _pack(structure, flat_sequence, 0, expand_composites)
    return packed


def _pack(structure, flat, index, expand_composites):
    if not _is_nested(structure, expand_composites):
        return flat[index], index + 1
    children = []
    for child in _children(structure):
        packed, index = _pack(child, flat, index, expand_composites)
        children.append(packed)
    return _rebuilt(structure, children), index


def map_structure(fn, *structures, **kwargs):
    """`fn` applied to the leaves of `structures` (which must match), in their structure."""
    expand_composites = kwargs.pop("expand_composites", False)
    check_types = kwargs.pop("check_types", True)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         "`expand_composites`, not: `%s`" % "`, `".join(kwargs))
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types, expand_composites)
    flat = [flatten(s, expand_composites) for s in structures]
    results = [fn(*leaves) for leaves in zip(*flat)]
    return pack_sequence_as(structures[0], results, expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError (or TypeError, for different sequence types) unless the two nest alike."""
    count1 = len(flatten(nest1, expand_composites))
    count2 = len(flatten(nest2, expand_composites))
    if count1 != count2:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         "First structure (%d elements): %s\n\nSecond structure (%d "
                         "elements): %s" % (count1, nest1, count2, nest2))
    _check_same(nest1, nest2, check_types, expand_composites)


def _check_same(nest1, nest2, check_types, expand_composites):
    nested1 = _is_nested(nest1, expand_composites)
    if nested1 != _is_nested(nest2, expand_composites):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         "First structure: %s\n\nSecond structure: %s." % (nest1, nest2))
    if not nested1:
        return
    if check_types and _sequence_type(nest1) is not _sequence_type(nest2):
        raise TypeError("The two structures don't have the same sequence type. First "
                        "structure has type %s, while second structure has type %s."
                        % (type(nest1), type(nest2)))
    if isinstance(nest1, dict) and sorted(nest1) != sorted(nest2):
        raise ValueError("The two dictionaries don't have the same set of keys. First "
                         "structure has keys %s, while second structure has keys %s."
                         % (sorted(nest1), sorted(nest2)))
    children1, children2 = _children(nest1), _children(nest2)
    if len(children1) != len(children2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         "First structure: %s\n\nSecond structure: %s." % (nest1, nest2))
    for a, b in zip(children1, children2):
        _check_same(a, b, check_types, expand_composites)


def _sequence_type(value):
    """The type `assert_same_structure` compares: a namedtuple's own, any dict as dict."""
    return dict if isinstance(value, dict) else type(value)
