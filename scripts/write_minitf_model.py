"""Writes the checkpoint and meta graph of minitf that TensorFlow is asked to read.

    PYTHONPATH=. python scripts/write_minitf_model.py

Run by hand with minitf, before `scripts/record_tf_checkpoint.py` (which
needs TensorFlow and records what TensorFlow reads from these files). It
writes `tests/saver/data/minitf_model.{index,data-00000-of-00001,meta}`:
the linear model of `tf_model` (same names, same starting values, the same
extra variable of each dtype) with its GradientDescent training op, saved
untrained, so that its checkpoint's bytes do not depend on arithmetic;
`tests/saver/test_tf_interop.py` checks that minitf still writes those bytes.
"""

import pathlib
import sys

import minitf as tf

from interop_model import EXTRAS  # beside this script

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests/saver/data"


def write_minitf_model(prefix):
    """Builds the model in a fresh graph and saves it at `prefix` (checkpoint and `.meta`)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable([[0.1], [-0.2]], name="w")
        b = tf.Variable([0.3], name="b")
        prediction = tf.add(tf.matmul(x, w), b, name="prediction")
        loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
        step = tf.train.get_or_create_global_step()
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        with tf.variable_scope("extra"):
            for name, (value, dtype) in EXTRAS.items():
                tf.Variable(value, dtype=tf.as_dtype(dtype), name=name)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, prefix, write_state=False)


if __name__ == "__main__":
    write_minitf_model(str(DATA / "minitf_model") if len(sys.argv) < 2 else sys.argv[1])
