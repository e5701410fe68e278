"""The graph view: each node's children are its inputs, so a node's totals are its whole cone.

The roots are the nodes no other node consumes (the fetches, the
initializers, the saver's ops); below each, its inputs, recursively, each
node visited once (the first path to reach it owns it). A node that is not
accounted hands its accounted inputs up to its nearest accounted consumer.

Mirrors `tensorflow/core/profiler/internal/tfprof_graph.{h,cc}`.
"""

from minitf.profiler.tfprof_options import ROOT_NAME
from minitf.profiler.tfprof_scope import parent_node
from minitf.profiler.tfprof_show import ShowNode, TFShow

GRAPH_PARENT = "_TFGraphParent"


class TFGraph(TFShow):
    def __init__(self, graph_nodes):
        """`graph_nodes`: the TFGraphNodes by name; links each node to the nodes it reads."""
        self.nodes_map = {name: ShowNode(node) for name, node in sorted(graph_nodes.items())}
        consumed = set()
        for node in self.nodes_map.values():
            for _, input_name in sorted(node.node.inputs.items()):
                consumed.add(input_name)
                if input_name in self.nodes_map:
                    node.children.append(self.nodes_map[input_name])
        self.root = parent_node(ROOT_NAME, GRAPH_PARENT)
        self.root.children = [n for name, n in self.nodes_map.items() if name not in consumed]

    def account(self, nodes, opts, visited):
        """Depth first: the accounted nodes among `nodes` and, for the others, their inputs."""
        accounted = []
        for node in nodes:
            if node.name in visited:
                continue
            visited.add(node.name)
            accounted_children = self.account(node.children, opts, visited)
            node.account = self.re_account(node, opts)
            if not node.account:
                accounted += accounted_children
                continue
            node.total_over(accounted_children)
            accounted.append(node)
        return accounted
