"""CIFAR ResNet training steps for bench/resnet.py, one builder per engine.

The model is the zoo's (``trainer/models/resnet.py``): 3x3 convolutions without bias,
``pad_mode='same'``, BatchNorm2d in training mode, ReLU, residual adds, stride-2 stage
starts with 1x1 projection shortcuts, global average pooling, Dense 64 -> 10. Loss: mean
sparse softmax cross entropy; optimizer Momentum(0.01, 0.9). Every builder starts from the
framework's initial parameters (same names, same order) and returns ``step(x, y) -> loss``.

PyTorch's ``Conv2d(padding=1)`` pads both sides, while 'same' with stride 2 on an even
input pads only bottom/right (TF/MindSpore convention); the PyTorch model pads those two
convolutions explicitly so that all engines compute the same function.

PyTorch runs in both memory formats: NCHW (its default) and ``channels_last`` (NHWC
strides, where oneDNN's CPU convolutions are faster); the bench compares against the
faster one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from engines import torch_train_step

Step = Callable[[np.ndarray, np.ndarray], float]
LR, MOMENTUM = 0.01, 0.9


def framework_net(depth: int):
    """The zoo's ResNet (seed 0) and its trainable parameters as NumPy copies, by name."""
    import framework as ms
    from trainer.models import CifarResNet

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = CifarResNet(depth)
    return net, [p.asnumpy().copy() for p in net.trainable_params()]


def framework_step(depth: int, mode: int) -> tuple[Step, object]:
    """Our train step pinned to ``mode``; graph mode returns its JitFunction (compile summary)."""
    import framework as ms
    from framework import Tensor, nn
    from framework.graph_mode import JitFunction

    net, _ = framework_net(depth)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), LR, MOMENTUM))
    step.set_train()
    if mode == ms.GRAPH_MODE:
        compiled = JitFunction(step.construct, name="TrainOneStepCell", cell=step)
        return (lambda x, y: float(compiled(Tensor(x), Tensor(y)).asnumpy())), compiled
    return (lambda x, y: float(step(Tensor(x), Tensor(y)).asnumpy())), step


def framework_predict(depth: int) -> Callable[[np.ndarray], np.ndarray]:
    """Forward-only graph (evaluation mode: BatchNorm on moving statistics)."""
    from framework import Tensor
    from framework.graph_mode import JitFunction

    net, _ = framework_net(depth)
    net.set_train(False)
    compiled = JitFunction(net.construct, name="Predict", cell=net)
    return lambda x: compiled(Tensor(x)).asnumpy()


def torch_model(depth: int, params: list[np.ndarray], threads: int):
    """The same ResNet in PyTorch with the framework's initial parameters, or None."""
    try:
        import torch
    except ImportError:
        return None
    from torch import nn as tnn
    from torch.nn import functional as F

    torch.set_num_threads(threads)

    def conv_bn(cin, cout, k, stride):
        pad = 1 if (k == 3 and stride == 1) else 0
        return [tnn.Conv2d(cin, cout, k, stride, pad, bias=False), tnn.BatchNorm2d(cout, momentum=0.1)]

    class SamePad(tnn.Module):  # 'same' for a 3x3 stride-2 conv on an even input: bottom/right
        def forward(self, x):
            return F.pad(x, (0, 1, 0, 1))

    class Block(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            first = conv_bn(cin, cout, 3, stride)
            lead = [SamePad()] if stride == 2 else []
            self.body = tnn.Sequential(*lead, *first, tnn.ReLU(), *conv_bn(cout, cout, 3, 1))
            project = stride != 1 or cin != cout
            self.shortcut = tnn.Sequential(*conv_bn(cin, cout, 1, stride)) if project else None

        def forward(self, x):
            skip = self.shortcut(x) if self.shortcut is not None else x
            return torch.relu(self.body(x) + skip)

    n = (depth - 2) // 6
    layers, cin = [*conv_bn(3, 16, 3, 1), tnn.ReLU()], 16
    for stage, cout in enumerate((16, 32, 64)):
        for i in range(n):
            layers.append(Block(cin, cout, 2 if stage and i == 0 else 1))
            cin = cout

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.features = tnn.Sequential(*layers)
            self.fc = tnn.Linear(64, 10)

        def forward(self, x):
            return self.fc(self.features(x).mean(dim=(2, 3)))

    model = Net()
    mine = list(model.parameters())
    if [tuple(p.shape) for p in mine] != [v.shape for v in params]:
        raise RuntimeError("PyTorch ResNet's parameters do not line up with the framework's")
    with torch.no_grad():
        for tensor, value in zip(mine, params):
            tensor.copy_(torch.from_numpy(value))
    return model


def torch_step(depth: int, params: list[np.ndarray], threads: int,
               channels_last: bool = False) -> Step | None:
    model = torch_model(depth, params, threads)
    if model is None:
        return None
    model.train()
    if not channels_last:
        return torch_train_step(model, LR, MOMENTUM)
    import torch

    model = model.to(memory_format=torch.channels_last)
    return torch_train_step(model, LR, MOMENTUM, memory_format=torch.channels_last)


def torch_predict(depth: int, params: list[np.ndarray], threads: int,
                  channels_last: bool = False):
    model = torch_model(depth, params, threads)
    if model is None:
        return None
    import torch

    model.eval()
    layout = torch.channels_last if channels_last else torch.contiguous_format
    model = model.to(memory_format=layout)

    def predict(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model(torch.from_numpy(x).contiguous(memory_format=layout)).numpy()

    return predict
