"""PyTorch reference for tests/framework/test_seq_models_torch.py.

Run in a subprocess with ``PYTHONPATH=$TORCH_PATH``: ``python torch_seq_models.py in.npz
out.npz``. ``in.npz`` holds ``model`` (``gpt`` | ``lstm``), its sizes as JSON in ``cfg``,
the batch ``x``/``y``, ``lr`` and the initial parameters as ``s:<PyTorch name>``. The
network is bench/seq_engines.py's PyTorch model (hand-written attention). One SGD step:
``out.npz`` gets ``loss``, ``g:<name>`` (gradients), ``q:<name>`` (parameters after the
step) and ``loss2`` (the loss after it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import seq_engines as se  # noqa: E402


def main() -> None:
    d = dict(np.load(sys.argv[1]))
    model, cfg = str(d["model"]), json.loads(str(d["cfg"]))
    module = se.torch_model(model, "math", cfg)
    se.load_torch_state(module, {k[2:]: v for k, v in d.items() if k.startswith("s:")})
    x, y = torch.from_numpy(d["x"]).long(), torch.from_numpy(d["y"]).long().view(-1)

    def loss_of():
        return F.cross_entropy(module(x).reshape(-1, cfg["vocab"]), y)

    loss = loss_of()
    loss.backward()
    out = {"loss": loss.detach().numpy()}
    optimizer = torch.optim.SGD(module.parameters(), lr=float(d["lr"]))
    for name, p in module.named_parameters():
        out[f"g:{name}"] = p.grad.numpy().copy()
    optimizer.step()
    for name, p in module.named_parameters():
        out[f"q:{name}"] = p.detach().numpy().copy()
    with torch.no_grad():
        out["loss2"] = loss_of().numpy()
    np.savez(sys.argv[2], **out)


if __name__ == "__main__":
    main()
