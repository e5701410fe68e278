"""`tf.io`, `tf.gfile` and `tf.python_io`: files, records and parsing under their namespaces.

Every name here is defined in a chapter package: the TFRecord writer and
reader and `gfile` in `minitf/data/`, the parsing ops and parse specs in
`minitf/ops/`, `write_graph` (a graph's GraphDef in TensorFlow's text
format, or as its message's bytes) in `minitf/saver/meta_graph.py`. TF 1.15 exports the file functions twice: snake_case under
`tf.io.gfile`, CamelCase under `tf.gfile`.

Mirrors the `tf.io`, `tf.gfile` and `tf.python_io` namespaces of TF 1.15.
"""

import types

from minitf.data import file_io as gfile  # noqa: F401
from minitf.data.tf_record import (TFRecordCompressionType, TFRecordOptions,  # noqa: F401
                                   TFRecordWriter, tf_record_iterator)
from minitf.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: F401
                                       SparseFeature, VarLenFeature)
from minitf.ops.parsing_ops import (decode_compressed, decode_csv, decode_raw,  # noqa: F401
                                    parse_example, parse_sequence_example,
                                    parse_single_example, parse_single_sequence_example,
                                    parse_tensor, serialize_tensor)
from minitf.saver.meta_graph import write_graph  # noqa: F401
from minitf.ops.parsing_ops import decode_json_example  # noqa: F401,E402
from minitf.ops.sparse_ops import (deserialize_many_sparse, serialize_many_sparse,  # noqa: F401,E402
                                   serialize_sparse)

# --- tf.io's names for the queues (`tf.queue`) and the base64 string ops (`tf.*`) ---
from minitf.ops.data_flow_ops import (PaddingFIFOQueue, PriorityQueue,  # noqa: F401,E402
                                      QueueBase, RandomShuffleQueue)
from minitf.ops.string_ops import decode_base64, encode_base64  # noqa: F401,E402
# --- whole files (minitf/data/file_ops.py); match_filenames_once is tf.train's too ---
from minitf.data.file_ops import matching_files, read_file, write_file  # noqa: F401,E402
from minitf.train.input import match_filenames_once  # noqa: F401,E402

gfile_v1 = types.SimpleNamespace(
    GFile=gfile.GFile, Open=gfile.GFile, FastGFile=gfile.GFile, Exists=gfile.exists,
    Glob=gfile.glob, MakeDirs=gfile.makedirs, MkDir=gfile.mkdir, ListDirectory=gfile.listdir,
    Remove=gfile.remove, Rename=gfile.rename, IsDirectory=gfile.isdir,
    DeleteRecursively=gfile.rmtree, Copy=gfile.copy, Walk=gfile.walk, Stat=gfile.stat)

python_io = types.SimpleNamespace(
    TFRecordWriter=TFRecordWriter, tf_record_iterator=tf_record_iterator,
    TFRecordOptions=TFRecordOptions, TFRecordCompressionType=TFRecordCompressionType)
