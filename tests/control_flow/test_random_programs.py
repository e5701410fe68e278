"""Random programs of conds and loops compute what a Python interpreter computes.

Hypothesis draws small programs over two int32 inputs `x` and `y`:

    expr := constant | x | y | acc | i         (acc, i: inside a loop)
          | expr + expr | expr * expr         (wrapped into [-500, 500))
          | if expr < expr then expr else expr            (tf.cond)
          | repeat n times: acc = expr, starting from expr (tf.while_loop)

Each program is built as a graph (conds nested in loops, loops in conds,
loops in loops) and run; a Python interpreter of the same program gives
the expected value. The loops draw their `parallel_iterations`, so some
run one iteration at a time and others overlap theirs, and each program
runs twice: plainly, where a loop runs flat when it can, and traced, where
every loop runs as dataflow.
"""

import collections

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitf as tf

Const = collections.namedtuple("Const", "value")
Var = collections.namedtuple("Var", "name")
Add = collections.namedtuple("Add", "a b")
Mul = collections.namedtuple("Mul", "a b")
Cond = collections.namedtuple("Cond", "left right then otherwise")
Loop = collections.namedtuple("Loop", "count init body parallel_iterations")

_LEAVES = st.one_of(st.builds(Const, st.integers(-4, 4)),
                    st.sampled_from([Var("x"), Var("y"), Var("acc"), Var("i")]))


def _extend(children):
    return st.one_of(
        st.builds(Add, children, children),
        st.builds(Mul, children, children),
        st.builds(Cond, children, children, children, children),
        st.builds(Loop, st.integers(0, 4), children, children, st.sampled_from([1, 2, 10])))


PROGRAMS = st.recursive(_LEAVES, _extend, max_leaves=10)
TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def _wrap(value):
    return (value + 500) % 1000 - 500


# --- the Python interpreter ------------------------------------------------------------

def interpret(expr, env):
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Var):
        return env.get(expr.name, 0)  # acc and i are 0 outside any loop
    if isinstance(expr, Add):
        return _wrap(interpret(expr.a, env) + interpret(expr.b, env))
    if isinstance(expr, Mul):
        return _wrap(interpret(expr.a, env) * interpret(expr.b, env))
    if isinstance(expr, Cond):
        taken = expr.then if interpret(expr.left, env) < interpret(expr.right, env) \
            else expr.otherwise
        return interpret(taken, env)
    acc = interpret(expr.init, env)
    for i in range(expr.count):
        acc = interpret(expr.body, dict(env, acc=acc, i=i))
    return acc


# --- the same program as a graph ----------------------------------------------------------

def build(expr, env):
    if isinstance(expr, Const):
        return tf.constant(expr.value)
    if isinstance(expr, Var):
        return env.get(expr.name, tf.constant(0))
    if isinstance(expr, (Add, Mul)):
        a, b = build(expr.a, env), build(expr.b, env)
        return tf.floormod((a + b if isinstance(expr, Add) else a * b) + 500, 1000) - 500
    if isinstance(expr, Cond):
        return tf.cond(tf.less(build(expr.left, env), build(expr.right, env)),
                       lambda: build(expr.then, env), lambda: build(expr.otherwise, env))
    _, acc = tf.while_loop(
        lambda i, acc: i < expr.count,
        lambda i, acc: (i + 1, build(expr.body, dict(env, acc=acc, i=i))),
        [tf.constant(0), build(expr.init, env)],
        parallel_iterations=expr.parallel_iterations)
    return acc


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(program=PROGRAMS, x=st.integers(-20, 20), y=st.integers(-20, 20))
def test_a_random_program_computes_what_python_computes(program, x, y):
    graph = tf.Graph()
    with graph.as_default():
        inputs = {"x": tf.placeholder(tf.int32, [], name="x"),
                  "y": tf.placeholder(tf.int32, [], name="y")}
        result = build(program, inputs)
        feed = {inputs["x"]: x, inputs["y"]: y}
        with tf.Session() as sess:
            value = sess.run(result, feed)
            # A traced step runs every loop as dataflow; the plain one runs most of them
            # flat (minitf/executor/flat_frames.py): both must give the interpreter's value.
            traced = sess.run(result, feed, options=TRACED, run_metadata=tf.RunMetadata())
    assert value == traced == interpret(program, {"x": x, "y": y}), program
