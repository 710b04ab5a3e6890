"""Evaluation metrics (MindSpore's ``Metric``: ``clear`` / ``update`` / ``eval``).

To add a metric, subclass :class:`Metric`::

    class TopKError(Metric):
        def __init__(self, k=5):
            super().__init__(); self.k = k
        def clear(self):
            self.wrong = self.total = 0
        def update(self, logits, labels):          # NumPy arrays
            top = np.argsort(logits, axis=1)[:, -self.k:]
            self.wrong += int((top != labels[:, None]).all(axis=1).sum())
            self.total += len(labels)
        def eval(self):
            return self.wrong / self.total

    Model(net, loss, opt, metrics={"top5_error": TopKError(5)})

``update`` receives the values picked by ``indexes`` from the evaluation outputs
``(loss, logits, labels, batch_size)`` (NumPy arrays; the default ``[1, 2]`` gives logits
and labels, :class:`Loss` uses ``[0, 3]``). ``set_indexes`` changes them, as in MindSpore.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from framework import Tensor


def _numpy(value: Any) -> np.ndarray:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


class Metric:
    """Base class: accumulate with ``update``, read with ``eval``, reset with ``clear``."""

    default_indexes: tuple[int, ...] = (1, 2)

    def __init__(self) -> None:
        self.indexes: list[int] = list(self.default_indexes)
        self.clear()

    def set_indexes(self, indexes: Sequence[int]) -> Metric:
        self.indexes = [int(i) for i in indexes]
        return self

    def clear(self) -> None:
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        raise NotImplementedError

    def eval(self) -> float:
        raise NotImplementedError

    def __call__(self, *inputs: Any) -> float:
        """``clear`` + ``update`` + ``eval`` on one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()


class Accuracy(Metric):
    """Fraction of samples whose arg-max prediction equals the label.

    Labels may be class indices (``N``) or one-hot rows (``N x C``); predictions are
    ``N x C`` scores. ``eval_type="classification"`` only.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type != "classification":
            raise ValueError(f"Accuracy: only eval_type='classification' is supported, got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self) -> None:
        self._correct = 0
        self._total = 0

    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"Accuracy.update takes (predictions, labels), got {len(inputs)} inputs")
        y_pred, y = _numpy(inputs[0]), _numpy(inputs[1])
        if y_pred.ndim != 2:
            raise ValueError(f"Accuracy: predictions must be N x C scores, got shape {y_pred.shape}")
        if y.ndim == 2:
            y = y.argmax(axis=1)
        if y.shape != (y_pred.shape[0],):
            raise ValueError(f"Accuracy: labels of shape {y.shape} do not match predictions "
                             f"{y_pred.shape}")
        self._correct += int((y_pred.argmax(axis=1) == y).sum())
        self._total += int(y.shape[0])

    def eval(self) -> float:
        if self._total == 0:
            raise RuntimeError("Accuracy.eval: no samples; call update() first")
        return self._correct / self._total


class Loss(Metric):
    """Mean of the per-batch losses, weighted by batch size when it is given."""

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
        if self._count == 0:
            raise RuntimeError("Loss.eval: no batches; call update() first")
        return self._sum / self._count


_BY_NAME: dict[str, type[Metric]] = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss}


def register_metric(name: str, cls: type[Metric]) -> None:
    """Make ``cls`` available by name (``metrics={"name"}`` and experiment files)."""
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"register_metric: {cls!r} is not a Metric subclass")
    _BY_NAME[name.lower()] = cls


def get_metric(name: str) -> Metric:
    try:
        return _BY_NAME[name.lower()]()
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(sorted(_BY_NAME))} "
                         "(or pass a Metric instance)") from None


def build_metrics(metrics: Mapping[str, Any] | Iterable[Any] | None) -> dict[str, Metric]:
    """``{"accuracy"}``, ``["acc", "loss"]`` or ``{"acc": Accuracy()}`` to ``{name: Metric}``."""
    if metrics is None:
        return {}
    if isinstance(metrics, str | Metric):
        metrics = [metrics]
    if isinstance(metrics, Mapping):
        items = list(metrics.items())
    else:
        items = []
        for m in metrics:
            items.append((m, m) if isinstance(m, str) else (type(m).__name__.lower(), m))
    out: dict[str, Metric] = {}
    for name, metric in items:
        metric = get_metric(metric) if isinstance(metric, str) else metric
        if not isinstance(metric, Metric):
            raise TypeError(f"metric {name!r} is a {type(metric).__name__}, not a Metric or a name")
        out[str(name)] = metric
    return out
