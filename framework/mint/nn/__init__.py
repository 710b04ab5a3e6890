"""``mint.nn``: PyTorch-style Cells (``in_features``/``out_features``, ``bias=``, ``dim=``,
``padding=``, momentum as the weight of the new statistic) on ``framework.nn`` and
:mod:`framework.mint.nn.functional`.

Contracts, as MindSpore 2.10's ``mint.nn``: each Cell computes its functional form with
the arguments given at construction (see ``functional``'s docstring for their meaning);
``Linear(in_features, out_features, bias=True)`` holds ``weight`` (out x in) and ``bias``;
``BatchNorm*d(num_features, eps=1e-5, momentum=0.1)`` updates its running statistics with
weight ``momentum`` (``framework.nn``'s ``1 - momentum``); ``Identity`` accepts and ignores
any construction arguments.
"""

from __future__ import annotations

from typing import Any

from ... import nn as _nn
from ...nn.cell import Cell
from . import functional
from . import functional as F

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Conv1d", "Conv2d",
    "CosineEmbeddingLoss", "CrossEntropyLoss", "Dropout", "Dropout2d", "ELU", "Embedding",
    "Flatten", "GELU", "GLU", "GroupNorm", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "Linear", "LogSigmoid", "LogSoftmax",
    "MSELoss", "MaxPool2d", "Mish", "NLLLoss", "PReLU", "PixelShuffle", "ReLU", "ReLU6",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "SELU", "SiLU", "Sigmoid", "SmoothL1Loss",
    "SoftMarginLoss", "Softmax", "Softshrink", "SyncBatchNorm", "Tanh", "Threshold", "Upsample",
    "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "functional",
]


class _Functional(Cell):
    """A Cell that applies ``fn`` (a ``functional`` name) with its construction arguments."""

    fn = ""
    params: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        bound = dict(zip(self.params, args, strict=False))
        bound.update(kwargs)
        self._kwargs = {k: v for k, v in bound.items() if k != "inplace"}

    def construct(self, *inputs):
        return getattr(F, self.fn)(*inputs, **self._kwargs)

    def extend_repr(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


def _cell(name: str, fn: str, params: tuple[str, ...] = ()) -> type:
    cls = type(name, (_Functional,), {"fn": fn, "params": params, "__module__": __name__,
                                      "__doc__": f"``mint.nn.{name}``: ``functional.{fn}``."})
    globals()[name] = cls
    return cls


for _name, _fn, _params in (
    ("ReLU", "relu", ()), ("ReLU6", "relu6", ("inplace",)), ("Sigmoid", "sigmoid", ()),
    ("Tanh", "tanh", ()), ("SiLU", "silu", ("inplace",)), ("GELU", "gelu", ("approximate",)),
    ("ELU", "elu", ("alpha", "inplace")), ("Hardtanh", "hardtanh", ("min_val", "max_val")),
    ("Hardshrink", "hardshrink", ("lambd",)), ("Softshrink", "softshrink", ("lambd",)),
    ("Hardsigmoid", "hardsigmoid", ()), ("Hardswish", "hardswish", ()),
    ("LogSigmoid", "logsigmoid", ()), ("Mish", "mish", ()), ("SELU", "selu", ()),
    ("Threshold", "threshold", ("threshold", "value", "inplace")), ("GLU", "glu", ("dim",)),
    ("Softmax", "softmax", ("dim",)), ("LogSoftmax", "log_softmax", ("dim",)),
    ("PixelShuffle", "pixel_shuffle", ("upscale_factor",)),
    ("AdaptiveAvgPool1d", "adaptive_avg_pool1d", ("output_size",)),
    ("AdaptiveAvgPool2d", "adaptive_avg_pool2d", ("output_size",)),
    ("AdaptiveMaxPool1d", "adaptive_max_pool1d", ("output_size", "return_indices")),
    ("AdaptiveMaxPool2d", "adaptive_max_pool2d", ("output_size", "return_indices")),
    ("AvgPool2d", "avg_pool2d", ("kernel_size", "stride", "padding", "ceil_mode",
                                 "count_include_pad", "divisor_override")),
    ("MaxPool2d", "max_pool2d", ("kernel_size", "stride", "padding", "dilation",
                                 "return_indices", "ceil_mode")),
    ("L1Loss", "l1_loss", ("reduction",)), ("MSELoss", "mse_loss", ("reduction",)),
    ("SmoothL1Loss", "smooth_l1_loss", ("reduction", "beta")),
    ("BCELoss", "binary_cross_entropy", ("weight", "reduction")),
    ("BCEWithLogitsLoss", "binary_cross_entropy_with_logits", ("weight", "reduction", "pos_weight")),
    ("CrossEntropyLoss", "cross_entropy", ("weight", "ignore_index", "reduction", "label_smoothing")),
    ("NLLLoss", "nll_loss", ("weight", "ignore_index", "reduction")),
    ("KLDivLoss", "kl_div", ("reduction", "log_target")),
    ("SoftMarginLoss", "soft_margin_loss", ("reduction",)),
    ("CosineEmbeddingLoss", "cosine_embedding_loss", ("margin", "reduction")),
):
    _cell(_name, _fn, _params)


class Identity(Cell):
    """``mint.nn.Identity(*args, **kwargs)``: returns its input."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def construct(self, input):  # noqa: A002
        return input


class Flatten(Cell):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, input):  # noqa: A002
        return F.flatten(input, self.start_dim, self.end_dim)


class Dropout(Cell):
    """Zeroes each element with probability ``p`` while training (scaling the rest)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = p

    def construct(self, input):  # noqa: A002
        return F.dropout(input, self.p, self.training)


class Dropout2d(Dropout):
    def construct(self, input):  # noqa: A002
        return F.dropout2d(input, self.p, self.training)


class Linear(_nn.Linear):
    """``Linear(in_features, out_features, bias=True, weight_init=None, bias_init=None,
    dtype=None)``: ``x @ weight.T + bias``."""

    def extend_repr(self) -> str:
        return (f"input_features={self.in_channels}, output_features={self.out_channels}, "
                f"has_bias={self.has_bias}")


class PReLU(Cell):
    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype: Any = None) -> None:
        super().__init__()
        import numpy as np

        from ...parameter import Parameter

        self.weight = Parameter(np.full((num_parameters,), init, np.float32), "weight")

    def construct(self, input):  # noqa: A002
        return F.prelu(input, self.weight)


class Conv2d(_nn.Conv2d):
    """PyTorch's arguments (``padding`` an int, a pair, ``'same'`` or ``'valid'``;
    ``bias=True``; ``groups``) on ``framework.nn.Conv2d``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f"mint.nn.Conv2d: padding_mode {padding_mode!r} is not supported")
        if isinstance(padding, str):
            pad_mode, pads = padding, 0
        else:
            top, left = F._pair(padding, "padding", "Conv2d")
            pad_mode, pads = "pad", (top, top, left, left)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, pads, dilation,
                         groups, bias, dtype=dtype)


def _batch_norm(base: type, name: str) -> type:
    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None) -> None:
        base.__init__(self, num_features, eps, 1.0 - momentum, affine,
                      use_batch_statistics=None if track_running_stats else True, dtype=dtype)

    cls = type(name, (base,), {"__init__": __init__, "__module__": __name__})
    globals()[name] = cls
    return cls


_batch_norm(_nn.BatchNorm1d, "BatchNorm1d")
_batch_norm(_nn.BatchNorm2d, "BatchNorm2d")


class GroupNorm(_nn.GroupNorm):
    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None) -> None:
        super().__init__(num_groups, num_channels, eps, affine, dtype=dtype)


class LayerNorm(Cell):
    """Normalizes the last ``len(normalized_shape)`` axes; ``weight``/``bias`` when
    ``elementwise_affine``."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True,
                 dtype=None) -> None:
        super().__init__()
        import numpy as np

        from ...parameter import Parameter

        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = Parameter(np.ones(shape, np.float32), "weight") if elementwise_affine else None
        self.bias = Parameter(np.zeros(shape, np.float32), "bias") \
            if elementwise_affine and bias else None

    def construct(self, input):  # noqa: A002
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class Embedding(Cell):
    """A ``(num_embeddings, embedding_dim)`` table looked up by index (normal init, the
    ``padding_idx`` row zero)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None) -> None:
        super().__init__()
        import numpy as np

        from ...parameter import Parameter
        from ...seed import generator

        table = generator().standard_normal((num_embeddings, embedding_dim)).astype(np.float32)
        if padding_idx is not None:
            table[padding_idx] = 0.0
        self.weight = Parameter(table if _weight is None else _weight, "weight",
                                requires_grad=not _freeze)
        self.padding_idx = padding_idx

    def construct(self, input):  # noqa: A002
        return F.embedding(input, self.weight)


ZeroPad2d = _nn.ZeroPad2d
ConstantPad1d, ConstantPad2d, ConstantPad3d = _nn.ConstantPad1d, _nn.ConstantPad2d, _nn.ConstantPad3d
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_nn.ReflectionPad1d, _nn.ReflectionPad2d,
                                                     _nn.ReflectionPad3d)


class ZeroPad1d(_nn.ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class ZeroPad3d(_nn.ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class AvgPool1d(_Functional):
    fn = "avg_pool1d"
    params = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")


class Upsample(_Functional):
    fn = "interpolate"
    params = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")


class UpsamplingNearest2d(_Functional):
    fn = "interpolate"
    params = ("size", "scale_factor")


class UpsamplingBilinear2d(_Functional):
    """Bilinear with ``align_corners=True`` (as PyTorch's class of this name)."""

    fn = "interpolate"
    params = ("size", "scale_factor")

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class Conv1d(Cell):
    """``Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True)``: weight ``(out, in / groups, kernel_size)`` and bias drawn from
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` (PyTorch's default), fan_in = in / groups * k."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None) -> None:
        super().__init__()
        import math

        import numpy as np

        from ...parameter import Parameter
        from ...seed import generator

        if padding_mode != "zeros":
            raise ValueError(f"mint.nn.Conv1d: padding_mode {padding_mode!r} is not supported")
        shape = (out_channels, in_channels // groups, kernel_size)
        bound = 1.0 / math.sqrt(shape[1] * kernel_size)
        draw = generator().uniform
        self.weight = Parameter(draw(-bound, bound, shape).astype(np.float32), "weight")
        self.bias = Parameter(draw(-bound, bound, (out_channels,)).astype(np.float32), "bias") \
            if bias else None
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups

    def construct(self, input):  # noqa: A002
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class _ReplicationPad(Cell):
    """Pads the last ``dims`` axes with copies of the edge values."""

    dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else tuple(padding)

    def construct(self, input):  # noqa: A002
        return F.pad(input, self.padding, mode="replicate")


class ReplicationPad1d(_ReplicationPad):
    dims = 1


class ReplicationPad2d(_ReplicationPad):
    dims = 2


class ReplicationPad3d(_ReplicationPad):
    dims = 3


class BatchNorm3d(BatchNorm2d):  # noqa: F821  (BatchNorm2d is made by _batch_norm above)
    """Per-channel batch norm of (N, C, D, H, W) input: BatchNorm2d over (N, C, D*H, W)."""

    def construct(self, x):
        from ... import ops

        n, c, d, h, w = x.shape
        return ops.reshape(super().construct(ops.reshape(x, (n, c, d * h, w))), (n, c, d, h, w))


class SyncBatchNorm(_nn.SyncBatchNorm):
    """``SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, process_group=None)`` on ``framework.nn.SyncBatchNorm``."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, dtype=None) -> None:
        super().__init__(num_features, eps, 1.0 - momentum, affine,
                         use_batch_statistics=None if track_running_stats else True,
                         process_groups=process_group)

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from ... import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("mint.nn", __name__)
