"""Training steps whose loss holds a gradient: a WGAN-GP critic (the norm of the critic's
input gradient in the loss) on an MLP and on a small conv net, and a MAML inner/outer step
(the outer gradient goes through the inner SGD step). Each: the step's gradient equals
central finite differences of its loss (PyNative, float64), the loss falls over a few
optimizer steps, and graph mode's losses equal PyNative's step by step."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops

from .control_flow_cases import run_in

LAMBDA = 10.0


def critic_loss(critic: nn.Cell, real: Tensor, fake: Tensor, mix: Tensor) -> Tensor:
    """Wasserstein critic loss with the gradient penalty at ``mix * real + (1 - mix) * fake``."""
    between = mix * real + (1 - mix) * fake
    grads = ms.grad(lambda t: critic(t).sum())(between)
    norm = ops.sqrt((grads * grads).reshape(grads.shape[0], -1).sum(axis=1) + 1e-12)
    penalty = ((norm - 1.0) ** 2).mean()
    return critic(fake).mean() - critic(real).mean() + LAMBDA * penalty


def _ms(dtype) -> ms.dtype.Type:
    return ms.float64 if dtype == np.float64 else ms.float32


def mlp_critic(dtype) -> nn.Cell:
    ms.set_seed(1)
    return nn.SequentialCell([nn.Dense(3, 8, weight_init="normal", dtype=_ms(dtype)), nn.Tanh(),
                              nn.Dense(8, 1, dtype=_ms(dtype))])


def conv_critic(dtype) -> nn.Cell:
    ms.set_seed(2)
    return nn.SequentialCell([nn.Conv2d(1, 3, 3, pad_mode="same", weight_init="normal",
                                        has_bias=True, dtype=_ms(dtype)),
                              nn.Tanh(), nn.AvgPool2d(2, 2), nn.Flatten(),
                              nn.Dense(12, 1, dtype=_ms(dtype))])


def _data(shape: tuple, dtype) -> tuple[Tensor, Tensor, Tensor]:
    rng = np.random.default_rng(5)
    real = rng.normal(1.0, 0.5, size=shape).astype(dtype)
    fake = rng.normal(-0.5, 0.5, size=shape).astype(dtype)
    mix = rng.uniform(size=(shape[0],) + (1,) * (len(shape) - 1)).astype(dtype)
    return Tensor(real), Tensor(fake), Tensor(mix)


def fd_check(loss: Callable[[], Tensor], params: list[Parameter], grads: tuple, entries: int = 3) -> None:
    """A few entries of each parameter's gradient against central differences of ``loss``."""
    for p, g in zip(params, grads):
        base = p.asnumpy().copy()
        for k in range(min(entries, base.size)):
            values = []
            for sign in (1, -1):
                bumped = base.copy()
                bumped.flat[k] += sign * 1e-6
                p.set_data(Tensor(bumped))
                values.append(float(loss().asnumpy()))
            p.set_data(Tensor(base))
            np.testing.assert_allclose(g.asnumpy().flat[k], (values[0] - values[1]) / 2e-6,
                                       rtol=1e-5, atol=1e-8, err_msg=p.name)


CRITICS = [(mlp_critic, (6, 3)), (conv_critic, (4, 1, 4, 4))]


@pytest.mark.parametrize("make,shape", CRITICS, ids=["mlp", "conv"])
def test_gradient_penalty_gradient_equals_finite_differences(make, shape):
    critic = make(np.float64)
    real, fake, mix = _data(shape, np.float64)
    params = critic.trainable_params()
    loss = lambda: critic_loss(critic, real, fake, mix)  # noqa: E731
    _, grads = ms.value_and_grad(loss, None, params)()
    fd_check(loss, params, grads)


def train_critic(make, shape, mode: int, steps: int = 4) -> list[float]:
    critic = make(np.float32)
    real, fake, mix = _data(shape, np.float32)
    opt = nn.Adam(critic.trainable_params(), learning_rate=0.01)
    grad_fn = ms.value_and_grad(lambda r, f, m: critic_loss(critic, r, f, m), None, opt.parameters)

    def run() -> list[float]:
        losses = []
        for _ in range(steps):
            value, grads = grad_fn(real, fake, mix)
            opt(grads)
            losses.append(float(value.asnumpy()))
        return losses

    return run_in(mode, run)


@pytest.mark.parametrize("make,shape", CRITICS, ids=["mlp", "conv"])
def test_gradient_penalty_step_trains_pynative(make, shape):
    losses = train_critic(make, shape, ms.PYNATIVE_MODE)
    assert losses[-1] < losses[0]


@pytest.mark.slow
@pytest.mark.parametrize("make,shape", CRITICS, ids=["mlp", "conv"])
def test_gradient_penalty_step_trains_in_graph_mode_as_in_pynative(make, shape):
    graph = train_critic(make, shape, ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, train_critic(make, shape, ms.PYNATIVE_MODE), rtol=2e-5, atol=1e-6)
    assert graph[-1] < graph[0]


# -- MAML: one inner SGD step per task, the outer gradient through it ---------------------------
ALPHA = 0.05


def regress(x, w1, b1, w2):
    return ops.matmul(ops.tanh(ops.matmul(x, w1) + b1), w2)


def mse(x, y, w1, b1, w2):
    diff = regress(x, w1, b1, w2) - y
    return (diff * diff).mean()


def maml_loss(xs, ys, xq, yq, w1, b1, w2):
    """Loss on the query set after one SGD step on the support set (second order)."""
    g1, gb, g2 = ms.grad(mse, grad_position=(2, 3, 4))(xs, ys, w1, b1, w2)
    return mse(xq, yq, w1 - ALPHA * g1, b1 - ALPHA * gb, w2 - ALPHA * g2)


def maml_setup(dtype):
    rng = np.random.default_rng(11)
    params = [Parameter(Tensor((rng.normal(size=s) * 0.5).astype(dtype)), name=n)
              for n, s in (("w1", (1, 8)), ("b1", (8,)), ("w2", (8, 1)))]
    xs, xq = (rng.uniform(-2, 2, size=(10, 1)).astype(dtype) for _ in range(2))
    task = [Tensor(a) for a in (xs, np.sin(xs + 0.5), xq, np.sin(xq + 0.5))]
    return params, task


def test_maml_meta_gradient_equals_finite_differences():
    params, task = maml_setup(np.float64)
    loss = lambda: maml_loss(*task, *params)  # noqa: E731
    _, grads = ms.value_and_grad(loss, None, params)()
    fd_check(loss, params, grads)
    # and it differs from the first-order approximation (the gradient at the adapted weights)
    first_order = ms.grad(lambda *w: mse(task[2], task[3], *w), grad_position=(0, 1, 2))(
        *[p - ALPHA * g for p, g in zip(params, ms.grad(mse, grad_position=(2, 3, 4))(
            task[0], task[1], *params))])
    assert not np.allclose(first_order[0].asnumpy(), grads[0].asnumpy(), rtol=1e-3)


def train_maml(mode: int, steps: int = 5) -> list[float]:
    params, task = maml_setup(np.float32)
    opt = nn.SGD(params, learning_rate=0.1)
    grad_fn = ms.value_and_grad(lambda *t: maml_loss(*t, *params), None, params)

    def run() -> list[float]:
        losses = []
        for _ in range(steps):
            value, grads = grad_fn(*task)
            opt(grads)
            losses.append(float(value.asnumpy()))
        return losses

    return run_in(mode, run)


def test_maml_step_trains_pynative():
    losses = train_maml(ms.PYNATIVE_MODE)
    assert losses[-1] < losses[0]


@pytest.mark.slow
def test_maml_step_trains_in_graph_mode_as_in_pynative():
    graph = train_maml(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, train_maml(ms.PYNATIVE_MODE), rtol=2e-5, atol=1e-6)
    assert graph[-1] < graph[0]
