"""`tf.summary.scalar` and friends: graph nodes that say what TensorBoard should show.

A summary op is a node like any other: it reads a tensor when the step runs
and outputs a string scalar, the bytes of a `Summary` message with one or
more *values*, each under a **tag**. Nothing is written by the op: the
program fetches the string and hands it to a FileWriter (`writer.py`),
which stores it, with the step, in an event file.

Names and tags: a summary named `loss` is a node `loss` (made unique like
any node, `loss_1` for the second) inside the current name scope, and its
tag is the node's full name, so two summaries never share a tag. A `family`
puts the node under the scope `family/` and prefixes the tag once more with
the family, `family/scope/family/name`, which TensorBoard shows in a tab
named after the family. Characters TensorBoard cannot show become `_`.

Every summary goes into the collection `tf.GraphKeys.SUMMARIES` (or the
`collections` given), so that `merge_all` finds them and merges them into
one op, which is what a training loop fetches.

Mirrors `tensorflow/python/summary/summary.py` and
`tensorflow/python/ops/summary_op_util.py`.
"""

import contextlib
import logging
import re

from minitf.graph import dtypes, ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge",
           "merge_all"]

_logger = logging.getLogger("minitf")

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


# =============================================================================
# Tags and collections
# =============================================================================

def clean_tag(name):
    """`name` with every character TensorBoard cannot show replaced by `_`, no leading `/`."""
    if name is not None:
        new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
        if new_name != name:
            _logger.info("Summary name %s is illegal; using %s instead.", name, new_name)
            name = new_name
    return name


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """Opens the name scope of a summary; yields (tag, scope).

    The tag is the scope without its last `/`, prefixed with `family/` when
    there is a family (whose name the scope already starts with).
    """
    name, family = clean_tag(name), clean_tag(family)
    scope_base_name = name if family is None else "%s/%s" % (family, name)
    with ops.name_scope(scope_base_name, default_name, values) as scope:
        tag = scope.rstrip("/") if family is None else "%s/%s" % (family, scope.rstrip("/"))
        yield tag, scope


def collect(value, collections, default_collections):
    """Adds a summary to `collections`, or to `default_collections` when that is None."""
    for key in default_collections if collections is None else collections:
        ops.add_to_collection(key, value)


# =============================================================================
# The summaries
# =============================================================================

def scalar(name, tensor, collections=None, family=None):
    """A summary of one number: a `Summary` whose value has a `simple_value`.

    Args:
      name: the node's name, and (within the scope) the tag.
      tensor: a real number tensor with one element.
      collections: the graph collections to add it to (default
        `[tf.GraphKeys.SUMMARIES]`).
      family: a prefix of the tag and the name, a tab of TensorBoard.
    """
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        value = apply_op("ScalarSummary", name=scope, tags=tag, values=tensor)
        collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def histogram(name, values, collections=None, family=None):
    """A summary of how the elements of `values` are spread, in TensorFlow's buckets.

    A NaN or an infinity among them fails the step (InvalidArgumentError).
    """
    with summary_scope(name, family, values=[values], default_name="HistogramSummary") as (
            tag, scope):
        value = apply_op("HistogramSummary", name=scope, tag=tag, values=values)
        collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A summary of up to `max_outputs` images of a [batch, height, width, channels] tensor.

    `channels` is 1 (grey), 3 (RGB) or 4 (RGBA); uint8 values are stored as
    they are, float values scaled into 0..255 (see the kernel). The tags are
    `tag/image/0`, `tag/image/1`, ..., or `tag/image` when `max_outputs` is 1.
    """
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        value = apply_op("ImageSummary", name=scope, tag=tag, tensor=tensor,
                         max_images=max_outputs)
        collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A summary of up to `max_outputs` sounds of a [batch, frames(, channels)] float tensor.

    Samples are in [-1, 1]; `sample_rate` is in Hz. Tags end `/audio/i`.
    """
    with summary_scope(name, family=family, values=[tensor]) as (tag, scope):
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        value = apply_op("AudioSummaryV2", name=scope, tag=tag, tensor=tensor,
                         max_outputs=max_outputs, sample_rate=sample_rate)
        collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def text(name, tensor, collections=None):
    """A summary of a string tensor, for TensorBoard's text dashboard (Markdown, tables)."""
    if tensor.dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s"
                         % (tensor.name, tensor.dtype))
    summary_pb2 = _summary_pb2()
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata,
                          collections=collections)


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A summary holding a whole tensor, and the metadata saying which plugin reads it.

    Args:
      summary_description: a longer description, stored in the metadata.
      summary_metadata: a `SummaryMetadata` message (its plugin, its content).
      display_name: the name TensorBoard shows instead of the tag.
    """
    metadata = _summary_pb2().SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        value = apply_op("TensorSummaryV2", name=scope, tag=tag, tensor=tensor,
                         serialized_summary_metadata=metadata.SerializeToString())
        collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def merge(inputs, collections=None, name=None):
    """One summary holding the values of all of `inputs`; a tag twice fails the step."""
    with ops.name_scope(name, "Merge", inputs):
        value = apply_op("MergeSummary", name=name, inputs=list(inputs))
        collect(value, collections, [])
    return value


def merge_all(key=ops.GraphKeys.SUMMARIES, scope=None, name=None):
    """`merge` of every summary in the collection `key` (under `scope`); None when there is none."""
    summary_ops = ops.get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def _summary_pb2():
    from minitf.proto import summary_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    return summary_pb2

