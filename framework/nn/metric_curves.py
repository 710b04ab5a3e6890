"""``nn.ROC`` (receiver operating characteristic) and ``nn.BleuScore`` (BLEU of token
sequences), metrics accumulated in NumPy."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .metrics import Metric


def binary_curve(scores: np.ndarray, y: np.ndarray, pos_label: int) -> tuple[np.ndarray, ...]:
    """False and true positives when thresholding at each distinct score, highest first,
    and those thresholds."""
    order = np.argsort(scores, kind="mergesort")[::-1]
    scores, hits = scores[order], (y[order] == pos_label).astype(np.float64)
    last = np.r_[np.where(np.diff(scores))[0], scores.size - 1]  # end of each distinct score
    tps = np.cumsum(hits)[last]
    return 1 + last - tps, tps, scores[last]


class ROC(Metric):
    """``eval()``: ``(fpr, tpr, thresholds)`` with a leading (0, 0) point whose threshold
    is the top score + 1. Binary scores (same shape as the labels, positive class
    ``pos_label``, default 1) give arrays; (N, C) scores with ``class_num`` C give lists, one
    curve per class against the rest."""

    def __init__(self, class_num: int | None = None, pos_label: int | None = None) -> None:
        for name, value in (("class_num", class_num), ("pos_label", pos_label)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"ROC: {name} must be an int or None, got {value!r}")
        self.class_num, self.pos_label = class_num, pos_label
        super().__init__()

    def clear(self) -> None:
        self.y_pred: Any = 0
        self.y: Any = 0
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"ROC.update needs 2 inputs (predictions, labels), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim:
            if self.class_num not in (None, 1):
                raise ValueError(f"ROC: scores shaped as the labels are binary; class_num must be "
                                 f"1 or None, got {self.class_num}")
            self.class_num = 1
            self.pos_label = 1 if self.pos_label is None else self.pos_label
            y_pred, y = y_pred.ravel(), y.ravel()
        elif y_pred.ndim == y.ndim + 1:
            if self.pos_label is not None:
                raise ValueError("ROC: with (N, C) scores each class is the positive one in turn; "
                                 f"pos_label must be None, got {self.pos_label}")
            if self.class_num != y_pred.shape[1]:
                raise ValueError(f"ROC: class_num ({self.class_num}) must be the number of score "
                                 f"columns, {y_pred.shape[1]}")
            y = y.ravel()
        else:
            raise ValueError(f"ROC.update: scores of {y_pred.ndim} dimensions do not go with labels "
                             f"of {y.ndim} (the same, or one more)")
        self.y_pred, self.y, self._is_update = y_pred, y, True

    @staticmethod
    def _curve(scores: np.ndarray, y: np.ndarray, pos_label: int) -> tuple[np.ndarray, ...]:
        fps, tps, thresholds = binary_curve(scores, y, pos_label)
        fps, tps = np.r_[0.0, fps], np.r_[0.0, tps]
        thresholds = np.r_[thresholds[0] + 1, thresholds]
        if fps[-1] <= 0:
            raise ValueError("ROC.eval: the labels hold no negative sample; the false positive "
                             "rate is undefined")
        if tps[-1] <= 0:
            raise ValueError("ROC.eval: the labels hold no positive sample; the true positive "
                             "rate is undefined")
        return fps / fps[-1], tps / tps[-1], thresholds

    def eval(self) -> Any:
        if not self._is_update:
            raise RuntimeError("ROC.eval: call update() first")
        if self.class_num == 1:
            return self._curve(np.asarray(self.y_pred), np.asarray(self.y), self.pos_label)
        curves = [self._curve(self.y_pred[:, c], self.y, c) for c in range(self.class_num)]
        return tuple([curve[i] for curve in curves] for i in range(3))


def _ngrams(tokens: list, n_gram: int) -> Counter:
    counts: Counter = Counter()
    for n in range(1, n_gram + 1):
        for j in range(len(tokens) - n + 1):
            counts[tuple(tokens[j:j + n])] += 1
    return counts


class BleuScore(Metric):
    """BLEU over ``update(candidates, references)`` (each candidate a token list, its
    references a list of token lists): clipped n-gram precisions up to ``n_gram`` (1..4),
    their geometric mean (``smooth``: each +1 over +1), times the brevity penalty
    ``exp(1 - r / c)`` when the candidates are not longer than the closest references; 0
    when some order has no match."""

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        if isinstance(n_gram, bool) or not isinstance(n_gram, int):
            raise TypeError(f"BleuScore: n_gram must be an int, got {n_gram!r}")
        if not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be in 1..4, got {n_gram}")
        if not isinstance(smooth, bool):
            raise TypeError(f"BleuScore: smooth must be a bool, got {smooth!r}")
        self.n_gram, self.smooth = n_gram, smooth
        super().__init__()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c, self._r = 0.0, 0.0
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"BleuScore.update needs 2 inputs (candidates, references), got {len(inputs)}")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore.update: {len(candidates)} candidates for {len(references)} "
                             "reference lists")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            lengths = [len(r) for r in refs]
            self._r += min(lengths, key=lambda n: (abs(len(candidate) - n), lengths.index(n)))
            counts = _ngrams(candidate, self.n_gram)
            best: Counter = Counter()
            for ref in refs:
                best |= _ngrams(ref, self.n_gram)
            for gram, k in (counts & best).items():
                self._numerator[len(gram) - 1] += k
            for gram, k in counts.items():
                self._denominator[len(gram) - 1] += k
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("BleuScore.eval: call update() first")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1) / (self._denominator + 1)
        else:
            precision = self._numerator / self._denominator
        mean = np.exp(np.sum(np.log(precision) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - np.array(self._r) / np.array(self._c))
        return penalty * mean
