"""``build_train_network``: the train step ``Model(..., amp_level=...)`` builds
(MindSpore's ``mindspore.amp.build_train_network``).

Per level (``keep_batchnorm_fp32`` and ``loss_scale_manager`` override the defaults):

| level | network computes in | keep_batchnorm_fp32 | loss_scale_manager |
| --- | --- | --- | --- |
| O0 | float32 | - | None |
| O1 | white-list cells in float16 (``auto_mixed_precision`` O1) | - | None |
| O2 | float16, BatchNorm/LayerNorm in float32 | True | ``DynamicLossScaleManager()`` |
| O3 | float16 | False | None |

For O2/O3 the loss takes the network's output cast to float32. A manager whose update
cell is not None (dynamic, or fixed with ``drop_overflow_update``) gives
``nn.TrainOneStepWithLossScaleCell`` (returns ``(loss, overflow, scale)``; overflowing
steps are skipped); ``FixedLossScaleManager(s, drop_overflow_update=False)`` gives
``nn.TrainOneStepCell(..., sens=s)`` (the optimizer must divide by ``s`` itself, its
``loss_scale`` argument in MindSpore). Unlike MindSpore's, loss scaling with an update
cell is supported on CPU. A network converted already (``auto_mixed_precision``, e.g. to
bfloat16) is trained with ``level='O0'`` and a manager: it is not converted again.
"""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import nn
from .levels import _OutputTo32, auto_mixed_precision, cast_floats, check_level, get_black_list, keep_float32
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager

_UNSET: Any = object()


class _WithLossCellFloat32(nn.Cell):
    """``loss_fn(float32(backbone(data)), label)``: the loss of a low-precision network in
    float32 (MindSpore's amp ``WithLossCell``)."""

    def __init__(self, backbone: nn.Cell, loss_fn: nn.Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = cast_floats(self._backbone(data), mstype.float32)
        return self._loss_fn(out, cast_floats(label, mstype.float32))


def level_config(level: str, keep_batchnorm_fp32: Any = _UNSET, loss_scale_manager: Any = _UNSET
                 ) -> dict[str, Any]:
    """The level's settings with the given overrides (checked)."""
    check_level(level, "Model")
    config = {"keep_batchnorm_fp32": level == "O2",
              "cast_model_type": mstype.float16 if level in ("O2", "O3") else mstype.float32,
              "loss_scale_manager": DynamicLossScaleManager() if level == "O2" else None}
    if keep_batchnorm_fp32 is not _UNSET and keep_batchnorm_fp32 is not None:
        if not isinstance(keep_batchnorm_fp32, bool):
            raise TypeError(f"Model: keep_batchnorm_fp32 must be a bool, got {keep_batchnorm_fp32!r}")
        config["keep_batchnorm_fp32"] = keep_batchnorm_fp32
    if loss_scale_manager is not _UNSET:
        if loss_scale_manager is not None and not isinstance(loss_scale_manager, LossScaleManager):
            raise TypeError("Model: loss_scale_manager must be a FixedLossScaleManager or "
                            f"DynamicLossScaleManager, got {type(loss_scale_manager).__name__}")
        config["loss_scale_manager"] = loss_scale_manager
    return config


def convert_network(network: nn.Cell, level: str, config: dict[str, Any]) -> nn.Cell:
    """The network as the level wants it (converted in place; O1 through auto_mixed_precision)."""
    if level == "O1":
        return auto_mixed_precision(network, "O1")
    if config["cast_model_type"] == mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            keep_float32(network, tuple(get_black_list()), mstype.float16)
        object.__setattr__(network, "_amp_level", level)
    return network


def is_low_precision(network: nn.Cell, config: dict[str, Any]) -> bool:
    return config["cast_model_type"] != mstype.float32 or \
        getattr(network, "_amp_level", "O0") in ("O2", "O3") or isinstance(network, _OutputTo32)


def build_train_network(network: nn.Cell, optimizer: Any, loss_fn: nn.Cell | None = None,
                        level: str = "O0", **kwargs: Any) -> nn.Cell:
    """``build_train_network(network, optimizer, loss_fn=None, level='O0',
    keep_batchnorm_fp32=..., loss_scale_manager=...)``: the train step cell."""
    unknown = set(kwargs) - {"keep_batchnorm_fp32", "loss_scale_manager", "cast_model_type"}
    if unknown:
        raise ValueError(f"build_train_network: unsupported argument(s) {', '.join(sorted(unknown))}")
    config = level_config(level, kwargs.get("keep_batchnorm_fp32", _UNSET),
                          kwargs.get("loss_scale_manager", _UNSET))
    if "cast_model_type" in kwargs:
        if kwargs["cast_model_type"] not in (mstype.float16, mstype.float32):
            raise ValueError("build_train_network: cast_model_type must be ms.float16 or ms.float32")
        config["cast_model_type"] = kwargs["cast_model_type"]
    network = convert_network(network, level, config)
    if loss_fn is not None:
        low = is_low_precision(network, config)
        network = _WithLossCellFloat32(network, loss_fn) if low else nn.WithLossCell(network, loss_fn)
    manager = config["loss_scale_manager"]
    if manager is not None:
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)
        return nn.TrainOneStepCell(network, optimizer, float(manager.get_loss_scale()))
    return nn.TrainOneStepCell(network, optimizer)
