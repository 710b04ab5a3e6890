"""Where a TransformerEncoderLayer applies dropout in training, checked by its statistics.

Dropout draws differ between systems, so outputs are compared by their distribution: the
mean and standard deviation of every output element over many training-mode calls, with
the same weights and a ``src_key_padding_mask`` (a row with one real token included),
against (1) a NumPy layer written from PyTorch's documented definition (dropout with
scaling 1/(1-p) on the attention weights, after the activation, after the attention block
and after the feed-forward block) and (2) PyTorch 2.13's ``nn.TransformerEncoderLayer``
(subprocess with ``PYTHONPATH=$TORCH_PATH``, skipped without it). A dropout left out,
or scaled otherwise moves the standard deviations by 12-20 % (checked below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from tests.torch_ref import needs_torch, reference

SCRIPT = Path(__file__).with_name("torch_dropout_moments.py")
E, H, F, N, L, P, DRAWS = 16, 4, 32, 4, 6, 0.1, 400
LENGTHS = (6, 4, 2, 1)


def _layer_and_inputs():
    ms.set_seed(5)
    layer = nn.TransformerEncoderLayer(E, H, F, dropout=P, batch_first=True)
    rng = np.random.default_rng(0)
    for p in layer.trainable_params():  # non-trivial biases and norms
        p.set_data(Tensor((p.asnumpy() + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    x = rng.standard_normal((N, L, E)).astype(np.float32)
    pad = np.arange(L)[None, :] >= np.array(LENGTHS)[:, None]
    return layer, x, pad


def _our_draws(layer, x, pad):
    layer.set_train(True)
    try:
        return np.stack([layer(Tensor(x), src_key_padding_mask=Tensor(pad)).asnumpy()
                         for _ in range(DRAWS)])
    finally:
        layer.set_train(False)


def _layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(-1, keepdims=True) + eps) * gamma + beta


PLACES = ("weights", "attention", "hidden", "ff")


def numpy_layer(w, x, pad, rng, p, places=PLACES, scale=True):
    """PyTorch's post-norm encoder layer (relu), dropout ``p`` drawn from ``rng`` at
    ``places`` (attention weights, attention block, feed-forward hidden, feed-forward block)."""
    def drop(a, place):
        if not p or place not in places:
            return a
        return a * (rng.random(a.shape) >= p) / ((1 - p) if scale else 1.0)

    n, length, e = x.shape
    qkv = x @ w["self_attn.in_proj_weight"].T + w["self_attn.in_proj_bias"]
    q, k, v = (qkv[..., i * e:(i + 1) * e].reshape(n, length, H, e // H).transpose(0, 2, 1, 3)
               for i in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(e // H) + np.where(pad, -np.inf, 0)[:, None, None]
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights = drop(weights / weights.sum(-1, keepdims=True), "weights")
    attn = (weights @ v).transpose(0, 2, 1, 3).reshape(n, length, e)
    attn = attn @ w["self_attn.out_proj.weight"].T + w["self_attn.out_proj.bias"]
    x = _layer_norm(x + drop(attn, "attention"), w["norm1.gamma"], w["norm1.beta"])
    hidden = drop(np.maximum(x @ w["dense1.weight"].T + w["dense1.bias"], 0), "hidden")
    ff = hidden @ w["dense2.weight"].T + w["dense2.bias"]
    return _layer_norm(x + drop(ff, "ff"), w["norm2.gamma"], w["norm2.beta"])


def _compare(ours, theirs):
    """Mean |z| of the element means and the median ratio of the standard deviations."""
    m1, s1, m2, s2 = ours.mean(0), ours.std(0), theirs.mean(0), theirs.std(0)
    z = (m1 - m2) / np.sqrt(s1 ** 2 / len(ours) + s2 ** 2 / len(theirs))
    return float(np.abs(z).mean()), float(np.median(s1 / s2))


def _assert_same_distribution(ours, theirs, who):
    assert np.isfinite(ours).all() and np.isfinite(theirs).all()
    mean_z, std_ratio = _compare(ours, theirs)
    # two samples of one distribution: mean |z| ~ sqrt(2/pi) = 0.80, ratio ~ 1 (+-0.01)
    assert mean_z < 1.1, f"{who}: element means differ (mean |z| {mean_z:.2f})"
    assert 0.96 < std_ratio < 1.04, f"{who}: spread differs (std ratio {std_ratio:.3f})"


def test_eval_mode_is_the_numpy_layer_without_dropout():
    layer, x, pad = _layer_and_inputs()
    w = {p.name: p.asnumpy().astype(np.float64) for p in layer.trainable_params()}
    layer.set_train(False)
    got = layer(Tensor(x), src_key_padding_mask=Tensor(pad)).asnumpy()
    want = numpy_layer(w, x.astype(np.float64), pad, None, 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _numpy_draws(layer, x, pad, **variant):
    w = {p.name: p.asnumpy().astype(np.float64) for p in layer.trainable_params()}
    rng = np.random.default_rng(1)
    return np.stack([numpy_layer(w, x.astype(np.float64), pad, rng, P, **variant)
                     for _ in range(DRAWS)])


def test_training_mode_matches_the_numpy_layer_in_distribution():
    layer, x, pad = _layer_and_inputs()
    _assert_same_distribution(_our_draws(layer, x, pad), _numpy_draws(layer, x, pad), "numpy")


@pytest.mark.parametrize("variant", [
    {"places": ("attention", "hidden", "ff")},  # no dropout on the attention weights
    {"places": ("weights", "hidden", "ff")},  # none after the attention block
    {"places": ("weights", "attention", "ff")},  # none inside the feed-forward block
    {"places": ("weights", "attention", "hidden")},  # none after the feed-forward block
    {"scale": False},  # kept entries not scaled by 1/(1-p)
], ids=["no-attention-weights", "no-after-attention", "no-ff-hidden", "no-after-ff", "unscaled"])
def test_a_misplaced_dropout_is_detected(variant):
    """The check can fail: against a reference that differs in one place, it does."""
    layer, x, pad = _layer_and_inputs()
    with pytest.raises(AssertionError):
        _assert_same_distribution(_our_draws(layer, x, pad), _numpy_draws(layer, x, pad, **variant),
                                  "numpy")


@pytest.mark.slow
@needs_torch
def test_training_mode_matches_pytorch_in_distribution(tmp_path):
    layer, x, pad = _layer_and_inputs()
    params = {}
    for p in layer.trainable_params():
        name = p.name.replace("dense1.", "linear1.").replace("dense2.", "linear2.")
        params["p:" + name.replace(".gamma", ".weight").replace(".beta", ".bias")] = p.asnumpy()
    theirs = reference(SCRIPT, tmp_path, x=x, pad=pad, draws=np.array(DRAWS), **params)
    layer.set_train(False)
    np.testing.assert_allclose(layer(Tensor(x), src_key_padding_mask=Tensor(pad)).asnumpy(),
                               theirs["eval"], rtol=1e-4, atol=1e-5)
    _assert_same_distribution(_our_draws(layer, x, pad), theirs["train"], "pytorch")
