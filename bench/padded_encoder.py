"""A masked TransformerEncoder (dropout, src_key_padding_mask) on a synthetic padded-text task.

    PYTHONPATH=. python bench/padded_encoder.py MODE DROPOUT MASK [STEPS]

MODE pynative|graph, MASK 1|0. Env: TASK= (token 3 occurs among the real tokens) | count
(occurs at least twice) | order (first real token < last), EMPTY=1 (10 % fully padded rows),
BF=0 (sequence-first layout), USE_MINDSPORE=1 (the same script on MindSpore).
``bench/padded_encoder_torch.py`` is the PyTorch twin (same data, architecture, Adam 1e-3,
batch 64). Prints the mean loss of the first and last 25 steps and the test accuracy.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

if os.environ.get("USE_MINDSPORE"):
    import mindspore as ms
    from mindspore import Tensor, nn, ops
else:
    import framework as ms
    from framework import Tensor, nn, ops

V, L, D = 16, 12, 32
BATCH_FIRST = os.environ.get("BF", "1") == "1"


def data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tokens (0 = padding), the padding mask (True = padded) and the labels."""
    rng = np.random.default_rng(seed)
    lens = rng.integers(2, L + 1, n)
    if os.environ.get("EMPTY"):
        lens[rng.random(n) < 0.1] = 0
    tok = rng.integers(2, V, (n, L))
    pad = np.arange(L)[None, :] >= lens[:, None]
    tok[pad] = 0
    hits = (tok == 3) & ~pad
    task = os.environ.get("TASK", "")
    if task == "count":
        y = hits.sum(1) >= 2
    elif task == "order":
        y = tok[:, 0] < tok[np.arange(n), np.maximum(lens, 1) - 1]
    else:
        y = hits.any(1)
    return tok.astype(np.int32), pad, y.astype(np.int32)


class Net(nn.Cell):
    def __init__(self, dropout: float, use_mask: bool) -> None:
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.pos = nn.Embedding(L, D)
        layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=dropout, batch_first=BATCH_FIRST)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Dense(D, 2)
        self.use_mask = use_mask

    def construct(self, tok, pad):
        x = self.emb(tok) + self.pos(ops.arange(tok.shape[1]))
        if not BATCH_FIRST:
            x = ops.transpose(x, (1, 0, 2))
        h = self.enc(x, src_key_padding_mask=pad if self.use_mask else None)
        if not BATCH_FIRST:
            h = ops.transpose(h, (1, 0, 2))
        keep = ops.cast(ops.logical_not(pad), ms.float32)
        count = ops.expand_dims(ops.maximum(keep.sum(1), 1.0), -1)
        return self.head((h * ops.expand_dims(keep, -1)).sum(1) / count)


def main(mode: str, dropout: float, use_mask: bool, steps: int = 300) -> None:
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)
    tok, pad, y = data(4096, 0)
    ttok, tpad, ty = data(1000, 1)
    net = Net(dropout, use_mask)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Adam(net.trainable_params(), 1e-3)
    grad_fn = ms.value_and_grad(lambda a, b, c: loss_fn(net(a, b), c), None, opt.parameters)

    def train_step(a, b, c):
        loss, grads = grad_fn(a, b, c)
        opt(grads)
        return loss

    run = ms.jit(train_step) if mode == "graph" else train_step
    rng = np.random.default_rng(2)
    losses, start = [], time.time()
    net.set_train(True)
    for _ in range(steps):
        idx = rng.integers(0, len(y), 64)
        losses.append(float(run(Tensor(tok[idx]), Tensor(pad[idx]), Tensor(y[idx])).asnumpy()))
    net.set_train(False)
    acc = (net(Tensor(ttok), Tensor(tpad)).asnumpy().argmax(1) == ty).mean()
    print(f"{ms.__name__} {mode} dropout={dropout} mask={use_mask}: loss first25 "
          f"{np.mean(losses[:25]):.3f} last25 {np.mean(losses[-25:]):.3f} test acc {acc:.3f} "
          f"(majority {max(ty.mean(), 1 - ty.mean()):.3f}) {time.time() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4]) if len(sys.argv) > 4 else 300)
