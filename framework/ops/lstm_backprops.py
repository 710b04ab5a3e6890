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
  ``x``; our ``P.LSTM``'s ``reserve`` is its input ``x``, flat, which this reads back
  (``reserve`` must be that output of the forward). MindSpore 2.10 registers no CPU kernel
  for it (its GPU kernel reads cuDNN's workspace).
- ``dropout`` is accepted and not applied, as by the forward.
"""

from __future__ import annotations

from typing import Any

from ._utils import argument_error
from .lstm_layers import LSTM
from .sampling_backprops import backprop_of
from .shape_ops import reshape


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
        _check_cotangents(type(self).__name__, (y, hx, cx), (dy, dhy, dcy))
        x = input_of(type(self).__name__, reserve, y, self.input_size)
        dx, dhx, dcx = backprop_of(_outputs(self.forward), (x, hx, cx, w), (0, 1, 2), (dy, dhy, dcy))
        return dx, dhx, dcx


def input_of(who: str, reserve: Any, y: Any, input_size: int) -> Any:
    """The forward's input ``x`` ``(T, B, input_size)``, read back from our ``P.LSTM``'s
    ``reserve`` (``T``, ``B`` from ``y``)."""
    steps, batch = int(y.shape[0]), int(y.shape[1])
    size = steps * batch * input_size
    count = 1
    for n in reserve.shape:
        count *= int(n)
    if count != size:
        raise argument_error(who, ValueError(
            f"reserve must be P.LSTM's reserve output for this input ({size} values: x of "
            f"{(steps, batch, input_size)}), got shape {tuple(reserve.shape)}"))
    return reshape(reserve, (steps, batch, input_size))


def _check_cotangents(who: str, outputs: tuple[Any, ...], cotangents: tuple[Any, ...]) -> None:
    for name, out, d in zip(("dy", "dhy", "dcy"), outputs, cotangents):
        if tuple(out.shape) != tuple(d.shape):
            raise argument_error(who, ValueError(
                f"{name} must have the shape {tuple(out.shape)} of the output it is the gradient of, "
                f"got {tuple(d.shape)}"))
