"""Compares minitf's gradient registry with TensorFlow's, op type by op type.

For every op type minitf registers, it asks both registries what backprop
through that op does: a gradient function, NotDifferentiable (None), or
nothing registered at all. It prints the op types where one registry has a
gradient function and the other has not, with TensorFlow's function's first
lines, so that each difference can be read: TensorFlow's function may only
return None for every input (ArgMax), or raise NotImplementedError (the
sparse extremes), which minitf then does too. Run it by hand, with
minitf's Python and the reference TensorFlow's:

    python scripts/compare_gradient_registry.py --tensorflow /path/to/python-with-tensorflow

It needs TensorFlow, which minitf and its tests never do.
"""

import argparse
import json
import subprocess
import sys

_TENSORFLOW_REGISTRY = """
import inspect, json, sys
import tensorflow.compat.v1 as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops import (array_grad, control_flow_grad, data_flow_grad,  # noqa
    linalg_grad, math_grad, nn_grad, sparse_grad, tensor_array_grad)
registry = ops._gradient_registry._registry
answer = {}
for op_type in json.load(sys.stdin):
    entry = registry.get(op_type)
    if entry is None:
        answer[op_type] = ["absent", ""]
    elif entry["type"] is None:
        answer[op_type] = ["none", ""]
    else:
        lines = inspect.getsource(entry["type"]).splitlines()[1:5]
        answer[op_type] = ["fn", " / ".join(line.strip() for line in lines)]
print(json.dumps(answer))
"""


def minitf_registry():
    """{op type: "fn", "none" or "absent"} for every op type minitf registers."""
    import minitf  # noqa: F401, PLC0415 - registers every op and gradient
    from minitf.autodiff import registry  # noqa: PLC0415
    from minitf.framework import op_def  # noqa: PLC0415
    gradients = registry.registered_gradients()
    declared = {op_type for op_type in op_def.registered_ops() if registry.is_registered(op_type)}
    return {op_type: ("fn" if op_type in gradients else "none" if op_type in declared
                      else "absent") for op_type in op_def.registered_ops()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensorflow", required=True, metavar="PYTHON",
                        help="an interpreter with TensorFlow installed")
    args = parser.parse_args()
    ours = minitf_registry()
    done = subprocess.run([args.tensorflow, "-c", _TENSORFLOW_REGISTRY],
                          input=json.dumps(sorted(ours)), capture_output=True, text=True,
                          check=True)
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    differences = [(op_type, ours[op_type], theirs[op_type])
                   for op_type in sorted(ours) if not op_type.startswith("_")
                   and (ours[op_type] == "fn") != (theirs[op_type][0] == "fn")]
    for op_type, mine, (kind, source) in differences:
        print("%-28s minitf: %-6s TensorFlow: %-6s %s" % (op_type, mine, kind, source))
    print("%d of %d op types differ" % (len(differences), len(ours)))


if __name__ == "__main__":
    sys.exit(main())
