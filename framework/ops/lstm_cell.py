"""The elementwise part of an LSTM step as one primitive, and its gradient as another.

``LSTMPointwise()(gates, c) -> (h, c_new, i, f, g, o, tc)``: ``gates`` ``(N, 4H)`` are the
pre-activations (``x W_ih^T + h W_hh^T`` plus biases), stacked ``i, f, g, o``; ``c``
``(N, H)`` the previous cell state. ``i, f, o`` are the sigmoids of their columns, ``g`` the
tanh of its own, ``c_new = f c + i g``, ``tc = tanh(c_new)``, ``h = o tc``; all seven
outputs ``(N, H)``. The last five are what the gradient reads (saved, not recomputed).

``LSTMPointwiseGrad()(c, i, f, g, o, tc, dh, dc) -> (dgates (N, 4H), dc_prev (N, H))``:
the vector-Jacobian product for cotangents ``dh`` of ``h`` and ``dc`` of ``c_new``.
Not differentiable again (an internal gradient kernel): where a higher-order transform
records the backward pass, ``LSTMPointwise``'s bprop spells the same formula with
elementwise ops instead, which are.

Internal primitives (no MindSpore counterpart; MindSpore's LSTM is one opaque op): in
graph mode the step's gate arithmetic is one kernel each way instead of about ten, each a
VM call and a buffer of its own (:mod:`..nn.rnn_cells`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import tape as _tape
from ..primitive import Primitive, Spec, shape_str
from ._utils import float_dtype
from .elementwise import add, mul, stable_sigmoid, sub
from .shape_ops import concat, zeros_like


def _check(who: str, named: list[tuple[str, Any]], want: tuple[int, ...]) -> None:
    for name, t in named:
        if tuple(t.shape) != want:
            raise ValueError(f"{who}: {name} must have shape {shape_str(want)}, "
                             f"got {shape_str(tuple(t.shape))}")


class LSTMPointwise(Primitive):
    """See the module docstring."""

    num_outputs = 7
    none_douts = True

    def infer(self, gates: Any, c: Any) -> tuple[Spec, ...]:
        if len(gates.shape) != 2 or gates.shape[1] % 4:
            raise ValueError("LSTMPointwise: gates must be (batch, 4 * hidden), "
                             f"got {shape_str(tuple(gates.shape))}")
        n, four_h = gates.shape
        _check("LSTMPointwise", [("c", c)], (n, four_h // 4))
        spec = Spec((n, four_h // 4), float_dtype(gates.dtype))
        return (spec,) * 7

    def kernel(self, gates, c):
        dtype = float_dtype(gates.dtype)
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, o, g = stable_sigmoid(i), stable_sigmoid(f), stable_sigmoid(o), np.tanh(g)
        c_new = f * c + i * g
        tc = np.tanh(c_new)
        return tuple(np.asarray(v).astype(dtype, copy=False) for v in (o * tc, c_new, i, f, g, o, tc))

    def bprop(self, gates, c, *, out, dout, needs):
        h, c_new, i, f, g, o, tc = out
        dh, dc, di, df, dg, do, dtc = dout
        if dtc is not None:  # tanh(c_new)'s own cotangent joins c_new's
            dtc_c = mul(dtc, sub(1.0, mul(tc, tc)))
            dc = dtc_c if dc is None else add(dc, dtc_c)
        dh = zeros_like(h) if dh is None else dh
        dc = zeros_like(c) if dc is None else dc
        if _tape.active() is None:
            dgates, dc_prev = LSTMPointwiseGrad()(c, i, f, g, o, tc, dh, dc)
        else:  # a higher-order transform records this backward: the same formula in
            dgates, dc_prev = _composed_grad(c, i, f, g, o, tc, dh, dc)  # differentiable ops
        extra = [None if d is None else mul(d, dact) for d, dact in (
            (di, mul(i, sub(1.0, i))), (df, mul(f, sub(1.0, f))),
            (dg, sub(1.0, mul(g, g))), (do, mul(o, sub(1.0, o))))]
        if any(e is not None for e in extra):  # the activations' own cotangents (not in an LSTM)
            dgates = add(dgates, concat([zeros_like(c) if e is None else e for e in extra], 1))
        return (dgates if needs[0] else None, dc_prev if needs[1] else None)


def _composed_grad(c, i, f, g, o, tc, dh, dc) -> tuple[Any, Any]:
    """:class:`LSTMPointwiseGrad`'s kernel written with framework ops (so differentiable)."""
    dcn = add(dc, mul(mul(dh, o), sub(1.0, mul(tc, tc))))
    parts = [mul(mul(mul(dcn, g), i), sub(1.0, i)), mul(mul(mul(dcn, c), f), sub(1.0, f)),
             mul(mul(dcn, i), sub(1.0, mul(g, g))), mul(mul(mul(dh, tc), o), sub(1.0, o))]
    return concat(parts, 1), mul(dcn, f)


class LSTMPointwiseGrad(Primitive):
    """See the module docstring."""

    num_outputs = 2
    differentiable = False
    first_order_only = True

    def infer(self, c, i, f, g, o, tc, dh, dc) -> tuple[Spec, Spec]:
        if len(c.shape) != 2:
            raise ValueError(f"LSTMPointwiseGrad: c must be (batch, hidden), got {shape_str(tuple(c.shape))}")
        want = tuple(c.shape)
        _check("LSTMPointwiseGrad", [("i", i), ("f", f), ("g", g), ("o", o), ("tc", tc), ("dh", dh),
                                     ("dc", dc)], want)
        dtype = float_dtype(c.dtype)
        return Spec((want[0], 4 * want[1]), dtype), Spec(want, dtype)

    def kernel(self, c, i, f, g, o, tc, dh, dc):
        dtype = float_dtype(c.dtype)
        dcn = dc + dh * o * (1.0 - tc * tc)
        dgates = np.concatenate([dcn * g * i * (1.0 - i), dcn * c * f * (1.0 - f),
                                 dcn * i * (1.0 - g * g), dh * tc * o * (1.0 - o)], axis=1)
        return dgates.astype(dtype, copy=False), (dcn * f).astype(dtype, copy=False)
