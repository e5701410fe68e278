"""Lookup tables: vocabularies from tensors and files, OOV buckets, sparse keys, errors."""

import numpy as np
import pytest

import minitf as tf
from minitf.graph import farmhash
from minitf.graph.op_def_library import apply_op
from minitf.ops import lookup_ops
from session_configs import without_folding

VOCAB = ["emerson", "lake", "palmer"]


def _init_and_run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        return sess.run(fetches, feed_dict)


def _write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def _oov_id(key, vocab_size, num_oov_buckets):
    return vocab_size + farmhash.fingerprint64(key) % num_oov_buckets


# --- from a tensor ----------------------------------------------------------------------------

def test_index_table_from_tensor_maps_keys_to_positions():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    ids = table.lookup(tf.constant([["palmer", "lake"], ["king", "emerson"]]))
    assert ids.dtype == tf.int64 and ids.shape.as_list() == [2, 2]
    result, size = _init_and_run([ids, table.size()])
    np.testing.assert_array_equal(result, [[2, 1], [-1, 0]])
    assert size == 3


def test_index_table_builds_a_table_node_and_registers_its_initializer():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    types = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert types["string_to_index/hash_table/hash_table"] == "HashTable"
    assert types["string_to_index/hash_table/table_init"] == "InitializeTable"
    assert tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS) == [table.initializer]
    assert table.resource_handle.dtype == tf.string._as_ref
    assert table.resource_handle.shape.as_list() == [2]
    init = tf.tables_initializer()
    assert (init.name, init.type) == ("init_all_tables", "NoOp")
    assert [op.name for op in init.control_inputs] == ["string_to_index/hash_table/table_init"]


def test_tables_initializer_without_tables_is_a_no_op():
    init = tf.tables_initializer(name="nothing")
    assert (init.name, init.type) == ("nothing", "NoOp")
    with tf.Session() as sess:
        assert sess.run(init) is None


def test_oov_buckets_follow_the_vocabulary():
    # [0, 1, 4, 2, 3] is what the reference TF returns for the same table and keys.
    table = lookup_ops.index_table_from_tensor(VOCAB, num_oov_buckets=2)
    keys = ["emerson", "lake", "and", "palmer", "king"]
    ids, size = _init_and_run([table.lookup(tf.constant(keys)), table.size()])
    np.testing.assert_array_equal(ids, [0, 1, 4, 2, 3])
    np.testing.assert_array_equal(ids[[2, 4]], [_oov_id(k, 3, 2) for k in ("and", "king")])
    assert size == 5


def test_default_value_for_unknown_keys():
    table = lookup_ops.index_table_from_tensor(["a", "b"], default_value=-7)
    np.testing.assert_array_equal(_init_and_run(table.lookup(tf.constant(["a", "z", "b"]))),
                                  [0, -7, 1])


def test_int64_keys_and_their_oov_buckets():
    # Integer keys hash through their decimal text; TF gives [1, 2, 3, 4, 3].
    table = lookup_ops.index_table_from_tensor(tf.constant([5, 7, 9], tf.int64),
                                               num_oov_buckets=3, dtype=tf.int64)
    ids = table.lookup(tf.constant([7, 9, 1, 2, 3], tf.int64))
    np.testing.assert_array_equal(_init_and_run(ids), [1, 2, 3, 4, 3])
    assert [_oov_id(str(k), 3, 3) for k in (1, 2, 3)] == [3, 4, 3]


def test_int32_vocabulary_is_stored_as_int64():
    table = lookup_ops.index_table_from_tensor([5, 7, 9], dtype=tf.int32, default_value=-1)
    assert table.key_dtype == tf.int64
    # Without OOV buckets the table itself is returned: its keys are int64 (as in TF).
    with pytest.raises(TypeError, match="Keys must be dtype <dtype: 'int64'>"):
        table.lookup(tf.constant([9], tf.int32))
    ids = table.lookup(tf.constant([9, 5, 6], tf.int64))
    np.testing.assert_array_equal(_init_and_run(ids), [2, 0, -1])


def test_int32_keys_with_oov_buckets():
    # The bucketed table casts int32 keys itself; TF returns [1, 2, 3, 4, 3].
    table = lookup_ops.index_table_from_tensor([5, 7, 9], dtype=tf.int32, num_oov_buckets=3)
    ids = table.lookup(tf.constant([7, 9, 1, 2, 3], tf.int32))
    np.testing.assert_array_equal(_init_and_run(ids), [1, 2, 3, 4, 3])


def test_sparse_keys_keep_their_indices():
    table = lookup_ops.index_table_from_tensor(VOCAB, num_oov_buckets=1)
    keys = tf.SparseTensor(indices=[[0, 0], [0, 2], [3, 1]], values=["lake", "bob", "palmer"],
                           dense_shape=[4, 3])
    ids = table.lookup(keys)
    assert isinstance(ids, tf.SparseTensor)
    value = _init_and_run(ids)
    np.testing.assert_array_equal(value.indices, [[0, 0], [0, 2], [3, 1]])
    np.testing.assert_array_equal(value.values, [1, 3, 2])
    np.testing.assert_array_equal(value.dense_shape, [4, 3])


def test_sparse_keys_without_oov_buckets():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    keys = tf.SparseTensor(indices=[[0, 1], [2, 0]], values=["palmer", "x"], dense_shape=[3, 2])
    value = _init_and_run(table.lookup(keys))
    np.testing.assert_array_equal(value.values, [2, -1])
    np.testing.assert_array_equal(value.indices, [[0, 1], [2, 0]])


def test_strong_hash_spec_buckets():
    spec = lookup_ops.StrongHashSpec((11, 22))
    table = lookup_ops.index_table_from_tensor(VOCAB, num_oov_buckets=4, hasher_spec=spec)
    ids = _init_and_run(table.lookup(tf.constant(["lake", "zebra"])))
    assert ids[0] == 1
    assert ids[1] == 3 + farmhash.siphash_2_4((11, 22), "zebra") % 4


def test_fed_keys():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    keys = tf.placeholder(tf.string, [None])
    ids = table.lookup(keys)
    assert ids.shape.as_list() == [None]
    np.testing.assert_array_equal(_init_and_run(ids, {keys: ["palmer", "x", "emerson"]}),
                                  [2, -1, 0])


def test_looking_up_before_initialization_fails():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    ids = table.lookup(tf.constant(["lake"]))
    with tf.Session() as sess:
        assert sess.run(table.size()) == 0
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
            sess.run(ids)
        sess.run(tf.tables_initializer())
        assert sess.run(ids)[0] == 1
    with tf.Session() as sess:  # a new session starts with a new, empty table
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
            sess.run(ids)


def test_running_the_initializer_twice_is_harmless():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    ids = table.lookup(tf.constant(["palmer"]))
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        sess.run(tf.tables_initializer())
        assert sess.run(ids)[0] == 2


def test_duplicate_vocabulary_fails_at_initialization():
    lookup_ops.index_table_from_tensor(["a", "b", "a"])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="different value for same key. Key a has 0 and trying to add "
                                 "value 2"):
            sess.run(tf.tables_initializer())


def test_handle_names_the_table():
    table = lookup_ops.index_table_from_tensor(VOCAB, name="vocab")
    handle = _init_and_run(table.resource_handle)
    np.testing.assert_array_equal(handle, [b"localhost", b"vocab/hash_table/hash_table"])


def test_wrong_key_dtype_and_bad_arguments():
    table = lookup_ops.index_table_from_tensor(VOCAB)
    with pytest.raises(TypeError, match="Keys must be dtype"):
        table.lookup(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="num_oov_buckets must be greater or equal than 0"):
        lookup_ops.index_table_from_tensor(VOCAB, num_oov_buckets=-1)
    with pytest.raises(ValueError, match="vocabulary_list must be specified"):
        lookup_ops.index_table_from_tensor(None)
    with pytest.raises(ValueError, match="Expected integer"):
        lookup_ops.index_table_from_tensor(VOCAB, dtype=tf.int64)
    with pytest.raises(TypeError, match="Only integer and string keys"):
        lookup_ops.index_table_from_tensor([1.0], dtype=tf.float32)


def test_key_value_table_with_string_values():
    init = lookup_ops.KeyValueTensorInitializer(tf.constant([3, 1], tf.int64), ["three", "one"])
    table = lookup_ops.HashTable(init, default_value="?")
    assert table.init is table.initializer
    values = _init_and_run(table.lookup(tf.constant([1, 2, 3], tf.int64)))
    assert list(values) == [b"one", b"?", b"three"]


def test_index_to_string_table_from_tensor():
    table = lookup_ops.index_to_string_table_from_tensor(VOCAB, default_value="UNKNOWN")
    values = _init_and_run(table.lookup(tf.constant([1, 5], tf.int64)))
    assert list(values) == [b"lake", b"UNKNOWN"]


def test_tables_live_on_the_cpu_beside_a_gpu(stand_in_gpu):
    table = lookup_ops.index_table_from_tensor(VOCAB, num_oov_buckets=1)
    ids = table.lookup(tf.constant(["lake", "x"]))
    doubled = ids * 2
    metadata = tf.RunMetadata()
    with tf.Session(config=without_folding()) as sess:
        sess.run(tf.tables_initializer())
        result = sess.run(doubled, options=tf.RunOptions(output_partition_graphs=True),
                          run_metadata=metadata)
    np.testing.assert_array_equal(result, [2, 6])
    devices = {node.op: node.device for graph in metadata.partition_graphs
               for node in graph.node}
    for op_type in ("HashTable", "LookupTableFind", "LookupTableSize",
                    "StringToHashBucketFast"):
        assert devices[op_type].endswith("CPU:0"), op_type


# --- from a file ------------------------------------------------------------------------------

def test_index_table_from_file(tmp_path):
    vocab = _write(tmp_path / "vocab.txt", "emerson\nlake\npalmer\n")
    table = lookup_ops.index_table_from_file(vocab)
    types = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert types["string_to_index/hash_table/table_init"] == "InitializeTableFromTextFile"
    assert tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)[0].op.name == \
        "string_to_index/hash_table/table_init/asset_filepath"
    ids, size = _init_and_run([table.lookup(tf.constant(["lake", "x", "palmer"])),
                               table.size()])
    np.testing.assert_array_equal(ids, [1, -1, 2])
    assert size == 3


def test_index_table_from_file_with_oov_buckets(tmp_path):
    # The reference TF returns [1, 5, 5, 4] and size 6.
    vocab = _write(tmp_path / "vocab.txt", "emerson\nlake\npalmer\n")
    table = lookup_ops.index_table_from_file(vocab, num_oov_buckets=3)
    ids, size = _init_and_run([table.lookup(tf.constant(["lake", "x", "y", "zz"])),
                               table.size()])
    np.testing.assert_array_equal(ids, [1, 5, 5, 4])
    assert size == 6


def test_vocab_size_reads_only_the_first_lines(tmp_path):
    vocab = _write(tmp_path / "vocab.txt", "emerson\nlake\npalmer\n")
    table = lookup_ops.index_table_from_file(vocab, vocab_size=2)
    ids, size = _init_and_run([table.lookup(tf.constant(["lake", "palmer"])), table.size()])
    np.testing.assert_array_equal(ids, [1, -1])
    assert size == 2


def test_vocab_size_larger_than_the_file_fails(tmp_path):
    vocab = _write(tmp_path / "vocab.txt", "emerson\nlake\npalmer\n")
    lookup_ops.index_table_from_file(vocab, vocab_size=5)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Invalid vocab_size in .*vocab.txt: expected 5 but got 3"):
            sess.run(tf.tables_initializer())


def test_missing_vocabulary_file_fails_when_the_initializer_runs(tmp_path):
    missing = str(tmp_path / "no_such_vocab.txt")
    table = lookup_ops.index_table_from_file(missing)  # building the graph reads nothing
    table.lookup(tf.constant(["a"]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError,
                           match="no_such_vocab.txt; No such file or directory"):
            sess.run(tf.tables_initializer())


def test_key_and_value_columns(tmp_path):
    vocab = _write(tmp_path / "pairs.txt", "emerson\t10\nlake\t20\npalmer\t30\n")
    by_column = lookup_ops.index_table_from_file(vocab, key_column_index=0, value_column_index=1)
    by_line = lookup_ops.index_table_from_file(vocab, key_column_index=0)
    keys = tf.constant(["lake", "palmer", "x"])
    np.testing.assert_array_equal(_init_and_run([by_column.lookup(keys), by_line.lookup(keys)]),
                                  [[20, 30, -1], [1, 2, -1]])


def test_int64_keys_from_a_column(tmp_path):
    vocab = _write(tmp_path / "pairs.txt", "emerson\t10\nlake\t20\npalmer\t30\n")
    table = lookup_ops.index_table_from_file(vocab, key_column_index=1, key_dtype=tf.int64)
    np.testing.assert_array_equal(_init_and_run(table.lookup(tf.constant([20, 30, 40],
                                                                         tf.int64))),
                                  [1, 2, -1])


def test_missing_column_and_empty_line(tmp_path):
    pairs = _write(tmp_path / "pairs.txt", "emerson\t10\nlake\t20\n")
    lookup_ops.index_table_from_file(pairs, key_column_index=0, value_column_index=3)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Invalid number of columns in .*pairs.txt line 0 "
                                 r"\(emerson\t10\) : expected at least 4 got 2"):
            sess.run(tf.tables_initializer())
    tf.reset_default_graph()
    holes = _write(tmp_path / "holes.txt", "a\nb\n\nc")
    lookup_ops.index_table_from_file(holes)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Invalid content in .*holes.txt: empty line found at "
                                 "position 5."):
            sess.run(tf.tables_initializer())


def test_not_a_number_in_an_integer_column(tmp_path):
    vocab = _write(tmp_path / "pairs.txt", "emerson\tten\n")
    lookup_ops.index_table_from_file(vocab, key_column_index=1, key_dtype=tf.int64)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Field ten in line 0 is not a valid int64."):
            sess.run(tf.tables_initializer())


def test_windows_line_endings_and_unicode(tmp_path):
    vocab = _write(tmp_path / "vocab.txt", "caf\u00e9\r\n\u65e5\u672c\r\n")
    table = lookup_ops.index_table_from_file(vocab)
    ids = _init_and_run(table.lookup(tf.constant(["\u65e5\u672c", "caf\u00e9", "cafe"])))
    np.testing.assert_array_equal(ids, [1, 0, -1])


def test_index_table_from_file_bad_arguments():
    with pytest.raises(ValueError, match="vocabulary_file must be specified"):
        lookup_ops.index_table_from_file(None)
    with pytest.raises(ValueError, match="vocab_size must be greater than 0"):
        lookup_ops.index_table_from_file("v.txt", vocab_size=0)
    with pytest.raises(TypeError, match="Only integer and string keys"):
        lookup_ops.index_table_from_file("v.txt", key_dtype=tf.float32)


def test_index_to_string_table_from_file(tmp_path):
    vocab = _write(tmp_path / "vocab.txt", "emerson\nlake\npalmer\n")
    table = lookup_ops.index_to_string_table_from_file(vocab, default_value="UNKNOWN")
    assert list(_init_and_run(table.lookup(tf.constant([2, 7], tf.int64)))) == [b"palmer",
                                                                                b"UNKNOWN"]


# --- which resource a HashTable node uses -------------------------------------------------------

def _table_node(name, **attrs):
    return apply_op("HashTable", name=name, key_dtype=tf.string, value_dtype=tf.int64, **attrs)


def _fill(handle, keys, values):
    return apply_op("InitializeTable", table_handle=handle, keys=tf.constant(keys),
                    values=tf.constant(values, tf.int64))


def test_tables_with_one_shared_name_are_one_table():
    first = _table_node("first", shared_name="vocab")
    second = _table_node("second", shared_name="vocab")
    size = apply_op("LookupTableSize", table_handle=second)
    with tf.Session() as sess:
        sess.run(_fill(first, ["a", "b"], [0, 1]))
        assert sess.run(size) == 2
        np.testing.assert_array_equal(sess.run(second), [b"localhost", b"vocab"])


def test_a_table_without_sharing_is_private_to_its_node():
    private = _table_node("private")
    other = _table_node("other")
    with tf.Session() as sess:
        sess.run(_fill(private, ["a"], [5]))
        sizes = [apply_op("LookupTableSize", table_handle=t) for t in (private, other)]
        assert sess.run(sizes) == [1, 0]
        np.testing.assert_array_equal(sess.run(private), [b"localhost", b"_private"])


def test_a_second_initialization_must_bring_the_same_data():
    table = _table_node("t", use_node_name_sharing=True)
    same, different = _fill(table, ["a"], [1]), _fill(table, ["a"], [2])
    with tf.Session() as sess:
        sess.run(same)
        sess.run(same)
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Table was already initialized with different data."):
            sess.run(different)
