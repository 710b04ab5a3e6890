"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` for ``P.LSTM``: the
vector-Jacobian products of our forward (:mod:`.lstm_layers`, unrolled matrix products and
:class:`~.lstm_cell.LSTMPointwise` steps, whose gradients these are), for the cotangents
``dy``, ``dhy``, ``dcy`` of its outputs ``y``, ``hy``, ``cy``. The flat weight vector is laid
out as ``P.LSTM``'s (every W_ih, then every W_hh, then the biases); its gradient comes back
in ``w``'s shape.

- ``LSTMGrad(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
  proj_size=0)(x, hx, cx, w, y, hy, cy, dy, dhy, dcy, reserve) -> (dx, dhx, dcx, dw)``.
  MindSpore's CPU kernel reads the activations from ``reserve`` (its forward's workspace);
  ours recomputes them from ``x, hx, cx, w``, so with the forward's own ``reserve`` both give
  the same gradients (``y``, ``hy``, ``cy`` and ``reserve`` are accepted and not read).
- ``LSTMGradData(input_size, hidden_size, num_layers, has_bias, bidirectional,
  dropout)(y, dy, dhy, dcy, w, hx, cx, reserve, state) -> (dx, dhx, dcx)``: it gets no
  ``x``, which it reads from ``reserve`` (``P.LSTM``'s output of that name: see
  :mod:`.lstm_layers`); it then writes ``dy``, ``dhy``, ``dcy`` into ``reserve``, in place,
  for ``LSTMGradWeight``.
- ``LSTMGradWeight(input_size, hidden_size, num_layers, has_bias, bidirectional,
  dropout)(x, hx, y, reserve, state) -> dw`` ``(weights, 1, 1)`` (the shape of MindSpore's
  flat LSTM weight): the weights' gradient for the cotangents ``LSTMGradData`` left in
  ``reserve`` (with ``cx`` and the weights the forward left there), so it runs after
  ``LSTMGradData`` on the same ``reserve``, as MindSpore's GPU backward of ``P.LSTM`` calls
  them (cuDNN's backward weights reads what its backward data wrote).
  MindSpore 2.10 registers no CPU kernel for either (its GPU kernels read cuDNN's workspace).
- ``dropout`` is accepted and not applied, as by the forward.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._utils import argument_error
from .elementwise import cast
from .lstm_layers import LSTM
from .sampling_backprops import backprop_of
from .shape_ops import concat, reshape
from .state import assign


def _outputs(lstm: LSTM) -> Any:
    """``(x, hx, cx, w) -> (y, hy, cy)``: the forward's differentiated outputs."""
    return lambda x, hx, cx, w: lstm(x, hx, cx, w)[:3]


class LSTMGrad:
    """See the module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool,
                 bidirectional: bool, dropout: float, proj_size: int = 0) -> None:
        self.forward = LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size)
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout = has_bias, bidirectional, dropout
        self.proj_size = proj_size

    def __call__(self, x: Any, hx: Any, cx: Any, w: Any, y: Any, hy: Any, cy: Any, dy: Any, dhy: Any,
                 dcy: Any, reserve: Any) -> tuple[Any, Any, Any, Any]:
        _check_cotangents(type(self).__name__, (y, hy, cy), (dy, dhy, dcy))
        dx, dhx, dcx, dw = backprop_of(_outputs(self.forward), (x, hx, cx, w), (0, 1, 2, 3), (dy, dhy, dcy))
        return dx, dhx, dcx, dw


class LSTMGradData:
    """See the module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool,
                 bidirectional: bool, dropout: float) -> None:
        self.forward = LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout)
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout = has_bias, bidirectional, dropout

    def __call__(self, y: Any, dy: Any, dhy: Any, dcy: Any, w: Any, hx: Any, cx: Any, reserve: Any,
                 state: Any) -> tuple[Any, Any, Any]:
        who = type(self).__name__
        _check_cotangents(who, (y, hx, cx), (dy, dhy, dcy))
        x = _part(who, self.forward, reserve, y, "x")
        dx, dhx, dcx = backprop_of(_outputs(self.forward), (x, hx, cx, w), (0, 1, 2), (dy, dhy, dcy))
        # x, cx and w as the forward left them, then the cotangents
        head = reshape(reserve, (-1,))[:_offset(self.forward, y, "dy")]
        filled = concat([head] + [cast(reshape(d, (-1,)), reserve.dtype) for d in (dy, dhy, dcy)], 0)
        assign(reserve, reshape(filled, tuple(reserve.shape)))
        return dx, dhx, dcx


class LSTMGradWeight:
    """See the module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool,
                 bidirectional: bool, dropout: float) -> None:
        self.forward = LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout)
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout = has_bias, bidirectional, dropout

    def __call__(self, x: Any, hx: Any, y: Any, reserve: Any, state: Any) -> Any:
        who = type(self).__name__
        cx, w = _part(who, self.forward, reserve, y, "cx"), _part(who, self.forward, reserve, y, "w")
        sens = tuple(_part(who, self.forward, reserve, y, name) for name in ("dy", "dhy", "dcy"))
        dw = backprop_of(_outputs(self.forward), (x, hx, cx, w), (3,), sens)[0]
        return reshape(dw, (-1, 1, 1))


def _offset(lstm: LSTM, y: Any, name: str) -> int:
    return lstm.reserve_parts(int(y.shape[0]), int(y.shape[1]))[name][0]


def _part(who: str, lstm: LSTM, reserve: Any, y: Any, name: str) -> Any:
    """The part ``name`` of our ``P.LSTM``'s ``reserve`` (``T``, ``B`` from ``y``)."""
    parts = lstm.reserve_parts(int(y.shape[0]), int(y.shape[1]))
    last, last_shape = parts["dcy"]
    size = last + int(np.prod(last_shape))
    if int(np.prod(tuple(reserve.shape))) != size:
        raise argument_error(who, ValueError(
            f"reserve must be P.LSTM's reserve output for this input ({size} values for y of shape "
            f"{tuple(y.shape)}), got shape {tuple(reserve.shape)}"))
    at, shape = parts[name]
    return reshape(reshape(reserve, (-1,))[at:at + int(np.prod(shape))], shape)


def _check_cotangents(who: str, outputs: tuple[Any, ...], cotangents: tuple[Any, ...]) -> None:
    for name, out, d in zip(("dy", "dhy", "dcy"), outputs, cotangents):
        if tuple(out.shape) != tuple(d.shape):
            raise argument_error(who, ValueError(
                f"{name} must have the shape {tuple(out.shape)} of the output it is the gradient of, "
                f"got {tuple(d.shape)}"))
