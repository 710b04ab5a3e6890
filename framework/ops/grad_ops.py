"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` (``G.ReluGrad()`` ...), as
its operator tests call them, written as exact compositions of our primitives (so they run
in both modes, and have gradients of their own).

Argument orders are MindSpore's (checked against MindSpore 2.10 by
``tests/framework/test_ms_module_paths.py``): the activations whose derivative reads the
*output* take ``(y, dy)`` (``SigmoidGrad``, ``TanhGrad``, ``SqrtGrad``, ``RsqrtGrad``,
``ReciprocalGrad``), those reading the *input* take ``(dy, x)`` (``ReluGrad``, ``ReLU6Grad``,
``SiLUGrad``, ``SoftplusGrad``) except ``AbsGrad(x, dy)``; ``BiasAddGrad(data_format)(dy)``
sums all but the channel axis; ``MaximumGrad``/``MinimumGrad(grad_x, grad_y)(x, y, dout)``
give ``(dx, dy)``, a tie split in half, each reduced back to its input's shape;
``DropoutGrad(keep_prob)(dy, mask)``, ``EluGrad()(dy, y)``, ``HSigmoidGrad()(dy, x)`` and
``HSwishGrad()(dy, x)``.
"""

from __future__ import annotations

from typing import Any

from .elementwise import add, cast, div, equal, greater, less, mul, sub, sum_to
from .elementwise import sigmoid as _sigmoid
from .reduce import reduce_sum


def _mask(cond: Any, like: Any) -> Any:
    return cast(cond, like.dtype)


class ReluGrad:
    """``ReluGrad()(dy, x)``: ``dy`` where ``x > 0``, else 0."""

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(dy, _mask(greater(x, 0), dy))


class ReLU6Grad:
    """``ReLU6Grad()(dy, x)``: ``dy`` where ``0 < x < 6``, else 0."""

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(mul(dy, _mask(greater(x, 0), dy)), _mask(less(x, 6), dy))


class SigmoidGrad:
    """``SigmoidGrad()(y, dy)``: ``dy * y * (1 - y)`` (``y``: the sigmoid's output)."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(dy, mul(y, sub(1, y)))


class TanhGrad:
    """``TanhGrad()(y, dy)``: ``dy * (1 - y**2)``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(dy, sub(1, mul(y, y)))


class SqrtGrad:
    """``SqrtGrad()(y, dy)``: ``dy / (2 y)``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return div(dy, mul(y, 2))


class RsqrtGrad:
    """``RsqrtGrad()(y, dy)``: ``-dy * y**3 / 2``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(dy, mul(mul(y, mul(y, y)), -0.5))


class ReciprocalGrad:
    """``ReciprocalGrad()(y, dy)``: ``-dy * y**2``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(dy, mul(mul(y, y), -1))


class AbsGrad:
    """``AbsGrad()(x, dy)``: ``dy * sign(x)`` (0 at 0)."""

    def __call__(self, x: Any, dy: Any) -> Any:
        return mul(dy, sub(_mask(greater(x, 0), dy), _mask(less(x, 0), dy)))


class SoftplusGrad:
    """``SoftplusGrad()(dy, x)``: ``dy * sigmoid(x)``."""

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(dy, _sigmoid(x))


class SiLUGrad:
    """``SiLUGrad()(dy, x)``: ``dy * s * (1 + x (1 - s))`` with ``s = sigmoid(x)``."""

    def __call__(self, dy: Any, x: Any) -> Any:
        s = _sigmoid(x)
        return mul(dy, mul(s, add(1, mul(x, sub(1, s)))))


class BiasAddGrad:
    """``BiasAddGrad(data_format="NCHW")(dy)``: ``dy`` summed over every axis but the
    channel one (axis 1; the last with ``"NHWC"``)."""

    def __init__(self, data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"BiasAddGrad: data_format must be 'NCHW', 'NHWC' or 'NCDHW', "
                             f"got {data_format!r}")
        self.data_format = data_format

    def __call__(self, dy: Any) -> Any:
        rank = len(dy.shape)
        channel = rank - 1 if self.data_format == "NHWC" else 1
        return reduce_sum(dy, tuple(a for a in range(rank) if a != channel))


class _ExtremumGrad:
    pick: Any = None

    def __init__(self, grad_x: bool = True, grad_y: bool = True) -> None:
        self.grad_x, self.grad_y = bool(grad_x), bool(grad_y)

    def __call__(self, x: Any, y: Any, dout: Any) -> tuple:
        wins, tie = _mask(type(self).pick(x, y), dout), _mask(equal(x, y), dout)
        half = mul(tie, 0.5)
        dx = mul(dout, add(wins, half))
        dy = mul(dout, sub(sub(1, wins), half))  # loses + half
        return sum_to(dx, tuple(x.shape)), sum_to(dy, tuple(y.shape))


class MaximumGrad(_ExtremumGrad):
    """``MaximumGrad(grad_x=True, grad_y=True)(x, y, dout) -> (dx, dy)``."""

    pick = staticmethod(greater)


class MinimumGrad(_ExtremumGrad):
    """``MinimumGrad(grad_x=True, grad_y=True)(x, y, dout) -> (dx, dy)``."""

    pick = staticmethod(less)


__all__ = ["AbsGrad", "BiasAddGrad", "MaximumGrad", "MinimumGrad", "ReLU6Grad",
           "ReciprocalGrad", "ReluGrad", "RsqrtGrad", "SiLUGrad", "SigmoidGrad", "SoftplusGrad",
           "SqrtGrad", "TanhGrad"]


class DropoutGrad:
    """``DropoutGrad(keep_prob=0.5)(dy, mask)``: ``dy * mask / keep_prob`` (``mask``: the
    forward's float mask of kept elements)."""

    def __init__(self, keep_prob: float = 0.5) -> None:
        if not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"DropoutGrad: keep_prob must be in (0, 1], got {keep_prob}")
        self.keep_prob = float(keep_prob)

    def __call__(self, dy: Any, mask: Any) -> Any:
        return div(mul(dy, cast(mask, dy.dtype)), self.keep_prob)


class EluGrad:
    """``EluGrad()(dy, y)`` (``y``: ELU's output, alpha 1): ``dy * (y + 1)`` where ``y < 0``,
    else ``dy``."""

    def __call__(self, dy: Any, y: Any) -> Any:
        negative = _mask(less(y, 0), dy)
        return mul(dy, add(mul(negative, y), 1))


class HSigmoidGrad:
    """``HSigmoidGrad()(dy, x)``: ``dy / 6`` where ``-3 < x < 3``, else 0."""

    def __call__(self, dy: Any, x: Any) -> Any:
        inside = mul(_mask(greater(x, -3), dy), _mask(less(x, 3), dy))
        return div(mul(dy, inside), 6)


class HSwishGrad:
    """``HSwishGrad()(dy, x)``: 0 where ``x < -3``, ``dy * (2x + 3) / 6`` where ``-3 <= x <=
    3``, ``dy`` where ``x > 3``."""

    def __call__(self, dy: Any, x: Any) -> Any:
        above = _mask(greater(x, 3), dy)
        middle = mul(sub(1, _mask(less(x, -3), dy)), sub(1, above))
        slope = div(add(mul(x, 2), 3), 6)
        return mul(dy, add(mul(middle, slope), above))
