"""LeNet-5 training steps for the benchmark, one builder per engine.

Each builder takes the framework's initial parameters (so every engine starts from the
same weights) and returns ``step(x, y) -> loss``. Optional engines (PyTorch, JAX) are
skipped when not installed (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy_lenet

Step = Callable[[np.ndarray, np.ndarray], float]


def numpy_step(params: dict[str, np.ndarray]) -> Step:
    params = {k: v.copy() for k, v in params.items()}
    moments = {k: np.zeros_like(v) for k, v in params.items()}
    return lambda x, y: float(numpy_lenet.momentum_step(params, moments, x, y))


def framework_step(mode: int) -> tuple[Step, object, dict[str, np.ndarray]]:
    """Our LeNet train step, pinned to ``mode`` whatever the global context says.

    Graph mode: the step compiled with ``ms.jit`` (its JitFunction is returned for the
    compile summary); PyNative: the cell called op by op.
    """
    import framework as ms
    from framework import Tensor, nn
    from framework.graph_mode import JitFunction
    from trainer.models import LeNet5

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    params = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    if mode == ms.GRAPH_MODE:
        compiled = JitFunction(step.construct, name="TrainOneStepCell", cell=step)
        return (lambda x, y: compiled(Tensor(x), Tensor(y)).asnumpy()), compiled, params
    return (lambda x, y: step(Tensor(x), Tensor(y)).asnumpy()), step, params


def torch_step(params: dict[str, np.ndarray], device: str = "cpu") -> Step | None:
    try:
        import torch
    except ImportError:
        return None
    from torch import nn as tnn

    model = tnn.Sequential(
        tnn.Conv2d(1, 6, 5, bias=False), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(6, 16, 5, bias=False), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
        tnn.Linear(400, 120), tnn.ReLU(), tnn.Linear(120, 84), tnn.ReLU(), tnn.Linear(84, 10))
    order = [model[0].weight, model[3].weight, model[7].weight, model[7].bias, model[9].weight,
             model[9].bias, model[11].weight, model[11].bias]
    with torch.no_grad():
        for tensor, name in zip(order, numpy_lenet.PARAM_NAMES):
            tensor.copy_(torch.from_numpy(params[name]))
    return torch_train_step(model.to(device), 0.01, 0.9, device=device)


def torch_train_step(model, lr: float, momentum: float, memory_format=None,
                     device: str = "cpu") -> Step:
    """PyTorch eager ``step(x, y) -> loss`` of ``model`` (on ``device``): cross-entropy, SGD
    with momentum; ``memory_format`` (e.g. ``torch.channels_last``) is the input's layout."""
    import torch

    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    layout = memory_format or torch.contiguous_format

    def step(x: np.ndarray, y: np.ndarray) -> float:
        optimizer.zero_grad()
        inputs = torch.from_numpy(x).to(device).contiguous(memory_format=layout)
        loss = loss_fn(model(inputs), torch.from_numpy(y).to(device).long())
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def jax_step(params: dict[str, np.ndarray]) -> Step | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def forward(p, x):
        dn = ("NCHW", "OIHW", "NCHW")
        h = jax.lax.conv_general_dilated(x, p["conv1.weight"], (1, 1), "VALID", dimension_numbers=dn)
        h = jax.lax.reduce_window(jax.nn.relu(h), -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                                  "VALID")
        h = jax.lax.conv_general_dilated(h, p["conv2.weight"], (1, 1), "VALID", dimension_numbers=dn)
        h = jax.lax.reduce_window(jax.nn.relu(h), -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                                  "VALID").reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ p["fc1.weight"].T + p["fc1.bias"])
        h = jax.nn.relu(h @ p["fc2.weight"].T + p["fc2.bias"])
        return h @ p["fc3.weight"].T + p["fc3.bias"]

    def loss(p, x, y):
        logp = jax.nn.log_softmax(forward(p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def update(p, m, x, y):
        value, grads = jax.value_and_grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda a, g: 0.9 * a + g, m, grads)
        p = jax.tree_util.tree_map(lambda w, a: w - 0.01 * a, p, m)
        return p, m, value

    state = {"p": {k: jnp.asarray(v) for k, v in params.items()}}
    state["m"] = jax.tree_util.tree_map(jnp.zeros_like, state["p"])

    def step(x: np.ndarray, y: np.ndarray) -> float:
        state["p"], state["m"], value = update(state["p"], state["m"], x, y)
        return float(value)

    return step
