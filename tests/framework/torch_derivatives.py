"""PyTorch side of tests/framework/test_jacobians.py (run with PYTHONPATH=$TORCH_PATH):
``python torch_derivatives.py in.npz out.npz``. torch.func's jacrev, jacfwd, hessian, jvp and
vjp of the functions the test differentiates (same formulas, float64)."""

from __future__ import annotations

import sys

import numpy as np
import torch
from torch.func import hessian, jacfwd, jacrev, jvp, vjp


def mlp(x, w1, b1, w2):
    return torch.tanh(x @ w1 + b1) @ w2


def conv(img, kernel):
    return torch.nn.functional.conv2d(img, kernel, padding=1).sigmoid().mean(dim=(2, 3))


def scalar(x):
    return (torch.sin(x) * x).sum() + (x[:-1] * x[1:] ** 2).sum()


def main() -> None:
    data = {k: torch.from_numpy(v) for k, v in np.load(sys.argv[1]).items()}
    x, w1, b1, w2 = data["x"], data["w1"], data["b1"], data["w2"]
    out = {}
    out["mlp_jacrev_x"], out["mlp_jacrev_w1"] = jacrev(mlp, argnums=(0, 1))(x, w1, b1, w2)
    out["mlp_jacfwd_x"] = jacfwd(mlp)(x, w1, b1, w2)
    out["conv_jacrev"] = jacrev(conv, argnums=1)(data["img"], data["kernel"])
    out["hessian"] = hessian(scalar)(data["v"])
    _, out["jvp"] = jvp(lambda t: mlp(t, w1, b1, w2), (x,), (data["tx"],))
    _, pull = vjp(lambda t: mlp(t, w1, b1, w2), x)
    (out["vjp"],) = pull(data["ct"])
    np.savez(sys.argv[2], **{k: v.detach().numpy() for k, v in out.items()})


if __name__ == "__main__":
    main()
