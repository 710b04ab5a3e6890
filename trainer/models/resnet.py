"""CIFAR-style ResNets (He et al. 2016, section 4.2): a 3x3 stem of 16 channels, three
stages of ``n`` basic blocks (16, 32, 64 channels; stride 2 at the start of stages 2 and 3,
with a 1x1 convolution + BatchNorm shortcut there), global average pooling, one Dense.
``resnet8``: n = 1, ``resnet20``: n = 3 (6n + 2 layers). Input N x 3 x 32 x 32."""

from __future__ import annotations

from framework import nn, ops


def _conv_bn(cin: int, cout: int, kernel: int, stride: int) -> list[nn.Cell]:
    return [nn.Conv2d(cin, cout, kernel, stride=stride, pad_mode="same"), nn.BatchNorm2d(cout)]


class BasicBlock(nn.Cell):
    """``relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))``."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.body = nn.SequentialCell([*_conv_bn(cin, cout, 3, stride), nn.ReLU(),
                                       *_conv_bn(cout, cout, 3, 1)])
        self.project = stride != 1 or cin != cout
        self.shortcut = nn.SequentialCell(_conv_bn(cin, cout, 1, stride)) if self.project else None
        self.relu = nn.ReLU()

    def construct(self, x):
        skip = self.shortcut(x) if self.project else x
        return self.relu(ops.add(self.body(x), skip))


class CifarResNet(nn.Cell):
    def __init__(self, depth: int = 20, num_classes: int = 10, num_channel: int = 3) -> None:
        super().__init__()
        if (depth - 2) % 6:
            raise ValueError(f"CifarResNet: depth must be 6n + 2 (8, 14, 20, 32 ...), got {depth}")
        n = (depth - 2) // 6
        layers: list[nn.Cell] = [*_conv_bn(num_channel, 16, 3, 1), nn.ReLU()]
        cin = 16
        for stage, cout in enumerate((16, 32, 64)):
            for i in range(n):
                layers.append(BasicBlock(cin, cout, 2 if stage and i == 0 else 1))
                cin = cout
        self.features = nn.SequentialCell(layers)
        self.fc = nn.Dense(64, num_classes)

    def construct(self, x):
        x = self.features(x)
        return self.fc(ops.reduce_mean(x, (2, 3)))


def resnet8(num_classes: int = 10, num_channel: int = 3) -> CifarResNet:
    return CifarResNet(8, num_classes, num_channel)


def resnet20(num_classes: int = 10, num_channel: int = 3) -> CifarResNet:
    return CifarResNet(20, num_classes, num_channel)
