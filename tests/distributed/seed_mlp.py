"""The seed's multilayer perceptron, for the replication tests and their worker programs.

Seed 004's "多层感知器": 784-200-100-60-30-10, sigmoid activations, softmax
cross-entropy, GradientDescentOptimizer, on one fixed batch. `build`
makes it under any device function (none, replica_device_setter, ...),
`towers` splits the batch over devices for in-graph replication.
"""

import numpy as np

import minitf as tf

SIZES = (784, 200, 100, 60, 30, 10)
BATCH = 32
LEARNING_RATE = 0.5


def batch():
    rng = np.random.RandomState(4)
    images = rng.rand(BATCH, SIZES[0]).astype(np.float32)
    labels = np.eye(SIZES[-1], dtype=np.float32)[rng.randint(0, SIZES[-1], BATCH)]
    return images, labels


def variables():
    """The weights and biases of the five layers, [(w, b)], the same in every graph."""
    tf.set_random_seed(4)
    layers = []
    for i in range(1, 6):
        with tf.variable_scope("layer%d" % i):
            w = tf.Variable(tf.truncated_normal([SIZES[i - 1], SIZES[i]], stddev=0.1, seed=i),
                            name="w")
            b = tf.Variable(tf.zeros([SIZES[i]]), name="b")
            layers.append((w, b))
    return layers


def loss_of(layers, images, labels):
    h = images
    for i, (w, b) in enumerate(layers):
        z = tf.matmul(h, w) + b
        h = tf.nn.sigmoid(z) if i < 4 else z
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=h))


def build():
    """(loss, train op, global step) of the whole batch, in the default graph."""
    images, labels = batch()
    global_step = tf.train.get_or_create_global_step()
    layers = variables()
    loss = loss_of(layers, tf.constant(images), tf.constant(labels))
    train = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss,
                                                                      global_step=global_step)
    return loss, train, global_step


def towers(layers, devices):
    """(mean loss, train op): the batch split over `devices`, their gradients averaged."""
    images, labels = batch()
    optimizer = tf.train.GradientDescentOptimizer(LEARNING_RATE)
    parts = len(devices)
    losses, gradients = [], []
    for i, device in enumerate(devices):
        with tf.device(device), tf.name_scope("tower%d" % i):
            rows = slice(i * BATCH // parts, (i + 1) * BATCH // parts)
            tower_loss = loss_of(layers, tf.constant(images[rows]), tf.constant(labels[rows]))
            losses.append(tower_loss)
            gradients.append(optimizer.compute_gradients(tower_loss))
    averaged = [(tf.add_n([g[k][0] for g in gradients]) / parts, gradients[0][k][1])
                for k in range(len(gradients[0]))]
    return tf.add_n(losses) / parts, optimizer.apply_gradients(averaged)


def train_locally(steps):
    """The losses of `steps` steps of plain, one-process training, and the loss after them."""
    with tf.Graph().as_default():
        loss, train, _ = build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(steps)]
            return losses, sess.run(loss)
