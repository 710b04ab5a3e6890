"""PyTorch side of test_transformer_dropout.py: ``python torch_dropout_moments.py in.npz
out.npz`` with ``PYTHONPATH=$TORCH_PATH``. Loads the weights (``p:<name>``) into a
post-norm ``nn.TransformerEncoderLayer`` (E=16, 4 heads, 32 hidden, dropout 0.1,
batch_first) and writes its eval-mode output ``eval`` and ``draws`` training-mode outputs
``train`` for input ``x`` and key padding mask ``pad``."""

from __future__ import annotations

import sys

import numpy as np
import torch
from torch import nn


def main(inputs: str, outputs: str) -> None:
    d = np.load(inputs)
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True)
    layer.load_state_dict({k[2:]: torch.from_numpy(d[k]) for k in d.files if k.startswith("p:")})
    x, pad = torch.from_numpy(d["x"]), torch.from_numpy(d["pad"])
    with torch.no_grad():
        layer.eval()
        evaluated = layer(x, src_key_padding_mask=pad).numpy()
        layer.train()
        train = np.stack([layer(x, src_key_padding_mask=pad).numpy() for _ in range(int(d["draws"]))])
    np.savez(outputs, eval=evaluated, train=train)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
