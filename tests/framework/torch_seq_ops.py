"""PyTorch reference for tests/framework/test_embedding.py, test_cross_entropy.py and
test_seq_ops.py.

Run in a subprocess with ``PYTHONPATH=$TORCH_PATH``: ``python torch_seq_ops.py in.npz out.npz``.
``in.npz`` holds ``kind`` ("embedding" | "cross_entropy" | "layer_norm_gelu") and that
kind's arrays; the outputs and gradients go to ``out.npz``.
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
    """Cases ``{i}.logits``, ``{i}.labels``, ``{i}.dout``, optional ``{i}.weight`` and the
    keyword arguments as JSON in ``{i}.opts``; gives ``{i}.loss`` and ``{i}.grad``."""
    result = {}
    for i in range(int(d["count"])):
        opts = json.loads(str(d[f"{i}.opts"]))
        logits = torch.tensor(d[f"{i}.logits"], requires_grad=True)
        labels = torch.tensor(d[f"{i}.labels"])
        if labels.dtype != logits.dtype:
            labels = labels.long()
        weight = torch.tensor(d[f"{i}.weight"]) if f"{i}.weight" in d else None
        loss = F.cross_entropy(logits, labels, weight=weight, **opts)
        (loss * torch.tensor(d[f"{i}.dout"])).sum().backward()
        result[f"{i}.loss"], result[f"{i}.grad"] = loss.detach().numpy(), logits.grad.numpy()
    return result


def layer_norm_gelu(d):
    """LayerNorm(8, eps=1e-5) -> GELU (tanh and exact) -> sum(out * w): the outputs and the
    gradients of the input, weight (gamma) and bias (beta)."""
    result = {}
    for tag in ("tanh", "none"):
        norm = torch.nn.LayerNorm(8, eps=1e-5)
        with torch.no_grad():
            norm.weight.copy_(torch.from_numpy(d["gamma"]))
            norm.bias.copy_(torch.from_numpy(d["beta"]))
        x = torch.from_numpy(d["x"]).requires_grad_(True)
        out = F.gelu(norm(x), approximate=tag)
        (out * torch.from_numpy(d["w"])).sum().backward()
        result.update({f"out_{tag}": out.detach().numpy(), f"dx_{tag}": x.grad.numpy(),
                       f"dgamma_{tag}": norm.weight.grad.numpy(),
                       f"dbeta_{tag}": norm.bias.grad.numpy()})
    return result


KINDS = {"embedding": embedding, "cross_entropy": cross_entropy, "layer_norm_gelu": layer_norm_gelu}


def main() -> None:
    torch.manual_seed(0)
    data = dict(np.load(sys.argv[1]))
    kind = str(data.pop("kind"))
    np.savez(sys.argv[2], **KINDS[kind](data))


if __name__ == "__main__":
    main()
