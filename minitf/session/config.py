"""ConfigProto, RunOptions and RunMetadata: how a session is set up and observed.

`ConfigProto` configures a session: how many devices of each type
(`device_count={'CPU': 2}`), the inter-op thread pool size, soft placement
and placement logging. `RunOptions` asks one `run` for more (a full trace,
the partition graphs) and `RunMetadata` brings it back.

Mirrors `tensorflow/core/protobuf/config.proto`.
"""

from minitf.executor.step_stats import StepStats


class GPUOptions:
    def __init__(self, allow_growth=False, per_process_gpu_memory_fraction=0.0,
                 visible_device_list=""):
        self.allow_growth = allow_growth
        self.per_process_gpu_memory_fraction = per_process_gpu_memory_fraction
        self.visible_device_list = visible_device_list


class OptimizerOptions:
    L1 = 0
    L0 = -1

    def __init__(self, opt_level=0, do_common_subexpression_elimination=False,
                 do_constant_folding=False):
        self.opt_level = opt_level
        self.do_common_subexpression_elimination = do_common_subexpression_elimination
        self.do_constant_folding = do_constant_folding


class GraphOptions:
    def __init__(self, optimizer_options=None, build_cost_model=0):
        self.optimizer_options = optimizer_options or OptimizerOptions()
        self.build_cost_model = build_cost_model


class RPCOptions:
    """How a session reaches its master: through gRPC even when it runs in this process."""

    def __init__(self, use_rpc_for_inprocess_master=False):
        self.use_rpc_for_inprocess_master = use_rpc_for_inprocess_master


class ConfigProto:
    """Session configuration, with TF's field names and defaults.

    `device_count={"CPU": 4}` gives the session CPU:0..3 (GPUs can only be
    hidden: `{"GPU": 0}`). `inter_op_parallelism_threads=0` means one thread
    per core. `intra_op_parallelism_threads > 0` limits NumPy's BLAS to that
    many threads when the optional `threadpoolctl` package is installed;
    without it the value is only recorded. `device_filters` and
    `rpc_options` concern distributed sessions (minitf/distributed/): the
    tasks a session uses, and how it reaches its master.
    `experimental.executor_type` names the executor that runs the
    partitions: "" (let each executor choose), "DEFAULT" (the same) or
    "SINGLE_THREADED_EXECUTOR" (the flat loop of
    minitf/executor/single_threaded_executor.py, for graphs without control
    flow).
    """

    class Experimental:
        """ConfigProto.Experimental: of its fields, minitf reads `executor_type`."""

        def __init__(self, executor_type=""):
            self.executor_type = executor_type

    def __init__(self, device_count=None, inter_op_parallelism_threads=0,
                 intra_op_parallelism_threads=0, allow_soft_placement=False,
                 log_device_placement=False, gpu_options=None, graph_options=None,
                 operation_timeout_in_ms=0, use_per_session_threads=False,
                 isolate_session_state=False, device_filters=None, rpc_options=None,
                 experimental=None):
        self.device_count = dict(device_count or {})
        self.inter_op_parallelism_threads = inter_op_parallelism_threads
        self.intra_op_parallelism_threads = intra_op_parallelism_threads
        self.allow_soft_placement = allow_soft_placement
        self.log_device_placement = log_device_placement
        self.gpu_options = gpu_options or GPUOptions()
        self.graph_options = graph_options or GraphOptions()
        self.operation_timeout_in_ms = operation_timeout_in_ms
        self.use_per_session_threads = use_per_session_threads
        self.isolate_session_state = isolate_session_state
        self.device_filters = list(device_filters or [])
        self.rpc_options = rpc_options or RPCOptions()
        self.experimental = experimental or ConfigProto.Experimental()


class RunOptions:
    """Per-run options: tracing, a timeout and whether to return partition graphs."""

    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    def __init__(self, trace_level=NO_TRACE, timeout_in_ms=0, output_partition_graphs=False,
                 inter_op_thread_pool=0, report_tensor_allocations_upon_oom=False):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms
        self.output_partition_graphs = output_partition_graphs
        self.inter_op_thread_pool = inter_op_thread_pool
        self.report_tensor_allocations_upon_oom = report_tensor_allocations_upon_oom


class RunMetadata:
    """What a run reports back: step stats and partition graphs."""

    def __init__(self):
        self.step_stats = StepStats()
        self.partition_graphs = []
        self.cost_graph = None

    def Clear(self):  # noqa: N802 - the protobuf method name
        self.__init__()
