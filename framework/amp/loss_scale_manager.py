"""Loss-scale managers (``mindspore.amp``): what ``Model(..., loss_scale_manager=...)`` takes.

A manager holds the host's view of the scale (``get_loss_scale``, ``update_loss_scale``,
which ``Model`` calls after each step with the step's overflow flag, as MindSpore's does)
and gives the update cell that changes the scale inside the train step
(``get_update_cell``; ``None``: a fixed scale whose overflowing steps are *not* skipped).

- ``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)``
- ``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)``:
  an overflow divides the scale by ``scale_factor`` (not below 1) and skips the step;
  ``scale_window`` overflow-free steps multiply it by ``scale_factor``.
"""

from __future__ import annotations

from typing import Any

from .. import nn


class LossScaleManager:
    """Base class: ``get_loss_scale()``, ``update_loss_scale(overflow)``, ``get_update_cell()``."""

    def get_loss_scale(self) -> float:
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        raise NotImplementedError

    def get_update_cell(self) -> Any:
        raise NotImplementedError

    def get_drop_overflow_update(self) -> bool:
        return True


class FixedLossScaleManager(LossScaleManager):
    """A constant scale; with ``drop_overflow_update`` an overflowing step is skipped."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, int | float) or loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be a number >= 1, got {loss_scale!r}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = bool(drop_overflow_update)

    def get_loss_scale(self) -> float:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """The scale is fixed: nothing to do."""

    def get_update_cell(self) -> Any:
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """The scale adapts: halved (``/ scale_factor``) on an overflow, doubled after
    ``scale_window`` good steps (MindSpore's arithmetic, also in the update cell)."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: int = 2,
                 scale_window: int = 2000) -> None:
        if isinstance(init_loss_scale, bool) or not isinstance(init_loss_scale, int | float) \
                or init_loss_scale < 1.0:
            raise ValueError(f"DynamicLossScaleManager: init_loss_scale must be a number >= 1, got "
                             f"{init_loss_scale!r}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"DynamicLossScaleManager: scale_window must be a positive int, got "
                             f"{scale_window!r}")
        if not isinstance(scale_factor, int | float) or scale_factor <= 0:
            raise ValueError(f"DynamicLossScaleManager: scale_factor must be > 0, got {scale_factor!r}")
        self.loss_scale = init_loss_scale
        self.scale_window = scale_window
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def update_loss_scale(self, overflow: bool) -> None:
        """MindSpore's host-side rule; more than ``bad_step_max`` overflows in a row raise."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"dynamic loss scale: {self.bad_step} overflows in a row (more than "
                               f"{self.bad_step_max}); the loss or gradients are not finite at any scale")
        self.cur_iter += 1

    def get_update_cell(self) -> Any:
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
