"""Step stats: what ran where and when, recorded when a run asks for a trace.

`RunOptions(trace_level=RunOptions.FULL_TRACE)` makes every executor record,
for each node, its device, thread and start/end times, and the frame and
iteration it ran in (a node in a loop runs once per iteration; outside any
loop the frame is `""` and the iteration 0). They come back in
`RunMetadata.step_stats`, grouped per device, and `minitf.session.timeline`
turns them into a Chrome trace.

TensorFlow's NodeExecStats message has no field for the frame and
iteration; the timeline label, its one free text, ends with them
(`while/add = Add() in ;0;while/while_context, iteration 3`), which is how
a worker's stats bring them to the client (`minitf/distributed/messages.py`).

Mirrors `tensorflow/core/framework/step_stats.proto`.
"""


class NodeExecStats:
    """One node's execution: name, op, device, thread, start (µs since epoch), duration,
    and the frame and iteration it ran in."""

    __slots__ = ("node_name", "op", "device", "thread_id", "all_start_micros",
                 "all_end_rel_micros", "timeline_label", "frame_name", "iter_id")

    def __init__(self, node_name, op, device, thread_id, all_start_micros, all_end_rel_micros,
                 frame_name="", iter_id=0):
        self.node_name = node_name
        self.op = op
        self.device = device
        self.thread_id = thread_id
        self.all_start_micros = all_start_micros
        self.all_end_rel_micros = all_end_rel_micros
        self.frame_name = frame_name
        self.iter_id = iter_id
        self.timeline_label = "%s = %s()" % (node_name, op) + (
            " in %s, iteration %d" % (frame_name, iter_id) if frame_name else "")

    @property
    def op_start_rel_micros(self):
        return 0

    @property
    def op_end_rel_micros(self):
        return self.all_end_rel_micros

    def __repr__(self):
        where = " frame=%r iter=%d" % (self.frame_name, self.iter_id) if self.frame_name else ""
        return "NodeExecStats(%s, %s, thread=%d, start=%d, %dus%s)" % (
            self.node_name, self.op, self.thread_id, self.all_start_micros,
            self.all_end_rel_micros, where)


class DeviceStepStats:
    """The node stats of one device."""

    def __init__(self, device, node_stats=None):
        self.device = device
        self.node_stats = list(node_stats or [])


class StepStats:
    """The node stats of one step, one DeviceStepStats per device."""

    def __init__(self, dev_stats=None):
        self.dev_stats = list(dev_stats or [])

    def add(self, node_stats):
        by_device = {d.device: d for d in self.dev_stats}
        for stat in node_stats:
            if stat.device not in by_device:
                by_device[stat.device] = DeviceStepStats(stat.device)
                self.dev_stats.append(by_device[stat.device])
            by_device[stat.device].node_stats.append(stat)
