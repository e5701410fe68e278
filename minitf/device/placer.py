"""Placer: gives every node of a graph exactly one device.

Rules, in order:

1. Nodes that must share a device form *colocation groups* (a union-find):
   a node with a `_class: loc:@x` attr joins x's group (`tf.colocate_with`,
   a variable's initializer, read and slots), an op that takes a variable
   by reference (Assign, the optimizers' Apply* ops) joins that variable,
   and an op that takes a resource handle (a stack, a TensorArray) joins
   the node that made it: the resource lives on that node's device, and
   the op's own device request gives way when it contradicts that node's
   (the Enter that brings a loop gradient's stack into the loop is built
   in the caller's device scope; the stack sits by the value it saves).
2. A group's requested devices (the nodes' `device` fields) are merged;
   two that contradict each other are an InvalidArgumentError naming both
   nodes and both requests.
3. The group goes to the first device that matches the merged request and
   has a kernel for every member; with no request, a GPU is preferred when
   every member has a GPU kernel, otherwise CPU:0.
4. With `allow_soft_placement`, a request that no device can satisfy (no
   such device, or no kernel for it) falls back to a device that can run
   the group instead of failing: first one of the requested type with
   another index, then any type.
5. *Generators* (a node alone in its group, with no data inputs and one
   output: a constant, a fed value) are placed last, on the device of their
   consumers when these all share one and the generator's own request
   allows it, so a constant made outside a `tf.device` scope does not cost
   a transfer (TF's "Heuristic A").
6. With `log_device_placement`, each node's device is printed as
   `name: (Op): /job:localhost/replica:0/task:0/device:CPU:0`, in the order
   the nodes were placed, as TF prints it (and logged at INFO level on the
   `minitf` logger, where TF also writes it to its log).

Only the pruned graph of one run is placed, so a node that the run does not
need cannot make it fail (TensorFlow places the whole graph).

Mirrors `tensorflow/core/common_runtime/placer.cc` and
`colocation_graph.cc`.
"""

import logging

from minitf import kernels  # noqa: F401  registers every built-in kernel
from minitf.framework.kernel_registry import has_kernel
from minitf.framework import node_def_util
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.device_spec import DeviceSpec
from minitf.graph.graph_def import NodeDef

_logger = logging.getLogger("minitf")


class _UnionFind:
    def __init__(self, names):
        self.parent = {n: n for n in names}

    def find(self, name):
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def union(self, a, b):
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[root_b] = root_a


def place(node_defs, devices, allow_soft_placement=False, log_device_placement=False,
          log=print):
    """Returns {node name: full device name} for every node in `node_defs`."""
    groups, nodes = _colocation_groups({n.name: n for n in node_defs})
    generators = {members[0] for members in groups.values()
                  if len(members) == 1 and _is_generator(nodes[members[0]])}
    placement = {}
    for members in groups.values():
        if members[0] in generators:
            continue  # placed below, once their consumers have a device
        device = _choose_device(members, nodes, devices, allow_soft_placement)
        for name in members:
            placement[name] = device.name
    consumers = _consumers(node_defs)
    # Last first: a generator can consume another one (through a control edge), and a
    # graph lists a node after its inputs, so its consumers then have their device.
    for node in reversed(node_defs):
        if node.name in generators:
            placement[node.name] = _place_generator(
                node.name, consumers[node.name], nodes, devices, placement,
                allow_soft_placement).name
    if log_device_placement:
        in_placement_order = ([n for n in node_defs if n.name not in generators]
                              + [n for n in node_defs if n.name in generators])
        _log_placement(in_placement_order, placement, log)
    return placement


def _log_placement(node_defs, placement, log):
    """TF's `name: (Op): device` line for each node, on stdout and in the `minitf` logger."""
    for node in node_defs:
        if node.op.startswith("_"):  # the runtime's own _Arg/_Retval are not the user's
            continue
        line = "%s: (%s): %s" % (node.name, node.op, placement[node.name])
        log(line)
        _logger.info(line)


def _colocation_groups(nodes):
    """({root: member names}, nodes): the groups, and the nodes with the requests that gave
    way to a resource's device cleared."""
    union_find = _UnionFind(nodes)
    for node in nodes.values():
        for group in node.attr.get("_class", []):
            other = group[len("loc:@"):]
            if other in nodes:
                union_find.union(other, node.name)
        for source in _input_sources(node, lambda dtype: dtype.is_ref_dtype):
            if source in nodes:
                union_find.union(source, node.name)
    nodes = dict(nodes)
    for node in list(nodes.values()):
        for source in _input_sources(node, lambda dtype: dtype == dtypes.resource):
            if source in nodes:
                _yield_to_resource(union_find, nodes, source, node.name)
                union_find.union(source, node.name)
    groups = {}
    for name in nodes:
        groups.setdefault(union_find.find(name), []).append(name)
    return groups, nodes


def _yield_to_resource(union_find, nodes, source, user):
    """When the group of `user` asks for a device the resource's group contradicts, its
    requests are dropped: the resource decides (TF's ColocateResourceOrRefEdge)."""
    source_root, user_root = union_find.find(source), union_find.find(user)
    members = {root: [n for n in nodes if union_find.find(n) == root]
               for root in (source_root, user_root)}
    requests = {root: _loose_request(members[root], nodes) for root in members}
    if not requests[source_root].is_compatible_with(requests[user_root]):
        for name in members[user_root]:
            node = nodes[name]
            nodes[name] = NodeDef(node.name, node.op, node.input, "", node.attr)


def _loose_request(members, nodes):
    spec = DeviceSpec()
    for name in members:
        if nodes[name].device:
            requested = DeviceSpec.from_string(nodes[name].device)
            if spec.is_compatible_with(requested):
                spec.merge_from(requested)
    return spec


def _input_sources(node, takes):
    """The nodes of the data inputs whose dtype `takes(dtype)` accepts."""
    input_dtypes = node_def_util.input_types(node)
    data_inputs = [i for i in node.input if not i.startswith("^")]
    for text, dtype in zip(data_inputs, input_dtypes):
        if takes(dtype):
            yield graph_def_lib.parse_input(text)[0]


def _is_generator(node):
    """No data inputs and a single output that is not a reference (a Const, an _Arg)."""
    if any(not text.startswith("^") for text in node.input):
        return False
    output_dtypes = node_def_util.output_types(node)
    return len(output_dtypes) == 1 and not output_dtypes[0].is_ref_dtype


def _consumers(node_defs):
    """{node name: names of the nodes with an edge (data or control) from it}."""
    consumers = {n.name: [] for n in node_defs}
    for node in node_defs:
        for text in node.input:
            consumers[graph_def_lib.parse_input(text)[0]].append(node.name)
    return consumers


def _place_generator(name, consumers, nodes, devices, placement, allow_soft_placement):
    """The device of all of `name`'s consumers if it may go there, else the usual choice."""
    consumer_devices = {placement[c] for c in consumers}
    if len(consumer_devices) == 1:
        target = next(d for d in devices if d.name in consumer_devices)
        request, _ = _merged_request([name], nodes)
        if _matches(request, target) and has_kernel(nodes[name].op, target.device_type):
            return target
    return _choose_device([name], nodes, devices, allow_soft_placement)


def _merged_request(members, nodes):
    """The merged device request of a group and the node that made it; raises on a conflict."""
    merged, first = DeviceSpec(), None
    for name in members:
        requested = nodes[name].device
        if not requested:
            continue
        spec = DeviceSpec.from_string(requested)
        if not merged.is_compatible_with(spec):
            raise _placement_error(nodes[name], (
                "Cannot colocate nodes '%s' and '%s': Cannot merge devices with incompatible "
                "%s: '%s' and '%s'" % (name, first, _conflicting_field(spec, merged),
                                       spec.to_string(), merged.to_string())))
        merged.merge_from(spec)
        first = first or name
    return merged, first


def _conflicting_field(a, b):
    for field, word in (("job", "jobs"), ("replica", "replicas"), ("task", "tasks"),
                        ("device_type", "types"), ("device_index", "ids")):
        x, y = getattr(a, field), getattr(b, field)
        if x is not None and y is not None and x != y:
            return word
    return "requests"


def _choose_device(members, nodes, devices, allow_soft_placement):
    request, requester = _merged_request(members, nodes)
    op_types = sorted({nodes[n].op for n in members})
    _check_some_kernel_exists(op_types, members, nodes, devices)

    def can_run(device):
        return all(has_kernel(op, device.device_type) for op in op_types)

    matching = [d for d in devices if _matches(request, d)]
    runnable = [d for d in matching if can_run(d)]
    if runnable:
        if request.device_type is None:
            gpus = [d for d in runnable if d.device_type == "GPU"]
            return gpus[0] if gpus else runnable[0]
        return runnable[0]
    if allow_soft_placement:
        device = _soft_placement(request, devices, can_run)
        if device is not None:
            return device
    node = nodes[requester or members[0]]
    if not matching:
        raise _placement_error(node, (
            "Cannot assign a device for operation %s: Operation was explicitly assigned to %s "
            "but available devices are [ %s ]. Make sure the device specification refers to a "
            "valid device." % (node.name, request.to_string(),
                               ", ".join(d.name for d in devices))))
    missing = [op for op in op_types if not any(has_kernel(op, d.device_type) for d in matching)]
    raise _placement_error(node, (
        "Cannot assign a device for operation %s: Could not satisfy explicit device "
        "specification '%s' because no supported kernel for %s devices is available (ops "
        "without one: %s)." % (node.name, request.to_string(), matching[0].device_type,
                               ", ".join(missing))))


def _soft_placement(request, devices, can_run):
    """Relaxes the request, index first, then type: the first device that can run the group."""
    for relaxed in (request.replace(device_index=None),
                    request.replace(device_type=None, device_index=None)):
        for device in devices:
            if _matches(relaxed, device) and can_run(device):
                return device
    return None


def _check_some_kernel_exists(op_types, members, nodes, devices):
    for op in op_types:
        if not any(has_kernel(op, d.device_type) for d in devices):
            node = nodes[next(n for n in members if nodes[n].op == op)]
            raise _placement_error(node, (
                "No OpKernel was registered to support Op '%s' used by node %s. Registered "
                "devices: [%s]" % (op, node.name, ", ".join(
                    sorted({d.device_type for d in devices})))))


def _matches(request, device):
    return request.is_compatible_with(device.spec)


def _placement_error(node, message):
    """An InvalidArgumentError that names `node`, so the session can show where it was made."""
    error = errors.InvalidArgumentError(node, None, "%s\n\t [[node %s (op: %s)]]" % (
        message, node.name, node.op))
    error._node_name = node.name
    return error
