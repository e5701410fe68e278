"""`tf.strings`: Python's own string methods as the reference, and TensorFlow's errors.

Random text (hypothesis) is joined, split, sliced, measured and parsed, and
compared with `str.join`, `str.split`, slicing and `float`; the error
classes are TensorFlow's (checked against the reference TensorFlow): a
ValueError from a shape function at build time, an InvalidArgumentError
from a kernel at run time. Values recorded from TensorFlow itself are in
test_array_string_reference.py.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitf as tf
from minitf.ops import string_ops

SETTINGS = settings(max_examples=25, deadline=None)
TEXT = st.text(alphabet=st.sampled_from(list("ab ,\t\u00e9\u20ac")), max_size=8)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _texts(array):
    return [b.decode("utf-8") for b in np.asarray(array, dtype=object).reshape(-1)]


def test_tf_strings_and_the_tf1_top_level_names_are_the_same_functions():
    assert tf.strings.join is tf.string_join is string_ops.string_join
    assert tf.strings.to_number is tf.string_to_number
    assert tf.strings.strip is tf.string_strip
    assert tf.strings.to_hash_bucket is tf.string_to_hash_bucket
    assert tf.strings.reduce_join is tf.reduce_join
    assert tf.strings.regex_replace is tf.regex_replace
    assert tf.strings.substr is tf.substr
    with pytest.raises(AttributeError, match="tf.strings"):
        tf.strings.no_such_name  # noqa: B018


@SETTINGS
@given(words=st.lists(TEXT, min_size=1, max_size=4), separator=TEXT)
def test_join_matches_str_join(words, separator):
    with tf.Graph().as_default():
        joined = _run(tf.strings.join([[w] for w in words], separator))
    assert _texts(joined) == [separator.join(words)]


@SETTINGS
@given(lines=st.lists(TEXT, min_size=1, max_size=4),
       sep=st.one_of(st.none(), st.sampled_from([",", " ", "ab", "\u20ac"])),
       maxsplit=st.integers(-1, 2))
def test_split_matches_str_split(lines, sep, maxsplit):
    with tf.Graph().as_default():
        tokens = _run(tf.strings.split(lines, sep=sep, maxsplit=maxsplit))
    expected = [line.split(sep, maxsplit) for line in lines]
    rows = [[] for _ in lines]
    for (row, column), token in zip(tokens.indices, _texts(tokens.values)):
        assert column == len(rows[row])
        rows[row].append(token)
    assert rows == expected
    assert tokens.dense_shape.tolist() == [len(lines), max(map(len, expected))]


@SETTINGS
@given(text=TEXT, data=st.data())
def test_substr_and_length_in_characters_match_python(text, data):
    pos = data.draw(st.integers(-len(text), len(text)))
    length = data.draw(st.integers(0, 9))
    with tf.Graph().as_default():
        part, count = _run([tf.strings.substr([text], pos, length, unit="UTF8_CHAR"),
                            tf.strings.length(text, unit="UTF8_CHAR")])
    start = pos % len(text) if pos < 0 else pos
    assert _texts(part) == [text[start:start + length]]
    assert count == len(text)


@SETTINGS
@given(numbers=st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=4))
def test_to_number_parses_what_as_string_wrote(numbers):
    with tf.Graph().as_default():
        parsed = _run(tf.strings.to_number(tf.strings.as_string(
            tf.constant(numbers, tf.float32), scientific=True, precision=9)))
    np.testing.assert_array_equal(parsed, np.float32(numbers))


def test_regex_replace_of_a_tensor_pattern_and_full_match():
    with tf.Graph().as_default():
        pattern = tf.placeholder(tf.string, [])
        replaced = tf.strings.regex_replace(["a1b22", "c"], pattern, "#")
        assert replaced.op.type == "RegexReplace"
        assert tf.strings.regex_replace("a", "a", "b").op.type == "StaticRegexReplace"
        assert _texts(_run(replaced, {pattern: "[0-9]+"})) == ["a#b#", "c"]
        matched = _run(tf.strings.regex_full_match(["a1", "a12", "b1"], "a[0-9]"))
    assert matched.tolist() == [True, False, False]


def test_string_kernels_run_on_the_cpu_under_a_gpu_scope(stand_in_gpu):
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            joined = tf.strings.join(["a", "b"])
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            assert sess.run(joined) == b"ab"


# --- errors: TensorFlow's classes, at build time and at run time -----------------------------------

BUILD_TIME_ERRORS = {
    "join_of_different_shapes": lambda: tf.strings.join([["a", "b"], ["c", "d", "e"]]),
    "format_with_too_few_tensors": lambda: tf.strings.format("{} {}", [tf.constant(1)]),
    "length_unit": lambda: tf.strings.length(["a"], unit="BITS"),
    "substr_pos_and_len_shapes": lambda: tf.strings.substr(["ab", "cd"], [0, 1], 1),
    "split_result_type": lambda: tf.strings.split(["a"], result_type="List"),
}


@pytest.mark.parametrize("name", sorted(BUILD_TIME_ERRORS))
def test_build_time_errors_are_value_errors(name):
    with tf.Graph().as_default(), pytest.raises(ValueError):
        BUILD_TIME_ERRORS[name]()


RUN_TIME_ERRORS = {
    "substr_pos_out_of_range": (lambda: tf.strings.substr(["abc"], 5, 1), "Substr"),
    "to_number_of_text": (lambda: tf.strings.to_number(["1.5x"]), "StringToNumber"),
    "to_number_overflowing_int32": (lambda: tf.strings.to_number(["99999999999"], tf.int32),
                                    "StringToNumber"),
    "regex_pattern": (lambda: tf.strings.regex_replace(["a"], "(", "x"), "Invalid pattern"),
    "unicode_decode_strict": (lambda: tf.strings.unicode_decode(b"\xff", "UTF-8",
                                                                errors="strict"),
                              "UnicodeDecode"),
    "unicode_encode_out_of_range": (lambda: tf.strings.unicode_encode([0x110000], "UTF-8",
                                                                      errors="strict"),
                                    "UnicodeEncode"),
    "decode_base64": (lambda: tf.decode_base64(["a"]), "DecodeBase64"),
}


@pytest.mark.parametrize("name", sorted(RUN_TIME_ERRORS))
def test_run_time_errors_are_invalid_argument_errors(name):
    build, mentioned = RUN_TIME_ERRORS[name]
    with tf.Graph().as_default():
        fetch = build()
        with pytest.raises(tf.errors.InvalidArgumentError, match=mentioned):
            _run(fetch)


def test_ragged_results_are_refused_clearly():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="RaggedTensor"):
            tf.strings.split(["a b"], result_type="RaggedTensor")
