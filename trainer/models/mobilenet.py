"""MobileNetV2-style depthwise network for 3x32x32 input (Sandler et al. 2018).

Inverted residual blocks: a 1x1 expansion (``t`` times the channels, skipped when t = 1),
a depthwise 3x3 convolution (``nn.Conv2d(group=channels)``), a linear 1x1 projection,
each convolution followed by BatchNorm and ReLU6 except the projection; an identity
shortcut when the stride is 1 and the channels do not change.

CIFAR variant (as usual for 32x32 inputs): the stem and the first two stages keep stride
1, so the 32x32 input reaches the head at 4x4. ``width_mult`` scales every channel count
(rounded to multiples of 8, as in the paper's reference); ``settings`` is the table of
stages ``(t, c, n, s)``: expansion, output channels, blocks, stride of the first block.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework import nn, ops

# the paper's table 2, with the first two strides set to 1 for 32x32 inputs
CIFAR_SETTINGS: tuple[tuple[int, int, int, int], ...] = (
    (1, 16, 1, 1), (6, 24, 2, 1), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
    (6, 160, 3, 2), (6, 320, 1, 1))


def make_divisible(value: float, divisor: int = 8) -> int:
    """``value`` rounded to a multiple of ``divisor``, never below 90% of it."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def conv_bn(cin: int, cout: int, kernel: int, stride: int = 1, group: int = 1,
            relu6: bool = True) -> list[nn.Cell]:
    layers: list[nn.Cell] = [nn.Conv2d(cin, cout, kernel, stride=stride, pad_mode="same",
                                       group=group), nn.BatchNorm2d(cout)]
    return [*layers, nn.ReLU6()] if relu6 else layers


class InvertedResidual(nn.Cell):
    """1x1 expand -> depthwise 3x3 (stride) -> linear 1x1 project, + x when shapes allow."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        layers = conv_bn(cin, hidden, 1) if expand != 1 else []
        layers += conv_bn(hidden, hidden, 3, stride, group=hidden)
        layers += conv_bn(hidden, cout, 1, relu6=False)
        self.body = nn.SequentialCell(layers)
        self.residual = stride == 1 and cin == cout

    def construct(self, x):
        out = self.body(x)
        return ops.add(out, x) if self.residual else out


class MobileNetV2(nn.Cell):
    def __init__(self, num_classes: int = 10, num_channel: int = 3, width_mult: float = 1.0,
                 settings: Sequence[Sequence[int]] = CIFAR_SETTINGS, last_channel: int = 1280,
                 dropout: float = 0.2) -> None:
        super().__init__()
        if not width_mult > 0:
            raise ValueError(f"MobileNetV2: width_mult must be > 0, got {width_mult!r}")
        cin = make_divisible(32 * width_mult)
        last = make_divisible(last_channel * max(1.0, width_mult))
        layers: list[nn.Cell] = conv_bn(num_channel, cin, 3, 1)
        for t, c, n, s in settings:
            cout = make_divisible(c * width_mult)
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers += conv_bn(cin, last, 1)
        self.features = nn.SequentialCell(layers)
        self.dropout = nn.Dropout(p=dropout) if dropout else None
        self.fc = nn.Dense(last, num_classes)

    def construct(self, x):
        x = ops.reduce_mean(self.features(x), (2, 3))
        if self.dropout is not None:
            x = self.dropout(x)
        return self.fc(x)


def mobilenet_v2(num_classes: int = 10, num_channel: int = 3, width_mult: float = 0.5,
                 **kwargs) -> MobileNetV2:
    """The zoo's ``mobilenet_v2``: the CIFAR variant at width 0.5 (~0.7M parameters), a
    size that trains on a CPU; ``MobileNetV2`` itself takes any width and stage table."""
    return MobileNetV2(num_classes, num_channel, width_mult, **kwargs)
