"""Copies of a tensor: ``deepcopy`` (a new tensor with the same values, differentiable as
the identity) and ``move_to`` (a copy on a device; CPU is the only device PyNative holds
tensors on, graph mode places them itself)."""

from __future__ import annotations

from typing import Any

from ._utils import argument_error
from .elementwise import add
from .shape_ops import zeros_like


def deepcopy(input_x: Any) -> Any:
    """A new tensor with ``input_x``'s values (its gradient is the identity's)."""
    return add(input_x, zeros_like(input_x))


def move_to(input: Any, to: str = "CPU", blocking: bool = True) -> Any:  # noqa: A002
    """``input`` copied to device ``to`` (``'CPU'``; ``'Ascend'``/``'GPU'`` need that device)."""
    if to not in ("CPU", "Ascend", "GPU"):
        raise argument_error("move_to", ValueError(f"to must be 'CPU', 'Ascend' or 'GPU', got {to!r}"))
    if to != "CPU":
        raise argument_error("move_to", RuntimeError(
            f"tensors live on the CPU here; moving them to {to} is not supported"))
    return deepcopy(input)
