"""Metrics for ``Model``: the implementations live in :mod:`framework.nn.metrics` (MindSpore's
``nn.Accuracy`` ...); this module adds the name registry used by ``Model(metrics=...)`` and
experiment files.

``metrics`` may be names (``{"accuracy", "loss"}``, MindSpore's ``{"accuracy"}``), a mapping
``{"Accuracy": nn.Accuracy()}`` or a list of :class:`Metric` objects. ``update`` receives the
values picked by ``indexes`` from the evaluation outputs ``(loss, logits, labels, batch_size)``
(the default ``[1, 2]`` gives logits and labels, :class:`Loss` uses ``[0, 3]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from framework.nn.metrics import (
    F1,
    MAE,
    METRIC_NAMES,
    MSE,
    Accuracy,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
)

__all__ = ["F1", "MAE", "MSE", "Accuracy", "Fbeta", "Loss", "Metric", "Precision", "Recall",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy",
           "build_metrics", "get_metric", "register_metric"]


def register_metric(name: str, cls: type[Metric]) -> None:
    """Make ``cls`` available by name (``metrics={"name"}`` and experiment files)."""
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"register_metric: {cls!r} is not a Metric subclass")
    METRIC_NAMES[name.lower()] = cls


def get_metric(name: str) -> Metric:
    return get_metric_fn(name)


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
