"""PyTorch twin of bench/padded_encoder.py (same data, architecture, Adam 1e-3, batch 64).

    PYTHONPATH=$TORCH_PATH:. python bench/padded_encoder_torch.py DROPOUT MASK [STEPS]

Same environment variables (TASK, EMPTY, BF).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

V, L, D, BATCH_FIRST = 16, 12, 32, os.environ.get("BF", "1") == "1"


def data(n: int, seed: int):
    """bench/padded_encoder.py's data (same generator), without importing a framework."""
    source = Path(__file__).with_name("padded_encoder.py").read_text()
    body = source[source.index("def data("):source.index("class Net(")]
    scope = {"np": np, "os": os, "L": L, "V": V}
    exec(body, scope)  # noqa: S102 - the function's own text, so both sides share it
    tok, pad, y = scope["data"](n, seed)
    return tok.astype(np.int64), pad, y.astype(np.int64)


class Net(nn.Module):
    def __init__(self, dropout: float, use_mask: bool) -> None:
        super().__init__()
        self.emb, self.pos = nn.Embedding(V, D), nn.Embedding(L, D)
        layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=dropout, batch_first=BATCH_FIRST)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(D, 2)
        self.use_mask = use_mask

    def forward(self, tok, pad):
        x = self.emb(tok) + self.pos(torch.arange(tok.shape[1]))
        if not BATCH_FIRST:
            x = x.transpose(0, 1)
        h = self.enc(x, src_key_padding_mask=pad if self.use_mask else None)
        if not BATCH_FIRST:
            h = h.transpose(0, 1)
        keep = (~pad).float()
        return self.head((h * keep[..., None]).sum(1) / keep.sum(1, keepdim=True).clamp(min=1))


def main(dropout: float, use_mask: bool, steps: int) -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tok, pad, y = data(4096, 0)
    ttok, tpad, ty = data(1000, 1)
    net = Net(dropout, use_mask)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    rng = np.random.default_rng(2)
    losses = []
    net.train()
    for _ in range(steps):
        idx = rng.integers(0, len(y), 64)
        loss = nn.functional.cross_entropy(net(torch.tensor(tok[idx]), torch.tensor(pad[idx])),
                                           torch.tensor(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with torch.no_grad():
        acc = (net(torch.tensor(ttok), torch.tensor(tpad)).argmax(1).numpy() == ty).mean()
    print(f"torch dropout={dropout} mask={use_mask}: loss first25 {np.mean(losses[:25]):.3f} "
          f"last25 {np.mean(losses[-25:]):.3f} test acc {acc:.3f} "
          f"(majority {max(ty.mean(), 1 - ty.mean()):.3f})", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2] == "1", int(sys.argv[3]) if len(sys.argv) > 3 else 300)
