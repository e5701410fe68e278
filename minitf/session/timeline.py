"""Timeline: a run's step stats as a Chrome trace that Perfetto or chrome://tracing opens.

Each device becomes a process lane, each thread a row, each node a box from
its start to its end, labelled with its name and op; a node in a loop also
shows its frame and iteration.

    run_metadata = tf.RunMetadata()
    sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
             run_metadata=run_metadata)
    trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()

Mirrors `tensorflow/python/client/timeline.py`.
"""

import json


class Timeline:
    """Turns StepStats into Chrome trace JSON."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def _events(self):
        events = []
        for pid, device_stats in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": device_stats.device}})
            threads = {}
            for stat in device_stats.node_stats:
                tid = threads.setdefault(stat.thread_id, len(threads))
                args = {"name": stat.node_name, "op": stat.op}
                if stat.frame_name:
                    args.update(frame=stat.frame_name, iteration=stat.iter_id)
                events.append({"name": stat.node_name, "cat": "Op", "ph": "X", "pid": pid,
                               "tid": tid, "ts": stat.all_start_micros,
                               "dur": stat.all_end_rel_micros, "args": args})
        return events

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        return json.dumps({"traceEvents": self._events(), "displayTimeUnit": "ns"}, indent=1)
