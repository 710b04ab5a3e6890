"""Metrics accumulated in NumPy (MindSpore's ``nn.Dice``, ``nn.ConfusionMatrix``,
``nn.Perplexity``, ``nn.CosineSimilarity``) and ``nn.auc``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .metrics import Metric


def _two(metric: Metric, inputs: tuple) -> tuple[np.ndarray, np.ndarray]:
    if len(inputs) != 2:
        raise ValueError(f"{type(metric).__name__}.update needs 2 inputs (predictions, labels), "
                         f"got {len(inputs)}")
    return metric._convert_data(inputs[0]), metric._convert_data(inputs[1])


class Dice(Metric):
    """Per update ``2 <p, y> / (<p, p> + <y, y> + smooth)`` over the whole batch; ``eval``:
    the sum of those over the number of samples seen (MindSpore's)."""

    def __init__(self, smooth: float = 1e-5) -> None:
        if isinstance(smooth, bool) or not isinstance(smooth, float) or smooth <= 0:
            raise ValueError(f"Dice: smooth must be a positive float, got {smooth!r}")
        self.smooth = smooth
        super().__init__()

    def clear(self) -> None:
        self._dice_coeff_sum, self._samples_num = 0.0, 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = _two(self, inputs)
        if y_pred.shape != y.shape:
            raise ValueError(f"Dice.update: predictions {y_pred.shape} and labels {y.shape} must "
                             "have the same shape")
        self._samples_num += y.shape[0]
        p, t = y_pred.ravel(), y.ravel()  # in the inputs' dtype, as MindSpore's
        self._dice_coeff_sum += 2 * float(np.dot(p, t)) / float(np.dot(p, p) + np.dot(t, t) + self.smooth)

    def eval(self) -> float:
        if self._samples_num == 0:
            raise RuntimeError("Dice.eval: no samples; call update() first")
        return self._dice_coeff_sum / float(self._samples_num)


class ConfusionMatrix(Metric):
    """``num_classes`` x ``num_classes`` counts, row = true class, column = predicted (from
    scores of one more axis by argmax over axis 1, or from float predictions by
    ``>= threshold``); ``normalize``: 'target' (rows sum to 1), 'prediction' (columns),
    'all', or 'no_norm'."""

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"ConfusionMatrix: num_classes must be an int, got {num_classes!r}")
        if normalize not in ("target", "prediction", "all", "no_norm"):
            raise ValueError(f"ConfusionMatrix: normalize must be 'target', 'prediction', 'all' or "
                             f"'no_norm', got {normalize!r}")
        if not isinstance(threshold, float):
            raise TypeError(f"ConfusionMatrix: threshold must be a float, got {threshold!r}")
        self.num_classes, self.normalize, self.threshold = num_classes, normalize, threshold
        super().__init__()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        y_pred, y = _two(self, inputs)
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim != y.ndim:
            raise ValueError(f"ConfusionMatrix.update: predictions of {y_pred.ndim} dimensions do "
                             f"not go with labels of {y.ndim} (the same, or one more)")
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(int)
        cells = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(int)
        counts = np.bincount(cells, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("ConfusionMatrix.eval: call update() first")
        m = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return m
        with np.errstate(invalid="ignore", divide="ignore"):
            total = {"target": m.sum(axis=1, keepdims=True), "prediction": m.sum(axis=0, keepdims=True),
                     "all": m.sum()}[self.normalize]
            out = m / total
        return np.nan_to_num(out, nan=0.0)


class Perplexity(Metric):
    """``exp(mean over labels of -log p[label])`` (probabilities floored at 1e-10), labels
    equal to ``ignore_label`` left out."""

    def __init__(self, ignore_label: int | None = None) -> None:
        if ignore_label is not None and (isinstance(ignore_label, bool)
                                         or not isinstance(ignore_label, int)):
            raise TypeError(f"Perplexity: ignore_label must be an int or None, got {ignore_label!r}")
        self.ignore_label = ignore_label
        super().__init__()

    def clear(self) -> None:
        self._sum_metric, self._num_inst = 0.0, 0

    def update(self, *inputs: Any) -> None:
        pred, label = _two(self, inputs)
        if label.size * pred.shape[-1] != pred.size:
            raise RuntimeError(f"Perplexity.update: predictions {pred.shape} and labels "
                               f"{label.shape} do not match")
        label = label.reshape(-1).astype(int)
        picked = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label]
        keep = np.ones(label.size, bool) if self.ignore_label is None else label != self.ignore_label
        self._sum_metric -= float(np.log(np.maximum(1e-10, picked[keep])).sum())
        self._num_inst += int(keep.sum())

    def eval(self) -> float:
        if self._num_inst == 0:
            raise RuntimeError("Perplexity.eval: no samples; call update() first")
        return math.exp(self._sum_metric / self._num_inst)


class CosineSimilarity(Metric):
    """The (N, N) similarities of the rows of the last ``update``'s (N, D) input: dot
    products ('dot') or cosines ('cosine'); ``zero_diagonal`` zeros i == j; ``reduction``
    'sum'/'mean' over each row, or 'none'."""

    def __init__(self, similarity: str = "cosine", reduction: str = "none",
                 zero_diagonal: bool = True) -> None:
        if similarity not in ("dot", "cosine"):
            raise ValueError(f"CosineSimilarity: similarity must be 'dot' or 'cosine', got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: reduction must be 'none', 'sum' or 'mean', "
                             f"got {reduction!r}")
        if not isinstance(zero_diagonal, bool):
            raise TypeError(f"CosineSimilarity: zero_diagonal must be a bool, got {zero_diagonal!r}")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, zero_diagonal
        super().__init__()

    def clear(self) -> None:
        self.sqr_mtx_res: Any = 0
        self._is_update = False

    def update(self, inputs: Any) -> None:
        data = self._convert_data(inputs)
        if self.similarity == "cosine":
            data = data / np.linalg.norm(data, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = data @ data.T
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("CosineSimilarity.eval: call update() first")
        result = np.array(self.sqr_mtx_res)
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            return result.mean(axis=-1)
        if self.reduction == "sum":
            return result.sum(axis=-1)
        return result


def auc(x: np.ndarray, y: np.ndarray, reorder: bool = False) -> float:
    """The area under the curve through the points (x, y) by the trapezoid rule; ``x`` must
    be monotonic unless ``reorder`` (then sorted by x, ties by y)."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"auc: x and y must be NumPy arrays, got {type(x).__name__}, {type(y).__name__}")
    flat = []
    for name, value in (("x", x), ("y", y)):
        if value.ndim == 2 and value.shape[1] == 1 or value.ndim == 1:
            flat.append(value.ravel())
        else:
            raise ValueError(f"auc: {name} must be 1-d (or (n, 1)), got shape {value.shape}")
    x, y = flat
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"auc: x and y have different lengths, {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"auc: at least 2 points are needed, got {x.shape[0]}")
    direction = 1.0
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"auc: x must be increasing or decreasing (or reorder=True), got {x}")
            direction = -1.0
    widths = np.diff(x)
    return direction * float(np.sum(widths * (y[1:] + y[:-1]) / 2.0))
