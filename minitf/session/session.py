"""Session: the client side of running a graph.

`sess.run(fetches, feed_dict)` does the client's share of the work and hands
the rest to the runtime that serves the session's target, which the client
finds by asking `session_factory` (a DirectSession for `""`; a master over
gRPC, in TensorFlow, for `"grpc://..."`):

1. *fetches* may be a tensor, an op, a name, a SparseTensor, or any nesting
   of lists, tuples, namedtuples and dicts of them; a fetch mapper flattens
   them to a list of unique tensor names and node names and rebuilds the
   same structure from the results (an op fetches as None);
2. *feeds* are checked: the key must be a feedable tensor of this graph, the
   value is converted to its dtype and must fit its static shape;
3. the nodes added to the graph since the last run are sent (Extend), and
   the runtime runs (feed names, fetch names, target names). A tensor that
   is both fed and fetched is answered from the feed, without running.

A failure in the runtime comes back as an OpError; the client adds the
user's source line that created the failing node.

Differences from TensorFlow: an edit of a node that a session has already
run (`op._add_control_input`, `op._set_device`) is sent again before the
next run and takes effect; TF 1.15 ignores such edits with a warning. The
session sees edits through the graph's `edit_count` and
`oldest_op_id_edited_since`: when an op it has sent was edited, it sends
the whole graph again.

Mirrors `tensorflow/python/client/session.py`.
"""

import collections
import numbers
import threading

import numpy as np

from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import ops
from minitf.graph.python_values import to_numpy
from minitf.graph.sparse_tensor import (IndexedSlices, IndexedSlicesValue, SparseTensor,
                                        SparseTensorValue)
from minitf.session import context
from minitf.session import session_factory


# =============================================================================
# Fetch mapping: nested structures of fetches <-> flat lists
# =============================================================================

class _FetchMapper:
    """Flattens one fetch structure into graph elements and rebuilds its results."""

    @staticmethod
    def for_fetch(fetch, graph):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if isinstance(fetch, (SparseTensor, IndexedSlices)):
            return _CompositeMapper(fetch, graph)
        if isinstance(fetch, dict):
            return _DictMapper(fetch, graph)
        if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):
            return _ListMapper(fetch, graph, rebuild=lambda v, f=fetch: type(f)(*v))
        if isinstance(fetch, (list, tuple)):
            return _ListMapper(fetch, graph, rebuild=type(fetch))
        return _ElementMapper(fetch, graph)


class _ElementMapper(_FetchMapper):
    def __init__(self, fetch, graph):
        try:
            element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError("Fetch argument %r has invalid type %r, must be a string or "
                            "Tensor. (%s)" % (fetch, type(fetch), e)) from None
        except ValueError as e:
            raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                             % (fetch, e)) from None
        except KeyError as e:
            raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                             % (fetch, e.args[0])) from None
        if not graph.is_fetchable(element):
            raise ValueError("Operation %r has been marked as not fetchable." % element.name)
        self.elements = [element]

    def build_results(self, values):
        return values[0]


class _ListMapper(_FetchMapper):
    def __init__(self, fetches, graph, rebuild):
        self._mappers = [_FetchMapper.for_fetch(f, graph) for f in fetches]
        self._rebuild = rebuild
        self.elements = [e for m in self._mappers for e in m.elements]

    def build_results(self, values):
        results, start = [], 0
        for mapper in self._mappers:
            count = len(mapper.elements)
            results.append(mapper.build_results(values[start:start + count]))
            start += count
        return self._rebuild(results)


class _DictMapper(_FetchMapper):
    def __init__(self, fetches, graph):
        self._keys = list(fetches)
        self._list = _ListMapper([fetches[k] for k in self._keys], graph, rebuild=list)
        self._type = type(fetches)
        self.elements = self._list.elements

    def build_results(self, values):
        results = self._list.build_results(values)
        return self._type(zip(self._keys, results)) if self._type is not collections.defaultdict \
            else dict(zip(self._keys, results))


class _CompositeMapper(_FetchMapper):
    """SparseTensor -> SparseTensorValue, IndexedSlices -> IndexedSlicesValue."""

    def __init__(self, fetch, graph):
        if isinstance(fetch, SparseTensor):
            parts = [fetch.indices, fetch.values, fetch.dense_shape]
            self._make = SparseTensorValue
        else:
            parts = [fetch.values, fetch.indices] + (
                [fetch.dense_shape] if fetch.dense_shape is not None else [])
            self._make = lambda v, i, s=None: IndexedSlicesValue(v, i, s)
        self._list = _ListMapper(parts, graph, rebuild=list)
        self.elements = self._list.elements

    def build_results(self, values):
        return self._make(*self._list.build_results(values))


# =============================================================================
# Sessions
# =============================================================================

class BaseSession:
    """The shared machinery of Session and InteractiveSession."""

    def __init__(self, target="", graph=None, config=None):
        if graph is not None and not isinstance(graph, ops.Graph):
            raise TypeError("graph must be a tf.Graph, but got %s" % type(graph))
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._target = target
        # Without a config, the process's settings (tf.config.*), as in TensorFlow.
        self._config = config if config is not None else context.default_config()
        self._runtime = session_factory.get_factory(target).new_session(target, self._config)
        self._sent_version = 0  # the runtime has the graph's ops up to this version
        self._seen_edit_count = self._graph.edit_count  # the edits looked at so far
        self._extend_lock = threading.Lock()
        self._closed = False
        self._default_session_context = None
        self._default_graph_context = None

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        return self._target

    def list_devices(self):
        """The devices this session can place ops on (`_DeviceAttributes` with name, type)."""
        return [_DeviceAttributes(d.name, d.device_type) for d in self._runtime.list_devices()]

    def as_default(self):
        """Makes this the default session (for `Tensor.eval` and `Operation.run`)."""
        return ops.default_session(self)

    def close(self):
        if not self._closed:
            self._closed = True
            self._runtime.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # --- run ---------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for `fetches`; returns their values in the same structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        mapper = _FetchMapper.for_fetch(fetches, self._graph)
        feeds = self._process_feeds(feed_dict)
        fetch_names, target_names, sources = _unique_fetches(mapper.elements, feeds)
        self._extend_graph()
        try:
            values = self._runtime.run(feeds, fetch_names, target_names, options, run_metadata)
        except errors.OpError as e:
            raise ops.op_error_with_context(e, self._graph) from None
        return mapper.build_results([_fetch_result(s, values, feeds) for s in sources])

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function `f(*feed_values)` that runs `fetches` with `feed_list` fed in order."""
        feed_list = list(feed_list or [])
        _FetchMapper.for_fetch(fetches, self._graph)  # fail now, not at the first call

        def run_callable(*feed_values, **kwargs):
            if len(feed_values) != len(feed_list):
                raise TypeError("Expected %d feed values, got %d"
                                % (len(feed_list), len(feed_values)))
            options = kwargs.pop("options", None) if accept_options else None
            run_metadata = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError("Unexpected arguments: %s" % ", ".join(sorted(kwargs)))
            return self.run(fetches, dict(zip(feed_list, feed_values)), options, run_metadata)

        return run_callable

    def _process_feeds(self, feed_dict):
        feeds = {}
        for key, value in (feed_dict or {}).items():
            for tensor, subvalue in _feed_pairs(key, value, self._graph):
                feeds[tensor.name] = _feed_value(tensor, subvalue, self._graph)
        return feeds

    def _extend_graph(self):
        """Sends the nodes added since the last run; resends everything after graph edits."""
        with self._extend_lock:
            self._extend_graph_locked()

    def _extend_graph_locked(self):
        # Each node goes with the static shapes of its outputs (`_output_shapes`): the
        # runtime's constant folding reads them.
        graph = self._graph
        edit_count = graph.edit_count
        oldest_edited = graph.oldest_op_id_edited_since(self._seen_edit_count)
        if oldest_edited is not None and oldest_edited <= self._sent_version:
            # An op the runtime already has changed: it gets the whole graph again.
            self._runtime.reset_graph(graph.as_graph_def(add_shapes=True))
            self._sent_version = graph.version
        elif graph.version > self._sent_version:
            # New ops only (an edited op not sent yet goes out as it is now).
            self._runtime.extend(graph.as_graph_def(from_version=self._sent_version,
                                                    add_shapes=True))
            self._sent_version = graph.version
        self._seen_edit_count = edit_count

    # --- context manager -----------------------------------------------------------
    def __enter__(self):
        if self._default_graph_context is not None:
            raise RuntimeError("Session context managers are not re-entrant. Use "
                               "`Session.as_default()` if you want to enter a session "
                               "multiple times.")
        self._default_graph_context = self._graph.as_default()
        self._default_session_context = self.as_default()
        self._default_graph_context.__enter__()
        return self._default_session_context.__enter__()

    def __exit__(self, exc_type, exc_value, tb):
        self._default_session_context.__exit__(exc_type, exc_value, tb)
        self._default_graph_context.__exit__(exc_type, exc_value, tb)
        self._default_session_context = self._default_graph_context = None
        self.close()

    @staticmethod
    def reset(target, containers=None, config=None):
        """Clears the resource containers (all when None) of the sessions on `target`."""
        session_factory.get_factory(target).reset(target, containers, config)


class Session(BaseSession):
    """`tf.Session(target='', graph=None, config=None)`."""


class InteractiveSession(BaseSession):
    """A Session that makes itself (and its graph) the default as soon as it is created.

    For shells and notebooks: `t.eval()` works without a `with` block. The
    defaults are given back by `close()`.
    """

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._interactive_session_context = self.as_default()
        self._interactive_session_context.__enter__()
        self._interactive_graph_context = self._graph.as_default()
        self._interactive_graph_context.__enter__()

    def close(self):
        super().close()
        if self._interactive_graph_context is not None:
            self._interactive_graph_context.__exit__(None, None, None)
            self._interactive_session_context.__exit__(None, None, None)
            self._interactive_graph_context = None


class _DeviceAttributes:
    def __init__(self, name, device_type, memory_limit_bytes=0):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes

    def __repr__(self):
        return "_DeviceAttributes(%s, %s, %d)" % (self.name, self.device_type,
                                                  self.memory_limit_bytes)


# =============================================================================
# Feeds and fetched values
# =============================================================================

def _feed_pairs(key, value, graph):
    """(tensor, value) pairs for one feed_dict entry (a SparseTensor key gives three)."""
    if isinstance(key, SparseTensor):
        if not isinstance(value, (SparseTensorValue, tuple)) or len(value) != 3:
            raise TypeError("The value of a SparseTensor feed must be a SparseTensorValue or "
                            "a (indices, values, dense_shape) tuple.")
        return list(zip([key.indices, key.values, key.dense_shape], value))
    if hasattr(key, "_as_graph_element") and not isinstance(key, ops.Tensor):
        key = key._as_graph_element()
    try:
        tensor = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except (TypeError, ValueError, KeyError) as e:
        message = e.args[0] if e.args else str(e)
        raise TypeError("Cannot interpret feed_dict key as Tensor: %s" % message) from None
    return [(tensor, value)]


def _feed_value(tensor, value, graph):
    if isinstance(value, ops.Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                        "values include Python scalars, strings, lists, numpy ndarrays, or "
                        "TensorHandles. For reference, the tensor object was %s which was "
                        "passed to the feed with key %s." % (value, tensor))
    if not graph.is_feedable(tensor):
        raise ValueError("Tensor %s may not be fed." % tensor.name)
    dtype = tensor.dtype.base_dtype
    if isinstance(value, numbers.Integral) and dtype.is_integer and not (
            dtype.min <= value <= dtype.max):
        raise TypeError("Type of feed value %r with type %s is not compatible with Tensor type "
                        "%s. Try explicitly setting the type of the feed tensor to a larger "
                        "type (e.g. int64)." % (value, type(value), dtype))
    array = _as_feed_array(value, dtype, tensor)
    if not tensor.shape.is_compatible_with(array.shape):
        raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                         % (array.shape, tensor.name, str(tensor.shape)))
    return array


def _as_feed_array(value, dtype, tensor):
    try:
        if dtype == dtypes.string:
            return to_numpy(value, dtypes.string)
        array = np.asarray(value)
        if array.dtype.kind in ("U", "S", "O") and dtype != dtypes.string:
            raise ValueError("could not convert string to %s" % dtype.name)
        return np.asarray(array, dtype=dtype.as_numpy_dtype)
    except (TypeError, ValueError) as e:
        raise ValueError("Cannot feed value %r to Tensor %r of dtype %s: %s"
                         % (value, tensor.name, dtype.name, e)) from None


def _unique_fetches(elements, feeds):
    """Tensor names to fetch and op names to run, each once, and where each element's value is.

    A source is None for an op (its result is None), the index of its value
    among the fetched ones, or, for a tensor that is also fed, its name: the
    fed value is returned as it is, without running anything.
    """
    fetch_names, target_names, sources, index_of = [], [], [], {}
    for element in elements:
        name = element.name
        if isinstance(element, ops.Operation):
            if name not in target_names:
                target_names.append(name)
            sources.append(None)
        elif name in feeds:
            sources.append(name)
        else:
            if name not in index_of:
                index_of[name] = len(fetch_names)
                fetch_names.append(name)
            sources.append(index_of[name])
    return fetch_names, target_names, sources


def _fetch_result(source, values, feeds):
    if source is None:
        return None
    if isinstance(source, str):
        return feeds[source]
    return _as_fetch_result(values[source])


def _as_fetch_result(value):
    """Fetched values come back as NumPy arrays, 0-d ones as NumPy scalars, as in TF."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value
