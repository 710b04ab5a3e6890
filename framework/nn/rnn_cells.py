"""Recurrent cells (MindSpore 2.x ``nn.RNNCell``, ``nn.GRUCell``, ``nn.LSTMCell``) and the
one-step functions the multi-step layers (:mod:`.rnn`) share with them.

Weights and gate order as MindSpore's (and PyTorch's): ``weight_ih`` of shape
``(gates * hidden_size, input_size)``, ``weight_hh`` ``(gates * hidden_size, hidden_size)``,
``bias_ih`` / ``bias_hh`` ``(gates * hidden_size,)``; LSTM gates stacked ``i, f, g, o``,
GRU gates ``r, z, n``. Every parameter starts uniform in ``(-1/sqrt(hidden_size),
1/sqrt(hidden_size))``.

The step functions take the input part of the gates already computed (``xg = x @ W_ih^T +
biases``), so a layer computes it for every time step in one matmul before its loop and
only the hidden part (one ``(N, gates * H)`` matmul) inside it.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import Uniform, initializer
from ..ops.lstm_cell import LSTMPointwise
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints, tensor_shape

_MATMUL_T = ops.MatMul(transpose_b=True)  # x @ W^T with W stored (out, in)
_POINTWISE = LSTMPointwise()
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def linear_t(x: Any, weight: Any, bias: Any = None) -> Any:
    """``x @ weight^T (+ bias)`` for 2-D ``x``."""
    out = _MATMUL_T(x, weight)
    return out if bias is None else ops.bias_add(out, bias)


def _chunk(g: Any, k: int, hidden: int) -> Any:
    """Gate ``k`` (columns ``k*hidden : (k+1)*hidden``) of a ``(N, gates*hidden)`` block."""
    return ops.slice_(g, (0, k * hidden), (g.shape[0], hidden))


def rnn_step(xg: Any, h: Any, w_hh: Any, relu: bool) -> Any:
    """Elman step: ``act(xg + h @ W_hh^T)`` (both biases folded into ``xg``)."""
    pre = xg + _MATMUL_T(h, w_hh)
    return ops.relu(pre) if relu else ops.tanh(pre)


def lstm_step(xg: Any, h: Any, c: Any, w_hh: Any) -> tuple[Any, Any]:
    """LSTM step, gates ``i, f, g, o`` (both biases folded into ``xg``): ``(h', c')``."""
    gates = xg + _MATMUL_T(h, w_hh)
    # the gate arithmetic as one primitive (one kernel each way in graph mode): sigmoid
    # i, f, o, tanh g, c' = f c + i g, h' = o tanh(c'); the activations saved for backward
    h_new, c_new = _POINTWISE(gates, c)[:2]
    return h_new, c_new


def gru_step(xg: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    """GRU step, gates ``r, z, n``; ``b_hh`` stays inside (``n`` multiplies ``W_hn h + b_hn``
    by ``r``): ``h' = (1 - z) * n + z * h``, computed as ``n + z * (h - n)``."""
    hidden = h.shape[-1]
    gh = linear_t(h, w_hh, b_hh)
    r = ops.sigmoid(_chunk(xg, 0, hidden) + _chunk(gh, 0, hidden))
    z = ops.sigmoid(_chunk(xg, 1, hidden) + _chunk(gh, 1, hidden))
    n = ops.tanh(_chunk(xg, 2, hidden) + r * _chunk(gh, 2, hidden))
    return n + z * (h - n)


def input_gates(mode: str, x: Any, w_ih: Any, b_ih: Any, b_hh: Any) -> Any:
    """``x @ W_ih^T`` plus the biases that can leave the loop (all but GRU's ``b_hh``)."""
    if b_ih is None:
        return _MATMUL_T(x, w_ih)
    bias = b_ih if mode == "GRU" else b_ih + b_hh
    return linear_t(x, w_ih, bias)


def uniform_param(shape: tuple[int, ...], hidden_size: int, name: str, dtype: Any) -> Parameter:
    """A parameter drawn uniform in ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
    return Parameter(initializer(Uniform(1 / math.sqrt(hidden_size)), shape, dtype), name)


class _RNNCellBase(Cell):
    """Shared by the cells: parameters ``weight_ih``, ``weight_hh`` (+ ``bias_ih``, ``bias_hh``)."""

    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()

        who = type(self).__name__
        positive_ints(who, input_size=input_size, hidden_size=hidden_size)
        if not isinstance(has_bias, bool):
            raise TypeError(f"{who}: has_bias must be a bool, got {has_bias!r}")
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        dt = dtype or mstype.float32
        rows = GATES[self.mode] * hidden_size
        self.weight_ih = uniform_param((rows, input_size), hidden_size, "weight_ih", dt)
        self.weight_hh = uniform_param((rows, hidden_size), hidden_size, "weight_hh", dt)
        if has_bias:
            self.bias_ih = uniform_param((rows,), hidden_size, "bias_ih", dt)
            self.bias_hh = uniform_param((rows,), hidden_size, "bias_hh", dt)
        else:
            self.bias_ih = self.bias_hh = None

    def _check(self, x: Any, hs: tuple) -> None:
        who = type(self).__name__
        shape = tensor_shape(who, x)
        if len(shape) != 2 or shape[1] != self.input_size:
            raise ValueError(f"{who}: x must be (batch_size, {self.input_size}), got {shape}")
        for name, h in hs:
            hshape = tensor_shape(f"{who} {name}", h)
            if hshape != (shape[0], self.hidden_size):
                raise ValueError(f"{who}: {name} must be ({shape[0]}, {self.hidden_size}) for x "
                                 f"of shape {shape}, got {hshape}")

    def _zeros(self, x: Any) -> Any:
        return ops.zeros((x.shape[0], self.hidden_size), x.dtype)

    def _xg(self, x: Any) -> Any:
        return input_gates(self.mode, x, self.weight_ih, self.bias_ih, self.bias_hh)

    def extend_repr(self) -> str:
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_RNNCellBase):
    """``h' = act(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh)``, ``act`` tanh or relu.

    ``construct(x, hx=None)``: x ``(batch, input_size)``, hx ``(batch, hidden_size)``
    (zeros when None); returns ``h'`` ``(batch, hidden_size)``.
    """

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 nonlinearity: str = "tanh", dtype: Any = mstype.float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        object.__setattr__(self, "mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx=None):
        hx = self._zeros(x) if hx is None else hx
        self._check(x, (("hx", hx),))
        return rnn_step(self._xg(x), hx, self.weight_hh, self.mode == "RNN_RELU")


class GRUCell(_RNNCellBase):
    """GRU cell: ``r, z = sigmoid(...)``, ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
    ``h' = (1 - z) * n + z * h``. ``construct(x, hx=None)`` returns ``h'``."""

    mode = "GRU"

    def construct(self, x, hx=None):
        hx = self._zeros(x) if hx is None else hx
        self._check(x, (("hx", hx),))
        return gru_step(self._xg(x), hx, self.weight_hh, self.bias_hh)


class LSTMCell(_RNNCellBase):
    """LSTM cell. ``construct(x, hx=None)`` with ``hx = (h, c)`` (zeros when None) returns
    the tuple ``(h', c')``, each ``(batch, hidden_size)``."""

    mode = "LSTM"

    def construct(self, x, hx=None):
        if hx is None:
            hx = (self._zeros(x), self._zeros(x))
        if not isinstance(hx, tuple | list) or len(hx) != 2:
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c) of two tensors, got {type(hx).__name__}")
        self._check(x, (("hx[0]", hx[0]), ("hx[1]", hx[1])))
        return lstm_step(self._xg(x), hx[0], hx[1], self.weight_hh)
