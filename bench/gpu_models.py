"""Real-size train steps for bench/gpu_check.py: GPT-2 small and ResNet-50, amp O2 bfloat16.

- ``gpt2``: nanoGPT's ``train_gpt2`` shapes (12 layers, 12 heads, 768 wide, context 1024,
  vocab 50257; the zoo's GPT, no biases, tied head), AdamW as ``seq_engines`` (global-norm
  clip 1.0), batch 8 x 1024 tokens;
- ``resnet50``: torchvision's ResNet-50 (``resnet50.py``) at 224x224, 1000 classes, mean
  cross-entropy, Momentum 0.01/0.9, batch 64.

Weights and data are random (no download) and too large to travel with the bundle (the
device call carries 64 MiB): ``prepare`` writes a *recipe* per parameter (a constant, the
array itself when small, else a seeded normal draw with the initial value's mean and
standard deviation) and uses the recipe's values for the build, so the step the GPU runs
and the PyTorch references start from the same weights, drawn there by :func:`materialize`.

On the GPU the references are PyTorch eager under bf16 ``autocast`` (SDPA flash attention
for the GPT, ``channels_last`` for the ResNet; fused AdamW / SGD) and ``torch.compile`` of
the same module; the first step's loss of each is compared with ours, and with PyTorch in
float32 (TF32 off) as the higher-precision reference. Model FLOP utilisation is nanoGPT's
``estimate_mfu`` (6 FLOPs per parameter per token plus attention's 12*L*H*Q*T; for the
ResNet, 6 per multiply-add of its convolutions and classifier) over the bf16 matrix rate
measured on the GPU in the same run.

This module imports NumPy alone at the top: the GPU machine has no TVM compiler.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import resnet50

MODELS = ("gpt2", "resnet50")
CONFIGS: dict[str, dict[str, Any]] = {
    "gpt2": {"vocab": 50257, "block": 1024, "layers": 12, "heads": 12, "embd": 768, "batch": 8},
    "resnet50": {**resnet50.FULL, "batch": 64},
}
# the tests' sizes: the same code, compiled in seconds
SMALL: dict[str, dict[str, Any]] = {
    "gpt2": {"vocab": 96, "block": 32, "layers": 2, "heads": 2, "embd": 32, "batch": 2},
    "resnet50": {"blocks": (1, 1, 1, 1), "width": 8, "classes": 10, "image": 32, "batch": 2},
}
SMALL_ARRAY = 2048  # elements up to which a parameter travels as itself (JSON text)
H200_BF16 = 790e12  # dense bf16 FLOP/s measured on this workplace's H200 (KINDS.md): a fallback


def batch_of(model: str, cfg: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random inputs and labels of one step (NumPy alone: drawn alike on both machines)."""
    if model == "resnet50":
        return resnet50.random_batch(cfg["batch"], cfg["image"], cfg["classes"], seed)
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"] + 1)).astype(np.int32)
    return tokens[:, :-1].copy(), tokens[:, 1:].copy()


def flops_per_step(model: str, cfg: dict) -> float:
    if model == "resnet50":
        return resnet50.matmul_flops(cfg["blocks"], cfg["width"], cfg["classes"], cfg["image"],
                                     cfg["batch"])
    c, layers, t, vocab = cfg["embd"], cfg["layers"], cfg["block"], cfg["vocab"]
    params = vocab * c + layers * 12 * c * c + (2 * layers + 1) * c  # no wpe: a lookup
    return float(cfg["batch"] * t * (6 * params + 12 * layers * c * t))


# ---------------------------------------------------------------- the recipes
def recipe(array: np.ndarray, seed: int) -> dict[str, Any]:
    """How to draw a stand-in for ``array`` elsewhere: constant, itself, or a normal draw."""
    flat = array.reshape(-1)
    entry: dict[str, Any] = {"shape": list(array.shape), "dtype": str(array.dtype)}
    if flat.size and np.all(flat == flat[0]):
        return {**entry, "fill": flat[0].item()}
    if flat.size <= SMALL_ARRAY:
        return {**entry, "values": flat.tolist()}
    wide = flat.astype(np.float64)
    return {**entry, "mean": float(wide.mean()), "std": float(wide.std()), "seed": seed}


def materialize(entry: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(entry["dtype"]) if entry["dtype"] != "bfloat16" else _bfloat16()
    shape = tuple(entry["shape"])
    if "fill" in entry:
        return np.full(shape, entry["fill"], dtype)
    if "values" in entry:
        return np.asarray(entry["values"], np.float64).astype(dtype).reshape(shape)
    draw = np.random.default_rng(entry["seed"]).standard_normal(shape, np.float32)
    return (draw * np.float32(entry["std"]) + np.float32(entry["mean"])).astype(dtype)


def _bfloat16() -> np.dtype:
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


# ---------------------------------------------------------------- prepare (with the compiler)
def framework_step(model: str, cfg: dict):
    """``(JitFunction of our amp-O2 bf16 graph-mode step, {our name: PyTorch name})``."""
    import framework as ms
    from framework import nn, ops
    from framework.graph_mode import JitFunction

    if model == "resnet50":
        net = resnet50.framework_net(cfg["blocks"], cfg["width"], cfg["classes"])
        names = {p.name: resnet50.torch_name(p.name) for p in net.trainable_params()}
        net = ms.amp.auto_mixed_precision(net, "O2", ms.bfloat16)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                   nn.Momentum(net.trainable_params(), 0.01, 0.9))
        step.set_train()
        return JitFunction(step.construct, name="resnet50_train_step", cell=step), names
    import seq_engines

    from trainer.models.gpt import GPT

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = GPT(cfg["vocab"], cfg["block"], cfg["layers"], cfg["heads"], cfg["embd"])
    names = {p.name: seq_engines._torch_name(p.name) for p in net.trainable_params()}
    net = ms.amp.auto_mixed_precision(net, "O2", ms.bfloat16)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.AdamWeightDecay(net.trainable_params(), seq_engines.LR, *seq_engines.BETAS,
                                   eps=1e-8, weight_decay=seq_engines.WEIGHT_DECAY)
    vocab = cfg["vocab"]

    def forward(x, y):
        return loss_fn(net(x).reshape(-1, vocab), y.reshape(-1))

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(ops.clip_by_global_norm(grads, seq_engines.CLIP))
        return loss

    return JitFunction(train_step, name="gpt2_train_step"), names


def prepare(model: str, folder: Path, cfg: dict, layout_of) -> dict:
    """Compile ``model``'s step for CUDA into ``folder`` (library and meta.json, no arrays
    beyond the small ones in the recipes); ``layout_of`` reads the calling convention."""
    import framework as ms
    from framework import Tensor

    ms.set_context(device_target="GPU")
    compiled, names = framework_step(model, cfg)
    x, y = batch_of(model, cfg, 0)
    traced = compiled.compile(Tensor(x), Tensor(y), load=False)
    program = compiled._latest.program
    recipes = [recipe(p.asnumpy(), seed) for seed, p in enumerate(program.params)]
    layout = layout_of(compiled)
    unknown = sorted(set(names) - set(layout["params"]))
    if unknown:
        raise RuntimeError(f"{model}: trainable parameters missing from the step: {unknown[:3]}")
    meta = {**layout, "launches": traced.launches, "model": model, "config": cfg,
            "recipes": recipes, "torch_names": [names.get(n) for n in layout["params"]],
            "flops_per_step": flops_per_step(model, cfg), "cpu_losses": None}
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(compiled._latest.executable.library, folder / "step.so")
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


# ---------------------------------------------------------------- run (on the GPU)
def bf16_rate() -> tuple[float, str]:
    """Dense bf16 FLOP/s of this GPU: an 8192^3 product through PyTorch on random data
    (median of 10 after 3 warm-ups, CUDA events); KINDS.md's H200 figure without PyTorch."""
    try:
        import torch
    except ImportError:
        return H200_BF16, "H200 figure from KINDS.md (no PyTorch here)"
    n = 8192
    a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    times = []
    for i in range(13):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end) / 1000)
    return 2 * n ** 3 / float(np.median(times)), "measured (8192^3 bf16 matmul, PyTorch)"


def torch_step(model: str, cfg: dict, weights: dict[str, np.ndarray], mode: str):
    """PyTorch's step with ``weights`` on the GPU: ``mode`` ``eager`` (bf16 autocast),
    ``compile`` (the module through ``torch.compile``, same autocast) or ``float32`` (TF32
    off: the reference of higher precision). Returns ``step(x, y) -> loss tensor`` on
    device batches (channels_last images for the ResNet)."""
    import torch
    from torch.nn import functional as F

    if model == "resnet50":
        module = resnet50.torch_net(cfg["blocks"], cfg["width"], cfg["classes"])
        classes = cfg["classes"]
    else:
        import seq_engines

        module = seq_engines.torch_model("gpt", "sdpa", cfg)
        classes = cfg["vocab"]
    theirs = dict(module.named_parameters())
    if sorted(theirs) != sorted(weights):
        raise RuntimeError(f"{model}: parameters differ: PyTorch-only "
                           f"{sorted(set(theirs) - set(weights))[:3]}, ours-only "
                           f"{sorted(set(weights) - set(theirs))[:3]}")
    with torch.no_grad():
        for name, tensor in theirs.items():
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(weights[name], np.float32)))
    module.to("cuda")
    params = list(module.parameters())
    if model == "resnet50":
        module.to(memory_format=torch.channels_last)
        optimizer = _fused(torch.optim.SGD, params, lr=0.01, momentum=0.9)
    else:
        import seq_engines

        groups = [{"params": [p for p in params if p.dim() >= 2],
                   "weight_decay": seq_engines.WEIGHT_DECAY},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        optimizer = _fused(torch.optim.AdamW, groups, lr=seq_engines.LR, betas=seq_engines.BETAS,
                           eps=1e-8)
    module.train()
    forward = torch.compile(module) if mode == "compile" else module
    low = mode != "float32"

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=low):
            logits = forward(x)
            loss = F.cross_entropy(logits.reshape(-1, classes).float(), y.reshape(-1))
        loss.backward()
        if model != "resnet50":
            torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        return loss

    return step


def _fused(kind, params, **options):
    try:
        return kind(params, fused=True, **options)
    except (RuntimeError, TypeError, ValueError):  # a PyTorch without the fused kernel
        return kind(params, foreach=True, **options)


def torch_batch(model: str, x: np.ndarray, y: np.ndarray):
    import torch

    xs = torch.from_numpy(x).cuda()
    if model == "resnet50":
        xs = xs.contiguous(memory_format=torch.channels_last)
    else:
        xs = xs.long()
    return xs, torch.from_numpy(y).cuda().long()


LOSS_STEPS = 3  # steps whose losses are printed; the ResNet's (Momentum) compared on each
TOLERANCE = 1e-2  # bf16 against float32, relative (issue 38's target)


def run(model: str, folder: Path, make_step, budget: float, rate: tuple[float, str]) -> bool:
    """Load, check and time ``model``'s bundle in ``budget`` seconds (module load and
    ``torch.compile`` included); ``make_step(folder, params)`` gives our step on the GPU.
    Prints the losses, step times, throughput and model FLOP utilisation; False when the
    losses disagree."""
    import time

    start = time.perf_counter()
    meta = json.loads((folder / "meta.json").read_text())
    cfg = meta["config"]
    params = [materialize(entry) for entry in meta["recipes"]]
    weights = {name: params[i] for i, name in enumerate(meta["torch_names"]) if name}
    batches = [batch_of(model, cfg, seed) for seed in range(LOSS_STEPS)]
    loaded = time.perf_counter()
    ours = make_step(folder, params)
    load_s = time.perf_counter() - loaded
    device_batches = [tuple(ours.tvm.runtime.tensor(a, ours.device) for a in b) for b in batches]
    losses = {"graph-cuda": [ours(*b) for b in device_batches]}
    runners = {"graph-cuda": lambda: ours(*device_batches[0])}
    print(f"{model}: {meta['launches'].get('per_step')} launches per step "
          f"({meta['launches'].get('kernels')} kernels); library loaded (nvcc) in {load_s:.1f} s",
          flush=True)
    try:
        import torch
    except ImportError:
        torch = None
    compare = len(batches) if model == "resnet50" else 1  # AdamWeightDecay: no bias correction
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        theirs = [torch_batch(model, *b) for b in batches]
        for mode in ("float32", "eager", "compile"):
            if mode == "compile" and time.perf_counter() - start > budget * 0.5:
                print(f"{model}: torch.compile skipped (half the {budget:.0f} s budget spent)")
                continue
            step = torch_step(model, cfg, weights, mode)
            losses[f"torch-{mode}"] = [float(step(*b).item()) for b in theirs]
            if mode != "float32":
                runners[f"torch-{mode}"] = (lambda s: lambda: s(*theirs[0]).item())(step)
            del step
            torch.cuda.empty_cache()
    for name, values in losses.items():
        print(f"{model}: {name} losses {', '.join(f'{v:.5f}' for v in values)}", flush=True)
    agree = True
    reference = losses.get("torch-float32")
    if reference is not None:
        worst = {name: max(abs(a - b) / abs(b) for a, b in zip(v[:compare], reference[:compare]))
                 for name, v in losses.items() if name != "torch-float32"}
        agree = all(np.isfinite(w) and w < TOLERANCE for w in worst.values())
        print(f"{model}: relative difference from PyTorch float32 over {compare} step(s): "
              + ", ".join(f"{n} {w:.1e}" for n, w in worst.items())
              + f" ({'agree' if agree else 'DIFFER'}, tolerance {TOLERANCE})", flush=True)
    else:
        agree = all(np.isfinite(losses["graph-cuda"]))
    medians = _time(runners, start + budget)
    flops, (peak, source) = meta["flops_per_step"], rate
    unit = ("tokens", cfg["batch"] * cfg.get("block", 0)) if model == "gpt2" else ("images", cfg["batch"])
    for name, ms in medians.items():
        print(f"{model}: {name} {ms:.2f} ms/step, {unit[1] / ms * 1000:,.0f} {unit[0]}/s, "
              f"MFU {flops / (ms / 1000) / peak:.1%}", flush=True)
    if "torch-eager" in medians:
        ratios = [f"ours/{n} {medians['graph-cuda'] / m:.2f}x" for n, m in medians.items()
                  if n != "graph-cuda"]
        print(f"{model}: {', '.join(ratios)} (MFU over {peak / 1e12:.0f} TFLOP/s, {source}; "
              f"{flops / 1e12:.2f} TFLOP per step)", flush=True)
    return agree


def _time(runners: dict, deadline: float, rounds: int = 7) -> dict[str, float]:
    """Median per-step milliseconds of each runner: interleaved rounds of about half a
    second each, after two warm-up steps, until ``rounds`` or the ``deadline``."""
    import time

    for fn in runners.values():
        for _ in range(2):
            fn()
    per_step = {}
    for name, fn in runners.items():
        begun = time.perf_counter()
        fn()
        per_step[name] = time.perf_counter() - begun
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        if times["graph-cuda"] and time.perf_counter() > deadline:
            break
        for name, fn in runners.items():
            steps = max(1, min(50, int(0.5 / max(per_step[name], 1e-4))))
            begun = time.perf_counter()
            for _ in range(steps):
                fn()
            times[name].append((time.perf_counter() - begun) / steps * 1000)
    return {name: float(np.median(t)) for name, t in times.items()}
