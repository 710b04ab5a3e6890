"""ResNet-50 (He et al. 2016; torchvision's v1.5: the stride on the bottleneck's 3x3) for
bench/gpu_models.py, in the framework and in PyTorch, with the same parameter names.

The framework's cells are named as torchvision's modules (``conv1``, ``bn1``, ``layer1.0.
conv2``, ``layer2.0.downsample.0`` ...), so a weight moves across by name; BatchNorm's
``gamma``/``beta`` are PyTorch's ``weight``/``bias``. Explicit padding everywhere (3 on the
7x7 stem, 1 on each 3x3, 1 on the 3x3/2 max pool), as PyTorch pads, so that both compute
the same function at every stride. ``widths``/``blocks`` shrink it for the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FULL = {"blocks": (3, 4, 6, 3), "width": 64, "classes": 1000, "image": 224}
EXPANSION = 4


def framework_net(blocks: Sequence[int] = FULL["blocks"], width: int = FULL["width"],
                  classes: int = FULL["classes"]):
    """Our ResNet-50 (seed 0, PyNative); ``blocks``/``width`` as torchvision's ResNet."""
    import framework as ms
    from framework import nn, ops

    def conv(cin: int, cout: int, kernel: int, stride: int = 1):
        return nn.Conv2d(cin, cout, kernel, stride=stride, pad_mode="pad", padding=kernel // 2)

    class Bottleneck(nn.Cell):
        def __init__(self, cin: int, planes: int, stride: int) -> None:
            super().__init__()
            cout = planes * EXPANSION
            self.conv1, self.bn1 = conv(cin, planes, 1), nn.BatchNorm2d(planes)
            self.conv2, self.bn2 = conv(planes, planes, 3, stride), nn.BatchNorm2d(planes)
            self.conv3, self.bn3 = conv(planes, cout, 1), nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.project = stride != 1 or cin != cout
            self.downsample = nn.SequentialCell([conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)]) \
                if self.project else None

        def construct(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + (self.downsample(x) if self.project else x))

    class ResNet(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, width, 7, stride=2, pad_mode="pad", padding=3), \
                nn.BatchNorm2d(width)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
            cin = width
            for stage, count in enumerate(blocks):
                planes = width * 2 ** stage
                layer = []
                for i in range(count):
                    layer.append(Bottleneck(cin, planes, 2 if stage and i == 0 else 1))
                    cin = planes * EXPANSION
                setattr(self, f"layer{stage + 1}", nn.SequentialCell(layer))
            self.stages = len(blocks)
            self.fc = nn.Dense(cin, classes)

        def construct(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            for stage in range(self.stages):
                x = getattr(self, f"layer{stage + 1}")(x)
            return self.fc(ops.reduce_mean(x, (2, 3)))

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    return ResNet()


def torch_name(name: str) -> str:
    for ours, theirs in ((".gamma", ".weight"), (".beta", ".bias")):
        if name.endswith(ours):
            return name[: -len(ours)] + theirs
    return name


def torch_net(blocks: Sequence[int] = FULL["blocks"], width: int = FULL["width"],
              classes: int = FULL["classes"]):
    """The same network in PyTorch (torchvision's ``ResNet`` with ``Bottleneck``)."""
    from torchvision.models.resnet import Bottleneck, ResNet

    if width == 64:
        return ResNet(Bottleneck, list(blocks), num_classes=classes)
    return _narrow_torch_net(blocks, width, classes)


def _narrow_torch_net(blocks: Sequence[int], width: int, classes: int):
    """torchvision's ResNet with a stem of ``width`` channels (its ``inplanes`` is fixed at
    64): the stem and the first stage rebuilt at that width, the rest following."""
    from torch import nn as tnn
    from torchvision.models.resnet import Bottleneck, ResNet

    net = ResNet(Bottleneck, list(blocks), num_classes=classes)
    net.inplanes = width
    net.conv1 = tnn.Conv2d(3, width, 7, 2, 3, bias=False)
    net.bn1 = tnn.BatchNorm2d(width)
    for stage, count in enumerate(blocks):
        setattr(net, f"layer{stage + 1}", net._make_layer(Bottleneck, width * 2 ** stage, count,
                                                          stride=2 if stage else 1))
    net.fc = tnn.Linear(width * 2 ** (len(blocks) - 1) * EXPANSION, classes)
    return net


def matmul_flops(blocks: Sequence[int], width: int, classes: int, image: int, batch: int) -> float:
    """Training FLOPs of one step counted as nanoGPT counts a GPT's: 2 per multiply-add of
    every convolution and the classifier, forward, and twice that backward (input and weight
    gradients; the stem's input gradient included, as the formula does)."""
    macs, size, cin = 0, image // 2, width
    macs += 3 * width * 49 * size * size  # stem 7x7/2
    size //= 2  # max pool
    for stage, count in enumerate(blocks):
        planes = width * 2 ** stage
        for i in range(count):
            stride = 2 if stage and i == 0 else 1
            out = size // stride
            macs += cin * planes * size * size + planes * planes * 9 * out * out \
                + planes * planes * EXPANSION * out * out
            if stride != 1 or cin != planes * EXPANSION:
                macs += cin * planes * EXPANSION * out * out
            cin, size = planes * EXPANSION, out
    macs += cin * classes
    return float(6 * macs * batch)


def random_batch(batch: int, image: int, classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch, 3, image, image)).astype(np.float32),
            rng.integers(0, classes, batch).astype(np.int32))
