"""`tf.resource_loader`: finding the data files that ship beside a program.

TensorFlow's paths are relative to its source tree as Bazel lays it out
(runfiles); minitf's are relative to the minitf package (`load_resource`)
or to the file of the caller (`get_data_files_path`,
`get_path_to_datafile`), which is what those functions give outside Bazel
too.

Mirrors `tensorflow/python/platform/resource_loader.py`.
"""

import inspect
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_resource(path):
    """The bytes of the file at `path`, relative to the minitf package's directory."""
    with open(os.path.abspath(os.path.join(_ROOT, path)), "rb") as f:
        return f.read()


def get_data_files_path():
    """The directory of the file that calls this."""
    return os.path.dirname(inspect.getfile(sys._getframe(1)))


def get_root_dir_with_all_resources():
    """The directory the resources of the calling program are under: its own directory."""
    return os.path.dirname(inspect.getfile(sys._getframe(1)))


def get_path_to_datafile(path):
    """`path` joined to the directory of the file that calls this."""
    return os.path.join(os.path.dirname(inspect.getfile(sys._getframe(1))), path)


def readahead_file_path(path, readahead="128M"):
    """`path` unchanged: there is no read-ahead file system to choose here."""
    del readahead
    return path
