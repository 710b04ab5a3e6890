"""``nn`` metrics against formulas written with NumPy loops (MindSpore's definitions)."""

from __future__ import annotations

import numpy as np
import pytest

from framework import Tensor, nn


def _scores(n=200, c=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, c)), rng.integers(0, c, n)


def test_precision_recall_f1_per_class_and_averaged():
    logits, labels = _scores()
    pred = logits.argmax(1)
    metrics = {"p": nn.Precision(), "r": nn.Recall(), "f": nn.F1(), "f2": nn.Fbeta(2.0)}
    for m in metrics.values():
        m.update(Tensor(logits[:120].astype(np.float32)), labels[:120])  # two batches, Tensor or array
        m.update(logits[120:], np.eye(6)[labels[120:]])  # one-hot labels
    for k in range(6):
        tp = sum(1 for p, y in zip(pred, labels, strict=True) if p == k and y == k)
        p = tp / max(sum(1 for v in pred if v == k), 1e-300)
        r = tp / max(sum(1 for v in labels if v == k), 1e-300)
        assert metrics["p"].eval()[k] == pytest.approx(p)
        assert metrics["r"].eval()[k] == pytest.approx(r)
        assert metrics["f"].eval()[k] == pytest.approx(2 * p * r / (p + r) if p + r else 0.0)
        assert metrics["f2"].eval()[k] == pytest.approx(5 * p * r / (4 * p + r) if p + r else 0.0)
    assert metrics["p"].eval(average=True) == pytest.approx(np.mean(metrics["p"].eval()))


def test_top_k_accuracy():
    logits, labels = _scores(50, 8, seed=1)
    for k, metric in ((1, nn.Top1CategoricalAccuracy()), (5, nn.Top5CategoricalAccuracy())):
        metric.update(logits, labels)
        hits = sum(1 for row, y in zip(logits, labels, strict=True)
                   if y in sorted(range(8), key=lambda i, row=row: -row[i])[:k])
        assert metric.eval() == pytest.approx(hits / 50)
    acc = nn.Accuracy()
    acc.update(logits, labels)
    assert acc.eval() == pytest.approx(nn.Top1CategoricalAccuracy()(logits, labels))


def test_mae_mse_and_clear():
    rng = np.random.default_rng(2)
    y_pred, y = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    mae, mse = nn.MAE(), nn.MSE()
    for m in (mae, mse):
        m.update(y_pred[:10], y[:10])
        m.update(y_pred[10:], y[10:])
    assert mae.eval() == pytest.approx(np.abs(y - y_pred).sum() / 30)
    assert mse.eval() == pytest.approx(((y - y_pred) ** 2).sum() / 30)
    mae.clear()
    with pytest.raises(RuntimeError, match="no samples"):
        mae.eval()
    loss = nn.Loss()
    loss.update(Tensor(np.float32(2.0)))
    loss.update(np.array(4.0))
    assert loss.eval() == pytest.approx(3.0)


def test_metric_names_and_errors():
    assert {"accuracy", "loss", "precision", "recall", "f1", "mae", "mse", "top_1_accuracy",
            "top_5_accuracy"} <= set(nn.names())
    assert isinstance(nn.get_metric_fn("F1"), nn.F1)
    with pytest.raises(ValueError, match="unknown metric"):
        nn.get_metric_fn("nope")
    with pytest.raises(ValueError, match="do not match"):
        nn.Precision().update(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="takes 2 inputs"):
        nn.Recall().update(np.zeros((3, 2)))
