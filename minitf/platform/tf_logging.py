"""`tf.logging` and `tf.get_logger`: TensorFlow's logger, in Python's `logging`.

Everything minitf logs (a hook's `loss = 0.25, step = 10`, the Saver's
warnings) goes to one `logging.Logger`, named "minitf" (TensorFlow's is
named "tensorflow"). `tf.get_logger()` returns it and `tf.logging.*` write
to it, so that the TF1 habit

    tf.logging.set_verbosity(tf.logging.INFO)

shows the INFO lines of `tf.train.LoggingTensorHook` and its kin, as in
TensorFlow. When the program has not configured Python's logging (the root
logger has no handler), the first `get_logger()` gives the logger a handler
that prints to stderr in Python's basic format, as TensorFlow does (stdout
and level INFO in an interactive shell).

`log_every_n` and `log_first_n` count their calls per line of the caller's
source, as TensorFlow's do; `flush` raises NotImplementedError, as
TensorFlow's does.

Mirrors `tensorflow/python/platform/tf_logging.py`.
"""

import logging
import sys
import threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN  # noqa: F401

__all__ = ["DEBUG", "ERROR", "FATAL", "INFO", "WARN", "get_logger", "log", "debug", "info",
           "warn", "warning", "error", "fatal", "vlog", "log_if", "log_every_n", "log_first_n",
           "TaskLevelStatusMessage", "flush", "get_verbosity", "set_verbosity"]

LOGGER_NAME = "minitf"

_logger = None
_logger_lock = threading.Lock()
_calls_per_line = {}


def get_logger():
    """The logger minitf logs to (given a stderr handler the first time, if nothing else
    prints the program's logs)."""
    global _logger
    with _logger_lock:
        if _logger is None:
            logger = logging.getLogger(LOGGER_NAME)
            if not logging.getLogger().handlers:
                _add_handler(logger)
            _logger = logger
        return _logger


def _add_handler(logger):
    interactive = hasattr(sys, "ps1") or sys.flags.interactive
    if interactive:
        logger.setLevel(INFO)
    handler = logging.StreamHandler(sys.stdout if interactive else sys.stderr)
    handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
    logger.addHandler(handler)


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Logs at FATAL (CRITICAL); like TensorFlow's, it does not end the program."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    """Logs `msg % args` at `level` when `condition` holds."""
    if condition:
        vlog(level, msg, *args)


def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)th, (2n+1)th, ... call made from the same line of source."""
    count = _next_count_of_calling_line()
    log_if(level, msg, not count % n, *args)


def log_first_n(level, msg, n, *args):
    """Logs only the first `n` calls made from the same line of source."""
    count = _next_count_of_calling_line()
    log_if(level, msg, count < n, *args)


def _next_count_of_calling_line():
    """How many times the line that called log_every_n/log_first_n has called before."""
    frame = sys._getframe(2)  # the frame of the caller of log_every_n or log_first_n
    line = (frame.f_code.co_filename, frame.f_lineno)
    with _logger_lock:
        _calls_per_line[line] = _calls_per_line.get(line, -1) + 1
        return _calls_per_line[line]


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's public name
    error(msg)


def flush():
    """Raises NotImplementedError, as TensorFlow's does: Python's handlers flush themselves."""
    raise NotImplementedError()


def get_verbosity():
    """The level below which messages are dropped (WARN unless set)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    get_logger().setLevel(v)
