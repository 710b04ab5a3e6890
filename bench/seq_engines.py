"""Sequence-model train steps for bench/transformer.py, one builder per engine.

Two models, each built once by the framework (seed 0) and copied into PyTorch by name, so
every engine starts from the same weights:

- ``gpt``: nanoGPT's character model in its small CPU configuration (``trainer/models/
  gpt.py``: vocab 65, 4 layers, 4 heads, 128-dim, context 64, no biases (LayerNorms without
  beta, as nanoGPT's ``bias=False``), weight tying), batch 12;
- ``lstm``: a 2-layer LSTM language model (embedding 256 -> ``nn.LSTM(256, 256, 2,
  batch_first=True)`` -> ``Dense(256, 65)``), context 64, batch 32.

The step is the functional training loop: mean token cross-entropy, gradients, global-norm
clip at 1.0, AdamW (lr 1e-3, betas 0.9/0.99, weight decay 0.1 on matrices; ours is
MindSpore's ``nn.AdamWeightDecay``, which has no bias correction, so losses agree across
engines on the first step only; ours agree with each other on every step). PyTorch runs
eagerly with its fastest CPU pieces: ``fused=True`` AdamW, ``F.scaled_dot_product_attention``
(or the hand-written attention, ``torch-math``) and the fused ``nn.LSTM`` kernel.
Every builder returns ``step(x, y) -> loss``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Step = Callable[[np.ndarray, np.ndarray], float]
LR, BETAS, WEIGHT_DECAY, CLIP = 1e-3, (0.9, 0.99), 0.1, 1.0
CONFIGS = {
    "gpt": {"vocab": 65, "block": 64, "layers": 4, "heads": 4, "embd": 128, "batch": 12},
    "lstm": {"vocab": 65, "block": 64, "layers": 2, "embd": 256, "hidden": 256, "batch": 32},
}


def batch_of(model: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    cfg = CONFIGS[model]
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"] + 1)).astype(np.int32)
    return tokens[:, :-1].copy(), tokens[:, 1:].copy()


def framework_net(model: str, cfg: dict | None = None):
    """Our network (seed 0, PyNative) for ``model`` (sizes from ``cfg``, default CONFIGS)."""
    import framework as ms
    from framework import nn

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    cfg = cfg or CONFIGS[model]
    if model == "gpt":
        from trainer.models.gpt import GPT

        return GPT(cfg["vocab"], cfg["block"], cfg["layers"], cfg["heads"], cfg["embd"])

    class LSTMLM(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(cfg["vocab"], cfg["embd"])
            self.rnn = nn.LSTM(cfg["embd"], cfg["hidden"], cfg["layers"], batch_first=True)
            self.head = nn.Dense(cfg["hidden"], cfg["vocab"])

        def construct(self, idx):
            out, _ = self.rnn(self.embedding(idx))
            return self.head(out)

    return LSTMLM()


def framework_step(model: str, mode: int, amp_dtype=None) -> tuple[Step, object, object]:
    """Our train step pinned to ``mode``: ``(step, compiled JitFunction or None, net)``;
    with ``amp_dtype`` (``ms.bfloat16``/``ms.float16``) the net in amp O2 of that dtype."""
    import framework as ms
    from framework import Tensor, nn, ops
    from framework.graph_mode import JitFunction

    net = framework_net(model)
    if amp_dtype is not None:
        net = ms.amp.auto_mixed_precision(net, "O2", amp_dtype)
    vocab = CONFIGS[model]["vocab"]
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.AdamWeightDecay(net.trainable_params(), LR, *BETAS, eps=1e-8,
                                   weight_decay=WEIGHT_DECAY)

    def forward(x, y):
        return loss_fn(net(x).reshape(-1, vocab), y.reshape(-1))

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(ops.clip_by_global_norm(grads, CLIP))
        return loss

    if mode == ms.GRAPH_MODE:
        compiled = JitFunction(train_step, name=f"{model}_train_step")
        return (lambda x, y: float(compiled(Tensor(x), Tensor(y)).asnumpy())), compiled, net
    return (lambda x, y: float(train_step(Tensor(x), Tensor(y)).asnumpy())), None, net


def _torch_name(name: str) -> str:
    for ours, theirs in ((".embedding_table", ".weight"), (".gamma", ".weight"),
                         (".beta", ".bias")):
        if name.endswith(ours):
            return name[: -len(ours)] + theirs
    return name


def torch_state(net) -> dict[str, np.ndarray]:
    """Our trainable parameters under PyTorch's names (``embedding_table``/``gamma``/``beta``
    become ``weight``/``weight``/``bias``; the rest are spelled alike)."""
    return {_torch_name(p.name): p.asnumpy().copy() for p in net.trainable_params()}


def load_torch_state(module, state: dict[str, np.ndarray]) -> None:
    """Every PyTorch parameter from ``state`` (by name, shapes checked); none left over."""
    import torch

    theirs = dict(module.named_parameters())  # a tied weight appears once
    if sorted(theirs) != sorted(state):
        raise RuntimeError(f"parameters differ: PyTorch {sorted(theirs)}, ours {sorted(state)}")
    with torch.no_grad():
        for name, tensor in theirs.items():
            if tuple(tensor.shape) != state[name].shape:
                raise RuntimeError(f"{name}: PyTorch {tuple(tensor.shape)}, ours {state[name].shape}")
            tensor.copy_(torch.from_numpy(state[name]))


def torch_model(model: str, attention: str = "sdpa", cfg: dict | None = None):
    """The same network in PyTorch (``attention``: ``sdpa`` or ``math``, for the GPT)."""
    import torch
    from torch import nn as tnn
    from torch.nn import functional as F

    cfg = cfg or CONFIGS[model]
    if model == "lstm":
        class LSTMLM(tnn.Module):
            def __init__(self):
                super().__init__()
                self.embedding = tnn.Embedding(cfg["vocab"], cfg["embd"])
                self.rnn = tnn.LSTM(cfg["embd"], cfg["hidden"], cfg["layers"], batch_first=True)
                self.head = tnn.Linear(cfg["hidden"], cfg["vocab"])

            def forward(self, idx):
                return self.head(self.rnn(self.embedding(idx))[0])

        return LSTMLM()

    c, nh = cfg["embd"], cfg["heads"]

    class Attention(tnn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = tnn.Linear(c, 3 * c, bias=False)
            self.c_proj = tnn.Linear(c, c, bias=False)
            mask = torch.tril(torch.ones(cfg["block"], cfg["block"], dtype=torch.bool))
            self.register_buffer("mask", mask, persistent=False)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.c_attn(x).split(c, dim=2)
            q, k, v = (z.view(b, t, nh, c // nh).transpose(1, 2) for z in (q, k, v))
            if attention == "sdpa":
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / (c // nh) ** 0.5)
                att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
                y = F.softmax(att, dim=-1) @ v
            return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))

    class Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = tnn.LayerNorm(c, bias=False), Attention()
            self.ln_2 = tnn.LayerNorm(c, bias=False)
            self.mlp = tnn.Sequential()
            self.mlp.add_module("c_fc", tnn.Linear(c, 4 * c, bias=False))
            self.mlp.add_module("gelu", tnn.GELU())
            self.mlp.add_module("c_proj", tnn.Linear(4 * c, c, bias=False))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(tnn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = tnn.ModuleDict(dict(
                wte=tnn.Embedding(cfg["vocab"], c), wpe=tnn.Embedding(cfg["block"], c),
                h=tnn.ModuleList([Block() for _ in range(cfg["layers"])]), ln_f=tnn.LayerNorm(c, bias=False)))
            self.lm_head = tnn.Linear(c, cfg["vocab"], bias=False)
            self.lm_head.weight = self.transformer.wte.weight  # weight tying

        def forward(self, idx):
            tr = self.transformer
            x = tr.wte(idx) + tr.wpe(torch.arange(idx.shape[1], device=idx.device))
            for block in tr.h:
                x = block(x)
            return self.lm_head(tr.ln_f(x))

    return GPT()


def torch_step(model: str, net, threads: int, attention: str = "sdpa") -> Step | None:
    """PyTorch eager with ``net``'s weights, or None when torch is not importable."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch_step_from_state(model, torch_state(net), attention)


def torch_step_from_state(model: str, state: dict[str, np.ndarray], attention: str = "sdpa",
                          device: str = "cpu", autocast: str | None = None) -> Step:
    """PyTorch eager on ``device`` with the weights ``state`` (PyTorch's names); with
    ``autocast`` (``"bfloat16"``/``"float16"``) the forward pass under ``torch.autocast``."""
    import torch
    from torch.nn import functional as F

    module = torch_model(model, attention)
    load_torch_state(module, state)
    module.to(device)
    params = list(module.parameters())
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": WEIGHT_DECAY},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=LR, betas=BETAS, eps=1e-8, fused=True)
    vocab = CONFIGS[model]["vocab"]

    def step(x: np.ndarray, y: np.ndarray) -> float:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.split(":")[0], dtype=getattr(torch, autocast or "float32"),
                            enabled=autocast is not None):
            logits = module(torch.from_numpy(x).to(device).long())
            target = torch.from_numpy(y).to(device).long().view(-1)
            loss = F.cross_entropy(logits.view(-1, vocab), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, CLIP)
        optimizer.step()
        return loss.item()

    return step
