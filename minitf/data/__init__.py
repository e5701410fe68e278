"""The Input pipelines chapter: `tf.data`, TFRecord files, Examples, and the files under them.

This package is `tf.data`. Its modules follow the way data flows in:

* `file_io.py`: `tf.io.gfile`, files and directories with TensorFlow's errors;
* `tf_record.py`: `tf.io.TFRecordWriter` and `tf_record_iterator` (the format
  itself is `minitf/framework/record_io.py`);
* `structure.py`: an element's nested structure, flattened for the ops, and
  the tracing of a user's function into a FunctionDef;
* `dataset_ops.py`: `tf.data.Dataset`, one op per transformation;
* `readers.py`: `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`;
* `iterator_ops.py`: `tf.data.Iterator` and the ways to make one;
* `options.py`: `tf.data.Options`, kept by a dataset (`with_options`);
* `experimental.py`: `tf.data.experimental`.

The parsing ops (`tf.io.parse_example`) are in `minitf/ops/parsing_ops.py`, the
queues of the older pipeline in `minitf/ops/data_flow_ops.py`, and the
kernels under `minitf/kernels/data/`.

Mirrors `tensorflow/python/data/` and `tensorflow/python/lib/io/`.
"""

from minitf.data import experimental  # noqa: F401
from minitf.data.dataset_ops import (AUTOTUNE, INFINITE_CARDINALITY,  # noqa: F401
                                     UNKNOWN_CARDINALITY, Dataset)
from minitf.data.iterator_ops import (Iterator, get_output_classes,  # noqa: F401
                                      get_output_shapes, get_output_types,
                                      make_initializable_iterator, make_one_shot_iterator)
from minitf.data.options import Options, ThreadingOptions  # noqa: F401
from minitf.data.readers import (FixedLengthRecordDataset, TextLineDataset,  # noqa: F401
                                 TFRecordDataset)
