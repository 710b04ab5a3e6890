"""Parameter: a named, trainable Tensor owned by a Cell."""

from __future__ import annotations

from typing import Any

import numpy as np

from .tensor import Tensor


class Parameter(Tensor):
    """``Parameter(default_input, name=None, requires_grad=True)``.

    Its data is replaced in place by optimizers and checkpoint loading
    (``set_data``), so every holder of the object sees the new values.
    """

    __slots__ = ("name", "requires_grad", "_auto_named")

    def __init__(self, default_input: Any, name: str | None = None, requires_grad: bool = True):
        data = default_input.asnumpy() if isinstance(default_input, Tensor) else default_input
        super().__init__(np.array(data, copy=True) if isinstance(data, np.ndarray) else data)
        self.name = name
        self._auto_named = name is None
        self.requires_grad = requires_grad

    def set_data(self, data: Any) -> Parameter:
        """Replace the values (same shape; cast to the parameter's dtype)."""
        array = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
        if array.shape != self._data.shape:
            raise ValueError(
                f"Parameter {self.name!r}: set_data got shape {array.shape}, "
                f"expected {self._data.shape}"
            )
        self._data = array.astype(self._data.dtype, copy=False)
        return self

    def clone(self, name: str | None = None) -> Parameter:
        return Parameter(self._data.copy(), name=name or self.name, requires_grad=self.requires_grad)

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")


class ParameterTuple(tuple):
    """A tuple of Parameters (``ParameterTuple(net.trainable_params())``)."""

    def __new__(cls, params: Any) -> ParameterTuple:
        params = tuple(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        return super().__new__(cls, params)

    def clone(self, prefix: str, init: str = "same") -> ParameterTuple:
        out = []
        for p in self:
            data = np.zeros_like(p._data) if init == "zeros" else p._data.copy()
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=False))
        return ParameterTuple(out)
