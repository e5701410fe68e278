"""The OpDefs of tf.data: dataset ops, iterator ops, and the ops functions and elements need.

A *dataset op* outputs a scalar `variant`: the dataset its kernel made.
Every dataset op names the dtypes and static shapes of its elements'
components (`output_types`, `output_shapes`), flat, one per component.
Ops that call a function (`MapDataset`, `FilterDataset`, ...) hold it as
a `func` attr (a FunctionDef) and take the tensors it captured as
`other_arguments`.

An *iterator op* outputs a scalar `resource`: the handle of an iterator
in its device's resource manager. `MakeIterator` points an iterator at a
dataset; `IteratorGetNext` gives the next element.

Every dataset and iterator op is stateful here: TensorFlow 1.15 marks its
source datasets stateful to keep constant folding away from them, and
minitf's folding would otherwise compute a dataset once, at optimization
time. `PyFunc` calls a Python function (from_generator's elements);
`SerializeSparse` and `DeserializeSparse` carry a SparseTensor inside a
`variant`, as a component of a dataset's element (or, with
`SerializeManySparse` and `DeserializeManySparse`, as TensorFlow's strings:
`tf.io.serialize_sparse` and friends).

The constructors are in `minitf/data/dataset_ops.py` and
`minitf/data/iterator_ops.py`; the kernels in `minitf/kernels/data/`.

Mirrors `tensorflow/core/ops/dataset_ops.cc`, `experimental_dataset_ops.cc`,
`script_ops.cc` and the sparse serialization ops of `sparse_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import with_rank
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape

_OUTPUT_ATTRS = ("output_types: list(type) >= 1", "output_shapes: list(shape) >= 1")


def _scalar_input_shape(*indices):
    """A shape function: the inputs at `indices` are scalars; the output is a scalar."""
    def shape_fn(op):
        for i in indices:
            with_rank(op.inputs[i].shape, 0)
        return [tensor_shape.scalar()]
    return shape_fn


def _dataset(name, inputs=(), attrs=(), with_output_attrs=True, shape_fn=None):
    builder = register_op(name)
    for spec in inputs:
        builder.input(spec)
    builder.output("handle: variant")
    for spec in attrs:
        builder.attr(spec)
    if with_output_attrs:
        for spec in _OUTPUT_ATTRS:
            builder.attr(spec)
    builder.set_is_stateful().set_shape_fn(shape_fn or common_shapes.scalar_shape)


_FUNCTION_ARGS = ("other_arguments: Targuments",)
_FUNCTION_ATTRS = ("Targuments: list(type) >= 0",)

# --- sources -------------------------------------------------------------------------------
_dataset("TensorDataset", ["components: Toutput_types"],
         ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
         with_output_attrs=False)
_dataset("TensorSliceDataset", ["components: Toutput_types"],
         ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
         with_output_attrs=False)
_dataset("RangeDataset", ["start: int64", "stop: int64", "step: int64"],
         shape_fn=_scalar_input_shape(0, 1, 2))
_dataset("GeneratorDataset", ["init_func_other_args: Tinit_func_args",
                              "next_func_other_args: Tnext_func_args",
                              "finalize_func_other_args: Tfinalize_func_args"],
         ["init_func: func", "next_func: func", "finalize_func: func",
          "Tinit_func_args: list(type) >= 0", "Tnext_func_args: list(type) >= 0",
          "Tfinalize_func_args: list(type) >= 0"])
_dataset("TFRecordDataset", ["filenames: string", "compression_type: string",
                             "buffer_size: int64"], with_output_attrs=False,
         shape_fn=_scalar_input_shape(1, 2))
_dataset("TextLineDataset", ["filenames: string", "compression_type: string",
                             "buffer_size: int64"], with_output_attrs=False,
         shape_fn=_scalar_input_shape(1, 2))
_dataset("FixedLengthRecordDatasetV2", ["filenames: string", "header_bytes: int64",
                                        "record_bytes: int64", "footer_bytes: int64",
                                        "buffer_size: int64", "compression_type: string"],
         with_output_attrs=False, shape_fn=_scalar_input_shape(1, 2, 3, 4, 5))

# --- transformations -----------------------------------------------------------------------
_dataset("ZipDataset", ["input_datasets: N * variant"], ["N: int >= 1"])
_dataset("ConcatenateDataset", ["input_dataset: variant", "another_dataset: variant"])
_dataset("MapDataset", ["input_dataset: variant"] + list(_FUNCTION_ARGS),
         ["f: func"] + list(_FUNCTION_ATTRS) + ["use_inter_op_parallelism: bool = true",
                                                "preserve_cardinality: bool = false"])
_dataset("ParallelMapDataset", ["input_dataset: variant"] + list(_FUNCTION_ARGS)
         + ["num_parallel_calls: int32"],
         ["f: func"] + list(_FUNCTION_ATTRS) + ["use_inter_op_parallelism: bool = true",
                                                "sloppy: bool = false",
                                                "preserve_cardinality: bool = false"])
_dataset("FilterDataset", ["input_dataset: variant"] + list(_FUNCTION_ARGS),
         ["predicate: func"] + list(_FUNCTION_ATTRS))
_dataset("FlatMapDataset", ["input_dataset: variant"] + list(_FUNCTION_ARGS),
         ["f: func"] + list(_FUNCTION_ATTRS))
_dataset("InterleaveDataset", ["input_dataset: variant"] + list(_FUNCTION_ARGS)
         + ["cycle_length: int64", "block_length: int64"],
         ["f: func"] + list(_FUNCTION_ATTRS))
_dataset("BatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                            "drop_remainder: bool"], ["parallel_copy: bool = false"],
         shape_fn=_scalar_input_shape(1, 2))
_dataset("PaddedBatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                                  "padded_shapes: N * int64", "padding_values: Toutput_types",
                                  "drop_remainder: bool"],
         ["parallel_copy: bool = false", "Toutput_types: list(type) >= 1",
          "output_shapes: list(shape) >= 1", "N: int >= 1"], with_output_attrs=False)
_dataset("ShuffleDataset", ["input_dataset: variant", "buffer_size: int64", "seed: int64",
                            "seed2: int64"], ["reshuffle_each_iteration: bool = true"],
         shape_fn=_scalar_input_shape(1, 2, 3))
_dataset("RepeatDataset", ["input_dataset: variant", "count: int64"],
         shape_fn=_scalar_input_shape(1))
_dataset("TakeDataset", ["input_dataset: variant", "count: int64"],
         shape_fn=_scalar_input_shape(1))
_dataset("SkipDataset", ["input_dataset: variant", "count: int64"],
         shape_fn=_scalar_input_shape(1))
_dataset("PrefetchDataset", ["input_dataset: variant", "buffer_size: int64"],
         ["slack_period: int = 0"], shape_fn=_scalar_input_shape(1))
_dataset("CacheDataset", ["input_dataset: variant", "filename: string"],
         shape_fn=_scalar_input_shape(1))
_dataset("UnbatchDataset", ["input_dataset: variant"])


# --- iterators -------------------------------------------------------------------------------

def _get_next_shape(op):
    return list(op.get_attr("output_shapes"))


register_op("IteratorV2").output("handle: resource").attr("shared_name: string").attr(
    "container: string").attr(_OUTPUT_ATTRS[0]).attr(_OUTPUT_ATTRS[1]).set_is_stateful(
    ).set_shape_fn(common_shapes.scalar_shape)

register_op("OneShotIterator").output("handle: resource").attr("dataset_factory: func").attr(
    _OUTPUT_ATTRS[0]).attr(_OUTPUT_ATTRS[1]).attr("container: string = ''").attr(
    "shared_name: string = ''").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)

register_op("MakeIterator").input("dataset: variant").input("iterator: resource").set_is_stateful(
    ).set_shape_fn(common_shapes.no_outputs)

register_op("IteratorGetNext").input("iterator: resource").output("components: output_types").attr(
    _OUTPUT_ATTRS[0]).attr(_OUTPUT_ATTRS[1]).set_is_stateful().set_shape_fn(_get_next_shape)

register_op("IteratorToStringHandle").input("resource_handle: resource").output(
    "string_handle: string").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)

register_op("IteratorFromStringHandleV2").input("string_handle: string").output(
    "resource_handle: resource").attr("output_types: list(type) >= 0 = []").attr(
    "output_shapes: list(shape) >= 0 = []").set_is_stateful().set_shape_fn(
    common_shapes.scalar_shape)

# --- functions and elements ----------------------------------------------------------------------

# EagerPyFunc is tf.py_function's: the same op, under the name TF gives it (script_ops.py).
for _op_type in ("PyFunc", "EagerPyFunc"):
    register_op(_op_type).input("input: Tin").output("output: Tout").attr("token: string").attr(
        "Tin: list(type) >= 0").attr("Tout: list(type) >= 0").set_is_stateful().set_shape_fn(
        common_shapes.unknown_shape)


def _serialize_sparse_shape(op):
    return [tensor_shape.TensorShape([3])]


def _deserialize_sparse_shape(op):
    return [tensor_shape.TensorShape([None, None]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([None])]


register_op("SerializeSparse").input("sparse_indices: int64").input("sparse_values: T").input(
    "sparse_shape: int64").output("serialized_sparse: out_type").attr("T: type").attr(
    "out_type: {string, variant} = string").set_shape_fn(_serialize_sparse_shape)

def _serialize_many_sparse_shape(op):
    return [tensor_shape.TensorShape([None, 3])]


def _deserialize_many_sparse_shape(op):
    """A matrix of serialized SparseTensors, three to a row."""
    shape = with_rank(op.inputs[0].shape, 2)
    if shape.dims[1].value not in (None, 3):
        raise ValueError("Dimension must be 3 but is %d for '%s' (op: 'DeserializeManySparse') "
                         "with input shapes: %s." % (shape.dims[1].value, op.name, shape))
    return _deserialize_sparse_shape(op)


register_op("SerializeManySparse").input("sparse_indices: int64").input(
    "sparse_values: T").input("sparse_shape: int64").output("serialized_sparse: out_type").attr(
    "T: type").attr("out_type: {string, variant} = string").set_shape_fn(
    _serialize_many_sparse_shape)

register_op("DeserializeManySparse").input("serialized_sparse: string").output(
    "sparse_indices: int64").output("sparse_values: dtype").output("sparse_shape: int64").attr(
    "dtype: type").set_shape_fn(_deserialize_many_sparse_shape)

register_op("DeserializeSparse").input("serialized_sparse: Tserialized").output(
    "sparse_indices: int64").output("sparse_values: dtype").output("sparse_shape: int64").attr(
    "dtype: type").attr("Tserialized: {string, variant} = string").set_shape_fn(
    _deserialize_sparse_shape)
