"""`tf.io.gfile`: files and directories, with TensorFlow's errors.

A thin layer over Python's `open`, `os` and `glob`: TensorFlow's version
reaches other file systems (GCS, HDFS) through the same names; minitf
knows only the local one. What it adds is TensorFlow's error classes: a
missing file is a NotFoundError, an existing target an AlreadyExistsError,
and GFile opens lazily, as TensorFlow's does.

Mirrors `tensorflow/python/lib/io/file_io.py` and `python/platform/gfile.py`.
"""

import collections
import contextlib
import glob as _glob
import os
import shutil
import stat as _stat

from minitf.graph import errors

__all__ = ["GFile", "exists", "glob", "makedirs", "mkdir", "listdir", "remove", "rename",
           "isdir", "rmtree", "copy", "walk", "stat"]


os_error = errors.from_os_error  # an OSError as the OpError TensorFlow raises for it


class GFile:
    """A file, opened on first use: `GFile(name, mode)`, in text ('r', 'w') or binary ('rb') mode.

    Reading a missing file is a NotFoundError. It is a context manager and
    iterates over lines, as a Python file does.
    """

    def __init__(self, name, mode="r"):
        if mode.replace("b", "") not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(None, None, "mode is not one of 'r', 'w', 'a', "
                                              "'r+', 'w+', 'a+' (maybe with 'b'): %r" % mode)
        self.name = os.fspath(name)
        self.mode = mode
        self._file = None

    def _opened(self):
        if self._file is None:
            with tf_errors(self.name):
                self._file = open(self.name, self.mode)  # noqa: SIM115 - closed in close()
        return self._file

    def read(self, n=-1):
        return self._opened().read(n)

    def readline(self):
        return self._opened().readline()

    def readlines(self):
        return self._opened().readlines()

    def write(self, data):
        self._opened().write(data)

    def seek(self, offset, whence=0):
        self._opened().seek(offset, whence)

    def tell(self):
        return self._opened().tell()

    def size(self):
        return stat_size(self.name)

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self):
        return iter(self._opened())

    def __next__(self):
        return next(self._opened())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def tf_errors(path):
    """A block whose OSError is raised as the OpError TensorFlow raises for it."""
    try:
        yield
    except OSError as e:
        raise os_error(e, path) from None


def _check_target(dst, overwrite):
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists: %s" % dst)


def stat_size(path):
    with tf_errors(path):
        return os.stat(path).st_size


FileStatistics = collections.namedtuple("FileStatistics", ["length", "mtime_nsec", "is_directory"])


def stat(path):
    """A FileStatistics of `path`: its size, its modification time in ns, whether it is a
    directory; a NotFoundError when nothing is there."""
    with tf_errors(path):
        result = os.stat(path)
    return FileStatistics(result.st_size, result.st_mtime_ns, _stat.S_ISDIR(result.st_mode))


def exists(path):
    return os.path.exists(path)


def isdir(path):
    return os.path.isdir(path)


def glob(pattern):
    """The paths matching `pattern` (a string or a list of them), sorted."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    found = []
    for p in patterns:
        found.extend(_glob.glob(os.fsdecode(p)))
    return sorted(found)


def makedirs(path):
    """Creates `path` and its missing parents; an existing directory is fine."""
    with tf_errors(path):
        os.makedirs(path, exist_ok=True)


def mkdir(path):
    with tf_errors(path):
        os.mkdir(path)


def listdir(path):
    """The names in directory `path` (not full paths); NotFoundError when it does not exist."""
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, "Could not find directory %s" % path)
    return sorted(os.listdir(path))


def remove(path):
    with tf_errors(path):
        os.remove(path)


def rename(src, dst, overwrite=False):
    """Moves `src` to `dst`; AlreadyExistsError when `dst` exists and not `overwrite`."""
    _check_target(dst, overwrite)
    with tf_errors(src):
        os.replace(src, dst)


def copy(src, dst, overwrite=False):
    _check_target(dst, overwrite)
    with tf_errors(src):
        shutil.copyfile(src, dst)


def rmtree(path):
    with tf_errors(path):
        shutil.rmtree(path)


def walk(top, topdown=True, onerror=None):
    return os.walk(top, topdown=topdown, onerror=onerror)
