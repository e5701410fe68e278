"""No gradients through input pipelines: parsing, datasets, iterators and queues.

What flows out of an input pipeline is data, not a function of anything
trainable: backprop stops at these ops, on purpose, so they are declared
NotDifferentiable (a missing declaration would be a LookupError).

Mirrors the NotDifferentiable lines of `tensorflow/python/ops/parsing_ops.py`,
`data_flow_ops.py` and `python/data/ops/dataset_ops.py`.
"""

from minitf.autodiff.registry import NotDifferentiable

PARSING_OPS = ("ParseExample", "ParseSingleExample", "ParseSequenceExample", "DecodeRaw",
               "DecodeCompressed", "DecodeCSV", "SerializeTensor", "ParseTensor")

DATASET_OPS = ("TensorDataset", "TensorSliceDataset", "RangeDataset", "GeneratorDataset",
               "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDatasetV2", "ZipDataset",
               "ConcatenateDataset", "MapDataset", "ParallelMapDataset", "FilterDataset",
               "FlatMapDataset", "InterleaveDataset", "BatchDatasetV2", "PaddedBatchDatasetV2",
               "ShuffleDataset", "RepeatDataset", "TakeDataset", "SkipDataset",
               "PrefetchDataset", "CacheDataset", "UnbatchDataset")

ITERATOR_OPS = ("MakeIterator", "IteratorGetNext", "IteratorToStringHandle",
                "IteratorFromStringHandleV2", "PyFunc", "EagerPyFunc", "SerializeSparse", "DeserializeSparse")

READER_OPS = ("ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
              "ReaderNumWorkUnitsCompletedV2", "ReaderSerializeStateV2", "ReaderRestoreStateV2",
              "ReaderResetV2", "TFRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2",
              "FixedLengthRecordReaderV2", "IdentityReaderV2")

ACCUMULATOR_OPS = ("ResourceConditionalAccumulator", "SparseConditionalAccumulator",
                   "ResourceAccumulatorApplyGradient", "SparseAccumulatorApplyGradient",
                   "ResourceAccumulatorTakeGradient", "SparseAccumulatorTakeGradient",
                   "ResourceAccumulatorNumAccumulated", "AccumulatorNumAccumulated",
                   "ResourceAccumulatorSetGlobalStep", "AccumulatorSetGlobalStep")

QUEUE_OPS = ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
             "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2")

for _op_type in PARSING_OPS + DATASET_OPS + ITERATOR_OPS + QUEUE_OPS + READER_OPS + ACCUMULATOR_OPS:
    NotDifferentiable(_op_type)
del _op_type
