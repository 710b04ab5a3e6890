"""A GPT (causal self-attention, weight-tied head) and a 2-layer LSTM language model against
PyTorch 2.13: from the same weights and batch, the loss, the gradient of every parameter,
the parameters after one SGD step and the loss after it agree to float32 rounding, in
PyNative and in graph mode (the whole step compiled).

The networks are the zoo's GPT (trainer/models/gpt.py) and bench/seq_engines.py's LSTM
model; PyTorch's twins are bench/seq_engines.py's, run by ``torch_seq_models.py`` in a
subprocess with ``PYTHONPATH=$TORCH_PATH`` (skipped without it, as test_zoo_torch.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from tests.torch_ref import needs_torch, reference

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import seq_engines as se  # noqa: E402

SCRIPT = Path(__file__).with_name("torch_seq_models.py")

SMALL = {
    "gpt": {"vocab": 23, "block": 12, "layers": 2, "heads": 4, "embd": 32, "batch": 3},
    "lstm": {"vocab": 23, "block": 10, "layers": 2, "embd": 16, "hidden": 24, "batch": 3},
}
LR = 0.5


def _close(got, want, what, rtol=2e-4):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = max(float(np.abs(want).max()), 1e-12)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def _batch(cfg, seed=0):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"] + 1)).astype(np.int32)
    return tokens[:, :-1].copy(), tokens[:, 1:].copy()


def _reference(model, cfg, net, x, y, tmp_path):
    state = se.torch_state(net)
    return reference(SCRIPT, tmp_path, model=model, cfg=json.dumps(cfg), x=x, y=y, lr=LR,
                     **{f"s:{k}": v for k, v in state.items()})


@needs_torch
@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("model", ["gpt", "lstm"])
def test_one_training_step_matches_pytorch(model, mode, tmp_path):
    cfg = SMALL[model]
    net = se.framework_net(model, cfg)
    x, y = _batch(cfg)
    ref = _reference(model, cfg, net, x, y, tmp_path)
    params = net.trainable_params()
    names = [se._torch_name(p.name) for p in params]
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(params, LR)

    def forward(x, y):
        return loss_fn(net(x).reshape(-1, cfg["vocab"]), y.reshape(-1))

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss, grads

    run = ms.jit(step) if mode == "graph" else step
    loss, grads = run(Tensor(x), Tensor(y))
    _close(loss.asnumpy(), ref["loss"], "loss", rtol=1e-5)
    for name, g in zip(names, grads, strict=True):
        _close(g.asnumpy(), ref[f"g:{name}"], f"gradient of {name}")
    for name, p in zip(names, params, strict=True):
        _close(p.asnumpy(), ref[f"q:{name}"], f"{name} after the step")
    _close(forward(Tensor(x), Tensor(y)).asnumpy(), ref["loss2"], "loss after the step", rtol=1e-5)
