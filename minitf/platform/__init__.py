"""What a program needs around TensorFlow rather than inside it: logging and the entry point.

* `tf_logging.py`: `tf.logging` and `tf.get_logger`, over Python's
  `logging` and the logger minitf itself logs to;
* `app.py`: `tf.app.run`, the `main(argv)` entry point of a TF1 script.

This package stands on the lowest floor with `graph` and `framework`: it
imports only `minitf.graph.tf1_api` (for the error a missing name gets).

Mirrors `tensorflow/python/platform/`.
"""
