"""`tf.profiler.profile` and `tf.profiler.Profiler`: count, time and report a graph.

`profile(graph, run_meta, cmd, options)` does what TensorFlow does, in the
same order: the Python side computes the op log (FLOPs from the registered
statistics, the `_trainable_variables` type), the graph goes over as a
GraphDef with its static shapes, and `TFStats` builds the requested view,
prints its report (the options block, the doc lines, the tree) and returns
the view's root: a GraphNodeProto for `scope` and `graph`, a
MultiGraphNodeProto for `op`.

`Profiler` keeps one `TFStats` across steps: `add_step(step, run_meta)`
for each traced step, then any view of one step or of their average.

Mirrors `tensorflow/python/profiler/model_analyzer.py` and the
`PrintModelAnalysis` / `RunProfile` of `core/profiler/internal/print_model_analysis.cc`.
"""

import sys

from minitf.graph import errors, ops
from minitf.profiler import tfprof_logger
from minitf.profiler.option_builder import ProfileOptionBuilder
from minitf.profiler.tfprof_options import Options
from minitf.profiler.tfprof_output import GraphNodeProto, MultiGraphNodeProto
from minitf.profiler.tfprof_stats import TFStats

__all__ = ["profile", "Profiler"]

_DEFAULT_PROFILE_OPTIONS = 0
_COMMANDS = ("scope", "graph", "op")


def _graph_def(graph):
    return graph.as_graph_def(add_shapes=True)


def _check_command(cmd):
    if cmd == "code":
        raise errors.UnimplementedError(
            None, None, "The profiler's 'code' view (by Python call stack) is not implemented in "
            "minitf; use cmd='scope', 'graph' or 'op'.")
    if cmd not in _COMMANDS:
        raise errors.InvalidArgumentError(None, None, "unknown cmd: %s\n" % cmd)


def _run_profile(stats, cmd, options):
    """Shows view `cmd` with `options` (a dict); prints the options and report for stdout."""
    empty = MultiGraphNodeProto() if cmd == "op" else GraphNodeProto()
    try:
        opts = Options.from_dict(options)
    except ValueError as e:
        sys.stderr.write("%s\n" % e)  # TensorFlow reports a bad `output` and returns nothing
        return empty
    if opts.output_type == "timeline":
        raise errors.UnimplementedError(
            None, None, "The profiler's timeline output is not implemented in minitf; "
            "minitf.session.timeline.Timeline(run_metadata.step_stats) writes a Chrome trace.")
    if opts.output_type != "stdout":
        return stats.show(cmd, opts)
    sys.stdout.write("\n=========================Options=============================\n")
    sys.stdout.write(opts.to_string())
    sys.stdout.write("\n==================Model Analysis Report======================\n")
    result = stats.show(cmd, opts)
    sys.stdout.write("\n======================End of Report==========================\n")
    sys.stdout.flush()
    return result


def profile(graph=None, run_meta=None, op_log=None, cmd="scope",
            options=_DEFAULT_PROFILE_OPTIONS):
    """Profiles `graph` (default: the default graph) in view `cmd`; returns the view's root.

    Args:
      graph: a Graph.
      run_meta: the RunMetadata of a step run with `RunOptions(trace_level=FULL_TRACE)`,
        for execution times and run counts.
      op_log: an OpLogProto whose entries add FLOPs or accounting types to nodes.
      cmd: "scope" (by name scope), "graph" (by inputs) or "op" (by op type).
      options: a dict from ProfileOptionBuilder; by default the trainable parameters.

    Returns:
      A GraphNodeProto for "scope" and "graph", a MultiGraphNodeProto for "op".
    """
    if graph is None:
        graph = ops.get_default_graph()
    if options == _DEFAULT_PROFILE_OPTIONS:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    op_log = tfprof_logger.merge_default_with_oplog(graph, op_log, run_meta,
                                                    add_trace=cmd == "code")
    _check_command(cmd)
    return _run_profile(TFStats(_graph_def(graph), run_meta, op_log), cmd, options)


class Profiler:
    """A profiler over several steps: `add_step` each traced step, then profile any view.

        profiler = tf.profiler.Profiler(sess.graph)
        for step in range(steps):
            run_meta = tf.RunMetadata()
            sess.run(train_op, options=full_trace, run_metadata=run_meta)
            profiler.add_step(step, run_meta)
        profiler.profile_operations(tf.profiler.ProfileOptionBuilder.time_and_memory())
    """

    def __init__(self, graph=None, op_log=None):
        self._graph = graph if graph is not None else ops.get_default_graph()
        op_log = tfprof_logger.merge_default_with_oplog(self._graph, op_log=op_log)
        self._stats = TFStats(_graph_def(self._graph), None, op_log)

    def add_step(self, step, run_meta):
        """Adds a traced step (and any nodes the graph gained since)."""
        op_log = tfprof_logger.merge_default_with_oplog(self._graph, run_meta=run_meta)
        self._stats.add_graph(_graph_def(self._graph))
        self._stats.add_run_meta(step, run_meta)
        self._stats.add_op_log(op_log)

    def profile_name_scope(self, options):
        return _run_profile(self._stats, "scope", options)

    def profile_graph(self, options):
        return _run_profile(self._stats, "graph", options)

    def profile_operations(self, options):
        return _run_profile(self._stats, "op", options)

    def profile_python(self, options):
        del options
        _check_command("code")
