"""``P.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
proj_size=0)(x, hx, cx, w)``: a multi-layer LSTM over ``x`` ``(T, B, input_size)`` whose
weights come as one flat tensor, as MindSpore's CPU kernel lays them out.

``w`` (any shape, read flat) holds every layer's (and direction's) input weights
``W_ih`` ``(4H, in)``, then every one's hidden weights ``W_hh`` ``(4H, H)``, then, with
``has_bias``, every one's bias ``(4H,)`` (MindSpore's ``nn.LSTM`` passes ``b_ih + b_hh``):
layer-major, forward direction first; ``in`` is ``input_size`` for the first layer and
``H * directions`` after. Gates are stacked ``i, f, g, o``.

Stacked bidirectional layers run as MindSpore's CPU kernel (oneDNN) runs them: each
direction is a stack of its own (layer ``l`` of a direction reads layer ``l - 1`` of the same
direction, ``y`` joins the last layer's two), which it allows only with ``input_size ==
hidden_size`` (else it fails: so do we); every ``W_ih`` is then ``(4H, H)``, packed one
after another from the start, while ``W_hh`` still starts where the sizes above put it
(the gap between is not read, and its gradient is 0).

``hx``, ``cx`` are ``(layers * directions, B, H)``. Returns ``(y (T, B, H * directions), hy,
cy, reserve, state)``: the last layer's outputs (both directions side by side), every
layer's final hidden and cell states, and MindSpore's two workspace tensors: ``reserve`` and
``state`` (``(1, 1)`` zeros).
``reserve`` (``(size, 1)``, without a gradient) is what the backward primitives, given only
some of the forward's inputs, read: the input ``x``, ``cx`` and the weights (``LSTM.weights``
of them), all flat, then room for the cotangents of ``y``, ``hy`` and ``cy``, zeros until
``G.LSTMGradData`` writes its own there for ``G.LSTMGradWeight`` (as cuDNN's backward data
fills the reserve its backward weights reads); :meth:`LSTM.reserve_parts` gives the layout.
``dropout`` is accepted and not applied (as MindSpore's CPU kernel does for inference);
``proj_size`` other than 0 is refused.

Each step is a matmul and :class:`~.lstm_cell.LSTMPointwise`, unrolled over the (static)
time steps, so gradients (input, states, the flat weights) and graph mode are theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .array_ops import stack
from .lstm_cell import LSTMPointwise
from .nn_ops import matmul
from .shape_ops import concat, reshape, stop_gradient

_POINTWISE = LSTMPointwise()


def _check_int(name: str, value: Any, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise argument_error("LSTM", ValueError(f"{name} must be an int >= {low}, got {value!r}"))
    return value


class LSTM:
    """``P.LSTM(...)``: see the module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool,
                 bidirectional: bool, dropout: float, proj_size: int = 0) -> None:
        self.input_size = _check_int("input_size", input_size, 1)
        self.hidden_size = _check_int("hidden_size", hidden_size, 1)
        self.num_layers = _check_int("num_layers", num_layers, 1)
        if proj_size != 0:
            raise argument_error("LSTM", NotImplementedError(f"proj_size must be 0 here, got {proj_size!r}"))
        if not 0.0 <= float(dropout) <= 1.0:
            raise argument_error("LSTM", ValueError(f"dropout must lie in [0, 1], got {dropout!r}"))
        self.has_bias, self.bidirectional = bool(has_bias), bool(bidirectional)
        self.dropout, self.proj_size = float(dropout), proj_size

    @property
    def _stacks_per_direction(self) -> bool:
        return self.bidirectional and self.num_layers > 1

    def _pieces(self) -> tuple[list[tuple[int, int]], int, int]:
        """Per layer and direction, the (start, input size) of its W_ih; where the W_hh
        start; the total size."""
        directions = 2 if self.bidirectional else 1
        gates, hidden = 4 * self.hidden_size, self.hidden_size
        starts, at = [], 0
        for layer in range(self.num_layers):
            size = self.input_size if layer == 0 else hidden * directions
            for _ in range(directions):
                starts.append((at, size))
                at += gates * size
        if self._stacks_per_direction:  # see the module docstring
            starts = [(k * gates * self.input_size, self.input_size) for k in range(len(starts))]
        total = at + len(starts) * gates * hidden + (len(starts) * gates if self.has_bias else 0)
        return starts, at, total

    @property
    def weights(self) -> int:
        """How many values of ``w`` the layers read."""
        return self._pieces()[2]

    def reserve_parts(self, steps: int, batch: int) -> dict[str, tuple[int, tuple[int, ...]]]:
        """``reserve``'s layout for ``steps x batch`` inputs: per part, its offset and shape."""
        directions = 2 if self.bidirectional else 1
        states = (self.num_layers * directions, batch, self.hidden_size)
        shapes = {"x": (steps, batch, self.input_size), "cx": states, "w": (self.weights,),
                  "dy": (steps, batch, self.hidden_size * directions), "dhy": states, "dcy": states}
        parts, at = {}, 0
        for name, shape in shapes.items():
            parts[name] = (at, shape)
            at += int(np.prod(shape))
        return parts

    def __call__(self, x: Any, hx: Any, cx: Any, w: Any) -> tuple[Any, ...]:
        directions = 2 if self.bidirectional else 1
        hidden, gates = self.hidden_size, 4 * self.hidden_size
        cells = self.num_layers * directions
        if len(x.shape) != 3 or x.shape[2] != self.input_size:
            raise argument_error("LSTM", ValueError(
                f"x must be (seq_len, batch, {self.input_size}), got {tuple(x.shape)}"))
        steps, batch = x.shape[0], x.shape[1]
        for name, state in (("hx", hx), ("cx", cx)):
            if tuple(state.shape) != (cells, batch, hidden):
                raise argument_error("LSTM", ValueError(
                    f"{name} must be {(cells, batch, hidden)}, got {tuple(state.shape)}"))
        if self._stacks_per_direction and self.input_size != hidden:
            raise argument_error("LSTM", ValueError(
                f"stacked bidirectional layers need input_size == hidden_size (as MindSpore's CPU "
                f"kernel), got {self.input_size} and {hidden}"))
        starts, hh_at, total = self._pieces()
        flat = reshape(w, (-1,))
        if flat.shape[0] < total:
            raise argument_error("LSTM", ValueError(
                f"w holds {flat.shape[0]} values, the weights need {total}"))
        bias_at = hh_at + cells * gates * hidden
        h_out, c_out = [], []
        layer_inputs = [x] * directions  # what each direction's next layer reads
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                inputs = layer_inputs[d]
                k = layer * directions + d
                at, size = starts[k]
                w_ih = reshape(flat[at:at + gates * size], (gates, size))
                hh = hh_at + k * gates * hidden
                w_hh = reshape(flat[hh:hh + gates * hidden], (gates, hidden))
                xg = matmul(reshape(inputs, (steps * batch, size)), w_ih, transpose_b=True)
                if self.has_bias:
                    xg = xg + flat[bias_at + k * gates:bias_at + (k + 1) * gates]
                xg = reshape(xg, (steps, batch, gates))
                h, c = hx[k], cx[k]
                ys: list[Any] = [None] * steps
                for t in (range(steps) if d == 0 else range(steps - 1, -1, -1)):
                    h, c = _POINTWISE(xg[t] + matmul(h, w_hh, transpose_b=True), c)[:2]
                    ys[t] = h
                outs.append(stack(ys, 0))
                h_out.append(h)
                c_out.append(c)
            joined = concat(outs, -1) if directions == 2 else outs[0]
            layer_inputs = outs if self._stacks_per_direction else [joined] * directions
        dtype = mstype.to_np(x.dtype)
        parts = self.reserve_parts(steps, batch)
        room = sum(int(np.prod(parts[name][1])) for name in ("dy", "dhy", "dcy"))
        reserve = concat([reshape(x, (-1,)), reshape(cx, (-1,)), flat[:total], Tensor(np.zeros(room, dtype))],
                         0)
        state = Tensor(np.zeros((1, 1), dtype))
        return joined, stack(h_out, 0), stack(c_out, 0), stop_gradient(reshape(reserve, (-1, 1))), state
