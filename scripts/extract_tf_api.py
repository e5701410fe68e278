"""Writes the public names of TensorFlow 1.15's API: minitf/graph/tf1_api_names.json.

minitf answers to TF 1.15's names. This list of them is what `import minitf`
compares a missing name against (`minitf/graph/tf1_api.py`: "part of
TensorFlow 1.15, not yet of minitf"), and what the course's coverage page
counts (docs/coverage.md). It is read off the reference TensorFlow, whose
`tensorflow.compat.v1` is TF 1.15's API as TF 2.x keeps it, module by
module: every public name (no leading underscore) of `tf` and of each
module below. Run it by hand with the reference TensorFlow, and commit the
result:

    /work/tfref/bin/python scripts/extract_tf_api.py

It needs TensorFlow, which minitf and its tests never do.
"""

import json
import pathlib
import sys

import tensorflow

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "minitf" / "graph" / "tf1_api_names.json"

# The modules whose names are recorded, beside `tf` itself: those a TF1
# program reaches for (the API issue's list).
MODULES = ["app", "compat", "config", "data", "debugging", "dtypes", "errors",
           "feature_column", "gfile", "initializers", "io", "layers", "linalg", "logging",
           "losses", "math", "metrics", "nn", "profiler", "python_io", "random", "sparse",
           "strings", "summary", "test", "train"]

# TF 2.x builds tf.compat.v1.layers from the separate tf_keras package; where
# it is missing, these are TF 1.15's names
# (tensorflow/tools/api/golden/v1/tensorflow.layers.pbtxt).
TF1_LAYERS = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization",
              "Conv1D", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "Dense",
              "Dropout", "Flatten", "InputSpec", "Layer", "MaxPooling1D", "MaxPooling2D",
              "MaxPooling3D", "SeparableConv1D", "SeparableConv2D", "average_pooling1d",
              "average_pooling2d", "average_pooling3d", "batch_normalization", "conv1d",
              "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "dense", "dropout",
              "experimental", "flatten", "max_pooling1d", "max_pooling2d", "max_pooling3d",
              "separable_conv1d", "separable_conv2d"]


def public_names(module):
    return sorted(name for name in dir(module) if not name.startswith("_"))


def main():
    tf = tensorflow.compat.v1
    names = {"tf": public_names(tf)}
    for module in MODULES:
        try:
            names["tf." + module] = public_names(getattr(tf, module))
        except ImportError as e:
            if module != "layers":
                raise
            print("tf.layers: %s; using TF 1.15's list" % e, file=sys.stderr)
            names["tf.layers"] = TF1_LAYERS
    data = {"source": "tensorflow.compat.v1 of TensorFlow %s: TF 1.15's API"
                      % tensorflow.__version__,
            "made_by": "scripts/extract_tf_api.py",
            "modules": names}
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print("%s: %d names in %d modules" % (OUT.relative_to(ROOT),
                                          sum(map(len, names.values())), len(names)))


if __name__ == "__main__":
    main()
