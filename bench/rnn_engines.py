"""The RNN-style train steps of bench/control_flow.py, one builder per engine.

Every builder takes the same initial parameters and returns ``step() -> loss`` on fixed
data. The cell is ``h = tanh(xs[i] @ W_x + h @ W_h + b)`` for ``i < seq`` over an input
sequence ``xs`` (seq, batch, input); the loss is ``mean(h ** 2)`` of the final state;
Momentum(lr 0.01, momentum 0.9).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Step = Callable[[], float]
LR, MOMENTUM = 0.01, 0.9


def init_params(n_in: int, hidden: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"w_x": (rng.standard_normal((n_in, hidden)) / np.sqrt(n_in)).astype(np.float32),
            "w_h": (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32),
            "b": (rng.standard_normal(hidden) * 0.1).astype(np.float32)}


def make_net(params: dict[str, np.ndarray]):
    """The loss cell: a ``while i < n`` loop over a 0-d int32 tensor counter."""
    from framework import Parameter, Tensor, nn, ops

    class RNNLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            for name, value in params.items():
                setattr(self, name, Parameter(Tensor(value.copy()), name=name))

        def construct(self, xs, h, n):
            i = Tensor(np.array(0, np.int32))
            while i < n:
                h = ops.tanh(ops.matmul(xs[i], self.w_x) + ops.matmul(h, self.w_h) + self.b)
                i = i + 1
            return (h * h).mean()

    return RNNLoss()


def framework_step(mode: int, params, x: np.ndarray, h0: np.ndarray, seq: int):
    """Our train step pinned to ``mode`` (graph: one JitFunction, as bench/engines.py)."""
    import framework as ms
    from framework import Tensor, nn
    from framework.graph_mode import JitFunction

    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = make_net(params)
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), LR, MOMENTUM))
    args = (Tensor(x), Tensor(h0), Tensor(np.array(seq, np.int32)))
    if mode == ms.GRAPH_MODE:
        compiled = JitFunction(step.construct, name="RNNTrainStep", cell=step)
        return (lambda: float(compiled(*args).asnumpy())), compiled
    return (lambda: float(step(*args).asnumpy())), step


def torch_step(params, x: np.ndarray, h0: np.ndarray, seq: int, threads: int) -> Step | None:
    """PyTorch eager: a plain Python loop of fused ``addmm`` + ``tanh``, SGD momentum."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    w = {k: torch.from_numpy(v.copy()).requires_grad_(True) for k, v in params.items()}
    optimizer = torch.optim.SGD(list(w.values()), lr=LR, momentum=MOMENTUM)
    xt, ht = torch.from_numpy(x), torch.from_numpy(h0)
    w_x, w_h, b = w["w_x"], w["w_h"], w["b"]

    def step() -> float:
        optimizer.zero_grad(set_to_none=True)
        h = ht
        for t in range(seq):
            h = torch.tanh(torch.addmm(torch.addmm(b, xt[t], w_x), h, w_h))
        loss = (h * h).mean()
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def nested_net():
    """Three nested control-flow levels on tensors: while > if > while, with a grad."""
    from framework import Parameter, Tensor, nn, ops

    class Nested(nn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(0)
            self.w = Parameter(Tensor((rng.standard_normal((16, 16)) * 0.2).astype(np.float32)),
                               name="w")
            self.b = Parameter(Tensor(np.zeros(16, np.float32)), name="b")

        def construct(self, x, n):
            i = Tensor(np.array(0, np.int32))
            while i < n:
                if x.sum() > 0:
                    j = Tensor(np.array(0, np.int32))
                    while j < i:
                        x = ops.tanh(ops.matmul(x, self.w) + self.b)
                        j = j + 1
                else:
                    x = x * 0.5 - self.b
                i = i + 1
            return (x * x).mean()

    net = Nested()
    return nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), LR, MOMENTUM))
