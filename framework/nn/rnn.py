"""Multi-layer recurrent layers: MindSpore 2.x ``nn.RNN``, ``nn.GRU``, ``nn.LSTM``.

``construct(x, hx=None, seq_length=None)`` returns ``(output, h_n)`` (RNN, GRU) or
``(output, (h_n, c_n))`` (LSTM):

- ``x``: ``(seq_len, batch, input_size)``, or ``(batch, seq_len, input_size)`` with
  ``batch_first``; ``hx``: ``(num_layers * num_directions, batch, hidden_size)`` (a tuple of
  two for LSTM), zeros when None; rows ordered layer by layer, forward then reverse.
- ``output``: ``(seq_len, batch, num_directions * hidden_size)`` (batch first with
  ``batch_first``), the last layer's hidden state at every step, forward then reverse.
- ``seq_length``: an int tensor ``(batch,)`` of valid lengths. For row ``b`` the steps
  ``t >= seq_length[b]`` do not change the state and their output is zero; the reverse
  direction starts at step ``seq_length[b] - 1`` (its padded steps come first in its order,
  and leave its initial state as it is). So ``h_n`` (and ``c_n``) hold, per row, the forward
  state after step ``seq_length[b] - 1`` and the reverse state after step 0: PyTorch's
  ``pack_padded_sequence`` results, and ``output`` equals ``pad_packed_sequence``'s output
  padded with zeros to ``seq_len``. A length 0 gives the initial state and zero outputs.

Parameters are named as MindSpore's (and PyTorch's): ``weight_ih_l{k}``, ``weight_hh_l{k}``,
``bias_ih_l{k}``, ``bias_hh_l{k}``, with the ``_reverse`` suffix for the reverse direction;
gates stacked ``i, f, g, o`` (LSTM), ``r, z, n`` (GRU); all uniform in
``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``. ``dropout`` applies to the outputs of
every layer but the last, in training.

Both modes run the same code. In graph mode the time length is a compile-time constant
(static shapes), so the Python loop over time unrolls while tracing: the projection of the
inputs is one ``(seq_len * batch, input) @ W_ih^T`` matmul per layer and direction, and
each step adds one ``(batch, hidden) @ W_hh^T`` matmul and the gate arithmetic.
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..ops.split_rows import SplitRows
from .cell import Cell
from .checks import positive_ints, tensor_shape
from .layers import Dropout
from .rnn_cells import GATES, gru_step, input_gates, lstm_step, rnn_step, uniform_param


def _stack(steps: list) -> Any:
    """``(T, N, H)`` from T tensors ``(N, H)``: one concat along rows, then one reshape (no
    reshape per step, each a kernel call of its own in graph mode, both ways)."""
    n, h = steps[0].shape
    return ops.reshape(ops.concat(steps, 0), (len(steps), n, h))


class _RNNBase(Cell):
    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype: Any = None) -> None:
        super().__init__()
        from .. import dtype as mstype

        who = type(self).__name__
        positive_ints(who, input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)
        for name, flag in (("has_bias", has_bias), ("batch_first", batch_first),
                           ("bidirectional", bidirectional)):
            if not isinstance(flag, bool):
                raise TypeError(f"{who}: {name} must be a bool, got {flag!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, int | float) or not 0 <= dropout < 1:
            raise ValueError(f"{who}: dropout must be a number in [0, 1), got {dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.bidirectional = has_bias, batch_first, bidirectional
        self.dropout = float(dropout)
        self.num_directions = 2 if bidirectional else 1
        dt = dtype or mstype.float32
        rows = GATES[self.mode] * hidden_size
        weights = []  # per (layer, direction): (w_ih, w_hh, b_ih, b_hh)
        for layer in range(num_layers):
            n_in = input_size if layer == 0 else hidden_size * self.num_directions
            for direction in range(self.num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                group = [uniform_param((rows, n_in), hidden_size, "weight_ih" + suffix, dt),
                         uniform_param((rows, hidden_size), hidden_size, "weight_hh" + suffix, dt)]
                if has_bias:
                    group += [uniform_param((rows,), hidden_size, "bias_ih" + suffix, dt),
                              uniform_param((rows,), hidden_size, "bias_hh" + suffix, dt)]
                else:
                    group += [None, None]
                weights.append(tuple(group))
        for kind in range(4):  # registered as MindSpore orders them: every weight_ih first ...
            for group in weights:
                if group[kind] is not None:
                    setattr(self, group[kind].name, group[kind])
        object.__setattr__(self, "_weights", weights)
        self.dropout_op = Dropout(p=self.dropout) if self.dropout > 0 and num_layers > 1 else None

    # -- checks ------------------------------------------------------------------------------
    def _states(self, x_shape: tuple, hx: Any) -> list:
        """The initial state of each (layer, direction): a tensor, or an (h, c) pair."""
        who = type(self).__name__
        rows, batch = self.num_layers * self.num_directions, x_shape[1]
        want = (rows, batch, self.hidden_size)
        lstm = self.mode == "LSTM"
        if hx is None:
            return [None] * rows
        parts = hx if lstm else (hx,)
        if lstm and (not isinstance(hx, tuple | list) or len(hx) != 2):
            raise TypeError(f"{who}: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
        for k, part in enumerate(parts):
            shape = tensor_shape(f"{who} hx", part)
            if shape != want:
                name = f"hx[{k}]" if lstm else "hx"
                raise ValueError(f"{who}: {name} must be (num_layers * num_directions, batch_size, "
                                 f"hidden_size) = {want}, got {shape}")
        if lstm:
            return [(hx[0][r], hx[1][r]) for r in range(rows)]
        return [hx[r] for r in range(rows)]

    def _check_x(self, x: Any, seq_length: Any) -> tuple:
        who = type(self).__name__
        shape = tensor_shape(who, x)
        if len(shape) != 3 or shape[2] != self.input_size:
            order = "(batch, seq_len, " if self.batch_first else "(seq_len, batch, "
            raise ValueError(f"{who}: x must be {order}{self.input_size}), got {shape}")
        if seq_length is not None:
            batch = shape[0] if self.batch_first else shape[1]
            lshape = tensor_shape(f"{who} seq_length", seq_length)
            if lshape != (batch,) or seq_length.dtype.name not in ("int32", "int64"):
                raise ValueError(f"{who}: seq_length must be an int32/int64 tensor of shape "
                                 f"({batch},), got {lshape} {seq_length.dtype}")
        return shape

    # -- running -----------------------------------------------------------------------------
    def _direction(self, x: Any, state: Any, weights: tuple, masks: list | None, reverse: bool):
        """One layer in one direction over ``x`` (T, N, I): (output (T, N, H), final state)."""
        w_ih, w_hh, b_ih, b_hh = weights
        steps, batch, n_in = x.shape
        hidden, mode = self.hidden_size, self.mode
        xg = input_gates(mode, ops.reshape(x, (steps * batch, n_in)), w_ih, b_ih, b_hh)
        lstm = mode == "LSTM"
        if state is None:
            zeros = ops.zeros((batch, hidden), x.dtype)
            state = (zeros, zeros) if lstm else zeros
        h, c = state if lstm else (state, None)
        # the steps' (N, G) rows: ONE primitive, whose backward is one concatenate (slices
        # would each take a pad of the whole projection as gradient)
        xs = list(SplitRows(steps)(xg)) if steps > 1 else [xg]
        outputs = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            if lstm:
                h_new, c_new = lstm_step(xs[t], h, c, w_hh)
            elif mode == "GRU":
                h_new = gru_step(xs[t], h, w_hh, b_hh)
            else:
                h_new = rnn_step(xs[t], h, w_hh, mode == "RNN_RELU")
            if masks is None:
                h, c = h_new, (c_new if lstm else None)
                outputs[t] = h_new
            else:
                valid = masks[t]
                h = ops.select(valid, h_new, h)
                c = ops.select(valid, c_new, c) if lstm else None
                outputs[t] = ops.select(valid, h_new, ops.zeros_like(h_new))
        return _stack(outputs), ((h, c) if lstm else h)

    def construct(self, x, hx=None, seq_length=None):
        self._check_x(x, seq_length)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        states = self._states(x.shape, hx)
        masks = None
        if seq_length is not None:  # masks[t]: (N, 1) bool, step t is inside row n
            masks = [ops.expand_dims(ops.greater(seq_length, t), 1) for t in range(x.shape[0])]
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                out, final = self._direction(x, states[k], self._weights[k], masks, direction == 1)
                outs.append(out)
                finals.append(final)
            x = outs[0] if len(outs) == 1 else ops.concat(outs, 2)
            if self.dropout_op is not None and self.training and layer < self.num_layers - 1:
                x = self.dropout_op(x)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        if self.mode == "LSTM":
            return x, (_stack([h for h, _ in finals]), _stack([c for _, c in finals]))
        return x, _stack(finals)

    def extend_repr(self) -> str:
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, batch_first={self.batch_first}, "
                f"dropout={self.dropout}, bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Elman RNN: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``, ``act`` tanh or relu.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', has_bias=True,
    batch_first=False, dropout=0., bidirectional=False)`` as MindSpore documents it. MindSpore's
    ``RNN(*args, **kwargs)`` takes ``nonlinearity`` by keyword and passes the positional
    arguments on as ``(input_size, hidden_size, num_layers, has_bias, batch_first, dropout,
    bidirectional)``; both work here: a str in the fourth place is the non-linearity, a bool
    there is ``has_bias``. See the module docstring.
    """

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        args = list(args)
        if len(args) > 3 and isinstance(args[3], str):  # the documented (and PyTorch's) order
            nonlinearity = args.pop(3)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """GRU layers (gates ``r, z, n``; ``h_t = (1 - z) * n + z * h_{t-1}``); returns
    ``(output, h_n)``. See the module docstring."""

    mode = "GRU"


class LSTM(_RNNBase):
    """LSTM layers (gates ``i, f, g, o``); returns ``(output, (h_n, c_n))``. See the module
    docstring."""

    mode = "LSTM"
