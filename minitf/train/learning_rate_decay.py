"""Learning-rate schedules: a learning rate that is a function of the global step.

Each function here adds a few ops that compute the decayed learning rate
from a step tensor (usually the global step variable) and returns that
scalar tensor. Pass it to an optimizer as its `learning_rate`; because it is
recomputed on every `sess.run`, the rate follows the step as
`minimize(..., global_step=step)` increments it:

    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, decay_steps=1000, decay_rate=0.96)
    train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)

All arithmetic is done in the dtype of `learning_rate`; the step and the
other arguments are cast to it.

Where a schedule picks one of several formulas, it does so as TensorFlow
does, with `tf.case` (piecewise_constant) or `tf.cond` (the cycle of
polynomial_decay, the period lengths of cosine_decay_restarts): only the
chosen branch runs.

Mirrors `tensorflow/python/training/learning_rate_decay.py` (TF 1.15, whose
bodies live in `tensorflow/python/keras/optimizer_v2/learning_rate_schedule.py`).
"""

import math

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import control_flow_ops
from minitf.ops import math_ops
from minitf.ops import random_ops

__all__ = ["exponential_decay", "piecewise_constant", "piecewise_constant_decay",
           "polynomial_decay", "natural_exp_decay", "inverse_time_decay", "cosine_decay",
           "cosine_decay_restarts", "linear_cosine_decay", "noisy_linear_cosine_decay"]


# =============================================================================
# Helpers
# =============================================================================

def _require_global_step(global_step, function_name):
    if global_step is None:
        raise ValueError("global_step is required for %s." % function_name)


def _initial_rate(learning_rate):
    """The initial rate as a tensor; its dtype is the dtype of every schedule's arithmetic."""
    return convert_to_tensor(learning_rate, name="initial_learning_rate")


# =============================================================================
# Exponential, natural-exponential and inverse-time decay
# =============================================================================

def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps).

    With `staircase=True` the exponent is floored, so the rate drops once
    every `decay_steps` steps instead of a little at every step.
    """
    _require_global_step(global_step, "exponential_decay")
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase,
                        name)


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name):
    with ops.name_scope(name, "ExponentialDecay",
                        [learning_rate, global_step, decay_steps, decay_rate]) as name:
        learning_rate = _initial_rate(learning_rate)
        dtype = learning_rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        decay_rate = math_ops.cast(decay_rate, dtype)
        step = math_ops.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(learning_rate, math_ops.pow(decay_rate, p), name=name)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps).

    TF computes it as an exponential decay with base exp(-decay_rate).
    """
    _require_global_step(global_step, "natural_exp_decay")
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, natural_exp_rate, staircase,
                        name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps).

    With `staircase=True` the ratio global_step / decay_steps is floored.
    """
    _require_global_step(global_step, "inverse_time_decay")
    with ops.name_scope(name, "InverseTimeDecay",
                        [learning_rate, global_step, decay_rate]) as name:
        learning_rate = _initial_rate(learning_rate)
        dtype = learning_rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        decay_rate = math_ops.cast(decay_rate, dtype)
        step = math_ops.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = math_ops.floor(p)
        one = math_ops.cast(constant(1), dtype)
        denominator = math_ops.add(one, math_ops.multiply(decay_rate, p))
        return math_ops.divide(learning_rate, denominator, name=name)


# =============================================================================
# Piecewise constant
# =============================================================================

def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[i] while boundaries[i-1] < x <= boundaries[i],
    values[-1] once x > boundaries[-1].

    The boundaries must have x's dtype (Python ints are fine for an int64
    step: int32 boundaries are promoted) and all values one dtype.
    """
    boundaries = [convert_to_tensor(b) for b in _flatten(boundaries)]
    values = [convert_to_tensor(v) for v in _flatten(values)]
    x = convert_to_tensor(x)
    boundaries = [_boundary_like(b, x) for b in boundaries]
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                             % (values[0].dtype.base_dtype, v.dtype.base_dtype))
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with ops.name_scope(name, "PiecewiseConstant", [x, boundaries, values]):
        pred_fn_pairs = [(x <= boundaries[0], lambda: values[0]),
                         (x > boundaries[-1], lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred_fn_pairs.append(((x > low) & (x <= high), lambda v=v: v))
        # The predicates are exclusive and exhaustive; tf.case wants a default all the same.
        return control_flow_ops.case(pred_fn_pairs, lambda: values[0], exclusive=True)


piecewise_constant_decay = piecewise_constant


def _flatten(items):
    if isinstance(items, (list, tuple)):
        return [leaf for item in items for leaf in _flatten(item)]
    return [items]


def _boundary_like(boundary, x):
    """`boundary` in x's dtype: int32 is promoted to an int64 x, any other mismatch is an error."""
    if boundary.dtype.base_dtype == x.dtype.base_dtype:
        return boundary
    if boundary.dtype.base_dtype == dtypes.int32 and x.dtype.base_dtype == dtypes.int64:
        return math_ops.cast(boundary, dtypes.int64)
    raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                     % (boundary.dtype.base_dtype, x.dtype.base_dtype))


# =============================================================================
# Polynomial decay
# =============================================================================

def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """From learning_rate to end_learning_rate along (1 - step / decay_steps) ^ power.

    Without `cycle` the rate stays at end_learning_rate after decay_steps.
    With `cycle` the decay restarts: decay_steps is stretched to the first
    multiple of itself that is >= global_step.
    """
    _require_global_step(global_step, "polynomial_decay")
    with ops.name_scope(name, "PolynomialDecay",
                        [learning_rate, global_step, decay_steps, end_learning_rate,
                         power]) as name:
        learning_rate = _initial_rate(learning_rate)
        dtype = learning_rate.dtype
        end_learning_rate = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        decay_steps_recomp = math_ops.cast(decay_steps, dtype)
        if cycle:
            # At step 0 the first cycle is used (ceil(0) would give a zero length).
            multiplier = control_flow_ops.cond(
                math_ops.equal(step, 0), lambda: constant(1.0, dtype=dtype),
                lambda: math_ops.ceil(step / decay_steps_recomp))
            decay_steps_recomp = math_ops.multiply(decay_steps_recomp, multiplier)
        else:
            step = math_ops.minimum(step, decay_steps_recomp)
        p = math_ops.divide(step, decay_steps_recomp)
        return math_ops.add(
            math_ops.multiply(learning_rate - end_learning_rate, math_ops.pow(1 - p, power)),
            end_learning_rate, name=name)


# =============================================================================
# Cosine decays
# =============================================================================

def _cosine(fraction, dtype):
    """0.5 * (1 + cos(pi * fraction)): 1 at fraction 0, 0 at fraction 1."""
    return 0.5 * (1.0 + math_ops.cos(constant(math.pi, dtype=dtype) * fraction))


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * cosine + alpha), with
    cosine = 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)).

    `alpha` is the final rate, as a fraction of learning_rate.
    """
    _require_global_step(global_step, "cosine_decay")
    with ops.name_scope(name, "CosineDecay", [learning_rate, global_step]):
        learning_rate = _initial_rate(learning_rate)
        dtype = learning_rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
        completed_fraction = step / decay_steps
        decayed = (1 - alpha) * _cosine(completed_fraction, dtype) + alpha
        return math_ops.multiply(learning_rate, decayed)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0,
                          alpha=0.0, name=None):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter 2016).

    The first period lasts `first_decay_steps`; each period is `t_mul`
    times longer than the one before and starts from a rate `m_mul` times
    the previous start.
    """
    _require_global_step(global_step, "cosine_decay_restarts")
    with ops.name_scope(name, "SGDRDecay", [learning_rate, global_step]) as name:
        learning_rate = _initial_rate(learning_rate)
        dtype = learning_rate.dtype
        first_decay_steps = math_ops.cast(first_decay_steps, dtype)
        alpha = math_ops.cast(alpha, dtype)
        t_mul = math_ops.cast(t_mul, dtype)
        m_mul = math_ops.cast(m_mul, dtype)
        step = math_ops.cast(global_step, dtype)
        completed_fraction = step / first_decay_steps

        # i_restart: how many periods are over; completed_fraction: how far into this one.
        i_restart, completed_fraction = control_flow_ops.cond(
            math_ops.equal(t_mul, 1.0),
            lambda: _restart_with_equal_periods(completed_fraction),
            lambda: _restart_with_growing_periods(completed_fraction, t_mul))

        m_fac = m_mul ** i_restart
        cosine_decayed = m_fac * _cosine(completed_fraction, dtype)
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(learning_rate, decayed, name=name)


def _restart_with_equal_periods(completed_fraction):
    i_restart = math_ops.floor(completed_fraction)
    return i_restart, completed_fraction - i_restart


def _restart_with_growing_periods(completed_fraction, t_mul):
    """Periods 1, t, t^2, ... (in units of the first): sum_{k<i} t^k = (1 - t^i) / (1 - t)."""
    i_restart = math_ops.floor(math_ops.log(1.0 - completed_fraction * (1.0 - t_mul)) /
                               math_ops.log(t_mul))
    sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
    return i_restart, (completed_fraction - sum_r) / t_mul ** i_restart


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta), with
    linear = (decay_steps - step) / decay_steps and
    cosine = 0.5 * (1 + cos(2 pi num_periods step / decay_steps)), step capped at decay_steps.
    """
    _require_global_step(global_step, "linear_cosine_decay")
    with ops.name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as name:
        learning_rate, decay_steps, step, num_periods, alpha, beta = _linear_cosine_inputs(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta)
        linear_decayed = (decay_steps - step) / decay_steps
        cosine_decayed = _periodic_cosine(step, decay_steps, num_periods)
        linear_cosine_decayed = (alpha + linear_decayed) * cosine_decayed + beta
        return math_ops.multiply(learning_rate, linear_cosine_decayed, name=name)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """linear_cosine_decay with Gaussian noise on the linear part.

    The noise variance is initial_variance / (1 + step) ^ variance_decay.
    """
    _require_global_step(global_step, "noisy_linear_cosine_decay")
    with ops.name_scope(name, "NoisyLinearCosineDecay", [learning_rate, global_step]) as name:
        learning_rate, decay_steps, step, num_periods, alpha, beta = _linear_cosine_inputs(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta)
        dtype = learning_rate.dtype
        initial_variance = math_ops.cast(initial_variance, dtype)
        variance_decay = math_ops.cast(variance_decay, dtype)
        linear_decayed = (decay_steps - step) / decay_steps
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        std = math_ops.sqrt(variance)
        noisy_linear_decayed = linear_decayed + random_ops.random_normal(
            linear_decayed.shape, stddev=std, dtype=dtype)
        cosine_decayed = _periodic_cosine(step, decay_steps, num_periods)
        noisy_linear_cosine_decayed = (alpha + noisy_linear_decayed) * cosine_decayed + beta
        return math_ops.multiply(learning_rate, noisy_linear_cosine_decayed, name=name)


def _linear_cosine_inputs(learning_rate, global_step, decay_steps, num_periods, alpha, beta):
    learning_rate = _initial_rate(learning_rate)
    dtype = learning_rate.dtype
    decay_steps = math_ops.cast(decay_steps, dtype)
    num_periods = math_ops.cast(num_periods, dtype)
    alpha = math_ops.cast(alpha, dtype)
    beta = math_ops.cast(beta, dtype)
    step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
    return learning_rate, decay_steps, step, num_periods, alpha, beta


def _periodic_cosine(step, decay_steps, num_periods):
    completed_fraction = step / decay_steps
    fraction = 2.0 * num_periods * completed_fraction
    return _cosine(fraction, step.dtype)
