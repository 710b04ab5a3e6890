"""PyTorch reference for test_seq_ops (run in a subprocess with PYTHONPATH=$TORCH_PATH):
LayerNorm(8, eps=1e-5) -> GELU (tanh and exact) -> sum(out * w); writes the outputs and the
gradients of the input, weight (gamma) and bias (beta)."""

import sys

import numpy as np
import torch

data = np.load(sys.argv[1])
result = {}
for tag in ("tanh", "none"):
    norm = torch.nn.LayerNorm(8, eps=1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy(data["gamma"]))
        norm.bias.copy_(torch.from_numpy(data["beta"]))
    x = torch.from_numpy(data["x"]).requires_grad_(True)
    out = torch.nn.functional.gelu(norm(x), approximate=tag)
    (out * torch.from_numpy(data["w"])).sum().backward()
    result.update({f"out_{tag}": out.detach().numpy(), f"dx_{tag}": x.grad.numpy(),
                   f"dgamma_{tag}": norm.weight.grad.numpy(), f"dbeta_{tag}": norm.bias.grad.numpy()})
np.savez(sys.argv[2], **result)
