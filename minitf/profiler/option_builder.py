"""ProfileOptionBuilder: the options of a profile, as a dict, built step by step.

Three presets cover the usual questions (how many parameters per scope,
how many FLOPs, where the time goes); each `with_*` method changes one
option and returns the builder, and `build()` returns the dict that
`tf.profiler.profile(..., options=...)` takes.

Mirrors `tensorflow/python/profiler/option_builder.py`.
"""

import copy

from minitf.profiler.tfprof_logger import TRAINABLE_VARIABLES

__all__ = ["ProfileOptionBuilder"]


def _preset(**changes):
    """The options every preset starts from, with `changes`."""
    options = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
               "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
               "account_type_regexes": [".*"], "start_name_regexes": [".*"],
               "trim_name_regexes": [], "show_name_regexes": [".*"], "hide_name_regexes": [],
               "account_displayed_op_only": True, "select": ["micros"], "step": -1,
               "output": "stdout"}
    options.update(changes)
    return options


class ProfileOptionBuilder:
    """Builds a profile's options: a preset or the defaults, then `with_*` changes, then `build()`.

        opts = (tf.profiler.ProfileOptionBuilder(
                    tf.profiler.ProfileOptionBuilder.time_and_memory())
                .with_max_depth(3).with_empty_output().build())
    """

    def __init__(self, options=None):
        if options is not None:
            self._options = copy.deepcopy(options)
        else:
            self._options = _preset(max_depth=100, account_displayed_op_only=False)

    @staticmethod
    def trainable_variables_parameter():
        """The parameters of the trainable variables, per name scope (use the `scope` view)."""
        return _preset(account_type_regexes=[TRAINABLE_VARIABLES], select=["params"])

    @staticmethod
    def float_operation():
        """The FLOPs of every node that has some, largest first."""
        return _preset(min_float_ops=1, order_by="float_ops", select=["float_ops"])

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0, min_cpu_micros=0,
                        min_peak_bytes=0, min_residual_bytes=0, min_output_bytes=0):
        """Execution time and memory of the nodes of a traced step, slowest first."""
        options = _preset(min_bytes=min_bytes, min_micros=min_micros, order_by="micros",
                          select=["micros", "bytes"])
        options.update({"min_peak_bytes": min_peak_bytes, "min_residual_bytes": min_residual_bytes,
                        "min_output_bytes": min_output_bytes,
                        "min_accelerator_micros": min_accelerator_micros,
                        "min_cpu_micros": min_cpu_micros})
        return options

    def build(self):
        return copy.deepcopy(self._options)

    def _set(self, **changes):
        self._options.update(copy.deepcopy(changes))
        return self

    def with_max_depth(self, max_depth):
        """Shows nodes down to this depth (the scope tree's, the graph's, or op types' count)."""
        return self._set(max_depth=max_depth)

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        return self._set(min_bytes=min_bytes, min_peak_bytes=min_peak_bytes,
                         min_residual_bytes=min_residual_bytes, min_output_bytes=min_output_bytes)

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0, min_cpu_micros=0):
        return self._set(min_micros=min_micros, min_accelerator_micros=min_accelerator_micros,
                         min_cpu_micros=min_cpu_micros)

    def with_min_parameters(self, min_params):
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence):
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops):
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes):
        """Counts only nodes with a type (op type, device, or op-log type) matching one of these."""
        return self._set(account_type_regexes=account_type_regexes)

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None,
                        hide_name_regexes=None, trim_name_regexes=None):
        """Starts at, shows, hides, or stops below the nodes whose names match these."""
        for key, value in (("start_name_regexes", start_name_regexes),
                           ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes),
                           ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._set(**{key: value})
        return self

    def account_displayed_op_only(self, is_true):
        """With True, a node's totals add up only the nodes that are displayed."""
        return self._set(account_displayed_op_only=is_true)

    def with_empty_output(self):
        return self._set(output="none")

    def with_stdout_output(self):
        return self._set(output="stdout")

    def with_file_output(self, outfile):
        return self._set(output="file:outfile=%s" % outfile)

    def with_timeline_output(self, timeline_file):
        return self._set(output="timeline:outfile=%s" % timeline_file)

    def with_pprof_output(self, pprof_file):
        return self._set(output="pprof:outfile=%s" % pprof_file)

    def order_by(self, attribute):
        """Sorts siblings by name, or by one of bytes, micros, params, float_ops, occurrence, ..."""
        return self._set(order_by=attribute)

    def select(self, attributes):
        """The columns of the report: params, float_ops, micros, bytes, device, op_types, ..."""
        return self._set(select=attributes)

    def with_step(self, step):
        """Which traced step (`Profiler.add_step`) to report; -1 averages over all of them."""
        return self._set(step=step)
