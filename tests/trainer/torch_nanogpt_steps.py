"""PyTorch reference for tests/trainer/test_lm_nanogpt.py: nanoGPT's update steps.

Run in a subprocess with ``PYTHONPATH=$TORCH_PATH``: ``python torch_nanogpt_steps.py in.npz
out.npz``. ``in.npz`` holds the GPT's sizes as JSON in ``cfg``, nanoGPT's settings as JSON
in ``settings`` (learning_rate, min_lr, warmup_iters, lr_decay_iters, weight_decay,
beta1, beta2, grad_clip), the batches ``xs``/``ys`` ``(steps, B, T)`` and the initial
parameters as ``s:<PyTorch name>``. Each step as nanoGPT's loop: lr ``get_lr(it)`` on every
group, forward/backward, ``clip_grad_norm_``, AdamW on ``configure_optimizers``' groups
(bench/nanogpt_loop.py). ``out.npz``: ``losses`` (before each update) and ``q:<name>``
(the parameters after the last).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import nanogpt_loop as nl  # noqa: E402
import seq_engines as se  # noqa: E402


def main() -> None:
    d = dict(np.load(sys.argv[1]))
    cfg, c = json.loads(str(d["cfg"])), {**nl.CONFIG, **json.loads(str(d["settings"]))}
    model = se.torch_model("gpt", "math", cfg)
    se.load_torch_state(model, {k[2:]: v for k, v in d.items() if k.startswith("s:")})
    opt = torch.optim.AdamW(nl.param_groups(model, c["weight_decay"]), lr=c["learning_rate"],
                            betas=(c["beta1"], c["beta2"]), eps=1e-8)
    losses = []
    for it, (x, y) in enumerate(zip(d["xs"], d["ys"], strict=True)):
        for group in opt.param_groups:
            group["lr"] = nl.get_lr(it, c)
        logits = model(torch.from_numpy(x).long())
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), torch.from_numpy(y).long().view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), c["grad_clip"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    out = {"losses": np.array(losses)}
    for name, p in model.named_parameters():
        out[f"q:{name}"] = p.detach().numpy().copy()
    np.savez(sys.argv[2], **out)


if __name__ == "__main__":
    main()
