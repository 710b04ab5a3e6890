"""The ``P.*`` classes whose MindSpore constructor declares what our primitive does not keep
as a node attribute: shapes the weight already carries (``Conv2D``'s ``out_channel`` and
``kernel_size``), locking and bound-check switches of the in-place updates, the op-level
seeds of ``Dropout``, the layout of ``BiasAdd``, and ``OneHot``'s call form. Each takes
MindSpore's constructor and call arguments and applies the library's primitive, so its
graph, gradient and lowering are the primitive's.

Contracts (``P.X(attrs)(tensors)``):

- ``Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
  dilation=1, group=1, data_format='NCHW')(x, weight)``: the convolution primitive itself
  (:class:`framework.ops.conv.Conv2D`, a ``GroupConv2D`` for ``group > 1``); the weight
  must match ``out_channel`` and ``kernel_size``;
- ``BiasAdd(data_format='NCHW')(input_x, bias)``: ``bias`` along the channel axis, axis 1
  for 'NCHW'/'NCDHW', the last for 'NHWC';
- ``ScatterUpdate(use_locking=True)(input_x, indices, updates)``,
  ``IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, input_y)``:
  one thread writes here, so the locks change nothing; indices are always bound-checked
  (an index out of range is an error, where MindSpore without the check leaves the
  result undefined);
- ``Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) -> (output, mask)``: the mask comes from
  the framework's generator (``ms.set_seed``), the seeds are accepted as the other
  samplers' are (``prim_random``);
- ``OneHot(axis=-1)(indices, depth, on_value, off_value)``.
"""

from __future__ import annotations

from typing import Any

from .. import conv, nn_ops, scatter_gather
from ..elementwise import add
from ..group_conv import GroupConv2D
from ..shape_ops import reshape


class _BuildsConvolution(type):
    """What the class builds is its instance: ``isinstance(P.Conv2D(4, 3), P.Conv2D)`` (the
    mixed-precision white lists ask)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, conv.Conv2D | GroupConv2D)


class Conv2D(metaclass=_BuildsConvolution):
    """``P.Conv2D(out_channel, kernel_size, ...)``: builds :class:`framework.ops.conv.Conv2D`."""

    def __new__(cls, out_channel: Any, kernel_size: Any, mode: Any = 1, pad_mode: str = "valid",
                pad: Any = 0, stride: Any = 1, dilation: Any = 1, group: int = 1,
                data_format: str = "NCHW") -> Any:
        return conv.Conv2D(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                           data_format)

    def __init__(self, out_channel: Any, kernel_size: Any, mode: Any = 1, pad_mode: str = "valid",
                 pad: Any = 0, stride: Any = 1, dilation: Any = 1, group: int = 1,
                 data_format: str = "NCHW") -> None:
        """Never runs (``__new__`` returns the primitive); MindSpore's constructor signature."""


_BIAS_AXIS = {"NCHW": 1, "NCDHW": 1, "NHWC": -1}


class BiasAdd:
    def __init__(self, data_format: str = "NCHW") -> None:
        if data_format not in _BIAS_AXIS:
            raise ValueError(f"BiasAdd: data_format must be one of {sorted(_BIAS_AXIS)}, "
                             f"got {data_format!r}")
        self.data_format = data_format

    def __call__(self, input_x: Any, bias: Any) -> Any:
        if _BIAS_AXIS[self.data_format] == 1:
            return nn_ops.BiasAdd()(input_x, bias)
        if len(bias.shape) != 1 or bias.shape[0] != input_x.shape[-1]:
            raise ValueError(f"BiasAdd: bias of shape {tuple(bias.shape)} does not match the "
                             f"channel axis (-1, NHWC) of input {tuple(input_x.shape)}")
        return add(input_x, reshape(bias, (1,) * (len(input_x.shape) - 1) + (-1,)))


class ScatterUpdate:
    def __init__(self, use_locking: bool = True) -> None:
        self.use_locking = use_locking

    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return scatter_gather.ScatterUpdate()(input_x, indices, updates)


class IndexAdd:
    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True) -> None:
        self.axis, self.use_lock, self.check_index_bound = axis, use_lock, check_index_bound

    def __call__(self, input_x: Any, indices: Any, input_y: Any) -> Any:
        return scatter_gather.IndexAdd(self.axis)(input_x, indices, input_y)


class Dropout:
    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        self._prim = nn_ops.Dropout(keep_prob)
        self.keep_prob, self.Seed0, self.Seed1 = keep_prob, Seed0, Seed1

    def __call__(self, x: Any) -> Any:
        return self._prim(x)


class OneHot:
    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def __call__(self, indices: Any, depth: Any, on_value: Any, off_value: Any) -> Any:
        return nn_ops.OneHot(axis=self.axis)(indices, depth, on_value, off_value)


__all__ = ["BiasAdd", "Conv2D", "Dropout", "IndexAdd", "OneHot", "ScatterUpdate"]
