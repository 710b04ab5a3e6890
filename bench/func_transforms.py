"""Second-order training steps: a WGAN-GP critic step and a MAML inner/outer step, ours in graph
mode and PyNative beside PyTorch's ``torch.func`` version and plain ``torch.autograd.grad(...,
create_graph=True)`` (where torch imports from ``--torch-path``; never a dependency).

    .venv/bin/python bench/func_transforms.py [--steps 30] [--threads 1] [--torch-path DIR]
                                              [--cases wgan,maml] [--no-pynative]

- WGAN-GP: a critic MLP (784-256-256-1, LeakyReLU 0.2) on a batch of 64; the loss is
  ``critic(fake) - critic(real) + 10 (|d critic / d mix|_2 - 1)^2`` at random interpolations
  ``mix`` of real and fake; its gradient w.r.t. the weights goes through the input gradient;
  then an Adam update. Ours: ``ms.value_and_grad`` of a loss that calls ``ms.grad``, the update
  inside the same ``ms.jit`` function.
- MAML: the sinusoid regressor (1-40-40-1, ReLU), 4 tasks of 10 support and 10 query points;
  one inner SGD step (lr 0.01) per task with the graph of its gradient kept, the mean query
  loss at the adapted weights differentiated through the inner step; then an Adam update.

All engines start from the same weights and run on the same data; the first losses are printed
and must agree (a check that the same computation is timed). Steps are interleaved (each repeat
runs one step of each engine), one thread by default, medians of ``--steps`` after warm-up
(graph mode compiles there). The ratio reported is ours (graph) over the faster of PyTorch's two.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
if "--threads" not in sys.argv:
    sys.argv += ["--threads", "1"]  # one thread by default, before any pool starts
import bench_env  # noqa: E402, F401  (first: --threads sizes the thread pools)
import numpy as np  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor, nn, ops  # noqa: E402

LAMBDA, ALPHA, LR = 10.0, 0.01, 1e-3
Step = Callable[[], float]


# -- the data and the weights both sides start from --------------------------------------------
def wgan_data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"real": rng.normal(0.5, 0.5, size=(64, 784)).astype(np.float32),
            "fake": rng.normal(-0.5, 0.5, size=(64, 784)).astype(np.float32),
            "mix": rng.uniform(size=(64, 1)).astype(np.float32)}


def maml_data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    amp, phase = rng.uniform(0.1, 5.0, size=(4, 1, 1)), rng.uniform(0, np.pi, size=(4, 1, 1))
    xs, xq = (rng.uniform(-5, 5, size=(4, 10, 1)) for _ in range(2))
    out = {"xs": xs, "ys": amp * np.sin(xs + phase), "xq": xq, "yq": amp * np.sin(xq + phase)}
    return {k: v.astype(np.float32) for k, v in out.items()}


def weights(rng: np.random.Generator, sizes: list[int]) -> list[np.ndarray]:
    """(weight (out, in), bias) per layer, as nn.Dense and torch.nn.Linear both store them."""
    out = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        out += [rng.uniform(-bound, bound, size=(fan_out, fan_in)), rng.uniform(-bound, bound, size=fan_out)]
    return [w.astype(np.float32) for w in out]


# -- ours -----------------------------------------------------------------------------------------
def _dense_stack(sizes: list[int], init: list[np.ndarray], act: Callable[[], nn.Cell]) -> nn.Cell:
    layers: list[nn.Cell] = []
    for k, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Dense(fan_in, fan_out, weight_init=Tensor(init[2 * k]),
                               bias_init=Tensor(init[2 * k + 1])))
        if k < len(sizes) - 2:
            layers.append(act())
    return nn.SequentialCell(layers)


def our_wgan(init: list[np.ndarray], data: dict[str, np.ndarray], mode: int) -> Step:
    critic = _dense_stack([784, 256, 256, 1], init, lambda: nn.LeakyReLU(0.2))
    opt = nn.Adam(critic.trainable_params(), learning_rate=LR, beta1=0.5, beta2=0.9)

    def loss_fn(real, fake, mix):
        between = mix * real + (1 - mix) * fake
        grads = ms.grad(lambda t: critic(t).sum())(between)
        norm = ops.sqrt((grads * grads).sum(axis=1) + 1e-12)
        return critic(fake).mean() - critic(real).mean() + LAMBDA * ((norm - 1.0) ** 2).mean()

    return _our_step(loss_fn, opt, [Tensor(data[k]) for k in ("real", "fake", "mix")], mode)


def our_maml(init: list[np.ndarray], data: dict[str, np.ndarray], mode: int) -> Step:
    net = _dense_stack([1, 40, 40, 1], init, nn.ReLU)
    params = net.trainable_params()
    opt = nn.Adam(params, learning_rate=LR)

    def forward(x, w):
        h = ops.relu(ops.matmul(x, w[0].T) + w[1])
        h = ops.relu(ops.matmul(h, w[2].T) + w[3])
        return ops.matmul(h, w[4].T) + w[5]

    def mse(x, y, *w):
        diff = forward(x, w) - y
        return (diff * diff).mean()

    def loss_fn(xs, ys, xq, yq):
        total = 0.0
        for task in range(xs.shape[0]):
            grads = ms.grad(mse, grad_position=tuple(range(2, 8)))(xs[task], ys[task], *params)
            adapted = [p - ALPHA * g for p, g in zip(params, grads)]
            total = total + mse(xq[task], yq[task], *adapted)
        return total / xs.shape[0]

    return _our_step(loss_fn, opt, [Tensor(data[k]) for k in ("xs", "ys", "xq", "yq")], mode)


def _our_step(loss_fn: Callable, opt: nn.Optimizer, inputs: list[Tensor], mode: int) -> Step:
    grad_fn = ms.value_and_grad(loss_fn, None, opt.parameters)

    def step(*batch):
        loss, grads = grad_fn(*batch)
        opt(grads)
        return loss

    if mode == ms.GRAPH_MODE:
        compiled = ms.jit(step)
        return lambda: float(compiled(*inputs).asnumpy())

    def eager() -> float:
        with ms.pynative():
            return float(step(*inputs).asnumpy())

    return eager


# -- PyTorch ------------------------------------------------------------------------------------
def _torch_stack(torch, sizes: list[int], init: list[np.ndarray], act: Callable):
    layers = []
    for k, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        linear = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(init[2 * k]))
            linear.bias.copy_(torch.from_numpy(init[2 * k + 1]))
        layers.append(linear)
        if k < len(sizes) - 2:
            layers.append(act())
    return torch.nn.Sequential(*layers)


def torch_wgan(torch, init: list[np.ndarray], data: dict[str, np.ndarray], functional: bool) -> Step:
    from torch.func import functional_call, grad

    critic = _torch_stack(torch, [784, 256, 256, 1], init, lambda: torch.nn.LeakyReLU(0.2))
    opt = torch.optim.Adam(critic.parameters(), lr=LR, betas=(0.5, 0.9))
    real, fake, mix = (torch.from_numpy(data[k]) for k in ("real", "fake", "mix"))

    def loss_of(params):
        def out(t):
            return functional_call(critic, params, (t,))

        between = mix * real + (1 - mix) * fake
        grads = grad(lambda t: out(t).sum())(between)
        norm = torch.sqrt((grads * grads).sum(dim=1) + 1e-12)
        return out(fake).mean() - out(real).mean() + LAMBDA * ((norm - 1.0) ** 2).mean()

    def func_step() -> float:
        params = dict(critic.named_parameters())
        grads, loss = grad(lambda p: (lambda v: (v, v.detach()))(loss_of(p)), has_aux=True)(params)
        for name, p in params.items():
            p.grad = grads[name]
        opt.step()
        return loss.item()

    def autograd_step() -> float:
        opt.zero_grad()
        between = (mix * real + (1 - mix) * fake).requires_grad_(True)
        (grads,) = torch.autograd.grad(critic(between).sum(), between, create_graph=True)
        norm = torch.sqrt((grads * grads).sum(dim=1) + 1e-12)
        loss = critic(fake).mean() - critic(real).mean() + LAMBDA * ((norm - 1.0) ** 2).mean()
        loss.backward()
        opt.step()
        return loss.item()

    return func_step if functional else autograd_step


def torch_maml(torch, init: list[np.ndarray], data: dict[str, np.ndarray], functional: bool) -> Step:
    from torch.func import grad

    net = _torch_stack(torch, [1, 40, 40, 1], init, torch.nn.ReLU)
    params = list(net.parameters())
    opt = torch.optim.Adam(params, lr=LR)
    xs, ys, xq, yq = (torch.from_numpy(data[k]) for k in ("xs", "ys", "xq", "yq"))

    def forward(x, w):
        h = torch.relu(x @ w[0].T + w[1])
        h = torch.relu(h @ w[2].T + w[3])
        return h @ w[4].T + w[5]

    def mse(w, x, y):
        return ((forward(x, w) - y) ** 2).mean()

    def outer(w):
        total = 0.0
        for task in range(xs.shape[0]):
            grads = grad(mse)(w, xs[task], ys[task])
            total = total + mse([p - ALPHA * g for p, g in zip(w, grads)], xq[task], yq[task])
        return total / xs.shape[0]

    def func_step() -> float:
        grads, loss = grad(lambda w: (lambda v: (v, v.detach()))(outer(w)), has_aux=True)(
            [p.detach() for p in params])
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()
        return loss.item()

    def autograd_step() -> float:
        opt.zero_grad()
        total = 0.0
        for task in range(xs.shape[0]):
            grads = torch.autograd.grad(mse(params, xs[task], ys[task]), params, create_graph=True)
            total = total + mse([p - ALPHA * g for p, g in zip(params, grads)], xq[task], yq[task])
        loss = total / xs.shape[0]
        loss.backward()
        opt.step()
        return loss.item()

    return func_step if functional else autograd_step


# -- timing ------------------------------------------------------------------------------------
CASES = {"wgan": (wgan_data, [784, 256, 256, 1], our_wgan, torch_wgan),
         "maml": (maml_data, [1, 40, 40, 1], our_maml, torch_maml)}


def run_case(name: str, args: argparse.Namespace, torch) -> None:
    make_data, sizes, ours, theirs = CASES[name]
    rng = np.random.default_rng(0)
    data, init = make_data(rng), weights(rng, sizes)
    engines: dict[str, Step] = {"ours graph": ours(init, data, ms.GRAPH_MODE)}
    if not args.no_pynative:
        engines["ours pynative"] = ours(init, data, ms.PYNATIVE_MODE)
    if torch is not None:
        engines["torch.func"] = theirs(torch, init, data, True)
        engines["torch autograd"] = theirs(torch, init, data, False)
    start = time.perf_counter()
    losses = {key: [step() for _ in range(3)] for key, step in engines.items()}  # warm-up
    print(f"{name}: losses of the first 3 steps " + "; ".join(
        f"{k} " + " ".join(f"{v:.6f}" for v in values) for k, values in losses.items())
        + f" (warm-up with graph mode's compile: {time.perf_counter() - start:.1f} s)", flush=True)
    for k in range(3):  # the first: the same computation; the next: the same updates too
        values = [v[k] for v in losses.values()]
        if max(values) - min(values) > 1e-4 * max(1.0, abs(values[0])):
            print(f"{name}: LOSSES OF STEP {k + 1} DIFFER: not the same computation", flush=True)
    seconds: dict[str, list[float]] = {key: [] for key in engines}
    for _ in range(args.steps):  # interleaved: one step of each engine per repeat
        for key, step in engines.items():
            t0 = time.perf_counter()
            step()
            seconds[key].append(time.perf_counter() - t0)
    medians = {key: statistics.median(v) for key, v in seconds.items()}
    print(f"{name}: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in medians.items()), flush=True)
    if torch is not None:
        best = min(("torch.func", "torch autograd"), key=medians.__getitem__)
        print(f"{name}: ours graph / {best} {medians['ours graph'] / medians[best]:.2f}x"
              + (f", ours pynative / {best} {medians['ours pynative'] / medians[best]:.2f}x"
                 if "ours pynative" in medians else ""), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--cases", default="wgan,maml")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--no-pynative", action="store_true")
    args = parser.parse_args()
    torch = None
    if not args.no_torch:
        sys.path.append(args.torch_path)
        try:
            import torch

            torch.set_num_threads(args.threads)
        except ImportError:
            print(f"no PyTorch at --torch-path {args.torch_path}: ours only", flush=True)
    print(f"{bench_env.cpu_line()}; threads: {args.threads}", flush=True)
    for name in args.cases.split(","):
        run_case(name, args, torch)


if __name__ == "__main__":
    main()
