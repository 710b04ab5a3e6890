"""PyTorch reference for tests/framework/test_embedding.py and test_cross_entropy.py.

Run in a subprocess with ``PYTHONPATH=$TORCH_PATH``: ``python torch_seq_ops.py in.npz out.npz``.
``in.npz`` holds ``kind`` ("embedding" | "cross_entropy") and that kind's arrays; the
outputs and gradients go to ``out.npz``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import torch
import torch.nn.functional as F


def embedding(d):
    table = torch.tensor(d["table"], requires_grad=True)
    out = F.embedding(torch.tensor(d["ids"], dtype=torch.long), table)
    (out * torch.tensor(d["dout"])).sum().backward()
    return {"out": out.detach().numpy(), "grad": table.grad.numpy()}


def cross_entropy(d):
    opts = json.loads(str(d["opts"]))
    logits = torch.tensor(d["logits"], requires_grad=True)
    labels = torch.tensor(d["labels"])
    if labels.dtype != logits.dtype:
        labels = labels.long()
    weight = torch.tensor(d["weight"]) if "weight" in d else None
    loss = F.cross_entropy(logits, labels, weight=weight, **opts)
    (loss * torch.tensor(d["dout"])).sum().backward()
    return {"loss": loss.detach().numpy(), "grad": logits.grad.numpy()}


def main() -> None:
    torch.manual_seed(0)
    data = dict(np.load(sys.argv[1]))
    kind = str(data.pop("kind"))
    np.savez(sys.argv[2], **{"embedding": embedding, "cross_entropy": cross_entropy}[kind](data))


if __name__ == "__main__":
    main()
