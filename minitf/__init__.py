"""minitf: TensorFlow 1.x rebuilt in Python and NumPy, to be read.

This file only assembles the public `tf.*` namespace; every name is defined
in a chapter package. A name of TF 1.15 that minitf does not have yet fails
with an AttributeError that says so (`__getattr__` below; the namespaces
tf.nn, tf.math, tf.train and tf.test end the same way).
"""

# The runtime comes first: importing it loads the package `minitf.device`,
# which must happen before `tf.device` (the function) is bound below.
from minitf.session import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                            InteractiveSession, OptimizerOptions, RunMetadata, RunOptions,
                            Session)
from minitf.autodiff import (AggregationMethod, NotDifferentiable, RegisterGradient,  # noqa: F401
                             UnconnectedGradients, custom_gradient, gradients, hessians,
                             no_gradient)
from minitf.graph import dtypes as _dtypes
from minitf.graph import errors  # noqa: F401
from minitf.graph import tf1_api as _tf1_api
from minitf.graph.constant_op import constant  # noqa: F401
from minitf.graph.dtypes import (DType, as_dtype, bool, double, float16, float32,  # noqa: F401,A004
                                 float32_ref, float64, float64_ref, half, int8, int16, int32,
                                 int32_ref, int64, int64_ref, resource, string, uint8, uint16,
                                 uint32, uint64, variant)
from minitf.graph.device_spec import DeviceSpec  # noqa: F401
from minitf.graph import graph_util  # noqa: F401
from minitf.graph.graph_def import GraphDef, NodeDef  # noqa: F401
from minitf.graph.importer import import_graph_def  # noqa: F401
from minitf.graph.ops import (Graph, GraphKeys, Operation, Tensor, add_to_collection,  # noqa: F401
                              add_to_collections, colocate_with, container,
                              control_dependencies, device, get_collection,
                              get_collection_ref, get_default_graph, get_default_session,
                              name_scope, reset_default_graph)
from minitf.graph.random_seed import get_seed, set_random_seed  # noqa: F401
from minitf.graph.sparse_tensor import (IndexedSlices, SparseTensor,  # noqa: F401
                                        SparseTensorValue, convert_to_tensor_or_sparse_tensor)
from minitf.graph.tensor_proto import make_ndarray, make_tensor_proto  # noqa: F401
from minitf.graph.tensor_conversion import (convert_to_tensor,  # noqa: F401
                                            convert_to_tensor_or_indexed_slices,
                                            register_tensor_conversion_function)
from minitf.graph.tensor_shape import (Dimension, TensorShape, dimension_at_index,  # noqa: F401
                                       dimension_value)
from minitf.graph.versions import GIT_VERSION, VERSION, __version__  # noqa: F401
from minitf.graph.versions import MINITF_VERSION as __minitf_version__  # noqa: F401
from minitf.kernels.load_library import load_op_library  # noqa: F401
from minitf.ops.array_ops import *  # noqa: F401,F403
from minitf.ops.check_ops import *  # noqa: F401,F403
from minitf.ops.clip_ops import *  # noqa: F401,F403
from minitf.ops.confusion_matrix import *  # noqa: F401,F403
from minitf.ops.control_flow_ops import *  # noqa: F401,F403
from minitf.ops.data_flow_ops import *  # noqa: F401,F403
from minitf.ops.embedding_ops import *  # noqa: F401,F403
from minitf.ops.functional_ops import *  # noqa: F401,F403
from minitf.ops.init_ops import *  # noqa: F401,F403
from minitf.ops.lookup_ops import *  # noqa: F401,F403
from minitf.ops.logging_ops import *  # noqa: F401,F403
from minitf.ops.logging_ops import print_v2 as print  # noqa: F401,A004 - TF's public name
from minitf.ops.math_ops import *  # noqa: F401,F403
from minitf.ops.nn_ops import *  # noqa: F401,F403
from minitf.ops.parsing_ops import *  # noqa: F401,F403
from minitf.ops.random_ops import *  # noqa: F401,F403
from minitf.ops.script_ops import *  # noqa: F401,F403
from minitf.ops.sparse_ops import *  # noqa: F401,F403
from minitf.ops.state_ops import *  # noqa: F401,F403
from minitf.ops.string_ops import *  # noqa: F401,F403
from minitf.ops.tensor_array_ops import *  # noqa: F401,F403
from minitf.ops.variable_scope import *  # noqa: F401,F403
from minitf.ops.variables import *  # noqa: F401,F403
from minitf import data  # noqa: F401,E402
from minitf.distributed import distribute  # noqa: F401,E402  tf.distribute.Server
from minitf import feature_column  # noqa: F401,E402
from minitf.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: F401,E402
                                       SparseFeature, VarLenFeature)
from minitf import io  # noqa: F401,E402
from minitf.io import gfile_v1 as gfile  # noqa: F401,E402
from minitf.io import python_io  # noqa: F401,E402
from minitf import layers  # noqa: F401,E402
from minitf import math  # noqa: F401,E402
from minitf import metrics  # noqa: F401,E402
from minitf import nn  # noqa: F401,E402
from minitf import profiler  # noqa: F401,E402
from minitf import queue  # noqa: F401,E402
from minitf import summary  # noqa: F401,E402
from minitf import test  # noqa: F401,E402
from minitf import train  # noqa: F401,E402

# --- Array ops and string ops (tf.* and tf.strings) ----------------------------------
from minitf.ops.array_ops import (batch_gather, batch_to_space,  # noqa: F401,E402
                                  batch_to_space_nd, bitcast, broadcast_dynamic_shape,
                                  broadcast_static_shape, broadcast_to, depth_to_space,
                                  dynamic_partition, dynamic_stitch, edit_distance,
                                  extract_image_patches, extract_volume_patches, fingerprint,
                                  guarantee_const, meshgrid, parallel_stack, repeat,
                                  required_space_to_batch_paddings, reverse_sequence, roll,
                                  searchsorted, sequence_mask, setdiff1d, space_to_batch,
                                  space_to_batch_nd, space_to_depth, tensor_scatter_add,
                                  tensor_scatter_nd_add, tensor_scatter_nd_max,
                                  tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                  tensor_scatter_nd_update, tensor_scatter_sub,
                                  tensor_scatter_update, unique_with_counts, unravel_index,
                                  where_v2)
from minitf.ops.string_ops import (decode_base64, encode_base64, reduce_join,  # noqa: F401,E402
                                   regex_replace, string_join, string_split, string_strip,
                                   string_to_hash_bucket, string_to_number, substr)
from minitf.ops.array_ops import ensure_shape, sparse_mask  # noqa: F401,E402
from minitf.ops.state_ops import (batch_scatter_update, scatter_div,  # noqa: F401,E402
                                  scatter_max, scatter_min, scatter_mul, scatter_nd_add,
                                  scatter_nd_sub, scatter_nd_update)
from minitf import manip  # noqa: F401,E402
from minitf import strings  # noqa: F401,E402
# --- The program around the graph: tf.compat (and tf.compat.v1), the TF1/TF2 switches,
# tf.config, tf.app, tf.logging ---
from minitf import compat, config  # noqa: F401,E402
compat._tf_namespace = globals()  # the names tf.compat.v1 repeats (minitf/compat/v1.py)
from minitf.compat.v2_compat import *  # noqa: F401,F403,E402
from minitf.platform import app  # noqa: F401,E402
from minitf.platform import tf_logging as logging  # noqa: F401,E402
from minitf.platform.tf_logging import get_logger  # noqa: F401,E402
# --- tf.dtypes, tf.initializers and tf.random: other chapters' names, gathered ---
from minitf import dtypes, initializers, random  # noqa: F401,E402
# --- tf.debugging: the asserts (check_ops, above) and the numerics checks ---
from minitf import debugging  # noqa: F401,E402
from minitf.ops.numerics import *  # noqa: F401,F403,E402
# --- tf.TensorSpec: what a tensor must be ---
from minitf.graph.tensor_spec import TensorSpec  # noqa: F401,E402
# tf.losses (the nn family)
from minitf import losses  # noqa: F401,E402
# --- math and linear algebra: tf.math, tf.linalg and their tf.* names ----------------
from minitf.graph.dtypes import complex64, complex128  # noqa: F401,E402
from minitf.ops.math_ops import (  # noqa: F401,E402,A004
    acos, acosh, angle, arg_max, arg_min, asin, asinh, atan, atan2, atanh, complex, conj, cosh,
    expm1, floor_div, imag, is_finite, is_inf, is_nan, real, rint, sinh, tan, to_complex64,
    to_complex128, truncatediv, truncatemod)
from minitf.ops.math_ops import (accumulate_n, bincount, is_non_decreasing,  # noqa: F401,E402
                                 is_strictly_increasing, lin_space, linspace, reduce_logsumexp,
                                 unsorted_segment_mean, unsorted_segment_sqrt_n)
from minitf.ops.math_ops import (betainc, digamma, erf, erfc, lbeta, lgamma,  # noqa: F401,E402
                                 polygamma, zeta)
from minitf import linalg  # noqa: F401,E402
from minitf.ops.linalg_ops import (cholesky, cholesky_solve, cross, eye, norm,  # noqa: F401,E402
                                   matrix_transpose, qr, trace)
from minitf.ops.linalg_ops import eigh as self_adjoint_eig  # noqa: F401,E402
from minitf.ops.linalg_ops import eigvalsh as self_adjoint_eigvals  # noqa: F401,E402
from minitf.ops.linalg_ops import band_part as matrix_band_part  # noqa: F401,E402
from minitf.ops.linalg_ops import det as matrix_determinant  # noqa: F401,E402
from minitf.ops.linalg_ops import diag as matrix_diag  # noqa: F401,E402
from minitf.ops.linalg_ops import diag_part as matrix_diag_part  # noqa: F401,E402
from minitf.ops.linalg_ops import inv as matrix_inverse  # noqa: F401,E402
from minitf.ops.linalg_ops import set_diag as matrix_set_diag  # noqa: F401,E402
from minitf.ops.linalg_ops import solve as matrix_solve  # noqa: F401,E402
from minitf.ops.linalg_ops import triangular_solve as matrix_triangular_solve  # noqa: F401,E402
# --- linear algebra: decompositions, least squares, contractions (tf.* names) ---
from minitf.ops.linalg_ops import einsum, svd, tensordot  # noqa: F401,E402
from minitf.ops.linalg_ops import lstsq as matrix_solve_ls  # noqa: F401,E402
from minitf.ops.linalg_ops import sqrtm as matrix_square_root  # noqa: F401,E402
# --- tf.sparse: the SparseTensor ops under their TF 2 names ---
from minitf import sparse  # noqa: F401,E402
# --- files, records and input (tf.io, tf.train, tf.data): their tf.* names ---------
from minitf.data.file_ops import matching_files, read_file, write_file  # noqa: F401,E402

# --- The rest of tf.*: sorting, histograms, partitioners, templates, gradients' helpers,
# bitwise ops, tf.nest, versions and build info, resource files, proto classes ---
from minitf import bitwise, lookup, nest, raw_ops, user_ops, version  # noqa: F401,E402
from minitf.autodiff.custom_gradient import grad_pass_through, recompute_grad  # noqa: F401,E402
from minitf.autodiff.registry import NotDifferentiable as NoGradient  # noqa: F401,E402
from minitf.graph.dtypes import QUANTIZED_DTYPES  # noqa: F401,E402
from minitf.graph.errors import OpError  # noqa: F401,E402
from minitf.graph.ops import init_scope, op_scope  # noqa: F401,E402
from minitf.graph.tensor_util import (get_static_value, is_symbolic_tensor,  # noqa: F401,E402
                                      is_tensor)
from minitf.graph.versions import (COMPILER_VERSION, CXX11_ABI_FLAG, CXX_VERSION,  # noqa: F401,E402
                                   GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,
                                   GRAPH_DEF_VERSION_MIN_PRODUCER, MONOLITHIC_BUILD)
from minitf.kernels.load_library import load_file_system_library, load_library  # noqa: F401,E402
from minitf.ops.data_flow_ops import (ConditionalAccumulator,  # noqa: F401,E402
                                      ConditionalAccumulatorBase, SparseConditionalAccumulator)
from minitf.ops.histogram_ops import (histogram_fixed_width,  # noqa: F401,E402
                                      histogram_fixed_width_bins)
from minitf.ops.init_ops import orthogonal_initializer  # noqa: F401,E402
from minitf.data.queue_readers import (FixedLengthRecordReader, IdentityReader,  # noqa: F401,E402
                                      ReaderBase, TextLineReader, TFRecordReader,
                                      WholeFileReader)
from minitf.ops.logging_ops import timestamp  # noqa: F401,E402
from minitf.ops.math_ops import igamma, igammac, saturate_cast, sparse_matmul  # noqa: F401,E402
from minitf.ops.partitioned_variables import (  # noqa: F401,E402
    create_partitioned_variables, fixed_size_partitioner, min_max_variable_partitioner,
    variable_axis_size_partitioner)
from minitf.ops.random_ops import random_crop  # noqa: F401,E402
from minitf.ops.script_ops import numpy_function, py_function  # noqa: F401,E402
from minitf.ops.parsing_ops import decode_json_example  # noqa: F401,E402
from minitf.ops.sort_ops import argsort, sort  # noqa: F401,E402
from minitf.ops.sparse_ops import (deserialize_many_sparse, serialize_many_sparse,  # noqa: F401,E402
                                   serialize_sparse)
from minitf.ops.template import make_template  # noqa: F401,E402
from minitf.ops.variables import assert_variables_initialized  # noqa: F401,E402
from minitf.platform import resource_loader, sysconfig  # noqa: F401,E402

# tf.AttrValue, tf.MetaGraphDef, ...: graph and meta graph messages, loaded (with protobuf)
# when first asked for, as the summary messages below.
_GRAPH_PROTOS = {"AttrValue": "attr_value_pb2", "NameAttrList": "attr_value_pb2",
                 "MetaGraphDef": "meta_graph_pb2", "TensorInfo": "meta_graph_pb2"}

del _dtypes


# tf.Summary, tf.Event, ...: the summary and event messages, loaded (with protobuf) when used.
_SUMMARY_PROTOS = ("Summary", "SummaryMetadata", "HistogramProto", "Event", "SessionLog",
                   "LogMessage")


def __getattr__(name):
    """Called for a name minitf lacks: says so when it is one of TF 1.15's."""
    if name in _SUMMARY_PROTOS:
        return summary.proto_class(name)
    if name in _GRAPH_PROTOS:
        import importlib  # noqa: PLC0415 - protobuf, loaded only when used
        return getattr(importlib.import_module("minitf.proto." + _GRAPH_PROTOS[name]), name)
    raise _tf1_api.missing_name_error("tf", __name__, name)
