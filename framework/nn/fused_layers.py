"""Layers made of other layers: ``nn.BiDense`` (a bilinear map), ``nn.DenseBnAct`` and
``nn.Conv2dBnAct`` (a layer, an optional batch norm and an activation), ``nn.CentralCrop``."""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import Uniform, initializer
from ..parameter import Parameter
from .activation_cells import LeakyReLU
from .activation_names import get_activation
from .cell import Cell
from .checks import positive_ints, tensor_shape
from .conv import Conv2d
from .layers import Dense
from .normalization import BatchNorm1d, BatchNorm2d


class BiDense(Cell):
    """``y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]``; weight (out, in1,
    in2) and bias default to Uniform(1 / sqrt(in1))."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int,
                 weight_init: Any = None, bias_init: Any = None, has_bias: bool = True,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        positive_ints("BiDense", in1_channels=in1_channels, in2_channels=in2_channels,
                      out_channels=out_channels)
        if not isinstance(has_bias, bool):
            raise TypeError(f"BiDense: has_bias must be a bool, got {has_bias!r}")
        self.in1_channels, self.in2_channels = in1_channels, in2_channels
        self.out_channels, self.has_bias = out_channels, has_bias
        bound = 1 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        if hasattr(weight_init, "shape") and tuple(weight_init.shape) != shape:
            raise ValueError(f"BiDense: weight_init has shape {tuple(weight_init.shape)}, "
                             f"expected {shape}")
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None else weight_init,
                                            shape, dtype), "weight")
        if has_bias:
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init,
                                              (out_channels,), dtype), "bias")

    def construct(self, input1, input2):
        s1, s2 = tensor_shape("BiDense", input1), tensor_shape("BiDense", input2)
        if s1[-1:] != (self.in1_channels,) or s2[-1:] != (self.in2_channels,) or s1[:-1] != s2[:-1]:
            raise ValueError(f"BiDense: inputs {s1} and {s2} must agree but in their last axes, "
                             f"{self.in1_channels} and {self.in2_channels}")
        x1 = ops.reshape(input1, (-1, self.in1_channels))
        x2 = ops.reshape(input2, (-1, self.in2_channels))
        # (B, in1) @ (in1, out * in2) -> (B, out, in2), then contracted with x2
        w = ops.reshape(ops.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        mixed = ops.reshape(ops.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        out = ops.reduce_sum(mixed * ops.expand_dims(x2, 1), 2)
        if self.has_bias:
            out = ops.bias_add(out, self.bias)
        return ops.reshape(out, (*s1[:-1], self.out_channels))

    def extend_repr(self) -> str:
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"output_channels={self.out_channels}, has_bias={self.has_bias}")


def _activation(who: str, activation: Any, alpha: float) -> Any:
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    cell = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not callable(cell):
        raise TypeError(f"{who}: activation must be a str, a Cell or a Primitive, got "
                        f"{type(activation).__name__}")
    return cell


class DenseBnAct(Cell):
    """``activation(batchnorm(dense(x)))``: children ``dense``, ``batchnorm`` (with
    ``has_bn``, a BatchNorm1d) and ``activation`` (a name, ``'leakyrelu'`` with ``alpha``, or
    a cell); ``after_fake`` is accepted (quantization only)."""

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = "normal",
                 bias_init: Any = "zeros", has_bias: bool = True, has_bn: bool = False,
                 momentum: float = 0.9, eps: float = 1e-5, activation: Any = None,
                 alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        for name, value in (("has_bn", has_bn), ("after_fake", after_fake)):
            if not isinstance(value, bool):
                raise TypeError(f"DenseBnAct: {name} must be a bool, got {value!r}")
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn, self.has_act, self.after_fake = has_bn, activation is not None, after_fake
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation("DenseBnAct", activation, alpha)

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class Conv2dBnAct(Cell):
    """``activation(batchnorm(conv(x)))``: children ``conv`` (a Conv2d), ``batchnorm`` (with
    ``has_bn``) and ``activation``, as DenseBnAct's."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = "normal", bias_init: Any = "zeros",
                 has_bn: bool = False, momentum: float = 0.997, eps: float = 1e-5,
                 activation: Any = None, alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        for name, value in (("has_bn", has_bn), ("after_fake", after_fake)):
            if not isinstance(value, bool):
                raise TypeError(f"Conv2dBnAct: {name} must be a bool, got {value!r}")
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn, self.has_act, self.after_fake = has_bn, activation is not None, after_fake
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation("Conv2dBnAct", activation, alpha)

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class CentralCrop(Cell):
    """The central ``central_fraction`` (in (0, 1]) of the height and width of a 3-d (C, H,
    W) or 4-d (N, C, H, W) image: ``int(H * fraction)`` rows from ``(H - that) // 2`` ..."""

    def __init__(self, central_fraction: float) -> None:
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction, float):
            raise TypeError(f"CentralCrop: central_fraction must be a float, got {central_fraction!r}")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got {central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image):
        shape = tensor_shape("CentralCrop", image)
        if len(shape) not in (3, 4):
            raise ValueError(f"CentralCrop: expected a 3-d or 4-d image, got shape {shape}")
        if self.central_fraction == 1.0:
            return image
        h, w = shape[-2:]
        top = int((h - h * self.central_fraction) / 2)
        left = int((w - w * self.central_fraction) / 2)
        return image[..., top:h - top, left:w - left]

