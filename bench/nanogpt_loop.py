"""nanoGPT's training loop for its small CPU Shakespeare configuration, in PyTorch eager:
the reference bench/lm.py measures ``experiments/gpt_shakespeare.yaml`` against.

Written from nanoGPT's documented ``train.py``/``model.py`` behaviour (run as ``train.py
config/train_shakespeare_char.py --device=cpu --compile=False --eval_iters=20
--block_size=64 --batch_size=12 --n_layer=4 --n_head=4 --n_embd=128 --max_iters=2000
--lr_decay_iters=2000 --dropout=0.0``):

- data (``data/shakespeare_char/prepare.py``): the vocabulary is every character of the
  whole text, sorted; train is the first 90% of the characters, val the last 10%;
- ``torch.manual_seed(seed)``, then the model: bench/seq_engines.py's GPT (no biases,
  LayerNorm without bias, ``lm_head`` tied to ``wte``), initialised by ``_init_weights``
  applied module by module (Linear and Embedding weights normal(0, 0.02), biases zero),
  then every ``c_proj.weight`` normal(0, 0.02 / sqrt(2 * n_layer));
- ``configure_optimizers``: AdamW, weight decay 0.1 on parameters of 2 or more dimensions,
  0 on the rest, betas (0.9, 0.99), eps 1e-8, fused only on CUDA (here: PyTorch's default);
- ``get_batch``: ``batch`` random window starts in ``[0, len(split) - block)``, targets
  shifted by one;
- the loop: the first training batch is drawn before the loop; each iteration sets the
  learning rate ``get_lr(it)``, every ``eval_interval`` iterations (0 included) runs
  ``estimate_loss`` (``eval_iters`` fresh random batches of train then of val, in eval
  mode), then the forward/backward on the batch drawn before, draws the next batch, clips
  the gradient norm to 1.0, steps, and stops once ``it > max_iters``; so the loss reported
  at iteration 2000 is read after 2000 updates, before the one at 2000.

Run: ``PYTHONPATH=$TORCH_PATH python bench/nanogpt_loop.py '{"text": ..., "seed": ...,
"threads": 1}'``; prints one JSON line: ``val_loss`` (the estimate at iteration
``max_iters``), ``losses`` (every evaluation's), ``whole_val_loss`` (the bench's addition:
the loss over the whole validation split's windows at iteration ``max_iters``, as ``train
eval`` reads ours; ``"whole_val": false`` skips it), ``estimate_sd`` (how much a 20-batch
estimate moves by its windows alone, with these weights), ``seconds``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

START = time.perf_counter()

import torch  # noqa: E402
from torch.nn import functional as F  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seq_engines as se  # noqa: E402

CONFIG = {"block_size": 64, "batch_size": 12, "n_layer": 4, "n_head": 4, "n_embd": 128,
          "learning_rate": 1e-3, "min_lr": 1e-4, "warmup_iters": 100, "lr_decay_iters": 2000,
          "max_iters": 2000, "eval_interval": 250, "eval_iters": 20, "weight_decay": 0.1,
          "beta1": 0.9, "beta2": 0.99, "grad_clip": 1.0}


def get_lr(it: int, c: dict = CONFIG) -> float:
    """nanoGPT's schedule: linear warm-up ``lr * (it + 1) / (warmup + 1)``, ``min_lr``
    after ``lr_decay_iters``, cosine from the peak to ``min_lr`` in between."""
    if it < c["warmup_iters"]:
        return c["learning_rate"] * (it + 1) / (c["warmup_iters"] + 1)
    if it > c["lr_decay_iters"]:
        return c["min_lr"]
    ratio = (it - c["warmup_iters"]) / (c["lr_decay_iters"] - c["warmup_iters"])
    return c["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (c["learning_rate"] - c["min_lr"])


def init_weights(model: torch.nn.Module, n_layer: int) -> None:
    """nanoGPT's ``self.apply(self._init_weights)`` then the scaled residual projections."""
    def one(module: torch.nn.Module) -> None:
        if isinstance(module, torch.nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, torch.nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    model.apply(one)
    for name, p in model.named_parameters():
        if name.endswith("c_proj.weight"):
            torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))


def param_groups(model: torch.nn.Module, weight_decay: float) -> list[dict]:
    """nanoGPT's ``configure_optimizers`` groups: decay on tensors of 2+ dimensions."""
    params = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]


def main() -> None:
    cfg = json.loads(sys.argv[1])
    c = {**CONFIG, **cfg.get("overrides", {})}
    torch.set_num_threads(cfg.get("threads", 1))
    torch.manual_seed(cfg["seed"])
    text = Path(cfg["text"]).read_text(encoding="utf-8")
    chars = sorted(set(text))
    index = {ch: i for i, ch in enumerate(chars)}
    n = int(len(text) * 0.9)
    splits = {"train": torch.tensor([index[ch] for ch in text[:n]], dtype=torch.long),
              "val": torch.tensor([index[ch] for ch in text[n:]], dtype=torch.long)}
    block, batch = c["block_size"], c["batch_size"]
    model = se.torch_model("gpt", "sdpa", {"vocab": len(chars), "block": block, "layers": c["n_layer"],
                                           "heads": c["n_head"], "embd": c["n_embd"]})
    init_weights(model, c["n_layer"])
    opt = torch.optim.AdamW(param_groups(model, c["weight_decay"]), lr=c["learning_rate"],
                            betas=(c["beta1"], c["beta2"]))

    def get_batch(split: str) -> tuple[torch.Tensor, torch.Tensor]:
        data = splits[split]
        ix = torch.randint(len(data) - block, (batch,))
        return (torch.stack([data[i:i + block] for i in ix]),
                torch.stack([data[i + 1:i + 1 + block] for i in ix]))

    def loss_of(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        logits = model(x)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-1)

    @torch.no_grad()
    def estimate_loss() -> dict[str, float]:
        model.eval()
        out = {}
        for split in ("train", "val"):
            losses = torch.zeros(c["eval_iters"])
            for k in range(c["eval_iters"]):
                losses[k] = loss_of(*get_batch(split)).item()
            out[split] = losses.mean().item()
        model.train()
        return out

    @torch.no_grad()
    def whole_split(split: str) -> tuple[float, float]:
        """Not nanoGPT's: the mean loss over the split's non-overlapping windows in order,
        ``batch`` at a time, the remainder dropped (what ``train eval`` reads of ours); and
        the sd of a mean of ``eval_iters * batch`` windows drawn from them (2,000 draws):
        how far one ``estimate_loss`` moves by its random windows alone."""
        model.eval()
        data = splits[split]
        steps = (len(data) - 1) // block // batch
        windows = []
        for s in range(steps):
            starts = (torch.arange(batch) + s * batch) * block
            logits = model(torch.stack([data[i:i + block] for i in starts]))
            y = torch.stack([data[i + 1:i + 1 + block] for i in starts])
            windows.append(F.cross_entropy(logits.transpose(1, 2), y, reduction="none").mean(1))
        model.train()
        losses = torch.cat(windows)
        draws = torch.randint(len(losses), (2000, c["eval_iters"] * batch),
                              generator=torch.Generator().manual_seed(0))
        return losses.mean().item(), losses[draws].mean(1).std().item()

    x, y = get_batch("train")
    evaluations, whole, spread = {}, None, None
    it = 0
    while True:
        for group in opt.param_groups:
            group["lr"] = get_lr(it, c)
        if it % c["eval_interval"] == 0:
            evaluations[it] = estimate_loss()["val"]
        if it == c["max_iters"] and cfg.get("whole_val", True):
            whole, spread = whole_split("val")  # the weights of the last evaluation; no random draws
        loss = loss_of(x, y)
        x, y = get_batch("train")
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), c["grad_clip"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        it += 1
        if it > c["max_iters"]:
            break
    print(json.dumps({"val_loss": evaluations[c["max_iters"]], "losses": evaluations,
                      "whole_val_loss": whole,
                      "estimate_sd": spread, "seconds": time.perf_counter() - START}))


if __name__ == "__main__":
    main()
