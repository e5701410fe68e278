"""`tf.logging`, `tf.get_logger` and `tf.app.run`."""

import logging
import pathlib
import subprocess
import sys

import pytest

import minitf as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def verbosity():
    level = tf.logging.get_verbosity()
    yield
    tf.logging.set_verbosity(level)


def test_tf_logging_writes_to_the_logger_minitf_logs_to(caplog, verbosity):
    assert tf.get_logger() is logging.getLogger("minitf")
    tf.logging.set_verbosity(tf.logging.INFO)
    assert tf.logging.get_verbosity() == tf.logging.INFO == logging.INFO
    tf.logging.info("loss = %s", 0.25)
    tf.logging.debug("not shown")
    tf.logging.warn("careful")
    assert [r.getMessage() for r in caplog.records] == ["loss = 0.25", "careful"]
    assert tf.logging.WARN == logging.WARNING and tf.logging.FATAL == logging.CRITICAL


def test_log_every_n_and_log_first_n_count_per_line(caplog, verbosity):
    tf.logging.set_verbosity(tf.logging.INFO)
    for i in range(7):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
    assert [r.getMessage() for r in caplog.records] == [
        "every 0", "first 0", "first 1", "every 3", "every 6"]
    tf.logging.log_if(tf.logging.INFO, "no", False)
    assert len(caplog.records) == 5


def test_flush_is_not_implemented_as_in_tensorflow():
    with pytest.raises(NotImplementedError):
        tf.logging.flush()


def test_a_fresh_process_prints_minitfs_logs_to_stderr():
    code = ("import minitf as tf\ntf.logging.set_verbosity(tf.logging.INFO)\n"
            "tf.logging.info('hello %d', 3)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "INFO:minitf:hello 3\n", done.stderr


def test_app_run_calls_main_with_argv_and_exits_with_its_value():
    seen = []
    with pytest.raises(SystemExit) as ended:
        tf.app.run(main=lambda argv: seen.append(argv) or 3, argv=["prog", "--x=1"])
    assert ended.value.code == 3 and seen == [["prog", "--x=1"]]


def test_app_run_of_a_script():
    code = ("import sys\nimport minitf.compat.v1 as tf\n"
            "def main(argv):\n    print('main', argv[1:])\n"
            "if __name__ == '__main__':\n    tf.app.run()\n")
    done = subprocess.run([sys.executable, "-c", code, "a", "b"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "main ['a', 'b']\n", done.stderr
