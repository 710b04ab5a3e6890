"""``mindspore.amp``: mixed precision (float16 / bfloat16 compute, float32 master weights,
loss scaling). ``auto_mixed_precision`` converts a network (``levels``); the managers
(``loss_scale_manager``) and ``build_train_network`` (``build``) are what
``Model(..., amp_level=..., loss_scale_manager=...)`` uses; ``DynamicLossScaler``,
``StaticLossScaler`` and ``all_finite`` (``scaler``) serve hand-written train steps."""

from .build import build_train_network
from .levels import auto_mixed_precision, get_black_list, get_white_list
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .scaler import DynamicLossScaler, LossScaler, StaticLossScaler, all_finite

__all__ = ["DynamicLossScaleManager", "DynamicLossScaler", "FixedLossScaleManager", "LossScaleManager",
           "LossScaler", "StaticLossScaler", "all_finite", "auto_mixed_precision",
           "build_train_network", "get_black_list", "get_white_list"]
