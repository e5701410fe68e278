"""The registry-coverage rule: no gradient goes unchecked, no op is forgotten.

1. Every op type with a registered gradient function has numeric cases in
   the `GRADIENT_CASES` dict of one of the gradient test modules (which
   compare tf.gradients with finite differences).
2. Every op type in the OpDef registry either has a gradient function, is
   declared NotDifferentiable, or is one that TF itself leaves without a
   gradient (listed below) — so LookupError only ever means "missing".

Op types starting with "Test" (ops the tests register) or "_" (internal
runtime ops such as _Send/_Recv) are left out, and so are the names
tf.custom_gradient generates ("CustomGradient-<n>").
"""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

from minitf.autodiff import registry

_HERE = pathlib.Path(__file__).resolve().parent
CASE_MODULES = ["test_math_grad.py", "test_array_grad.py", "test_nn_grad.py",
                "test_gradients_impl.py", "test_sparse_grad.py",
                "../control_flow/test_control_flow_grad.py"]

# Op types that TF registers no gradient for at all (neither a function nor
# NotDifferentiable), as its gradient registry shows: backprop through them
# is a LookupError in TF too.
_TF_LEAVES_WITHOUT_GRADIENT = {
    "Unique", "UniqueWithCounts", "ListDiff", "LowerBound", "UpperBound", "BroadcastArgs",
    "ParallelConcat", "UnravelIndex", "Bitcast", "GuaranteeConst", "Fingerprint",
    "ScatterMax", "ScatterMin", "RandomPoissonV2",
    "SoftsignGrad", "InTopKV2", "LRNGrad", "MaxPoolGradWithArgmax",
    "Dilation2DBackpropInput", "Dilation2DBackpropFilter",
    # The samplers' outputs go through stop_gradient in the sampled losses.
    "UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
    "FixedUnigramCandidateSampler", "AllCandidateSampler", "ComputeAccidentalHits",
    "IsFinite", "IsInf", "IsNan", "TruncateMod", "Bincount", "HistogramFixedWidth",
    "Fact", "SerializeManySparse", "DeserializeManySparse", "DecodeJSONExample",
    "Lu", "MatrixLogarithm",
    "FractionalMaxPoolGrad", "FractionalAvgPoolGrad",
}
# The training ops (ApplyGradientDescent, SparseApplyAdam, ...) update variables
# in place; TF registers no gradient for any of them.
_TRAINING_OP_PREFIXES = ("Apply", "SparseApply", "ResourceApply", "ResourceSparseApply")


def _ignored(op_type):
    return op_type.startswith(("Test", "_", "CustomGradient"))


def _load_case_module(file_name):
    """The module at tests/autodiff/<file_name>, reusing it if pytest imported it already.

    Re-running a test module would register its test ops a second time.
    """
    path = _HERE / file_name
    assert path.exists(), "%s is missing: it must define GRADIENT_CASES" % path
    for module in list(sys.modules.values()):
        module_file = getattr(module, "__file__", None)
        if module_file and pathlib.Path(module_file).resolve() == path:
            return module
    spec = importlib.util.spec_from_file_location("gradient_cases_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _op_types_with_cases():
    covered = {}
    for file_name in CASE_MODULES:
        module = _load_case_module(file_name)
        cases = getattr(module, "GRADIENT_CASES", None)
        assert isinstance(cases, dict), "%s defines no GRADIENT_CASES dict" % file_name
        for op_type, op_cases in cases.items():
            if op_cases:
                covered.setdefault(op_type, []).append(file_name)
    return covered


# Gradient functions that raise by design, as TensorFlow's do: nothing to check
# numerically (tests/autodiff/test_sparse_grad.py checks that they raise).
_GRADIENTS_THAT_REFUSE = {"PreventGradient", "SparseSparseMaximum", "SparseSparseMinimum",
                          "SparseDenseCwiseAdd"}


def test_every_registered_gradient_has_numeric_cases():
    covered = _op_types_with_cases()
    missing = sorted(op_type for op_type in _minitf_gradients()
                     if not _ignored(op_type) and op_type not in covered
                     and op_type not in _GRADIENTS_THAT_REFUSE)
    assert not missing, ("Op types with a gradient function but no GRADIENT_CASES: %s"
                         % ", ".join(missing))


_LIST_MINITF_OPS = """
import json
import minitf
from minitf.autodiff import registry
from minitf.framework import op_def
print(json.dumps({"ops": {name: {"inputs": len(d.input_args),
                                  "registered": registry.is_registered(name)}
                           for name, d in op_def.registered_ops().items()},
                  "gradients": sorted(registry.registered_gradients())}))
"""


def _read_fresh_registries():
    """The op and gradient registries of a fresh `import minitf`.

    Read in a new interpreter: in this one, other chapters' tests have
    registered ops of their own (test ops, op libraries they loaded).
    """
    env = dict(os.environ, PYTHONPATH=str(_HERE.parent.parent))
    done = subprocess.run([sys.executable, "-c", _LIST_MINITF_OPS], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    return json.loads(done.stdout)


def _minitf_gradients():
    return _read_fresh_registries()["gradients"]


def _minitf_op_types():
    """{op type: (has inputs, in the gradient registry)} for the ops `import minitf` registers."""
    return {name: (info["inputs"] > 0, info["registered"])
            for name, info in _read_fresh_registries()["ops"].items()}


def test_every_op_type_is_differentiable_or_declared_not():
    unaccounted = []
    for op_type, (has_inputs, in_registry) in sorted(_minitf_op_types().items()):
        if _ignored(op_type) or in_registry:
            continue
        if not has_inputs:
            continue  # nothing to send a gradient to: never looked up
        if op_type in _TF_LEAVES_WITHOUT_GRADIENT or op_type.startswith(_TRAINING_OP_PREFIXES):
            continue
        unaccounted.append(op_type)
    assert not unaccounted, ("Op types with neither a gradient function nor NotDifferentiable: "
                             "%s" % ", ".join(unaccounted))


def test_the_rule_itself_catches_an_uncovered_gradient():
    # A gradient registered under a normal name with no cases would be reported.
    covered = _op_types_with_cases()
    assert "IdentityN" in covered
    assert "SomeOpNobodyChecks" not in covered
    assert not _ignored("SomeOpNobodyChecks")
    assert _ignored("TestSquare") and _ignored("CustomGradient-3") and _ignored("_Send")
