"""input_layer, linear_model and _LazyBuilder: order, variable names, combiners, caching, errors."""

import numpy as np
import pytest

import minitf as tf
from minitf.feature_column import base as fc_lib
from minitf.feature_column.numeric_columns import _NumericColumn

fc = tf.feature_column

# A 4 x 2 embedding table whose rows are easy to add up by hand.
TABLE = np.array([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], np.float32)
# Example 0 has ids 0, 1, 1; example 1 has id 3; example 2 has none.
IDS = [[0, 1, 1], [3, -1, -1], [-1, -1, -1]]


def _init_and_run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
        return sess.run(fetches)


def _embedded_ids(combiner):
    ids = fc.categorical_column_with_identity("ids", 4)
    column = fc.embedding_column(ids, dimension=2, combiner=combiner,
                                 initializer=tf.constant_initializer(TABLE))
    return fc.input_layer({"ids": IDS}, [column])


# --- input_layer ----------------------------------------------------------------------------

def test_input_layer_sorts_columns_by_name_and_names_variables_after_them():
    price = fc.numeric_column("price")
    keywords = fc.categorical_column_with_hash_bucket("keywords", 10000)
    keywords_embedded = fc.embedding_column(keywords, dimension=16)
    features = {"price": [[1.], [2.]], "keywords": [["a", "b"], ["c", ""]]}
    dense_tensor = fc.input_layer(features, [price, keywords_embedded])

    assert dense_tensor.name == "input_layer/concat:0"
    assert dense_tensor.shape.as_list() == [2, 17]
    [weights] = tf.global_variables()
    assert weights.name == "input_layer/keywords_embedding/embedding_weights:0"
    assert weights.shape.as_list() == [10000, 16]
    assert weights in tf.trainable_variables()
    assert weights in tf.model_variables()
    # "keywords_embedding" sorts before "price": the embedding fills columns 0-15.
    value = _init_and_run(dense_tensor)
    np.testing.assert_allclose(value[:, 16], [1., 2.])
    assert np.all(np.abs(value[:, :16]) <= 2 / np.sqrt(16))  # truncated normal, stddev 1/4


def test_input_layer_scopes_are_unique_per_call():
    column = fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 2)
    fc.input_layer({"ids": [[1]]}, [column])
    fc.input_layer({"ids": [[1]]}, [column], trainable=False)
    names = [v.name for v in tf.global_variables()]
    assert names == ["input_layer/ids_embedding/embedding_weights:0",
                     "input_layer_1/ids_embedding/embedding_weights:0"]
    assert [v.name for v in tf.trainable_variables()] == names[:1]


def test_input_layer_reports_vars_and_output_tensors():
    price = fc.numeric_column("price")
    embedded = fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 2)
    cols_to_vars, cols_to_output_tensors = {}, {}
    out = fc.input_layer({"price": [[1.]], "ids": [[2]]}, [price, embedded],
                         cols_to_vars=cols_to_vars,
                         cols_to_output_tensors=cols_to_output_tensors)
    assert cols_to_vars[price] == []
    assert [v.name for v in cols_to_vars[embedded]] == [
        "input_layer/ids_embedding/embedding_weights:0"]
    assert cols_to_output_tensors[price].shape.as_list() == [1, 1]
    assert cols_to_output_tensors[embedded].shape.as_list() == [None, 2]  # batch known at run time
    assert out.shape.as_list() == [1, 3]


@pytest.mark.parametrize("combiner, expected", [
    ("sum", [[1 + 3 + 3, 2 + 4 + 4], [7, 8], [0, 0]]),
    ("mean", [[7 / 3, 10 / 3], [7, 8], [0, 0]]),
    ("sqrtn", [[7 / np.sqrt(3), 10 / np.sqrt(3)], [7, 8], [0, 0]]),
])
def test_embedding_column_combiners(combiner, expected):
    np.testing.assert_allclose(_init_and_run(_embedded_ids(combiner)), expected, rtol=1e-6)


def test_weighted_embedding_uses_the_weights():
    ids = fc.categorical_column_with_identity("ids", 4)
    weighted = fc.weighted_categorical_column(ids, "w")
    column = fc.embedding_column(weighted, dimension=2, combiner="sum",
                                 initializer=tf.constant_initializer(TABLE))
    out = fc.input_layer({"ids": [[0, 2], [1, -1]], "w": [[2., 0.5], [3., 0.]]}, [column])
    np.testing.assert_allclose(_init_and_run(out), [[2 * 1 + 0.5 * 5, 2 * 2 + 0.5 * 6],
                                                    [3 * 3, 3 * 4]])


def test_embedding_column_arguments():
    ids = fc.categorical_column_with_identity("ids", 4)
    column = fc.embedding_column(ids, 3)
    assert column.name == "ids_embedding"
    assert column.combiner == "mean"
    assert column._variable_shape.as_list() == [3]
    assert column.initializer.stddev == pytest.approx(1 / np.sqrt(3))
    with pytest.raises(ValueError, match="Invalid dimension 0"):
        fc.embedding_column(ids, 0)
    with pytest.raises(ValueError, match="Must specify both `ckpt_to_load_from` and "
                                         "`tensor_name_in_ckpt`"):
        fc.embedding_column(ids, 3, ckpt_to_load_from="ckpt")
    with pytest.raises(ValueError, match="initializer must be callable if specified. "
                                         "Embedding of column_name: ids"):
        fc.embedding_column(ids, 3, initializer=1.0)


def test_embedding_max_norm_clips_rows():
    ids = fc.categorical_column_with_identity("ids", 4)
    column = fc.embedding_column(ids, dimension=2, combiner="sum", max_norm=1.0,
                                 initializer=tf.constant_initializer(TABLE))
    out = fc.input_layer({"ids": [[3]]}, [column])
    np.testing.assert_allclose(_init_and_run(out), [TABLE[3] / np.linalg.norm(TABLE[3])],
                               rtol=1e-6)


def test_shared_embedding_columns_share_one_table():
    watched = fc.categorical_column_with_identity("watched", 4)
    impressed = fc.categorical_column_with_identity("impressed", 4)
    shared = fc.shared_embedding_columns([watched, impressed], dimension=2, combiner="sum",
                                         initializer=tf.constant_initializer(TABLE))
    assert [c.name for c in shared] == ["watched_shared_embedding",
                                        "impressed_shared_embedding"]
    out = fc.input_layer({"watched": [[0, 1]], "impressed": [[3, -1]]}, shared)
    [table] = tf.global_variables()
    assert table.name == "input_layer/impressed_watched_shared_embedding/embedding_weights:0"
    # Sorted by name: "impressed_..." first. Name and values as the reference TF gives them.
    np.testing.assert_allclose(_init_and_run(out), [[7, 8, 1 + 3, 2 + 4]])


def test_shared_embedding_columns_errors():
    a = fc.categorical_column_with_identity("a", 4)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([a, fc.categorical_column_with_identity("b", 5)], 2)
    with pytest.raises(ValueError, match="must have the same type"):
        fc.shared_embedding_columns([a, fc.categorical_column_with_hash_bucket("b", 4)], 2)


def test_input_layer_rejects_categorical_and_duplicate_columns():
    ids = fc.categorical_column_with_identity("ids", 4)
    with pytest.raises(ValueError, match="Items of feature_columns must be a _DenseColumn"):
        fc.input_layer({"ids": [[1]]}, [ids])
    price = fc.numeric_column("price")
    with pytest.raises(ValueError, match="Duplicate feature column name found"):
        fc.input_layer({"price": [[1.]]}, [price, fc.numeric_column("price", shape=2)])
    with pytest.raises(ValueError, match="feature_columns must not be empty"):
        fc.input_layer({"price": [[1.]]}, [])
    with pytest.raises(ValueError, match="Expected feature_columns to be iterable, found dict"):
        fc.input_layer({"price": [[1.]]}, {"price": price})


def test_missing_feature_names_the_key_and_the_column():
    keywords = fc.embedding_column(fc.categorical_column_with_hash_bucket("keywords", 10), 2)
    with pytest.raises(ValueError, match="Feature keywords is not in features dictionary. "
                                         "Column keywords needs it."):
        fc.input_layer({"price": [[1.]]}, [keywords])


def test_wrong_rank_and_wrong_width_are_reported_with_the_column():
    price = fc.numeric_column("price", shape=(2,))
    with pytest.raises(ValueError, match=r"Feature \(key: price\) cannot have rank 0"):
        fc.input_layer({"price": 3.0}, [price])
    with pytest.raises(ValueError, match="Column price expects 2 values per example"):
        fc.input_layer({"price": [[1., 2., 3.]]}, [price])


def test_batch_sizes_must_agree():
    with pytest.raises(ValueError, match="Batch size \\(first dimension\\) of each feature "
                                         "must be same"):
        fc.input_layer({"a": [[1.], [2.]], "b": [[1.]]},
                       [fc.numeric_column("a"), fc.numeric_column("b")])


def test_features_of_unknown_rank_are_expanded_when_rank_one():
    price = tf.placeholder(tf.float32, shape=None)
    out = fc.input_layer({"price": price}, [fc.numeric_column("price")])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {price: [1., 2.]}), [[1.], [2.]])
        np.testing.assert_allclose(sess.run(out, {price: [[3.], [4.]]}), [[3.], [4.]])


def test_sparse_rank_one_feature_becomes_batch_by_one():
    ids = fc.categorical_column_with_identity("ids", 4)
    sparse = tf.SparseTensor([[0], [2]], tf.constant([1, 3], tf.int64), [3])
    out = fc.input_layer({"ids": sparse}, [fc.indicator_column(ids)])
    np.testing.assert_array_equal(_init_and_run(out), [[0, 1, 0, 0], [0, 0, 0, 0],
                                                       [0, 0, 0, 1]])


# --- linear_model ---------------------------------------------------------------------------

def test_linear_model_variable_names_and_zero_start():
    price = fc.numeric_column("price")
    keywords = fc.categorical_column_with_hash_bucket("keywords", 100)
    cols_to_vars = {}
    predictions = fc.linear_model({"price": [[1.], [2.]], "keywords": [["a"], ["b"]]},
                                  [price, keywords], cols_to_vars=cols_to_vars)
    assert predictions.name == "linear_model/weighted_sum:0"
    assert predictions.shape.as_list() == [2, 1]
    assert sorted(v.name for v in tf.global_variables()) == [
        "linear_model/bias_weights:0", "linear_model/keywords/weights:0",
        "linear_model/price/weights:0"]
    assert [v.name for v in cols_to_vars["bias"]] == ["linear_model/bias_weights:0"]
    assert [v.name for v in cols_to_vars[price]] == ["linear_model/price/weights:0"]
    assert cols_to_vars[keywords][0].shape.as_list() == [100, 1]
    np.testing.assert_array_equal(_init_and_run(predictions), [[0.], [0.]])


@pytest.mark.parametrize("combiner, scale", [
    ("sum", [1., 1.]),
    ("mean", [1 / 2, 1 / 1]),
    ("sqrtn", [1 / np.sqrt(2), 1 / np.sqrt(1)]),
])
def test_linear_model_sparse_combiner(combiner, scale):
    # The "sqrtn" case gives [[38.78427], [35.5]] in the reference TF too.
    price = fc.numeric_column("price")
    ids = fc.categorical_column_with_identity("ids", 3)
    cols_to_vars = {}
    features = {"price": [[2.], [3.]], "ids": [[0, 2], [1, -1]]}
    predictions = fc.linear_model(features, [price, ids], sparse_combiner=combiner,
                                  cols_to_vars=cols_to_vars)
    [id_weights] = cols_to_vars[ids]
    [price_weight] = cols_to_vars[price]
    [bias] = cols_to_vars["bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([id_weights.assign([[10.], [20.], [30.]]), price_weight.assign([[5.]]),
                  bias.assign([0.5])])
        value = sess.run(predictions)
    expected = [[(10 + 30) * scale[0] + 2 * 5 + 0.5], [20 * scale[1] + 3 * 5 + 0.5]]
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_linear_model_units_and_bucketized_as_categorical():
    buckets = fc.bucketized_column(fc.numeric_column("age"), [18., 65.])
    cols_to_vars = {}
    predictions = fc.linear_model({"age": [[10.], [70.]]}, [buckets], units=3,
                                  cols_to_vars=cols_to_vars)
    [weights] = cols_to_vars[buckets]
    assert weights.name == "linear_model/age_bucketized/weights:0"
    assert weights.shape.as_list() == [3, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(weights.assign(np.arange(9.).reshape(3, 3)))
        np.testing.assert_allclose(sess.run(predictions), [[0, 1, 2], [6, 7, 8]])


def test_linear_model_rejects_non_columns():
    with pytest.raises(ValueError, match="Items of feature_columns must be a _FeatureColumn"):
        fc.linear_model({"price": [[1.]]}, ["price"])


# --- _LazyBuilder ------------------------------------------------------------------------------

class _CountingNumericColumn(_NumericColumn):
    """A numeric column that counts its transformations."""

    calls = 0

    def _transform_feature(self, inputs):
        type(self).calls += 1
        return super()._transform_feature(inputs)


def test_lazy_builder_transforms_each_column_once():
    _CountingNumericColumn.calls = 0
    age = _CountingNumericColumn("age", (1,), None, tf.float32, None)
    buckets = fc.bucketized_column(age, [18., 65.])
    cross = fc.crossed_column([buckets, "city"], 20)
    builder = fc_lib._LazyBuilder({"age": [[30.]], "city": [["Paris"]]})
    first = builder.get(buckets)
    assert builder.get(buckets) is first
    builder.get(cross)
    builder.get(age)
    assert _CountingNumericColumn.calls == 1
    bucketize_ops = [op for op in tf.get_default_graph().get_operations()
                     if op.type == "Bucketize"]
    assert len(bucketize_ops) == 1


def test_lazy_builder_converts_raw_features_once_and_accepts_columns_as_keys():
    builder = fc_lib._LazyBuilder({"price": [1., 2.], "city": np.array([["a"], [""]])})
    price = builder.get("price")
    assert builder.get("price") is price
    assert price.shape.as_list() == [2, 1]
    assert builder.get("city").dtype == tf.string
    column = fc.numeric_column("price")
    assert builder.get(column) is builder.get(column)


def test_lazy_builder_errors():
    builder = fc_lib._LazyBuilder({"price": [1.]})
    with pytest.raises(ValueError, match="^Feature cost is not in features dictionary.$"):
        builder.get("cost")
    with pytest.raises(TypeError, match='"key" must be either a "str" or "_FeatureColumn"'):
        builder.get(3)


def test_a_sparse_feature_of_unknown_rank_is_accepted():
    """`tf.sparse_placeholder(tf.string)` without a shape: rank 1 or 2 is found at run time."""
    keywords = tf.sparse_placeholder(tf.string)
    column = tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_hash_bucket("keywords", 5))
    dense = tf.feature_column.input_layer({"keywords": keywords}, [column])
    with tf.Session() as sess:
        rank_two = tf.SparseTensorValue([[0, 0], [1, 0]], np.array([b"a", b"b"], object), [2, 1])
        expected = sess.run(dense, {keywords: rank_two})
        rank_one = tf.SparseTensorValue([[0], [1]], np.array([b"a", b"b"], object), [2])
        got = sess.run(dense, {keywords: rank_one})
    assert got.shape == (2, 5)
    np.testing.assert_array_equal(got, expected)
    assert got.sum() == 2.0


def test_an_embedding_column_can_start_from_a_checkpoint(tmp_path):
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default():
        saved = tf.Variable(table, name="pretrained/table")
        saver = tf.train.Saver([saved])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "emb"))
    ids = fc.categorical_column_with_identity("ids", num_buckets=4)
    column = fc.embedding_column(ids, 3, combiner="sum", ckpt_to_load_from=prefix,
                                 tensor_name_in_ckpt="pretrained/table")
    dense = fc.input_layer({"ids": [[2], [0]]}, [column])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(dense), table[[2, 0]])


def test_unknown_rank_is_checked_and_expanded_in_a_cond():
    price = tf.placeholder(tf.float32, shape=None, name="price")
    out = fc.input_layer({"price": price}, [fc.numeric_column("price")])
    graph = tf.get_default_graph()
    merge = graph.get_operation_by_name("input_layer/price/cond/Merge")
    assert merge.type == "Merge"
    rank = graph.get_operation_by_name("input_layer/price/Rank_1")
    assert [op.type for op in rank.control_inputs] == ["Assert"]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Feature \(key: price\) cannot have rank 0"):
            sess.run(out, {price: 1.0})
