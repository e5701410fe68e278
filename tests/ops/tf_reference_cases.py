"""Expressions of the array and string families, written once for two libraries.

`cases(tf)` builds each expression with the module it is given: the
reference TensorFlow (`tensorflow.compat.v1`, by
`scripts/record_array_string_values.py`, which stores the values in
`tests/ops/data/array_string_values.json`) or minitf (by
`tests/ops/test_array_string_reference.py`, which compares). Keys name the
cases; the values are fetched with one `Session.run` each.
"""

import numpy as np


def cases(tf):
    """{case name: a function building the fetch in the default graph}."""
    image = np.arange(16.0).reshape(1, 4, 4, 1)
    return {
        "unique_with_counts": lambda: tf.unique_with_counts([1, 1, 2, 3, 3, 3]),
        "unique_with_counts_int64": lambda: tf.unique_with_counts([5, 4, 5], tf.int64),
        "setdiff1d": lambda: tf.setdiff1d([1, 2, 3, 4, 2], [2, 4]),
        "searchsorted_left": lambda: tf.searchsorted([[1, 3, 5], [2, 4, 6]], [[3, 6], [1, 7]]),
        "searchsorted_right": lambda: tf.searchsorted([[1, 3, 5], [2, 4, 6]], [[3, 6], [1, 7]],
                                                      side="right"),
        "broadcast_to": lambda: tf.broadcast_to([1, 2, 3], [2, 3]),
        "broadcast_dynamic_shape": lambda: tf.broadcast_dynamic_shape([2, 1], [1, 3]),
        "meshgrid_xy": lambda: tf.meshgrid([1, 2, 3], [4, 5]),
        "meshgrid_ij": lambda: tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"),
        "sequence_mask": lambda: tf.sequence_mask([1, 3, 2], 4),
        "sequence_mask_default_maxlen": lambda: tf.sequence_mask([[1, 2]]),
        "sequence_mask_float": lambda: tf.sequence_mask([0, 2], 3, dtype=tf.float32),
        "parallel_stack": lambda: tf.parallel_stack([[1, 2], [3, 4]]),
        "repeat_counts": lambda: tf.repeat([[1, 2], [3, 4]], [1, 2], axis=0),
        "repeat_flat": lambda: tf.repeat([[1, 2], [3, 4]], 2),
        "batch_gather": lambda: tf.batch_gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]]),
        "where_v2": lambda: tf.where_v2([True, False], [[1, 2], [3, 4]], 0),
        "where_v2_coordinates": lambda: tf.where_v2([[True, False], [False, True]]),
        "tensor_scatter_nd_update": lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4],
                                                                        [[1], [3]], [9, 8]),
        "tensor_scatter_nd_add": lambda: tf.tensor_scatter_nd_add([[1, 2], [3, 4]],
                                                                  [[0], [0]], [[1, 1], [2, 2]]),
        "tensor_scatter_nd_sub": lambda: tf.tensor_scatter_nd_sub([1, 2, 3], [[2]], [5]),
        "tensor_scatter_nd_max": lambda: tf.tensor_scatter_nd_max([1, 2, 3, 4], [[1], [3]],
                                                                  [0, 9]),
        "tensor_scatter_nd_min": lambda: tf.tensor_scatter_nd_min([1, 2, 3, 4], [[1], [3]],
                                                                  [0, 9]),
        "reverse_sequence": lambda: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3],
                                                        seq_axis=1, batch_axis=0),
        "roll": lambda: tf.roll([[1, 2, 3], [4, 5, 6]], [1, -1], [0, 1]),
        "unravel_index": lambda: tf.unravel_index([5, 7], [3, 4]),
        "bitcast_int32_to_uint8": lambda: tf.bitcast(tf.constant([1, 256], tf.int32), tf.uint8),
        "fingerprint": lambda: tf.fingerprint(tf.constant(["a", "b"])),
        "dynamic_partition": lambda: tf.dynamic_partition([10, 20, 30, 40], [1, 0, 1, 1], 2),
        "dynamic_stitch": lambda: tf.dynamic_stitch([[0, 2], [1, 2]], [[1, 2], [3, 4]]),
        "space_to_batch_nd": lambda: tf.space_to_batch_nd(image, [2, 2], [[0, 0], [0, 0]]),
        "batch_to_space_nd": lambda: tf.batch_to_space_nd(
            np.arange(8.0).reshape(4, 1, 2, 1), [2, 2], [[0, 0], [1, 1]]),
        "space_to_batch": lambda: tf.space_to_batch(image, [[1, 1], [1, 1]], 2),
        "space_to_depth": lambda: tf.space_to_depth(image, 2),
        "depth_to_space": lambda: tf.depth_to_space(np.arange(8.0).reshape(1, 1, 2, 4), 2),
        "extract_image_patches": lambda: tf.extract_image_patches(
            image, [1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
        "extract_volume_patches": lambda: tf.extract_volume_patches(
            np.arange(16.0).reshape(1, 2, 2, 4, 1), [1, 1, 2, 2, 1], [1, 1, 1, 2, 1], "VALID"),
        "required_space_to_batch_paddings": lambda: tf.required_space_to_batch_paddings(
            [5, 3], [2, 2], [[1, 0], [0, 0]]),
        "edit_distance": lambda: tf.edit_distance(
            tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2]),
            tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "c", "d"], [2, 2])),
        "edit_distance_unnormalized": lambda: tf.edit_distance(
            tf.SparseTensor([[0, 0], [0, 1]], [1, 2], [1, 2]),
            tf.SparseTensor([[0, 0]], [3], [1, 1]), normalize=False),
        "ensure_shape": lambda: tf.ensure_shape([[1, 2]], [None, 2]),
        "manip_roll": lambda: tf.manip.roll([1, 2, 3, 4], 1, 0),
        "scatter_mul": lambda: _updated(tf, [1.0, 2.0, 3.0], tf.scatter_mul, [0, 2, 0],
                                        [2.0, 0.5, 3.0]),
        "scatter_div_int": lambda: _updated(tf, [7, -7, 9], tf.scatter_div, [0, 1, 2, 2],
                                            [2, 2, -4, 1]),
        "scatter_max": lambda: _updated(tf, [[1, 5], [3, 4]], tf.scatter_max, [1, 1],
                                        [[0, 9], [6, 2]]),
        "scatter_min": lambda: _updated(tf, [[1, 5], [3, 4]], tf.scatter_min, [0],
                                        [[0, 9]]),
        "scatter_nd_update": lambda: _updated(tf, [[1, 2], [3, 4]], tf.scatter_nd_update,
                                              [[0, 1], [1, 0]], [8, 9]),
        "scatter_nd_add": lambda: _updated(tf, [[1, 2], [3, 4]], tf.scatter_nd_add,
                                           [[1], [1]], [[1, 1], [10, 10]]),
        "scatter_nd_sub": lambda: _updated(tf, [1.0, 2.0, 3.0], tf.scatter_nd_sub,
                                           [[2], [0]], [0.5, 1.5]),
        "batch_scatter_update": lambda: _updated(tf, [[1, 2, 3], [4, 5, 6]],
                                                 tf.batch_scatter_update, [[2], [0]],
                                                 [[30], [40]]),
        # --- strings ---
        "join": lambda: tf.strings.join(["a", ["b", "c"]], "-"),
        "string_join": lambda: tf.string_join([["x", "y"], ["1", "2"]]),
        "split": lambda: tf.strings.split(["a b", " c  d ", ""]),
        "split_sep": lambda: tf.strings.split(["a,,b", "c"], sep=",", maxsplit=1),
        "split_matrix": lambda: tf.strings.split([["a b"], ["c"]]),
        "string_split": lambda: tf.string_split(["a,b;c", "d"], ",;"),
        "string_split_keep_empty": lambda: tf.string_split(["a,,b"], ",", skip_empty=False),
        "substr": lambda: tf.strings.substr(["hello", "world"], 1, 3),
        "substr_negative_pos": lambda: tf.strings.substr(["hello", "world"], [-2, -5], [9, 2]),
        "substr_utf8": lambda: tf.strings.substr([u"h\u00e9llo"], 1, 2, unit="UTF8_CHAR"),
        "length": lambda: tf.strings.length([u"h\u00e9llo", ""]),
        "length_utf8": lambda: tf.strings.length([u"h\u00e9llo"], unit="UTF8_CHAR"),
        "strip": lambda: tf.strings.strip(["  a b \t\n", "c"]),
        "lower": lambda: tf.strings.lower(["ABc"]),
        "upper_utf8": lambda: tf.strings.upper([u"\u00e9a"], encoding="utf-8"),
        "to_number": lambda: tf.strings.to_number(["1.5", "-2", "1e3"]),
        "to_number_int64": lambda: tf.strings.to_number(["12", "-7"], tf.int64),
        "to_hash_bucket": lambda: tf.strings.to_hash_bucket(["a", "hello"], 1000),
        "regex_replace": lambda: tf.strings.regex_replace(["aaa", "bab"], "a+", "x"),
        "regex_replace_first": lambda: tf.strings.regex_replace(["aXa"], "a", "<\\0>",
                                                                replace_global=False),
        "regex_replace_groups": lambda: tf.strings.regex_replace(
            ["2024-05", "x"], "(\\d+)-(\\d+)|(x)", "\\2/\\1\\3\\\\"),
        # RE2 refuses these rewrites without an error: a group the pattern lacks changes
        # nothing, a bad escape ends the rewrite (a first-match replace then changes nothing).
        "regex_replace_missing_group": lambda: tf.strings.regex_replace(["ab"], "a", "\\1"),
        "regex_replace_bad_escape": lambda: tf.strings.regex_replace(["aba"], "a", "x\\n"),
        "regex_replace_first_bad_escape": lambda: tf.strings.regex_replace(
            ["aba"], "a", "x\\n", replace_global=False),
        "regex_full_match": lambda: tf.strings.regex_full_match(["abc", "abd"], "ab[c]"),
        "format": lambda: tf.strings.format("x={} y={}", [tf.constant([1, 2]),
                                                          tf.constant(3.5)]),
        "format_summarize": lambda: tf.strings.format("{}", [tf.range(10)], summarize=2),
        "reduce_join": lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1,
                                                      separator="."),
        "reduce_join_all": lambda: tf.reduce_join([["a", "b"], ["c", "d"]]),
        "unsorted_segment_join": lambda: tf.strings.unsorted_segment_join(
            ["a", "b", "c"], [1, 0, 1], 3, separator="+"),
        "encode_base64": lambda: tf.encode_base64(["hi", "hello?"]),
        "encode_base64_pad": lambda: tf.encode_base64(["hi"], pad=True),
        "decode_base64": lambda: tf.decode_base64(["aGk", "aGVsbG8_"]),
        "unicode_encode": lambda: tf.strings.unicode_encode([104, 233, 8364], "UTF-8"),
        "unicode_decode": lambda: tf.strings.unicode_decode(u"h\u00e9\u20ac", "UTF-8"),
        "unicode_decode_replace": lambda: tf.strings.unicode_decode(b"a\xffb", "UTF-8"),
        "unicode_decode_with_offsets": lambda: tf.strings.unicode_decode_with_offsets(
            u"h\u00e9\u20ac", "UTF-8"),
        "unicode_split": lambda: tf.strings.unicode_split(u"h\u00e9\u20ac", "UTF-8"),
        "unicode_transcode": lambda: tf.strings.unicode_transcode([u"h\u00e9"], "UTF-8",
                                                                  "UTF-16-BE"),
        "unicode_script": lambda: tf.strings.unicode_script([72, 1041, 20320, 1575, 48]),
        "bytes_split": lambda: tf.strings.bytes_split("abc"),
        "ngrams": lambda: tf.strings.ngrams(["a", "b", "c"], 2),
        "ngrams_padded": lambda: tf.strings.ngrams(["a", "b"], 3, separator="_",
                                                   pad_values=("<", ">"), padding_width=1),
        "as_string": lambda: tf.strings.as_string([1.5, 2.0], precision=2),
    }


def _updated(tf, initial_value, scatter, indices, updates):
    """The value of a variable holding `initial_value` after `scatter(var, indices, updates)`."""
    var = tf.Variable(initial_value)
    with tf.control_dependencies([var.initializer]):
        return tf.identity(scatter(var, indices, updates))
