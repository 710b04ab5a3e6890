"""PyTorch side of tests/framework/test_func_transforms_torch.py (run with PYTHONPATH=$TORCH_PATH):
``python torch_func_transforms.py in.npz out.npz``. For each function of the test (MLP, conv
net, LSTM cell, attention block, a ``while`` on a tensor), torch.func's second derivative along
a direction, Hessian-vector product, jacfwd, jacrev and jacfwd(jacrev) Hessian, and per-sample
gradients by vmap(grad) and grad of vmap; same formulas, float64."""

from __future__ import annotations

import math
import sys

import numpy as np
import torch
from torch.func import grad, jacfwd, jacrev, jvp, vmap

W: dict[str, torch.Tensor] = {}


def mlp(x):
    return torch.tanh(x @ W["w1"] + W["b1"]) @ W["w2"]


def conv(x):
    y = torch.tanh(torch.nn.functional.conv2d(x, W["kernel"], padding=1))
    return torch.nn.functional.avg_pool2d(y, 2).reshape(x.shape[0], -1) @ W["dense"]


def lstm_cell(x):
    gates = x @ W["wx"] + W["h0"] @ W["wh"] + W["bg"]
    i, f, g, o = torch.split(gates, gates.shape[1] // 4, dim=1)
    c = torch.sigmoid(f) * W["c0"] + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c)


def attention(x):
    q, k, v = x @ W["wq"], x @ W["wk"], x @ W["wv"]
    scores = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return (scores @ v) @ W["wo"]


def looped(x, n: int):
    # the loop's trip count is a constant near x: PyTorch's transforms cannot vmap a data-
    # dependent loop, so it runs the count that the plain evaluation at x takes
    y = x
    for _ in range(n):
        y = y * 1.5 + torch.sin(x) * y
    return y


def trips(x) -> int:
    y, n = x, 0
    while (y * y).sum() < 30.0:
        y, n = y * 1.5 + torch.sin(x) * y, n + 1
    return n


def transforms(f, x, v, c) -> dict[str, torch.Tensor]:
    def s(t):
        return (f(t) * c).sum()

    out = {"d2": grad(grad(lambda e: s(x + e * v)))(torch.zeros((), dtype=x.dtype)),
           "hvp": jvp(grad(s), (x,), (v,))[1], "jacfwd": jacfwd(f)(x), "jacrev": jacrev(f)(x),
           "hessian": jacfwd(jacrev(s))(x)}
    return out


def per_sample(data) -> dict[str, torch.Tensor]:
    def loss(w1, b1, w2, x, y):
        return ((torch.tanh(x @ w1 + b1) @ w2 - y) ** 2).sum()

    w, xs, ys = (data["ps_w1"], data["ps_b1"], data["ps_w2"]), data["ps_x"], data["ps_y"]
    per = vmap(grad(loss, argnums=(0, 1, 2)), in_dims=(None, None, None, 0, 0))(*w, xs, ys)
    total = grad(lambda *p: vmap(loss, in_dims=(None, None, None, 0, 0))(*p, xs, ys).sum(),
                 argnums=(0, 1, 2))(*w)
    return {**{f"per_sample_{k}": g for k, g in enumerate(per)},
            **{f"grad_of_vmap_{k}": g for k, g in enumerate(total)}}


def main() -> None:
    data = {k: torch.from_numpy(v) for k, v in np.load(sys.argv[1]).items()}
    W.update(data)
    out = {}
    for name, f in (("mlp", mlp), ("conv", conv), ("lstm", lstm_cell), ("attention", attention),
                    ("while", None)):
        x = data[f"{name}_x"]
        if f is None:
            f = (lambda n: lambda t: looped(t, n))(trips(x))
        for key, value in transforms(f, x, data[f"{name}_v"], data[f"{name}_c"]).items():
            out[f"{name}_{key}"] = value
    out.update(per_sample(data))
    np.savez(sys.argv[2], **{k: v.detach().numpy() for k, v in out.items()})


if __name__ == "__main__":
    main()
