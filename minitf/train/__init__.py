"""The Optimizers chapter (`tf.train`): Optimizer, slots, each optimizer, schedules.

Mirrors `tensorflow/python/training/`.

A name of TF 1.15's `tf.train` that minitf lacks fails saying so
(`minitf/graph/tf1_api.py`).
"""

import types as _types

from minitf.distributed.server_lib import *  # noqa: F401,F403
from minitf.graph import tf1_api as _tf1_api
from minitf.saver import *  # noqa: F401,F403
from minitf.train.adadelta import *  # noqa: F401,F403
from minitf.train.adagrad import *  # noqa: F401,F403
from minitf.train.adam import *  # noqa: F401,F403
from minitf.train.basic_session_run_hooks import *  # noqa: F401,F403
from minitf.train.coordinator import *  # noqa: F401,F403
from minitf.train.device_setter import *  # noqa: F401,F403
from minitf.train.ftrl import *  # noqa: F401,F403
from minitf.train.gradient_descent import *  # noqa: F401,F403
from minitf.train.input import *  # noqa: F401,F403
from minitf.train.learning_rate_decay import *  # noqa: F401,F403
from minitf.train.momentum import *  # noqa: F401,F403
from minitf.train.monitored_session import *  # noqa: F401,F403
from minitf.train.moving_averages import *  # noqa: F401,F403
from minitf.train.optimizer import *  # noqa: F401,F403
from minitf.train.queue_runner_impl import *  # noqa: F401,F403
from minitf.train.rmsprop import *  # noqa: F401,F403
from minitf.train.session_manager import *  # noqa: F401,F403
from minitf.train.session_run_hook import *  # noqa: F401,F403
from minitf.train.training_util import *  # noqa: F401,F403
from minitf.summary.summary_iterator import summary_iterator  # noqa: F401
from minitf.train import queue_runner_impl as _queue_runner_impl

# tf.train.queue_runner: the queue runners again, under the module TF 1.15 names them in.
queue_runner = _types.SimpleNamespace(
    QueueRunner=_queue_runner_impl.QueueRunner,
    add_queue_runner=_queue_runner_impl.add_queue_runner,
    start_queue_runners=_queue_runner_impl.start_queue_runners)

# tf.train.Example and its parts are the classes generated from minitf/proto/example.proto;
# looking one up loads protobuf, which `import minitf` must not.
_EXAMPLE_CLASSES = {"Example": "example_pb2", "SequenceExample": "example_pb2",
                    "Features": "feature_pb2", "Feature": "feature_pb2",
                    "FeatureList": "feature_pb2", "FeatureLists": "feature_pb2",
                    "BytesList": "feature_pb2", "FloatList": "feature_pb2",
                    "Int64List": "feature_pb2",
                    # the cluster's messages (cluster.proto, tensorflow_server.proto)
                    "ClusterDef": "cluster_pb2", "JobDef": "cluster_pb2",
                    "ServerDef": "tensorflow_server_pb2"}


def __getattr__(name):
    if name in _EXAMPLE_CLASSES:
        import importlib  # noqa: PLC0415 - protobuf, loaded only when used
        return getattr(importlib.import_module("minitf.proto." + _EXAMPLE_CLASSES[name]), name)
    raise _tf1_api.missing_name_error("tf.train", __name__, name)
