"""Kernels of connectionist temporal classification: CTCLoss and the decoders.

CTC scores a label sequence against per-step class scores without knowing
which step emits which label. The labels are spread out with blanks, l' =
[blank, l1, blank, l2, ..., blank]; an alignment walks through l' one step
per time step, staying, moving to the next entry, or skipping a blank
between two different labels. The forward variables alpha[t, s] (log
probability of being at s after step t) and the backward ones beta[t, s]
(of finishing from s) are computed over all states s at once, one time step
after the other; p(labels) is the sum of the two ways to end, and
alpha * beta / p is how likely each state is at each step, which gives the
gradient: softmax(logits) - that occupancy, per class. Everything is in log
space, where products are sums and sums are logaddexp.

The greedy decoder takes the best class at every step, merges repeats and
drops blanks; the beam search decoder keeps the most probable prefixes
(label sequences so far) from step to step.

Mirrors `tensorflow/core/kernels/ctc_loss_op.cc`,
`tensorflow/core/util/ctc/ctc_loss_calculator.cc`,
`tensorflow/core/util/ctc/ctc_beam_search.h` and
`tensorflow/core/kernels/ctc_decoder_ops.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


def _check_inputs_and_lengths(inputs, sequence_length):
    if inputs.ndim != 3:
        raise invalid("inputs is not a 3-Tensor: %s" % shape_text(inputs.shape))
    if sequence_length.ndim != 1:
        raise invalid("sequence_length is not a vector: %s" % shape_text(sequence_length.shape))
    max_time, batch_size, _ = inputs.shape
    if sequence_length.shape[0] != batch_size:
        raise invalid("len(sequence_length) != batch_size.  len(sequence_length):  %d "
                      "batch_size: %d" % (sequence_length.shape[0], batch_size))
    for b, length in enumerate(sequence_length.tolist()):
        if not 0 <= length <= max_time:
            raise invalid("sequence_length(%d) <= %d" % (b, max_time))


def _log_softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _labels_by_batch(indices, values, batch_size, num_classes):
    """The label sequence of each batch entry, from the SparseTensor parts."""
    if indices.ndim != 2 or indices.shape[1] != 2:
        raise invalid("labels_indices is not a matrix of [batch, position] rows: %s"
                      % shape_text(indices.shape))
    if values.ndim != 1:
        raise invalid("labels_values is not a vector: %s" % shape_text(values.shape))
    if indices.shape[0] != values.shape[0]:
        raise invalid("labels_indices and labels_values must contain the same number of rows, "
                      "but saw shapes: %s vs. %s" % (shape_text(indices.shape),
                                                      shape_text(values.shape)))
    labels = [[] for _ in range(batch_size)]
    for (b, _), value in sorted(zip(indices.tolist(), values.tolist()), key=lambda r: r[0]):
        if not 0 <= b < batch_size:
            raise invalid("labels batch index must be between 0 and %d but saw: %d"
                          % (batch_size - 1, b))
        if not 0 <= value < num_classes - 1:
            raise invalid("Labels must be in the range [0, num_classes - 1) = [0, %d), the last "
                          "class being the blank; saw %d in batch entry %d"
                          % (num_classes - 1, value, b))
        labels[b].append(value)
    return labels


def _collapse_repeats(label):
    return [v for i, v in enumerate(label) if i == 0 or v != label[i - 1]]


def _required_time(label, merge_repeated):
    """The fewest time steps that can emit `label`: one more per repeat when repeats merge
    (a blank must separate them)."""
    repeats = sum(1 for a, b in zip(label, label[1:]) if a == b) if merge_repeated else 0
    return len(label) + repeats


class _LabelGraph:
    """The states l' of one label sequence and the moves allowed between them."""

    def __init__(self, label, blank, merge_repeated):
        self.states = np.full(2 * len(label) + 1, blank, dtype=np.int64)
        self.states[1::2] = label
        s = np.arange(len(self.states))
        # Stay: on a blank always; on a label only when repeats merge (else a second
        # step on it would be a second label).
        self.can_stay = (self.states == blank) | merge_repeated
        # Skip the blank before s: onto a label that differs from the one two back
        # (or any label, when repeats do not merge).
        two_back = np.concatenate([[blank, blank], self.states[:-2]])
        self.can_skip = ((s >= 2) & (self.states != blank)
                         & ~(merge_repeated & (self.states == two_back)))

    def forward(self, log_probs):
        """log alpha[t, s]: the alignments of steps 0..t that are at s after step t."""
        steps, size = log_probs.shape[0], len(self.states)
        alpha = np.full((steps, size), -np.inf)
        alpha[0, :2] = log_probs[0, self.states[:2]]
        for t in range(1, steps):
            previous = alpha[t - 1]
            from_stay = np.where(self.can_stay, previous, -np.inf)
            from_next = np.concatenate([[-np.inf], previous[:-1]])
            from_skip = np.where(self.can_skip, np.concatenate([[-np.inf] * 2, previous[:-2]]),
                                 -np.inf)
            alpha[t] = (np.logaddexp(np.logaddexp(from_stay, from_next), from_skip)
                        + log_probs[t, self.states])
        return alpha

    def backward(self, log_probs):
        """log beta[t, s]: the ways to finish from s after step t (steps t+1.. emitted)."""
        steps, size = log_probs.shape[0], len(self.states)
        beta = np.full((steps, size), -np.inf)
        beta[steps - 1, max(size - 2, 0):] = 0.0
        for t in range(steps - 2, -1, -1):
            following = beta[t + 1] + log_probs[t + 1, self.states]
            to_stay = np.where(self.can_stay, following, -np.inf)
            to_next = np.concatenate([following[1:], [-np.inf]])
            to_skip = np.concatenate([np.where(self.can_skip, following, -np.inf)[2:],
                                      [-np.inf] * 2])
            beta[t] = np.logaddexp(np.logaddexp(to_stay, to_next), to_skip)
        return beta


def _ctc_loss_and_gradient(logits, label, merge_repeated):
    """-log p(label | logits) and its gradient w.r.t. the [time, classes] logits."""
    num_classes = logits.shape[1]
    log_probs = _log_softmax(logits)
    graph = _LabelGraph(label, num_classes - 1, merge_repeated)
    alpha, beta = graph.forward(log_probs), graph.backward(log_probs)
    ends = alpha[-1, max(len(graph.states) - 2, 0):]
    log_p = np.logaddexp.reduce(ends)
    occupancy_by_state = np.exp(alpha + beta - log_p)  # [time, states]
    occupancy = np.zeros_like(logits)
    np.add.at(occupancy, (slice(None), graph.states), occupancy_by_state)
    return -log_p, np.exp(log_probs) - occupancy


@register_kernel("CTCLoss")
def ctc_loss(ctx, inputs, labels_indices, labels_values, sequence_length, *,
             preprocess_collapse_repeated, ctc_merge_repeated,
             ignore_longer_outputs_than_inputs):
    """Per batch entry, within its sequence_length: the loss and the logits' gradient."""
    _check_inputs_and_lengths(inputs, sequence_length)
    max_time, batch_size, num_classes = inputs.shape
    if batch_size == 0:
        raise invalid("batch_size must not be 0")
    labels = _labels_by_batch(labels_indices, labels_values, batch_size, num_classes)
    logits = inputs.astype(np.float64)
    loss = np.zeros(batch_size)
    gradient = np.zeros(inputs.shape)
    for b, (label, length) in enumerate(zip(labels, sequence_length.tolist())):
        if preprocess_collapse_repeated:
            label = _collapse_repeats(label)
        required = _required_time(label, ctc_merge_repeated)
        if length < required:
            if ignore_longer_outputs_than_inputs:
                continue
            raise invalid("Not enough time for target transition sequence (required: %d, "
                          "available: %d)%d, You can turn this error into a warning by "
                          "using the flag ignore_longer_outputs_than_inputs"
                          % (required, length, b))
        if length == 0:
            continue  # the empty label, in no time: probability 1
        loss[b], gradient[:length, b] = _ctc_loss_and_gradient(logits[:length, b], label,
                                                               ctc_merge_repeated)
    return loss.astype(inputs.dtype), gradient.astype(inputs.dtype)


def _sparse_sequences(sequences):
    """SparseTensor parts (indices, values, dense shape) of a list of label lists."""
    indices = [[b, i] for b, sequence in enumerate(sequences) for i in range(len(sequence))]
    values = [v for sequence in sequences for v in sequence]
    longest = max((len(s) for s in sequences), default=0)
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), np.array(values, dtype=np.int64),
            np.array([len(sequences), longest], dtype=np.int64))


@register_kernel("CTCGreedyDecoder")
def ctc_greedy_decoder(ctx, inputs, sequence_length, *, merge_repeated, blank_index):
    """The best class at each step; repeats merged (if asked), blanks dropped.

    log_probability is, as in TensorFlow, minus the sum of the best logits.
    """
    _check_inputs_and_lengths(inputs, sequence_length)
    num_classes = inputs.shape[2]
    blank = blank_index + num_classes if blank_index < 0 else blank_index
    if not 0 <= blank < num_classes:
        raise invalid("blank_index expected to be between %d and %d but was %d"
                      % (-num_classes, num_classes - 1, blank_index))
    best = np.argmax(inputs, axis=2)  # [time, batch]
    best_logits = np.max(inputs, axis=2)
    sequences, log_probability = [], np.zeros((inputs.shape[1], 1), dtype=inputs.dtype)
    for b, length in enumerate(sequence_length.tolist()):
        path = best[:length, b].tolist()
        log_probability[b, 0] = -np.sum(best_logits[:length, b])
        sequences.append([c for t, c in enumerate(path) if c != blank
                          and not (merge_repeated and t > 0 and c == path[t - 1])])
    return (*_sparse_sequences(sequences), log_probability)


# --- beam search ----------------------------------------------------------------------------------

_LOG_ZERO = -np.inf


class _Beam:
    """A prefix of labels in the beam search tree, with the log probabilities that its
    paths end in a blank, end in its label, or either: `new` now, `old` one step ago."""

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.new = self._zero()
        self.old = self._zero()

    @staticmethod
    def _zero():
        return {"blank": _LOG_ZERO, "label": _LOG_ZERO, "total": _LOG_ZERO}

    @property
    def active(self):
        return self.new["total"] != _LOG_ZERO

    def child(self, label):
        if label not in self.children:
            self.children[label] = _Beam(self, label)
        return self.children[label]

    def labels(self, merge_repeated):
        """The label sequence of the prefix (repeats merged when asked, as TF does)."""
        sequence, beam, previous = [], self, -1
        while beam.parent is not None:
            if not merge_repeated or beam.label != previous:
                sequence.append(beam.label)
            previous, beam = beam.label, beam.parent
        return sequence[::-1]


class _BeamSearch:
    """TensorFlow's CTC prefix beam search, step by step.

    The beam holds the `beam_width` prefixes of highest probability. Each
    step first updates every prefix in it (its paths may go on with a blank
    or repeat its last label), then offers each its one-label extensions;
    an extension enters only by beating the weakest prefix, which then
    leaves the beam and forgets its probability. A prefix's probability is
    the sum over the paths that spell it, so with a beam wide enough to keep
    every prefix it is exact.
    """

    def __init__(self, num_classes, beam_width):
        self.blank, self.beam_width = num_classes - 1, beam_width
        root = _Beam(None, -1)
        root.new.update(total=0.0, blank=0.0)
        self.leaves = [root]

    def _bottom(self):
        return min(self.leaves, key=lambda b: b.new["total"])

    def _is_candidate(self, probability):
        return probability["total"] > _LOG_ZERO and (
            len(self.leaves) < self.beam_width
            or probability["total"] > self._bottom().new["total"])

    def _update(self, beam, scores):
        """The prefix's paths one step longer: a blank, or its label again."""
        if beam.parent is not None:
            if beam.parent.active:
                previous = beam.parent.old["blank" if beam.label == beam.parent.label
                                           else "total"]
                beam.new["label"] = np.logaddexp(beam.new["label"], previous)
            beam.new["label"] += scores[beam.label]
        beam.new["blank"] = beam.old["total"] + scores[self.blank]
        beam.new["total"] = np.logaddexp(beam.new["blank"], beam.new["label"])

    def _grow(self, beam, scores):
        """Offers the prefix's extensions by one label to the beam."""
        for label in range(self.blank):
            child = beam.child(label)
            if child.active:
                continue
            previous = beam.old["blank" if label == beam.label else "total"]
            child.new.update(blank=_LOG_ZERO, label=scores[label] + previous)
            child.new["total"] = child.new["label"]
            if not self._is_candidate(child.new):
                child.old, child.new = _Beam._zero(), _Beam._zero()
                continue
            if len(self.leaves) == self.beam_width:
                bottom = self._bottom()
                bottom.new = _Beam._zero()
                self.leaves.remove(bottom)
            self.leaves.append(child)

    def step(self, logits):
        scores = _log_softmax(logits)
        branches = sorted(self.leaves, key=lambda b: -b.new["total"])
        self.leaves = []
        for beam in branches:
            beam.old = dict(beam.new)
        for beam in branches:
            self._update(beam, scores)
            self.leaves.append(beam)
        for beam in branches:
            if self._is_candidate(beam.old):
                self._grow(beam, scores)

    def top_paths(self, n, merge_repeated):
        if len(self.leaves) < n:
            raise invalid("Less leaves in the beam search than requested.")
        best = sorted(self.leaves, key=lambda b: -b.new["total"])[:n]
        return [b.labels(merge_repeated) for b in best], [b.new["total"] for b in best]


@register_kernel("CTCBeamSearchDecoder")
def ctc_beam_search_decoder(ctx, inputs, sequence_length, *, beam_width, top_paths,
                            merge_repeated):
    """The `top_paths` best label sequences per batch entry, and their log probabilities."""
    _check_inputs_and_lengths(inputs, sequence_length)
    if top_paths > beam_width:
        raise invalid("top_paths must be <= beam_width")
    batch_size, num_classes = inputs.shape[1], inputs.shape[2]
    paths = [[] for _ in range(top_paths)]
    log_probability = np.zeros((batch_size, top_paths), dtype=inputs.dtype)
    for b, length in enumerate(sequence_length.tolist()):
        search = _BeamSearch(num_classes, beam_width)
        for t in range(length):
            search.step(inputs[t, b].astype(np.float64))
        best, log_probs = search.top_paths(top_paths, merge_repeated)
        for p, (labels, log_prob) in enumerate(zip(best, log_probs)):
            paths[p].append(labels)
            log_probability[b, p] = log_prob
    parts = [_sparse_sequences(sequences) for sequences in paths]
    return ([indices for indices, _, _ in parts] + [values for _, values, _ in parts]
            + [shape for _, _, shape in parts] + [log_probability])
