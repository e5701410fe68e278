"""The summaries compared with TensorFlow's, shared by the recording script and the tests.

`run_cases(tf)` builds every case in a fresh graph with the module `tf`
(minitf, or TensorFlow's `tf.compat.v1`), runs it, and returns for each
case the node's name, its op type and the Summary bytes it output, in hex.
`scripts/record_summary_reference.py` stores TensorFlow's answers in
`data/summary_reference.json`; the tests compare minitf's with them.
"""

import numpy as np

_RNG = np.random.RandomState(16)

# Values for the histograms: both signs, zero, tiny and huge magnitudes, the limits themselves.
HISTOGRAM_VALUES = np.concatenate([
    _RNG.standard_normal(200) * 3.0,
    [0.0, -0.0, 1e-12, -1e-12, 1e-13, 5e-300, 1.0, 1.1, 1e19, -3e19, 1e21, -1e21, 1.7e308],
]).astype(np.float64)

UINT8_IMAGES = _RNG.randint(0, 256, size=(3, 5, 7, 3)).astype(np.uint8)
GREY_SIGNED = (_RNG.standard_normal((2, 4, 6, 1)) * 2.5).astype(np.float32)
RGBA_POSITIVE = _RNG.uniform(0.0, 3.0, (1, 6, 5, 4)).astype(np.float32)
WITH_BAD_PIXELS = _RNG.uniform(-1.0, 1.0, (1, 3, 3, 3)).astype(np.float32)
WITH_BAD_PIXELS[0, 1, 1, 0] = np.nan
WITH_BAD_PIXELS[0, 2, 0, 2] = np.inf
LARGE_IMAGE = np.tile(np.arange(256, dtype=np.uint8).reshape(1, 16, 16, 1), (1, 8, 8, 3))
LARGE_IMAGE = (LARGE_IMAGE + _RNG.randint(0, 3, LARGE_IMAGE.shape)).astype(np.uint8)
STEREO = np.clip(_RNG.standard_normal((2, 50, 2)) * 0.5, -1.2, 1.2).astype(np.float32)
STEREO[0, :4, 0] = [0.5 / 32768, 1.5 / 32768, -0.5 / 32768, -1.0]
MONO = np.sin(np.arange(40) / 3.0).reshape(1, 40).astype(np.float32)


def _cases(tf):
    """name -> summary tensor, all in the default graph."""
    cases = {}
    cases["scalar"] = tf.summary.scalar("loss", tf.constant(0.25))
    cases["scalar_int"] = tf.summary.scalar("count", tf.constant(7, tf.int64))
    cases["scalar_family"] = tf.summary.scalar("loss", tf.constant(1.5), family="train")
    cases["scalar_again"] = tf.summary.scalar("loss", tf.constant(2.5))
    with tf.name_scope("layer"):
        cases["scalar_scoped"] = tf.summary.scalar("bad name!", tf.constant(-3.0))
    cases["histogram"] = tf.summary.histogram("weights", tf.constant(HISTOGRAM_VALUES))
    cases["histogram_float32"] = tf.summary.histogram(
        "w32", tf.constant(HISTOGRAM_VALUES[:200].astype(np.float32)), family="dense")
    cases["histogram_int"] = tf.summary.histogram("ids", tf.constant([3, 1, 4, 1, 5, 9, -2, 6]))
    cases["histogram_empty"] = tf.summary.histogram("empty", tf.zeros([0]))
    cases["image_uint8"] = tf.summary.image("pictures", tf.constant(UINT8_IMAGES), max_outputs=2)
    cases["image_grey"] = tf.summary.image("grey", tf.constant(GREY_SIGNED))
    cases["image_rgba"] = tf.summary.image("rgba", tf.constant(RGBA_POSITIVE), max_outputs=1)
    cases["image_bad_pixels"] = tf.summary.image("bad", tf.constant(WITH_BAD_PIXELS))
    cases["image_large"] = tf.summary.image("large", tf.constant(LARGE_IMAGE))
    cases["image_half"] = tf.summary.image("half", tf.constant(GREY_SIGNED.astype(np.float16)))
    cases["image_double"] = tf.summary.image("double", tf.constant(
        RGBA_POSITIVE.astype(np.float64) * 1e-3), max_outputs=1)
    cases["audio"] = tf.summary.audio("stereo", tf.constant(STEREO), 8000.5)
    cases["audio_mono"] = tf.summary.audio("mono", tf.constant(MONO), 16000, max_outputs=1)
    cases["text"] = tf.summary.text("notes", tf.constant([["**bold**", "b"], ["c", "d"]]))
    cases["tensor"] = tf.summary.tensor_summary(
        "matrix", tf.constant([[1.0, 2.0], [3.0, 4.0]]), summary_description="a matrix",
        display_name="The matrix")
    cases["tensor_int"] = tf.summary.tensor_summary("ints", tf.constant([1, 2, 3], tf.int64))
    cases["merge"] = tf.summary.merge([cases["scalar"], cases["histogram_int"]], name="some")
    cases["merge_all"] = tf.summary.merge_all()
    return cases


def run_cases(tf):
    """{case: {"name", "type", "summary" (hex)}} computed with `tf`."""
    with tf.Graph().as_default():
        cases = _cases(tf)
        with tf.Session() as sess:
            values = sess.run(cases)
    return {name: {"name": tensor.op.name, "type": tensor.op.type,
                   "summary": values[name].hex()}
            for name, tensor in sorted(cases.items())}


def histogram_nan_message(tf):
    """The message of the error a NaN in a histogram raises."""
    return _error_line(tf, lambda: tf.summary.histogram("h", tf.constant([1.0, np.nan])),
                       "Nan in summary")


def duplicate_tag_message(tf):
    """The message of the error two values with one tag in a merge raise."""
    def build():
        a = tf.summary.scalar("a", 1.0)
        return tf.summary.merge([a, a])
    return _error_line(tf, build, "Duplicate tag")


def _error_line(tf, build, words):
    """The line saying `words` of the InvalidArgumentError running `build()`'s tensor raises.

    TensorFlow 2 adds lines around the kernel's message; minitf's is the line itself.
    """
    with tf.Graph().as_default():
        tensor = build()
        with tf.Session() as sess:
            try:
                sess.run(tensor)
            except tf.errors.InvalidArgumentError as e:
                return next(line.strip() for line in e.message.split("\n") if words in line)
    return None
