"""Parameter: a named, trainable Tensor owned by a Cell.

In graph mode a parameter's current value may live on the compiled function's
device (``_device``); the host copy is refreshed only when read (``asnumpy``, eager
use, checkpoints), so training steps move no parameter data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common.tensor import Tensor

_DATA_SLOT = Tensor.__dict__["_data"]


class Parameter(Tensor):
    """``Parameter(default_input, name=None, requires_grad=True)``.

    Its data is replaced in place by optimizers and checkpoint loading
    (``set_data``), so every holder of the object sees the new values.
    """

    __slots__ = ("name", "requires_grad", "_auto_named", "_given_name", "_device", "_host_stale")

    def __init__(self, default_input: Any, name: str | None = None, requires_grad: bool = True):
        self._device = None
        self._host_stale = False
        data = default_input.asnumpy() if isinstance(default_input, Tensor) else default_input
        super().__init__(np.array(data, copy=True) if isinstance(data, np.ndarray) else data)
        self.name = name
        self._auto_named = name is None
        self._given_name = name  # kept when a Cell renames it after its attribute path
        self.requires_grad = requires_grad

    # -- data, with the device copy kept in sync lazily ---------------------------------------
    @property
    def _data(self) -> Any:
        if self._host_stale:
            _DATA_SLOT.__set__(self, self._device.numpy())
            self._host_stale = False
        return _DATA_SLOT.__get__(self, Parameter)

    @_data.setter
    def _data(self, value: Any) -> None:
        _DATA_SLOT.__set__(self, value)

    @property
    def data(self) -> Parameter:
        """MindSpore's ``Parameter.data``: the parameter itself (a Tensor)."""
        return self

    def value(self) -> Tensor:
        """MindSpore's ``Parameter.value()``: the current value as a Tensor, a snapshot that
        gradients flow through to the parameter (``ops.Load``)."""
        from .ops.shape_ops import load

        return load(self)

    @property
    def shape(self) -> tuple[int, ...]:
        if self._host_stale:  # answer from the device copy without downloading it
            return tuple(self._device.shape)
        return tuple(_DATA_SLOT.__get__(self, Parameter).shape)

    @property
    def dtype(self) -> Any:
        from .dtype import from_numpy

        if self._host_stale:
            return from_numpy(np.dtype(str(self._device.dtype)))
        return from_numpy(_DATA_SLOT.__get__(self, Parameter).dtype)

    def _set_traced(self, value: Any, restore: np.ndarray | None = None) -> None:
        """Swap in a traced value (or restore the host array) without syncing."""
        _DATA_SLOT.__set__(self, value if value is not None else restore)

    def _set_device(self, array: Any) -> None:
        """A compiled step produced the newest value on its device."""
        self._device = array
        self._host_stale = True

    def _cache_device(self, array: Any) -> None:
        """A device copy of the current host value (the host stays valid)."""
        self._host_stale = False
        self._device = array

    def set_data(self, data: Any) -> Parameter:
        """Replace the values (same shape; cast to the parameter's dtype): in place in
        PyNative, a state update of the compiled function while tracing."""
        from .interpreters import current

        current().assign(self, data if isinstance(data, Tensor) else Tensor(np.asarray(data)))
        return self

    def _set_host(self, array: np.ndarray) -> None:
        """New host values; any device copy is dropped."""
        _DATA_SLOT.__set__(self, array)
        self._device = None
        self._host_stale = False

    def __setitem__(self, index: Any, value: Any) -> None:
        """``param[index] = value`` updates the Parameter (a state update in graph mode)."""
        from .ops.indexing import setitem

        self.set_data(setitem(self, index, value))

    def clone(self, name: str | None = None) -> Parameter:
        return Parameter(self.asnumpy().copy(), name=name or self.name,
                         requires_grad=self.requires_grad)

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
            data = np.zeros_like(p.asnumpy()) if init == "zeros" else p.asnumpy().copy()
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=False))
        return ParameterTuple(out)
