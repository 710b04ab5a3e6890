"""Gradients of holomorphic primitives on complex tensors: MindSpore's conjugate convention.

For a real loss ``L`` of a complex tensor ``z = x + iy`` the gradient is
``dL/dx + i dL/dy``, which for ``w = f(z)`` holomorphic is ``dout * conj(f'(z))``.
A bprop written for real tensors computes ``dout * f'(inputs, out)`` with ``f'`` made of
operations with real coefficients (products, quotients, exp, transposes), so
``f'(conj(inputs), conj(out)) == conj(f'(inputs, out))``: the decorator
:func:`holomorphic` runs the real rule on the conjugated inputs and output whenever one of
them is complex, and the rule is unchanged for real tensors (nothing is conjugated).

Contract: decorate only bprops that are linear in ``dout`` and whose derivative has real
coefficients (Mul, Div, MatMul, BatchMatMul, Exp, Log, Sqrt); real-valued functions of
complex inputs (``real``, ``abs``, ``angle``) have their own rules in :mod:`.complex_ops`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import complex_ops as _complex_ops


def _complex(value: Any) -> bool:
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "is_complex", False)


def holomorphic(bprop: Callable[..., tuple]) -> Callable[..., tuple]:
    """``bprop`` with complex inputs and output conjugated first (module docstring)."""

    @functools.wraps(bprop)
    def rule(self: Any, *inputs: Any, out: Any, dout: Any, needs: tuple) -> tuple:
        if not (_complex(out) or any(_complex(x) for x in inputs)):
            return bprop(self, *inputs, out=out, dout=dout, needs=needs)
        inputs = tuple(_complex_ops.conj(x) if _complex(x) else x for x in inputs)
        out = _complex_ops.conj(out) if _complex(out) else out
        return bprop(self, *inputs, out=out, dout=dout, needs=needs)

    return rule
