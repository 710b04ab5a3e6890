"""Derivative transforms against PyTorch's ``torch.func`` on five functions: an MLP, a small
conv net, an LSTM cell written with primitives, an attention block (softmax(QK^T/sqrt d)V and
a projection) and a ``while`` on a tensor's value. Each: the second derivative along a direction
(``grad(grad(e -> s(x + e v)))``), a Hessian-vector product (``jvp`` of ``grad``), ``jacfwd``,
``jacrev`` and the Hessian ``jacfwd(jacrev(s))``, where ``s`` is a weighted sum of the output;
and per-sample gradients (``vmap(grad)``) and ``grad`` of ``vmap``. Same weights, float64,
PyNative and graph mode; PyTorch runs in a subprocess (seconds: the slow tier), skipped without
it. The fast tier checks the same transforms against finite differences in PyNative."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from framework.autograd import batching
from tests.torch_ref import needs_torch, reference

from .control_flow_cases import run_in

SCRIPT = Path(__file__).with_name("torch_func_transforms.py")
RNG = np.random.default_rng(21)
W = {"w1": RNG.normal(size=(3, 4)), "b1": RNG.normal(size=(4,)), "w2": RNG.normal(size=(4, 2)),
     "kernel": RNG.normal(size=(2, 2, 3, 3)) * 0.5, "dense": RNG.normal(size=(8, 3)),
     "wx": RNG.normal(size=(3, 8)) * 0.5, "wh": RNG.normal(size=(2, 8)) * 0.5,
     "bg": RNG.normal(size=(8,)), "h0": RNG.normal(size=(2, 2)), "c0": RNG.normal(size=(2, 2)),
     "wq": RNG.normal(size=(4, 4)) * 0.5, "wk": RNG.normal(size=(4, 4)) * 0.5,
     "wv": RNG.normal(size=(4, 4)), "wo": RNG.normal(size=(4, 3))}
T = {k: Tensor(v) for k, v in W.items()}
INPUTS = {"mlp": (2, 3), "conv": (1, 2, 4, 4), "lstm": (2, 3), "attention": (3, 4), "while": (3,)}
OUTPUTS = {"mlp": (2, 2), "conv": (1, 3), "lstm": (2, 2), "attention": (3, 3), "while": (3,)}
# the loop's point: near 1, where it runs two trips
POINTS = {name: {"x": RNG.normal(size=shape) * 0.3 + 1.0 if name == "while" else RNG.normal(size=shape),
                 "v": RNG.normal(size=shape), "c": RNG.normal(size=OUTPUTS[name])}
          for name, shape in INPUTS.items()}
# per-sample gradients of a squared error through a small MLP
PS = {"ps_w1": RNG.normal(size=(3, 4)), "ps_b1": RNG.normal(size=(4,)), "ps_w2": RNG.normal(size=(4, 1)),
      "ps_x": RNG.normal(size=(5, 3)), "ps_y": RNG.normal(size=(5, 1))}


def mlp(x):
    return ops.matmul(ops.tanh(ops.matmul(x, T["w1"]) + T["b1"]), T["w2"])


def conv(x):
    y = ops.tanh(ops.conv2d(x, T["kernel"], pad_mode="pad", padding=1))
    return ops.matmul(ops.avg_pool2d(y, 2, 2).reshape(x.shape[0], -1), T["dense"])


def lstm_cell(x):
    gates = ops.matmul(x, T["wx"]) + ops.matmul(T["h0"], T["wh"]) + T["bg"]
    i, f, g, o = ops.split(gates, gates.shape[1] // 4, axis=1)
    c = ops.sigmoid(f) * T["c0"] + ops.sigmoid(i) * ops.tanh(g)
    return ops.sigmoid(o) * ops.tanh(c)


def attention(x):
    q, k, v = ops.matmul(x, T["wq"]), ops.matmul(x, T["wk"]), ops.matmul(x, T["wv"])
    scores = ops.softmax(ops.matmul(q, ops.swapaxes(k, -2, -1)) / math.sqrt(q.shape[-1]), axis=-1)
    return ops.matmul(ops.matmul(scores, v), T["wo"])


def looped(x):
    y = x
    while (y * y).sum() < 30.0:
        y = y * 1.5 + ops.sin(x) * y
    return y


FUNCTIONS = {"mlp": mlp, "conv": conv, "lstm": lstm_cell, "attention": attention, "while": looped}


def transforms(name: str) -> dict[str, Tensor]:
    f, p = FUNCTIONS[name], POINTS[name]
    x, v, c = Tensor(p["x"]), Tensor(p["v"]), Tensor(p["c"])

    def s(t):
        return (f(t) * c).sum()

    return {"d2": ms.grad(ms.grad(lambda e: s(x + e * v)))(Tensor(np.zeros(()))),
            "hvp": ops.jvp(ms.grad(s), x, v)[1], "jacfwd": ops.jacfwd(f)(x),
            "jacrev": ops.jacrev(f)(x), "hessian": ops.jacfwd(ops.jacrev(s))(x)}


def sq_loss(w1, b1, w2, x, y):
    diff = ops.matmul(ops.tanh(ops.matmul(x, w1) + b1), w2) - y
    return (diff * diff).sum()


PATHS: list[str] = []  # how each vmap ran: "batched" (one batched trace) or "per-example"


def per_sample() -> dict[str, Tensor]:
    w = tuple(Tensor(PS[k]) for k in ("ps_w1", "ps_b1", "ps_w2"))
    xs, ys = Tensor(PS["ps_x"]), Tensor(PS["ps_y"])
    axes = (None, None, None, 0, 0)
    per = ms.vmap(ms.grad(sq_loss, grad_position=(0, 1, 2)), in_axes=axes)(*w, xs, ys)
    PATHS.append(batching.OUTCOME["path"])
    total = ms.grad(lambda a, b, d: ms.vmap(sq_loss, in_axes=axes)(a, b, d, xs, ys).sum(),
                    grad_position=(0, 1, 2))(*w)
    PATHS.append(batching.OUTCOME["path"])
    return {**{f"per_sample_{k}": g for k, g in enumerate(per)},
            **{f"grad_of_vmap_{k}": g for k, g in enumerate(total)}}


@pytest.fixture(scope="module")
def torch_results(tmp_path_factory) -> dict[str, np.ndarray]:
    arrays = {**W, **PS, **{f"{n}_{k}": a for n, p in POINTS.items() for k, a in p.items()}}
    return reference(SCRIPT, tmp_path_factory.mktemp("torch_func"), **arrays)


def check(got: dict[str, Tensor], ref: dict[str, np.ndarray], prefix: str, mode: int) -> None:
    for key, value in got.items():
        want = ref[f"{prefix}{key}"]
        assert tuple(value.shape) == want.shape, f"{prefix}{key}: shape {value.shape} vs {want.shape}"
        np.testing.assert_allclose(value.asnumpy(), want, rtol=1e-9, atol=1e-11,
                                   err_msg=f"{prefix}{key} (mode {mode})")


def fd_jacobian(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn / d x by central differences (PyNative, float64), shaped ``out.shape + x.shape``."""
    cols = []
    for k in range(x.size):
        step = np.zeros_like(x)
        step.flat[k] = eps
        cols.append((fn(Tensor(x + step)).asnumpy() - fn(Tensor(x - step)).asnumpy()) / (2 * eps))
    return np.stack(cols, -1).reshape(np.shape(fn(Tensor(x)).asnumpy()) + x.shape)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_transforms_equal_finite_differences_pynative(name):
    # without PyTorch: jacobians against differences of f, the Hessian against differences of
    # the gradient, and the products against the Hessian
    f, p = FUNCTIONS[name], POINTS[name]
    got = transforms(name)
    jac = fd_jacobian(f, p["x"])
    for key in ("jacfwd", "jacrev"):
        np.testing.assert_allclose(got[key].asnumpy(), jac, rtol=1e-6, atol=1e-7, err_msg=key)
    hessian = fd_jacobian(ms.grad(lambda t: (f(t) * Tensor(p["c"])).sum()), p["x"])
    np.testing.assert_allclose(got["hessian"].asnumpy(), hessian, rtol=1e-6, atol=1e-6)
    flat = hessian.reshape(p["x"].size, -1)
    hv = (flat @ p["v"].ravel()).reshape(p["x"].shape)
    np.testing.assert_allclose(got["hvp"].asnumpy(), hv, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["d2"].asnumpy(), (hv * p["v"]).sum(), rtol=1e-6, atol=1e-6)


@needs_torch
@pytest.mark.slow  # the PyTorch subprocess takes seconds to start
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_transforms_equal_torch_func_pynative(name, torch_results):
    check(transforms(name), torch_results, f"{name}_", ms.PYNATIVE_MODE)


@needs_torch
@pytest.mark.slow
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_transforms_equal_torch_func_graph_mode(name, torch_results):
    check(run_in(ms.GRAPH_MODE, lambda: transforms(name)), torch_results, f"{name}_", ms.GRAPH_MODE)


def test_per_sample_gradients_equal_one_gradient_per_example_pynative():
    PATHS.clear()
    got = per_sample()
    assert PATHS == ["batched", "batched"]  # not a loop over the examples
    w = [Tensor(PS[k]) for k in ("ps_w1", "ps_b1", "ps_w2")]
    one = ms.grad(sq_loss, grad_position=(0, 1, 2))
    each = [one(*w, Tensor(x), Tensor(y)) for x, y in zip(PS["ps_x"], PS["ps_y"])]
    for k in range(3):
        rows = np.stack([g[k].asnumpy() for g in each])
        np.testing.assert_allclose(got[f"per_sample_{k}"].asnumpy(), rows, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[f"grad_of_vmap_{k}"].asnumpy(), rows.sum(0), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.slow
def test_per_sample_gradients_equal_torch_func_pynative(torch_results):
    check(per_sample(), torch_results, "", ms.PYNATIVE_MODE)


@needs_torch
@pytest.mark.slow
def test_per_sample_gradients_equal_torch_func_graph_mode(torch_results):
    check(run_in(ms.GRAPH_MODE, per_sample), torch_results, "", ms.GRAPH_MODE)
