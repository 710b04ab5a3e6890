"""PyTorch reference for tests/framework/test_transformer_torch.py.

Run in a subprocess with ``PYTHONPATH=$TORCH_PATH``: ``python torch_transformer.py in.npz
out.npz``. ``in.npz`` holds ``count`` cases; case ``i`` has ``{i}.spec`` (JSON: ``kind`` =
mha | encoder_layer | decoder_layer | encoder | decoder | transformer, the constructor's
keyword arguments ``cfg`` in MindSpore's spelling, ``layers``/``norm`` for the stacks,
``args``: the names of the positional inputs, ``kwargs``: keyword -> array name (masks)
and ``flags``: plain keyword arguments), the arrays ``{i}.a:<name>``, the parameters
``{i}.p:<PyTorch name>`` and the output cotangents ``{i}.dout`` (and ``{i}.dw`` for
attention weights). The loss is ``sum(out * dout) [+ sum(weights * dw)]``; ``out.npz`` gets
``{i}.out``, ``{i}.weights``, ``{i}.g:<param>`` and ``{i}.gi:<input>``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import torch
from torch import nn


def _layer_cfg(cfg):
    return {k: v for k, v in cfg.items() if k != "has_bias"}


def build(spec):
    kind, cfg = spec["kind"], dict(spec["cfg"])
    if kind == "mha":
        cfg["bias"] = cfg.pop("has_bias", True)
        return nn.MultiheadAttention(**cfg)
    if kind == "encoder_layer":
        return nn.TransformerEncoderLayer(**_layer_cfg(cfg))
    if kind == "decoder_layer":
        return nn.TransformerDecoderLayer(**_layer_cfg(cfg))
    if kind == "encoder":
        norm = nn.LayerNorm(cfg["d_model"], eps=cfg.get("layer_norm_eps", 1e-5)) if spec["norm"] else None
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(**cfg), spec["layers"], norm,
                                     enable_nested_tensor=False)
    if kind == "decoder":
        norm = nn.LayerNorm(cfg["d_model"], eps=cfg.get("layer_norm_eps", 1e-5)) if spec["norm"] else None
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(**cfg), spec["layers"], norm)
    if kind == "transformer":
        return nn.Transformer(**cfg)
    raise ValueError(f"unknown kind {kind!r}")


def run_case(d, i):
    spec = json.loads(str(d[f"{i}.spec"]))
    module = build(spec)
    params = {k.split(":", 1)[1]: v for k, v in d.items() if k.startswith(f"{i}.p:")}
    state = module.state_dict()
    assert set(params) == set(state), (sorted(params), sorted(state))
    module.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()})
    module.train()  # dropout is 0 in every case; training keeps PyTorch off its fast paths
    arrays = {k.split(":", 1)[1]: v for k, v in d.items() if k.startswith(f"{i}.a:")}
    tensors = {}
    for name in spec["args"]:
        if name not in tensors:
            tensors[name] = torch.from_numpy(arrays[name]).requires_grad_(True)
    kwargs = {key: torch.from_numpy(arrays[name]) for key, name in spec["kwargs"].items()}
    result = module(*(tensors[n] for n in spec["args"]), **kwargs, **spec["flags"])
    out, weights = result if isinstance(result, tuple) else (result, None)
    loss = (out * torch.from_numpy(d[f"{i}.dout"])).sum()
    if weights is not None:
        loss = loss + (weights * torch.from_numpy(d[f"{i}.dw"])).sum()
    loss.backward()
    res = {f"{i}.out": out.detach().numpy()}
    if weights is not None:
        res[f"{i}.weights"] = weights.detach().numpy()
    for name, p in module.named_parameters():
        res[f"{i}.g:{name}"] = p.grad.numpy().copy()
    for name, t in tensors.items():
        res[f"{i}.gi:{name}"] = t.grad.numpy().copy()
    return res


def main() -> None:
    torch.manual_seed(0)
    d = dict(np.load(sys.argv[1]))
    out = {}
    for i in range(int(d["count"])):
        out.update(run_case(d, i))
    np.savez(sys.argv[2], **out)


if __name__ == "__main__":
    main()
