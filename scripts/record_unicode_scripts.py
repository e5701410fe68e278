"""Records the Unicode script of every code point, as TensorFlow's UnicodeScript op gives it.

    /path/to/tf-venv/bin/python scripts/record_unicode_scripts.py

`tf.strings.unicode_script` answers with ICU's script codes (UScriptCode:
0 Common, 1 Inherited, 8 Cyrillic, 17 Han, 25 Latin, ...), from ICU's copy of
the Unicode Character Database, which Python's `unicodedata` lacks. This
script asks the reference TensorFlow (any 2.x; the recorded file was made
with 2.21) for the code of every code point from 0 to 0x10FFFF and writes
them as runs, `[first code point, script code]` where the code changes, to
`minitf/kernels/cpu/data/unicode_scripts.json`; the UnicodeScript kernel
reads that file the first time it runs. Run by hand; minitf never needs
TensorFlow.
"""

import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

OUT = pathlib.Path(__file__).resolve().parents[1] / "minitf/kernels/cpu/data/unicode_scripts.json"
LAST_CODE_POINT = 0x10FFFF


def main():
    tf.disable_eager_execution()
    code_points = np.arange(LAST_CODE_POINT + 1, dtype=np.int32)
    with tf.Session() as sess:
        scripts = sess.run(tf.strings.unicode_script(code_points))
    changes = np.flatnonzero(np.diff(scripts)) + 1
    starts = np.concatenate([[0], changes])
    runs = [[int(start), int(scripts[start])] for start in starts]
    OUT.write_text(json.dumps({
        "_note": "UnicodeScript of every code point 0..0x10FFFF as [first code point, "
                 "ICU script code] runs, recorded with TensorFlow %s by "
                 "scripts/record_unicode_scripts.py" % tf.__version__,
        "runs": runs}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
