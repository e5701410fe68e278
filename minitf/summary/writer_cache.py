"""`tf.summary.FileWriterCache`: one FileWriter per log directory, shared.

Several hooks of one training loop write to the same directory (the
summaries, the steps per second); two writers would make two event files,
and TensorBoard would read them as one run written twice. The cache hands
out one FileWriter per directory, made with the default graph the first
time. `clear()` closes them all.

Mirrors `tensorflow/python/summary/writer/writer_cache.py`.
"""

import threading

from minitf.graph import ops
from minitf.summary.writer import FileWriter

__all__ = ["FileWriterCache"]


class FileWriterCache:
    """A FileWriter per log directory, created on first use."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def clear():
        """Closes every cached FileWriter and forgets them."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        """The FileWriter of `logdir`, made (with the default graph) if there is none."""
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir,
                                                            graph=ops.get_default_graph())
            return FileWriterCache._cache[logdir]
