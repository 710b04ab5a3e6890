"""Tensor methods that are the functional ops with the tensor first (``x.acos()`` is
``ops.acos(x)``, ``x.clamp(0, 1)`` is ``ops.clamp(x, 0, 1)``), as the spec's rows say
(``framework/api_spec/ops.yaml``, ``tensor:``; generated into :mod:`.tensor_delegates`), plus
dtype shorthands and the in-place methods of :mod:`.tensor_inplace` (``x.add_(y)``).
``install(Tensor)`` attaches them with the operators of :mod:`.tensor_operators`: the one
place Tensor gets its methods (``framework.ops`` calls it once, on import).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtype as mstype
from . import functional as F
from .complex_ops import METHODS as COMPLEX_METHODS
from .tensor_delegates import METHODS as DELEGATES
from .tensor_delegates import PROPERTIES
from .tensor_inplace import METHODS as INPLACE
from .tensor_operators import OPERATORS

# ``x.float()`` ...: a cast
CASTS = {"float": mstype.float32, "half": mstype.float16, "double": mstype.float64,
         "int": mstype.int32, "long": mstype.int64, "short": mstype.int16, "bool": mstype.bool_,
         "byte": mstype.uint8, "bfloat16": mstype.bfloat16}


def _delegate(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``ops.{fn.__name__}(self, ...)``."
    return method


def _cast_method(name: str, dtype: Any) -> Callable[..., Any]:
    def method(self, memory_format=None):
        return F.cast(self, dtype)

    method.__name__ = name
    method.__doc__ = f"``ops.cast(self, {dtype})``."
    return method


def _where(self, condition, y):
    """``x.where(condition, y)``: ``x`` where ``condition``, else ``y``."""
    return F.where(condition, self, y)


def _view(self, *shape):
    return F.reshape(self, shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape)


def _argmax_with_value(self, axis=0, keep_dims=False):
    """``(values, int64 indices)`` (the order is the reverse of ``P.ArgMaxWithValue``'s)."""
    return F.max(self, axis, keep_dims)


def _argmin_with_value(self, axis=0, keep_dims=False):
    return F.min(self, axis, keep_dims)


def _extra() -> dict[str, Callable[..., Any]]:
    return {
        "where": _where,
        "min": lambda self, axis=None, keepdims=False: F.amin(self, axis, keepdims),
        "view": _view,
        "expand_as": lambda self, other: F.broadcast_to(self, tuple(other.shape)),
        "reshape_as": lambda self, other: F.reshape(self, tuple(other.shape)),
        "type_as": lambda self, other: F.cast(self, other.dtype),
        "numel": lambda self: int(np.prod(self.shape, dtype=np.int64)),
        "nelement": lambda self: int(np.prod(self.shape, dtype=np.int64)),
        "dim": lambda self: len(self.shape),
        "ndimension": lambda self: len(self.shape),
        "is_floating_point": lambda self: mstype.is_float(self.dtype.np),
        "is_signed": lambda self: mstype.kind(self.dtype.np) in "fi",
        "tolist": lambda self: self.asnumpy().tolist(),
        "numpy": lambda self: self.asnumpy(),
        "argmax_with_value": _argmax_with_value,
        "argmin_with_value": _argmin_with_value,
    }


def install(tensor_class: type) -> None:
    """Attach every Tensor method and operator: the one place ``Tensor`` gets them
    (``framework.ops`` runs it on import). The generated delegates, casts and in-place
    forms fill the names the class body leaves free; the complex-number methods and the
    operators (:mod:`.tensor_operators`) are set over them."""
    methods: dict[str, Callable[..., Any]] = {}
    methods.update({n: _delegate(n, fn) for n, fn in DELEGATES.items()})
    methods.update({n: _cast_method(n, d) for n, d in CASTS.items()})
    methods.update(_extra())
    methods.update(INPLACE)  # x.add_(y) ...: framework/ops/tensor_inplace.py
    methods.update({n: property(fn) for n, fn in PROPERTIES.items()})
    core = set(vars(tensor_class))  # the class body's own (a second call finds these set)
    for name, method in methods.items():
        if name not in core:
            setattr(tensor_class, name, method)
    for name, method in {**COMPLEX_METHODS, **OPERATORS}.items():
        setattr(tensor_class, name, method)
