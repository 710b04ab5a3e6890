"""IR nodes carry the source line of the code they came from: the user's forward lines,
backward nodes at the forward line they differentiate, a library loss or optimizer at its
own line; never the line that called the compiled function."""

from __future__ import annotations

import inspect
import os

import numpy as np

import framework as ms
from framework import nn
from framework.graph_mode import JitFunction


class Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        hidden = self.fc(x)  # LINE: fc
        return ms.ops.relu(hidden)  # LINE: relu


def line_of(tag: str) -> int:
    lines = inspect.getsource(Net).splitlines()
    start = inspect.getsourcelines(Net)[1]
    return start + next(i for i, text in enumerate(lines) if f"# LINE: {tag}" in text)


def test_forward_backward_and_optimizer_nodes_point_at_their_source():
    ms.set_seed(0)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True)), opt)
    step.set_train(True)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    y = ms.Tensor(np.array([0, 1], np.int32))
    graph = JitFunction(step.construct, name="step", cell=step).trace((x, y)).graph  # caller's line
    this_file = os.path.abspath(__file__)
    where = [(n.phase, os.path.basename(n.location.filename), n.location.lineno, n.prim.name)
             for n in graph.nodes if n.location is not None]
    assert len(where) == len(graph.nodes)  # every node has a line
    here = [w for w in where if w[1] == os.path.basename(this_file)]
    assert {w[2] for w in here} == {line_of("fc"), line_of("relu")}  # never the trace() call's line
    forward = {w[3] for w in here if w[0] == "forward"}
    backward = {w[3] for w in here if w[0] == "backward"}
    assert {"MatMul", "ReLU"} <= forward and backward  # gradients at the lines they differentiate
    relu_grads = [w for w in here if w[0] == "backward" and w[2] == line_of("relu")]
    assert relu_grads
    assert any(w[1] == "loss.py" for w in where if w[0] == "forward")  # the library loss's own line
    assert any(w[1] == "loss.py" for w in where if w[0] == "backward")
    assert any(w[1] == "momentum.py" for w in where)  # the optimizer's update at the optimizer
