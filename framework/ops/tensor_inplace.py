"""In-place Tensor methods, MindSpore 2.10's (``x.add_(y)``, ``x.mul_(2)``, ``x.zero_()`` ...).

Contract: ``x.op_(...)`` computes the out-of-place result (``x + alpha * y`` ...), which must
have ``x``'s shape (``y`` broadcasts to ``x``: a RuntimeError otherwise, as in MindSpore),
casts it to ``x``'s dtype, makes ``x`` hold it and returns ``x`` itself. Gradients see the
chain of values: ``x``'s old value is an input of the update (the tape is told, as for
``x[i] = v``: :func:`framework.autograd.tape.rebind`), so they reach both ``x``'s old value
and the other operands, in PyNative and in graph mode alike -- the gradients MindSpore's
graph mode gives. A Parameter is updated through ``ops.assign`` (a state update of the
compiled function in graph mode). A plain tensor's update is reported to
:func:`framework.ops.state.mark_written`: a compiled function's Tensor argument updated in
place is written back to the caller's tensor after the call (:mod:`framework.graph_mode`), as
MindSpore's graph mode does.

Not MindSpore's (2.10, CPU): its PyNative ``add_``/``sub_``/``mul_``/``div_``/``exp_`` ...
return the new value but leave ``x`` unchanged, and ``fill_``/``zero_``/``clamp_``/``log_``
... have no CPU kernel; here every method updates ``x`` as the methods are documented (and
as MindSpore's graph mode does). MindSpore 2.10's ``sub_`` inside ``@jit`` returns the
difference but leaves the tensor (and the caller's) as it was; here it updates both. While
tracing, a concrete tensor (a constant the compiled function did not compute and was not
given) cannot be updated: an error says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import functional as F
from .state import mark_written


def _update(self: Any, new: Any, name: str) -> Any:
    """``self`` made to hold ``new`` (cast to its dtype; shape checked); returns ``self``."""
    from ..autograd import tape as _tape
    from ..interpreters import is_tracing
    from ..parameter import Parameter

    if tuple(new.shape) != tuple(self.shape):
        raise RuntimeError(f"Tensor.{name}: the other operand (result shape {tuple(new.shape)}) "
                           f"must broadcast to the tensor's shape {tuple(self.shape)}")
    if new.dtype != self.dtype:
        new = F.cast(new, self.dtype)
    if isinstance(self, Parameter):
        F.assign(self, new)
        return self
    if is_tracing() and isinstance(self._data, np.ndarray):
        raise RuntimeError(f"graph mode: Tensor.{name} on a tensor the compiled function neither "
                           "computed nor received as an argument (a constant here); pass it as "
                           f"an argument or write x = x.{name[:-1]}(...)")
    _tape.rebind(self, new)
    self._data = new._data
    mark_written(self)
    return self


def _scaled(other: Any, alpha: Any) -> Any:
    return other if isinstance(alpha, int | float) and alpha == 1 else F.mul(other, alpha)


def add_(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``self += alpha * other``."""
    return _update(self, F.add(self, _scaled(other, alpha)), "add_")


def sub_(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``self -= alpha * other``."""
    return _update(self, F.sub(self, _scaled(other, alpha)), "sub_")


def mul_(self: Any, other: Any) -> Any:
    return _update(self, F.mul(self, other), "mul_")


def div_(self: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """``self /= other``; ``rounding_mode`` ``"floor"`` or ``"trunc"`` rounds the quotient."""
    if rounding_mode is None:
        new = F.div(self, other)
    elif rounding_mode == "floor":
        new = F.floor_divide(self, other)
    elif rounding_mode == "trunc":
        new = F.trunc(F.div(self, other))
    else:
        raise ValueError(f"Tensor.div_: rounding_mode must be None, 'floor' or 'trunc', got "
                         f"{rounding_mode!r}")
    return _update(self, new, "div_")


def floor_divide_(self: Any, other: Any) -> Any:
    return _update(self, F.floor_divide(self, other), "floor_divide_")


def remainder_(self: Any, other: Any) -> Any:
    return _update(self, F.remainder(self, other), "remainder_")


def copy_(self: Any, src: Any, non_blocking: bool = False) -> Any:
    """``self`` takes ``src``'s values (broadcast to its shape, cast to its dtype)."""
    from ..common.tensor import Tensor

    src = src if isinstance(src, Tensor) else Tensor(np.asarray(src), self.dtype)
    if tuple(src.shape) != tuple(self.shape):
        src = F.broadcast_to(src, tuple(self.shape))
    return _update(self, src, "copy_")


def fill_(self: Any, value: Any) -> Any:
    """Every element becomes ``value`` (a number, or a Tensor of one element)."""
    from ..common.tensor import Tensor

    if isinstance(value, Tensor):
        if value.size != 1:
            raise RuntimeError(f"Tensor.fill_: value must be a 0-D or one-element Tensor, got "
                               f"shape {value.shape}")
        new = F.broadcast_to(F.reshape(F.cast(value, self.dtype), ()), tuple(self.shape))
    else:
        new = F.full_like(self, value)
    return _update(self, new, "fill_")


def zero_(self: Any) -> Any:
    return _update(self, F.zeros_like(self), "zero_")


def clamp_(self: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    return _update(self, F.clamp(self, min, max), "clamp_")


def masked_fill_(self: Any, mask: Any, value: Any) -> Any:
    return _update(self, F.masked_fill(self, mask, value), "masked_fill_")


def _unary(name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def method(self: Any) -> Any:
        return _update(self, fn(self), f"{name}_")

    method.__name__ = f"{name}_"
    method.__doc__ = f"``self = ops.{name}(self)``, in place."
    return method


METHODS: dict[str, Callable[..., Any]] = {
    "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "floor_divide_": floor_divide_,
    "remainder_": remainder_, "copy_": copy_, "fill_": fill_, "zero_": zero_, "clamp_": clamp_,
    "masked_fill_": masked_fill_,
    **{f"{n}_": _unary(n, getattr(F, n)) for n in ("exp", "log", "sigmoid", "tanh", "floor", "sign")},
}
