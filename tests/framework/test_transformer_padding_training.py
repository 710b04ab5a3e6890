"""A TransformerEncoder with ``src_key_padding_mask`` and dropout 0.1 learns, both modes.

A small text task: variable-length sequences padded with token 0, the label is whether
token 3 occurs among the real tokens (about 60/40), the encoder's output mean-pooled over
the real positions. With the mask and dropout the classifier must leave the majority
class: both modes reach a test accuracy far above it, and, since graph mode draws its
dropout masks from the same generator in the same order, both modes give the same losses.
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

V, L, D = 16, 10, 16


def make_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    lens = rng.integers(2, L + 1, n)
    tokens = rng.integers(2, V, (n, L))
    pad = np.arange(L)[None, :] >= lens[:, None]
    tokens[pad] = 0
    labels = ((tokens == 3) & ~pad).any(1).astype(np.int32)
    return tokens.astype(np.int32), pad, labels


class PaddedClassifier(nn.Cell):
    def __init__(self, dropout: float, batch_first: bool) -> None:
        super().__init__()
        self.batch_first = batch_first
        self.emb = nn.Embedding(V, D)
        layer = nn.TransformerEncoderLayer(D, 2, 32, dropout=dropout, batch_first=batch_first)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Dense(D, 2)

    def construct(self, tokens, pad):
        x = self.emb(tokens)
        if not self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        h = self.enc(x, src_key_padding_mask=pad)
        if not self.batch_first:
            h = ops.transpose(h, (1, 0, 2))
        keep = ops.cast(ops.logical_not(pad), ms.float32)
        pooled = (h * ops.expand_dims(keep, -1)).sum(1) / ops.expand_dims(keep.sum(1), -1)
        return self.head(pooled)


def train(mode: str, steps: int, batch_first: bool = True) -> tuple[list[float], float, float]:
    """Per-step losses, test accuracy and the test set's majority share."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        ms.set_seed(0)
        tokens, pad, labels = make_data(2048, 0)
        t_tokens, t_pad, t_labels = make_data(500, 1)
        net = PaddedClassifier(0.1, batch_first)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Adam(net.trainable_params(), 3e-3)
        grad_fn = ms.value_and_grad(lambda a, b, c: loss_fn(net(a, b), c), None, opt.parameters)

        def step(a, b, c):
            loss, grads = grad_fn(a, b, c)
            opt(grads)
            return loss

        run = ms.jit(step) if mode == "graph" else step
        rng = np.random.default_rng(2)
        net.set_train(True)
        losses = []
        for _ in range(steps):
            idx = rng.integers(0, len(labels), 32)
            losses.append(float(run(Tensor(tokens[idx]), Tensor(pad[idx]), Tensor(labels[idx])).asnumpy()))
        net.set_train(False)
        pred = net(Tensor(t_tokens), Tensor(t_pad)).asnumpy().argmax(1)
        majority = max(t_labels.mean(), 1 - t_labels.mean())
        return losses, float((pred == t_labels).mean()), float(majority)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.slow
@pytest.mark.parametrize("batch_first", [True, False])
def test_masked_encoder_with_dropout_learns_in_both_modes(batch_first: bool) -> None:
    results = {mode: train(mode, 120, batch_first) for mode in ("pynative", "graph")}
    for mode, (losses, accuracy, majority) in results.items():
        assert np.all(np.isfinite(losses)), mode
        assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:20]), (mode, losses[:20], losses[-20:])
        assert accuracy > majority + 0.25, (mode, accuracy, majority)
    np.testing.assert_allclose(results["graph"][0], results["pynative"][0], rtol=1e-3, atol=1e-4)
