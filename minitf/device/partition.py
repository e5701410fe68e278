"""Partition: one graph split into one graph per device, joined by _Send/_Recv.

After placement every node has a device. Each device gets the nodes placed
on it; every data edge that crosses devices is cut and replaced by a `_Send`
on the source device and a `_Recv` on the destination, which meet in the
step's Rendezvous under a key naming both devices and the edge. A tensor is
sent once per destination device, however many consumers it has there. A
control edge that crosses devices becomes a tiny dummy tensor sent the same
way, so the order it stands for still holds.

A loop whose nodes sit on several devices first gets a *control loop* on
each device that receives tensors in it (`control_loops.py`): a control
edge from the control loop's Merge to the node that receives moves to the
node's _Recv here, so the _Recv runs once per iteration of the loop.

Mirrors `tensorflow/core/graph/graph_partition.cc`.
"""

import numpy as np

from minitf.device import control_loops
from minitf.framework import node_def_util
from minitf.graph import dtypes
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import NodeDef


def partition(node_defs, placement, incarnations):
    """{device name: [NodeDef]} with _Send/_Recv pairs for every cross-device edge."""
    if control_loops.has_loops(node_defs):
        node_defs, placement = control_loops.add_control_flow(node_defs, placement)
    nodes = {n.name: n for n in node_defs}
    partitions = {}
    for node in node_defs:
        partitions.setdefault(placement[node.name], [])
    transfers = {}  # (source tensor, destination device) -> its _Recv
    for node in node_defs:
        device = placement[node.name]
        new_node = NodeDef(node.name, node.op, [], device, node.attr)
        # The control edges from a control loop's Merge: each new _Recv takes one.
        loop_controls = [t for t in node.input if t[0] == "^"
                         and control_loops.is_control_loop_merge(nodes[t[1:]])]
        for text in node.input:
            if text[0] == "^" and control_loops.is_control_loop_merge(nodes[text[1:]]):
                continue
            source, index, is_control = graph_def_lib.parse_input(text)
            source_device = placement[source]
            if source_device == device:
                new_node.input.append(text)
                continue
            key = ("^" + source if is_control else "%s:%d" % (source, index), device)
            if key not in transfers:
                transfers[key] = _add_transfer(partitions, nodes[source], index, is_control,
                                               source_device, device, incarnations,
                                               len(transfers))
                if loop_controls:
                    transfers[key].input.append(loop_controls.pop())
            recv_name = transfers[key].name
            new_node.input.append("^" + recv_name if is_control else recv_name)
        new_node.input.extend(loop_controls)  # those no new _Recv took
        partitions[device].append(new_node)
    return partitions


def _add_transfer(partitions, source, index, is_control, source_device, device,
                  incarnations, edge_id):
    edge_name = "edge_%d_%s" % (edge_id, source.name)
    if is_control:
        # A control edge carries no data: send an empty tensor made after the source ran.
        dummy = NodeDef("%s/_%d_control_dummy" % (source.name, edge_id), "Const",
                        ["^" + source.name], source_device,
                        {"dtype": dtypes.float32, "value": np.zeros((0,), np.float32)})
        partitions[source_device].append(dummy)
        sent, dtype = dummy.name, dtypes.float32
    else:
        dtype = node_def_util.output_types(source)[index].base_dtype
        sent = graph_def_lib.tensor_name(source.name, index)
    common = {"tensor_name": edge_name, "send_device": source_device, "recv_device": device,
              "send_device_incarnation": incarnations[source_device],
              "client_terminated": False}
    send = NodeDef("%s/_%d_send" % (source.name, edge_id), "_Send", [sent], source_device,
                   dict(common, T=dtype))
    recv = NodeDef("%s/_%d_recv" % (source.name, edge_id), "_Recv", [], device,
                   dict(common, tensor_type=dtype))
    partitions[source_device].append(send)
    partitions[device].append(recv)
    return recv
