"""The package's floors, checked: no import points up, and no two modules import each other.

minitf is built in floors (docs/architecture.md). Bottom up:

    floor     graph, framework, proto, platform   what the front end and the runtime both speak
    runtime   kernels; executor, device; session; distributed
    builders  ops; autodiff               add Operations to a graph
    library   train, saver, layers, feature_column, data, summary, profiler, metrics, losses
    face      minitf/__init__.py, tf.test, the tour, visualize, tf.math, tf.linalg, tf.nn,
              tf.io, tf.strings, tf.manip, tf.compat, tf.config, ...

An import may point down, or sideways within a floor; never up. The
runtime's packages are floors of their own, in the order above: a kernel
sees only its context, the executor and the devices see kernels, the
session sees them all. So are the builders': the op constructors never
import the Gradients chapter, whose gradient functions build with them. On top of that no module may be part of an import
cycle, and an import inside a function must say why it is there: which
cycle forces it (an import that hides a cycle from Python's import
system), or that it loads an optional library only when used (protobuf:
`import minitf` needs NumPy alone). The cycles hidden that way are the
known ones of LAZY_CYCLES, and no others.

The check reads the source with `ast`, so it sees what a reader sees, and
it fails on the first import that breaks a rule, naming the file and line.
"""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "minitf"

# The floor of every top-level part of the package; a higher number is a higher floor.
FLOORS = {
    "graph": 0, "framework": 0, "proto": 0, "platform": 0,
    "kernels": 1,
    "executor": 2, "device": 2,
    "session": 3,
    "distributed": 4,
    "ops": 5,
    "autodiff": 6,
    "train": 7, "saver": 7, "layers": 7, "feature_column": 7, "data": 7, "summary": 7,
    "profiler": 7, "metrics": 7, "losses": 7,
    "": 8, "__main__": 8, "tour": 8, "visualize": 8, "test": 8, "math": 8, "linalg": 8, "nn": 8,
    "compat": 8, "config": 8, "io": 8, "queue": 8, "dtypes": 8, "random": 8,
    "initializers": 8, "debugging": 8, "strings": 8, "manip": 8, "sparse": 8,
    "bitwise": 8, "lookup": 8, "nest": 8, "raw_ops": 8, "user_ops": 8, "version": 8,
}
FLOOR_NAMES = {0: "floor", 1: "runtime (kernels)", 2: "runtime (executor, device)",
               3: "runtime (session)", 4: "runtime (distributed)", 5: "builders (ops)",
               6: "builders (autodiff)", 7: "library", 8: "face"}


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def part_of(module):
    """The top-level part a module belongs to: `ops` for minitf.ops.math_ops, "" for minitf."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


class Import:
    def __init__(self, source, target, line, in_function, text):
        self.source, self.target, self.line = source, target, line
        self.in_function, self.text = in_function, text

    def __repr__(self):
        return "%s:%d imports %s" % (MODULES[self.source].relative_to(PACKAGE.parent),
                                     self.line, self.target)


def _resolve(name):
    """The minitf module an imported name stands for (a module, or the module defining it)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module):
    path = MODULES[module]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = ["%s.%s" % (child.module, alias.name) for alias in child.names]
            else:
                visit(child, inside)
                continue
            text = lines[child.lineno - 1]
            for name in names:
                target = _resolve(name) if name.startswith("minitf") else None
                if target is not None and target != module:
                    found.append(Import(module, target, child.lineno, in_function, text))

    visit(tree, False)
    return found


ALL_IMPORTS = [i for module in MODULES for i in imports_of(module)]


def test_every_part_of_the_package_has_a_floor():
    unknown = sorted({part_of(m) for m in MODULES} - set(FLOORS))
    assert not unknown, "give these parts of minitf a floor in FLOORS: %s" % unknown


def test_no_import_points_up():
    upward = ["%r: from the %s up to the %s" % (
        imp, FLOOR_NAMES[FLOORS[part_of(imp.source)]], FLOOR_NAMES[FLOORS[part_of(imp.target)]])
        for imp in ALL_IMPORTS if FLOORS[part_of(imp.target)] > FLOORS[part_of(imp.source)]]
    assert not upward, "imports that point up:\n" + "\n".join(upward)


def test_the_check_sees_the_imports():
    """A check that finds nothing to check would pass silently: it must see real imports."""
    assert len(MODULES) > 100
    assert any(i.source == "minitf.executor.executor" and i.target == "minitf.framework.op_kernel"
               for i in ALL_IMPORTS)
    kernels, ops = part_of("minitf.kernels.cpu.math_kernels"), part_of("minitf.ops.math_ops")
    assert FLOORS[kernels] < FLOORS[ops]


def test_no_module_is_part_of_an_import_cycle():
    graph = {m: set() for m in MODULES}
    for imp in ALL_IMPORTS:
        if not imp.in_function:
            graph[imp.source].add(imp.target)
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert not cycles, "import cycles: %s" % [sorted(c) for c in cycles]


# The only cycles that imports inside functions still close: a plain message class and the
# module that turns it into TensorFlow's protocol buffer, loaded only when bytes are asked
# for. The converter builds the classes; the classes' SerializeToString calls the converter.
LAZY_CYCLES = [{"minitf.graph.graph_def", "minitf.graph.graph_def_proto"},
               {"minitf.saver.meta_graph", "minitf.saver.meta_graph_proto"}]


def test_imports_inside_functions_close_only_the_known_cycles():
    graph = {m: set() for m in MODULES}
    for imp in ALL_IMPORTS:
        graph[imp.source].add(imp.target)
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1]
    new = [sorted(c) for c in cycles if c not in LAZY_CYCLES]
    gone = [sorted(c) for c in LAZY_CYCLES if c not in cycles]
    assert not new, "import cycles through imports inside functions: %s" % new
    assert not gone, "these cycles are gone: take them out of LAZY_CYCLES: %s" % gone


def _explained(imp):
    comment = imp.text.partition("#")[2]
    return "cycle" in comment or "only when used" in comment


def test_an_import_inside_a_function_says_why():
    unexplained = [imp for imp in ALL_IMPORTS if imp.in_function and not _explained(imp)]
    assert not unexplained, ("imports inside functions whose comment names no cycle and no "
                             "'only when used' (move them to the top of the module): %s"
                             % unexplained)


def _strongly_connected(graph):
    """Tarjan's algorithm, iteratively: the strongly connected components of `graph`."""
    index, low, on_stack, stack, components, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter[0]
                    counter[0] += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
    return components
