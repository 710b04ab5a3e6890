"""Evaluation metrics (MindSpore's ``nn.Metric``: ``clear`` / ``update`` / ``eval``).

``update`` takes Tensors, NumPy arrays or lists; ``eval`` raises ``RuntimeError`` before
any ``update``. In ``Model.eval`` a metric receives, as MindSpore's do, Tensors: the values
picked by ``indexes`` from ``(loss, logits, labels, batch_size)`` (default ``[1, 2]``:
logits and labels; :class:`Loss` uses ``[0, 3]``, the batch size an int); ``set_indexes``
changes them. ``self._convert_data(x)`` (MindSpore's) gives a Tensor or list as NumPy.
To add a metric::

    class TopKError(nn.Metric):
        def clear(self): self.wrong = self.total = 0
        def update(self, logits, labels):
            logits, labels = self._convert_data(logits), self._convert_data(labels)
            top = np.argsort(logits, axis=1)[:, -5:]
            self.wrong += int((top != labels[:, None]).all(axis=1).sum()); self.total += len(labels)
        def eval(self): return self.wrong / self.total

Formulas (MindSpore's): Precision = TP / (TP + FP), Recall = TP / (TP + FN) per class
(``eval(average=True)``: their mean), F1 = 2 P R / (P + R); MAE = sum |y - ŷ| / N and
MSE = sum (y - ŷ)² / N with the sum over a sample's elements and N the number of samples.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

EPS = sys.float_info.min


def _numpy(value: Any) -> np.ndarray:
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


def _labels(y_pred: np.ndarray, y: np.ndarray, what: str) -> np.ndarray:
    """Class indices from index labels (``N``) or one-hot rows (``N x C``), checked against predictions."""
    if y_pred.ndim != 2:
        raise ValueError(f"{what}: predictions must be N x C scores, got shape {y_pred.shape}")
    if y.ndim == 2 and y.shape == y_pred.shape:
        y = y.argmax(axis=1)
    if y.shape != (y_pred.shape[0],):
        raise ValueError(f"{what}: labels of shape {y.shape} do not match predictions {y_pred.shape}")
    return y.astype(np.int64)


class Metric:
    """Base class: accumulate with ``update``, read with ``eval``, reset with ``clear``."""

    default_indexes: tuple[int, ...] = (1, 2)

    def __init__(self) -> None:
        self._indexes: list[int] = list(self.default_indexes)
        self.clear()

    @property
    def indexes(self) -> list[int]:
        return self._indexes

    @indexes.setter
    def indexes(self, value: Sequence[int]) -> None:
        self._indexes = [int(i) for i in value]

    def set_indexes(self, indexes: Sequence[int]) -> Metric:
        self.indexes = indexes
        return self

    def clear(self) -> None:
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        raise NotImplementedError

    def eval(self) -> Any:
        raise NotImplementedError

    def _convert_data(self, data: Any) -> np.ndarray:
        """A Tensor, list or NumPy array as NumPy (MindSpore's helper for ``update``);
        anything else is a TypeError."""
        if hasattr(data, "asnumpy"):
            return data.asnumpy()
        if isinstance(data, list | np.ndarray):
            return np.asarray(data)
        raise TypeError(f"{type(self).__name__}: inputs must be Tensors, lists or NumPy arrays, "
                        f"got {type(data).__name__}")

    def _check_inputs(self, inputs: tuple[Any, ...], n: int) -> list[np.ndarray]:
        if len(inputs) != n:
            raise ValueError(f"{type(self).__name__}.update takes {n} inputs (predictions, labels), "
                             f"got {len(inputs)}")
        return [_numpy(i) for i in inputs]

    def _check_count(self, count: int) -> None:
        if count == 0:
            raise RuntimeError(f"{type(self).__name__}.eval: no samples; call update() first")

    def __call__(self, *inputs: Any) -> Any:
        """``clear`` + ``update`` + ``eval`` on one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()


class _Classification(Metric):
    """A metric of class predictions: MindSpore's ``eval_type`` argument, ``"classification"``
    (``"multilabel"`` too where ``multilabel`` is set)."""

    multilabel = False

    def __init__(self, eval_type: str = "classification") -> None:
        allowed = ("classification", "multilabel") if self.multilabel else ("classification",)
        if eval_type not in allowed:
            raise ValueError(f"{type(self).__name__}: eval_type must be one of {allowed}, "
                             f"got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()


class Accuracy(_Classification):
    """Fraction of samples whose arg-max prediction equals the label (index or one-hot labels)."""

    def clear(self) -> None:
        self._correct = 0
        self._total = 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        y = _labels(y_pred, y, "Accuracy")
        self._correct += int((y_pred.argmax(axis=1) == y).sum())
        self._total += int(y.shape[0])

    def eval(self) -> float:
        self._check_count(self._total)
        return self._correct / self._total


class Loss(Metric):
    """Mean of the per-batch losses, weighted by batch size when it is given (``update(loss, n)``)."""

    default_indexes = (0, 3)

    def clear(self) -> None:
        self._sum = 0.0
        self._count = 0

    def update(self, *inputs: Any) -> None:
        if not 1 <= len(inputs) <= 2:
            raise ValueError(f"Loss.update takes (loss[, batch_size]), got {len(inputs)} inputs")
        loss = _numpy(inputs[0])
        weight = int(inputs[1]) if len(inputs) == 2 else 1
        self._sum += float(loss.mean()) * weight
        self._count += weight

    def eval(self) -> float:
        self._check_count(self._count)
        return self._sum / self._count


class _ClassCounts(_Classification):
    """True positives, predicted positives and actual positives per class; with
    ``eval_type="multilabel"`` (0/1 predictions and labels of one shape, ``(N, C)``), per
    sample, the samples of every update in order (MindSpore's)."""

    multilabel = True

    def clear(self) -> None:
        self._tp = self._pred = self._actual = None
        self._samples = 0

    def _update_multilabel(self, y_pred: np.ndarray, y: np.ndarray) -> None:
        if y_pred.shape != y.shape or y.ndim != 2 or not np.isin(np.concatenate([y_pred.ravel(), y.ravel()]),
                                                                 (0, 1)).all():
            raise ValueError(f"{type(self).__name__}: multilabel predictions and labels must be 0/1 "
                             f"arrays of one (N, C) shape, got {y_pred.shape} and {y.shape}")
        counts = ((y_pred * y).sum(1), y_pred.sum(1), y.sum(1))
        old = (self._tp, self._pred, self._actual) if self._tp is not None else ([],) * 3
        self._tp, self._pred, self._actual = (np.concatenate([o, c]) for o, c in zip(old, counts))
        self._samples += len(y)

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if self.eval_type == "multilabel":
            self._update_multilabel(y_pred, y)
            return
        y = _labels(y_pred, y, type(self).__name__)
        c = y_pred.shape[1]
        if self._tp is None:
            self._tp, self._pred, self._actual = np.zeros(c), np.zeros(c), np.zeros(c)
        elif len(self._tp) != c:
            raise ValueError(f"{type(self).__name__}: {c} classes now, {len(self._tp)} before")
        pred = y_pred.argmax(axis=1)
        self._tp += np.bincount(y[pred == y], minlength=c)[:c]
        self._pred += np.bincount(pred, minlength=c)[:c]
        self._actual += np.bincount(y, minlength=c)[:c]
        self._samples += len(y)

    def _scores(self, which: str) -> np.ndarray:
        self._check_count(self._samples)
        return self._tp / ((self._pred if which == "precision" else self._actual) + EPS)


class Precision(_ClassCounts):
    """``eval(average=False)``: per-class TP / (TP + FP); ``average=True``: their mean."""

    def eval(self, average: bool = False) -> Any:
        p = self._scores("precision")
        return float(p.mean()) if average else p


class Recall(_ClassCounts):
    """``eval(average=False)``: per-class TP / (TP + FN); ``average=True``: their mean."""

    def eval(self, average: bool = False) -> Any:
        r = self._scores("recall")
        return float(r.mean()) if average else r


class Fbeta(_ClassCounts):
    """``Fbeta(beta)``: (1 + β²) P R / (β² P + R) per class; ``eval(average=True)``: the mean."""

    def __init__(self, beta: float) -> None:
        if not beta > 0:
            raise ValueError(f"Fbeta: beta must be > 0, got {beta!r}")
        self.beta = float(beta)
        super().__init__()

    def eval(self, average: bool = False) -> Any:
        p, r = self._scores("precision"), self._scores("recall")
        b2 = self.beta ** 2
        f = (1 + b2) * p * r / (b2 * p + r + EPS)
        return f.mean() if average else f  # a NumPy float64, as MindSpore's


class F1(Fbeta):
    def __init__(self) -> None:
        super().__init__(1.0)


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the ``k`` highest scores."""

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be an int >= 1, got {k!r}")
        self.k = k
        super().__init__()

    def clear(self) -> None:
        self._correct = 0
        self._total = 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        y = _labels(y_pred, y, type(self).__name__)
        k = min(self.k, y_pred.shape[1])
        top = np.argpartition(-y_pred, k - 1, axis=1)[:, :k]
        self._correct += int((top == y[:, None]).any(axis=1).sum())
        self._total += len(y)

    def eval(self) -> float:
        self._check_count(self._total)
        return self._correct / self._total


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(5)


class _ErrorSum(Metric):
    power = 1

    def clear(self) -> None:
        self._sum = 0.0
        self._samples = 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: labels {y.shape} and predictions {y_pred.shape} differ "
                             "in size")
        diff = np.abs(y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64))
        self._sum += float((diff ** self.power).sum())
        self._samples += int(y_pred.shape[0]) if y_pred.ndim else 1

    def eval(self) -> float:
        self._check_count(self._samples)
        return self._sum / self._samples


class MAE(_ErrorSum):
    """Mean absolute error: sum |y - ŷ| / number of samples."""


class MSE(_ErrorSum):
    """Mean squared error: sum (y - ŷ)² / number of samples."""

    power = 2


METRIC_NAMES: dict[str, type[Metric]] = {
    "accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "precision": Precision, "recall": Recall,
    "f1": F1, "top_1_accuracy": Top1CategoricalAccuracy, "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE, "mse": MSE,
}


def names() -> list[str]:
    """Metric names accepted by ``Model(metrics={...})`` (MindSpore's ``nn.names()``)."""
    return sorted(METRIC_NAMES)


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    """A new metric by name (``"accuracy"``, ``"F1"``, ``"top_5_accuracy"`` ...)."""
    try:
        cls = METRIC_NAMES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(names())} "
                         "(or pass a Metric instance)") from None
    return cls(*args, **kwargs)
