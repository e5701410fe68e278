"""Seed 000's program from serialized Examples: parse_example with make_parse_example_spec.

The seed writes `features = tf.parse_example(..., features=make_parse_example_spec(columns))`
and feeds the result to `input_layer`. Here the click data set of the
feature-column chapter is written as tf.train.Examples into a TFRecord
file, read back with tf.data, parsed with the columns' own spec, and the
seed's network is trained on it.
"""

import numpy as np

import minitf as tf
from minitf.feature_column import categorical_column_with_hash_bucket
from minitf.feature_column import embedding_column
from minitf.feature_column import input_layer
from minitf.feature_column import make_parse_example_spec
from minitf.feature_column import numeric_column

WORDS = ["sale", "free", "news", "sports", "weather", "music", "travel", "food"]


def write_click_examples(path, count, seed):
    """Examples of price (float), keywords (1-3 strings) and clicked (the label)."""
    rng = np.random.RandomState(seed)
    with tf.io.TFRecordWriter(path) as writer:
        for _ in range(count):
            words = list(rng.choice(WORDS, size=rng.randint(1, 4), replace=False))
            price = float(rng.uniform(0, 10))
            clicked = float(bool({"sale", "free"} & set(words)) or price < 1)
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                "price": tf.train.Feature(float_list=tf.train.FloatList(value=[price])),
                "keywords": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[w.encode() for w in words])),
                "clicked": tf.train.Feature(float_list=tf.train.FloatList(value=[clicked])),
            })).SerializeToString())


def click_loss_and_training(labels, logits):
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    return loss, tf.train.AdagradOptimizer(learning_rate=0.1).minimize(loss)


def test_seed_000_program_trains_from_parsed_examples(tmp_path):
    path = str(tmp_path / "clicks.tfrecord")
    write_click_examples(path, 64, seed=0)

    price = numeric_column('price')
    keywords_embedded = embedding_column(categorical_column_with_hash_bucket("keywords", 10000),
                                         dimension=16)
    columns = [price, keywords_embedded]
    spec = make_parse_example_spec(columns)
    assert spec == {"price": tf.FixedLenFeature((1,), tf.float32),
                    "keywords": tf.VarLenFeature(tf.string)}
    spec["clicked"] = tf.FixedLenFeature([1], tf.float32)

    serialized = tf.data.make_one_shot_iterator(
        tf.data.TFRecordDataset(path).batch(64).cache().repeat()).get_next()
    features = tf.parse_example(serialized, features=spec)
    labels = features.pop("clicked")
    dense_tensor = input_layer(features, columns)
    for units in [128, 64, 32]:
        dense_tensor = tf.layers.dense(dense_tensor, units, tf.nn.relu)
    prediction = tf.layers.dense(dense_tensor, 1)
    loss, train_op = click_loss_and_training(labels, prediction)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_loss = sess.run(loss)
        for _ in range(150):
            sess.run(train_op)
        last_loss, logits, clicked = sess.run([loss, prediction, labels])
    assert last_loss < 0.2 * first_loss
    assert np.mean((logits > 0) == (clicked > 0.5)) >= 0.95
