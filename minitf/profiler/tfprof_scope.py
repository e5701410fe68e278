"""The scope view: nodes as a tree of their names, `a/b/c` under `a/b` under `a`.

Every name scope that is not itself a node becomes a parent node with no
stats of its own, so `dense/MatMul` and `dense/BiasAdd` sit under `dense`
and `dense`'s totals are the layer's. This is the default view of
`tf.profiler.profile`, and the one that counts parameters per scope.

Mirrors `tensorflow/core/profiler/internal/tfprof_scope.{h,cc}`.
"""

from minitf.profiler.tfprof_node import TFGraphNode
from minitf.profiler.tfprof_options import ROOT_NAME
from minitf.profiler.tfprof_show import ShowNode, TFShow

SCOPE_PARENT = "_kTFScopeParent"  # sic, TensorFlow's spelling


class _ParentNodeDef:
    """The NodeDef of a name scope (or of the root) that is no node of the graph."""

    def __init__(self, name, op):
        self.name, self.op, self.attr = name, op, {}


def parent_node(name, op):
    return ShowNode(TFGraphNode(_ParentNodeDef(name, op), -1, {}))


class TFScope(TFShow):
    def __init__(self, graph_nodes):
        """`graph_nodes`: the TFGraphNodes by name; builds the tree of names."""
        self.nodes_map = {}
        for name, graph_node in sorted(graph_nodes.items()):
            self.nodes_map[name] = ShowNode(graph_node)
            scope = name.rpartition("/")[0]
            while scope:
                if scope not in self.nodes_map:
                    self.nodes_map[scope] = parent_node(scope, SCOPE_PARENT)
                scope = scope.rpartition("/")[0]
        roots = []
        for name in sorted(self.nodes_map):
            scope = name.rpartition("/")[0]
            (self.nodes_map[scope].children if scope else roots).append(self.nodes_map[name])
        self.root = parent_node(ROOT_NAME, SCOPE_PARENT)
        self.root.children = roots

    def account(self, nodes, opts, visited):
        """The nodes that are accounted or have accounted descendants, with their totals."""
        accounted = []
        for node in nodes:
            node.reset_total_stats()
            accounted_children = self.account(node.children, opts, visited)
            node.account = self.re_account(node, opts)
            if node.account or accounted_children:
                node.total_over(accounted_children)
                accounted.append(node)
        return accounted
