"""``framework.nn`` losses (against NumPy formulas), the LeNet gradient against an
independent NumPy implementation, and the initializers' statistics."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.common import initializer as init
from trainer.models import LeNet5

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import numpy_lenet  # noqa: E402

RNG = np.random.default_rng(4321)


def _rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ========================================================================================
# Losses
# ========================================================================================


def _log_softmax(z):
    z = z.astype(np.float64)
    s = z - z.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def _reduce(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](v)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_sparse(reduction):
    logits = _rand(6, 5)
    labels = np.array([0, 4, 2, 2, 1, 3], np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    out = loss(Tensor(logits), Tensor(labels)).asnumpy()
    per = -_log_softmax(logits)[np.arange(6), labels]
    np.testing.assert_allclose(out, _reduce(per, reduction), rtol=1e-5)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_dense_labels(reduction):
    logits = _rand(4, 3)
    probs = np.abs(_rand(4, 3))
    probs /= probs.sum(1, keepdims=True)
    out = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)(Tensor(logits), Tensor(probs))
    per = -(probs * _log_softmax(logits)).sum(1)
    np.testing.assert_allclose(out.asnumpy(), _reduce(per, reduction), rtol=1e-5)


def test_softmax_cross_entropy_defaults_and_label_shape_error():
    loss = nn.SoftmaxCrossEntropyWithLogits()
    assert loss.sparse is False and loss.reduction == "none"
    with pytest.raises(ValueError, match=r"\(4, 3\).*\(4,\)"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(_rand(4, 3)),
                                                        Tensor(np.zeros((4, 3), np.int32)))
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="avg")


def _ce_ref(logits, target, weight=None, ignore_index=-100, reduction="mean", ls=0.0):
    """PyTorch's cross_entropy, written out (class indices or probabilities)."""
    logp = _log_softmax(logits)
    n, c = logp.shape
    w = np.ones(c) if weight is None else np.asarray(weight, np.float64)
    if target.dtype.kind in "iu":
        valid = target != ignore_index
        t = np.where(valid, target, 0)
        wt = w[t] * valid
        nll = -logp[np.arange(n), t] * wt
        smooth = -(logp * w).sum(1) * valid
        if reduction == "mean":
            return ((1 - ls) * nll.sum() + ls / c * smooth.sum()) / wt.sum()
        per = (1 - ls) * nll + ls / c * smooth
        return _reduce(per, reduction)
    t = target * (1 - ls) + ls / c
    per = -(t * w * logp).sum(1)
    return _reduce(per, reduction)


CE_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=[0.2, 1.0, 3.0, 0.5]),
    dict(weight=[0.2, 1.0, 3.0, 0.5], reduction="sum"),
    dict(ignore_index=2),
    dict(ignore_index=2, reduction="none"),
    dict(weight=[0.2, 1.0, 3.0, 0.5], ignore_index=1),
    dict(ls=0.1),
    dict(ls=0.2, weight=[0.2, 1.0, 3.0, 0.5]),
    dict(ls=0.2, weight=[0.2, 1.0, 3.0, 0.5], ignore_index=0),
    dict(ls=0.3, ignore_index=3, reduction="sum"),
]


def _ce_from_case(case: dict) -> tuple:
    """A CrossEntropyLoss for a test case, plus the case's weight, smoothing and the rest."""
    kwargs = dict(case)
    ls = kwargs.pop("ls", 0.0)
    weight = kwargs.pop("weight", None)
    loss = nn.CrossEntropyLoss(
        weight=None if weight is None else Tensor(np.array(weight, np.float32)),
        label_smoothing=ls, **kwargs,
    )
    return loss, weight, ls, kwargs


@pytest.mark.parametrize("case", CE_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_cross_entropy_loss_class_indices(case):
    logits = _rand(7, 4) * 2
    labels = np.array([0, 1, 2, 3, 2, 1, 0], np.int32)
    loss, weight, ls, kwargs = _ce_from_case(case)
    out = loss(Tensor(logits), Tensor(labels)).asnumpy()
    expected = _ce_ref(logits, labels, weight, ls=ls, **kwargs)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)


def test_cross_entropy_loss_default_ignore_index():
    logits = _rand(4, 3)
    labels = np.array([0, -100, 2, 1], np.int64)
    out = nn.CrossEntropyLoss()(Tensor(logits), Tensor(labels)).asnumpy()
    np.testing.assert_allclose(out, _ce_ref(logits, labels), rtol=1e-5)
    keep = labels != -100
    np.testing.assert_allclose(out, _ce_ref(logits[keep], labels[keep]), rtol=1e-5)


@pytest.mark.parametrize("case", [dict(), dict(ls=0.2), dict(weight=[1.0, 2.0, 0.5]),
                                  dict(reduction="sum", ls=0.1)])
def test_cross_entropy_loss_probability_targets(case):
    logits = _rand(5, 3)
    probs = np.abs(_rand(5, 3)).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    loss, weight, ls, kwargs = _ce_from_case(case)
    out = loss(Tensor(logits), Tensor(probs)).asnumpy()
    np.testing.assert_allclose(out, _ce_ref(logits, probs, weight, ls=ls, **kwargs), rtol=1e-5)


def test_cross_entropy_loss_gradient_matches_finite_differences():
    logits = _rand(5, 4).astype(np.float64)
    labels = np.array([0, 3, 1, 1, 2], np.int32)
    weight = [0.2, 1.0, 3.0, 0.5]
    loss = nn.CrossEntropyLoss(weight=Tensor(np.array(weight, np.float32)), ignore_index=3,
                               label_smoothing=0.1)
    g = ms.grad(lambda z: loss(z, Tensor(labels)))(Tensor(logits.astype(np.float32))).asnumpy()
    eps = 1e-6
    numeric = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        d = np.zeros_like(logits)
        d[idx] = eps
        numeric[idx] = (_ce_ref(logits + d, labels, weight, 3, ls=0.1)
                        - _ce_ref(logits - d, labels, weight, 3, ls=0.1)) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-3, atol=1e-6)
    np.testing.assert_array_equal(g[1], 0.0)  # the ignored sample gets no gradient


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_and_l1_loss(reduction):
    a, b = _rand(3, 4), _rand(3, 4)
    out = nn.MSELoss(reduction=reduction)(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(out, _reduce((a.astype(np.float64) - b) ** 2, reduction),
                               rtol=1e-5)
    out = nn.L1Loss(reduction=reduction)(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(out, _reduce(np.abs(a.astype(np.float64) - b), reduction),
                               rtol=1e-5)


def test_mse_loss_gradient():
    a, b = _rand(3, 4), _rand(3, 4)
    g = ms.grad(lambda x: nn.MSELoss()(x, Tensor(b)))(Tensor(a)).asnumpy()
    np.testing.assert_allclose(g, 2 * (a - b) / a.size, rtol=1e-5, atol=1e-7)


# ========================================================================================
# LeNet-5 gradients vs the independent NumPy implementation
# ========================================================================================


def test_lenet_gradients_match_numpy_reference():
    ms.set_seed(11)
    net = LeNet5()
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, 8).astype(np.int32)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    fn = ms.value_and_grad(nn.WithLossCell(net, loss_fn), None, net.trainable_params())
    loss, grads = fn(Tensor(x), Tensor(y))
    params = {name: p.asnumpy().copy() for name, p in net.parameters_dict().items()}
    ref_loss, ref_grads = numpy_lenet.loss_and_grads(params, x, y)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss, rtol=1e-5)
    assert len(grads) == len(numpy_lenet.PARAM_NAMES)
    for name, g in zip(numpy_lenet.PARAM_NAMES, grads, strict=True):
        ref = ref_grads[name]
        assert g.shape == ref.shape, name
        scale = np.abs(ref).max()
        assert scale > 0, name
        np.testing.assert_allclose(g.asnumpy(), ref, rtol=1e-4, atol=1e-5 * scale, err_msg=name)


# ========================================================================================
# Initializers and seeds
# ========================================================================================


def test_dense_default_init_bounds():
    ms.set_seed(0)
    d = nn.Dense(400, 300)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert w.dtype == np.float32
    bound = 1 / math.sqrt(400)  # HeUniform(a=sqrt(5)): gain sqrt(1/3) * sqrt(3 / fan_in)
    assert np.abs(w).max() <= bound
    assert np.abs(w).max() > 0.99 * bound
    np.testing.assert_allclose(w.var(), bound**2 / 3, rtol=0.02)
    assert np.abs(b).max() <= 1 / math.sqrt(400)
    assert np.abs(b).max() > 0.9 / math.sqrt(400)


def test_conv_default_init_bound():
    ms.set_seed(0)
    conv = nn.Conv2d(16, 32, 5)
    w = conv.weight.asnumpy()
    bound = 1 / math.sqrt(16 * 25)
    assert np.abs(w).max() <= bound
    assert np.abs(w).max() > 0.99 * bound


def test_he_uniform_default_and_xavier_uniform():
    ms.set_seed(0)
    w = init.initializer("he_uniform", (200, 300)).asnumpy()
    bound = math.sqrt(6 / 300)  # leaky_relu slope 0: gain sqrt(2)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    w = init.initializer(init.XavierUniform(), (100, 50, 3, 3)).asnumpy()
    bound = math.sqrt(6 / (50 * 9 + 100 * 9))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    w = init.initializer(init.XavierUniform(gain=2.0), (64, 64)).asnumpy()
    assert np.abs(w).max() <= 2 * math.sqrt(6 / 128)


def test_normal_and_truncated_normal_statistics():
    ms.set_seed(0)
    w = init.initializer(init.Normal(sigma=0.3, mean=1.0), (200, 200)).asnumpy()
    assert abs(w.mean() - 1.0) < 0.005
    np.testing.assert_allclose(w.std(), 0.3, rtol=0.02)
    w = init.initializer("normal", (300, 300)).asnumpy()  # MindSpore default sigma 0.01
    np.testing.assert_allclose(w.std(), 0.01, rtol=0.02)
    # MindSpore 2.10's bounds are values, a=-2 and b=2 by default (not two sigmas)
    t = init.initializer(init.TruncatedNormal(0.5, a=-1.0, b=1.0), (100, 100)).asnumpy()
    assert np.abs(t).max() <= 1.0 + 1e-6
    assert t.std() > 0.3
    t = init.initializer(init.TruncatedNormal(1.0, mean=0.5), (100, 100)).asnumpy()
    assert t.min() >= -2.0 and t.max() <= 2.0 and t.max() > 1.6  # past two sigmas of 0.5


def test_constant_initializers_and_names():
    np.testing.assert_array_equal(init.initializer("zeros", (2, 3)).asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(init.initializer(init.Zero(), 4).asnumpy(), np.zeros(4))
    np.testing.assert_array_equal(init.initializer("ones", (3,)).asnumpy(), np.ones(3))
    np.testing.assert_array_equal(init.initializer(init.One(), (2, 2)).asnumpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(init.initializer(2.5, (2,)).asnumpy(), [2.5, 2.5])
    half = init.initializer("ones", (2,), ms.float16)
    assert half.dtype == ms.float16
    t = Tensor(shape=(2, 3), dtype=ms.float32, init=init.One())
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3), np.float32))
    d = nn.Dense(3, 2, weight_init="zeros", bias_init="ones")
    np.testing.assert_array_equal(d.weight.asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(d.bias.asnumpy(), np.ones(2))


def test_unknown_initializer_name():
    with pytest.raises(ValueError, match="unknown initializer 'glorot_magic'"):
        init.initializer("glorot_magic", (2, 2))
    with pytest.raises(ValueError, match="unknown initializer"):
        nn.Dense(2, 2, weight_init="nope")
    with pytest.raises(ValueError, match="2 dims"):
        init.initializer("he_uniform", (5,))


def test_set_seed_makes_init_reproducible():
    ms.set_seed(42)
    a = LeNet5()
    ms.set_seed(42)
    b = LeNet5()
    ms.set_seed(43)
    c = LeNet5()
    for pa, pb, pc in zip(a.get_parameters(), b.get_parameters(), c.get_parameters(),
                          strict=True):
        np.testing.assert_array_equal(pa.asnumpy(), pb.asnumpy())
        assert not np.array_equal(pa.asnumpy(), pc.asnumpy())
    assert ms.get_seed() == 43
    with pytest.raises(ValueError):
        ms.set_seed(-1)
