"""``P.MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
data_format='NCDHW', argmax_type=int64)(x)``: ``ops.max_pool3d`` with its indices, in
MindSpore's class form: ``(output, argmax)``, ``argmax`` the flat ``D * H * W`` index of
each maximum in its input channel, of ``argmax_type``. ``ksize``, ``strides``, ``pads`` and
``dilation`` are an int or 3 ints (each padding on both sides)."""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from ._class_form import REQUIRED, class_form
from ._utils import argument_error
from .elementwise import cast
from .window_pool import max_pool3d

_OP = "MaxPool3DWithArgmax"


def _triple(name: str, value: Any) -> Any:
    values = (value,) * 3 if isinstance(value, int) else tuple(value)
    if len(values) != 3 or not all(isinstance(v, int) for v in values):
        raise argument_error(_OP, ValueError(f"{name} must be an int or 3 ints, got {value!r}"))
    return values


def _max_pool3d_with_argmax(x: Any, *, ksize: Any, strides: Any, pads: Any, dilation: Any, ceil_mode: bool,
                            data_format: str, argmax_type: Any) -> tuple[Any, Any]:
    if data_format != "NCDHW" or len(x.shape) != 5:
        raise argument_error("MaxPool3DWithArgmax", ValueError(
            f"needs a 5-d NCDHW input, got shape {tuple(x.shape)} and data_format {data_format!r}"))
    if argmax_type not in (mstype.int32, mstype.int64):
        raise argument_error(_OP, TypeError(f"argmax_type must be int32 or int64, got {argmax_type}"))
    out, index = max_pool3d(x, _triple("ksize", ksize), _triple("strides", strides), _triple("pads", pads),
                            _triple("dilation", dilation), ceil_mode, return_indices=True)
    return out, cast(index, argmax_type)


MaxPool3DWithArgmax = class_form(_OP, _max_pool3d_with_argmax, ksize=REQUIRED, strides=REQUIRED,
                                 pads=REQUIRED,
                                 dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
                                 argmax_type=mstype.int64)
