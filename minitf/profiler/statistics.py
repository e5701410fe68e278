"""Statistics of a node: a registry of functions, one per op type, that say what a node costs.

A statistic is a kind of cost, named by a string ("flops" is the one
TensorFlow ships). For each op type a function may be registered that
reads a NodeDef and the graph it comes from (for the static shapes of the
node's inputs and outputs) and returns an `OpStats`; `get_stats_for_node_def`
looks the function up, and a node whose op type has none costs nothing
(an empty `OpStats`, whose value is None). The FLOPs functions themselves
are in `flops_registry.py`.

Mirrors `RegisterStatistics`, `OpStats` and `get_stats_for_node_def` of
`tensorflow/python/framework/ops.py`, and
`graph_util.tensor_shape_from_node_def_name`.
"""

_registry = {}


class OpStats:
    """A statistic's type and its value (None: not known, as for an op with no function)."""

    def __init__(self, statistic_type, value=None):
        self.statistic_type = statistic_type
        self.value = value

    def __iadd__(self, other):
        if other.statistic_type != self.statistic_type:
            raise ValueError("Can't add an OpStat of type %s to one of %s."
                             % (other.statistic_type, self.statistic_type))
        if self.value is None:
            self.value = other.value
        elif other.value is not None:
            self.value += other.value
        return self

    def __repr__(self):
        return "OpStats(%r, %r)" % (self.statistic_type, self.value)


class RegisterStatistics:
    """Decorator: `@RegisterStatistics("MatMul", "flops")` registers the function it decorates.

    The function is called as `f(graph, node_def)` and returns an OpStats.
    Registering a second function for the same op type and statistic is a
    KeyError, as in TensorFlow.
    """

    def __init__(self, op_type, statistic_type):
        for what, value in (("op_type", op_type), ("statistic_type", statistic_type)):
            if not isinstance(value, str):
                raise TypeError("%s must be a string." % what)
            if "," in value:
                raise TypeError("%s must not contain a comma." % what)
        self._key = (op_type, statistic_type)

    def __call__(self, f):
        if self._key in _registry:
            raise KeyError("Registering two %s with name '%s'! (Previous registration was in %s)"
                           % ("statistical functions", ",".join(self._key),
                              _registry[self._key].__module__))
        _registry[self._key] = f
        return f


def get_stats_for_node_def(graph, node, statistic_type):
    """The node's statistic from the function registered for its op type; empty when none is."""
    stats_func = _registry.get((node.op, statistic_type))
    if stats_func is None:
        return OpStats(statistic_type)
    return stats_func(graph, node)


def registered_op_types(statistic_type):
    """The op types that have a function for `statistic_type`, sorted."""
    return sorted(op_type for op_type, kind in _registry if kind == statistic_type)


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor a NodeDef input string names (`"x"` is `"x:0"`)."""
    if ":" not in input_name:
        input_name += ":0"
    return graph.get_tensor_by_name(input_name).shape
