"""Activations composed of existing primitives: relu6, hard sigmoid/swish/tanh, elu
family, leaky/parametric relu, softsign, mish, logsigmoid, shrinks, threshold, softmin.

Contracts (MindSpore's formulas; each a composition, so both modes and gradients come
from the primitives used):

- gradients at the kinks are MindSpore's (checked against it): ``relu6``'s reaches ``x``
  where ``0 < x <= 6``, ``hardsigmoid``'s where ``-3 < x < 3``, ``hardswish``'s is
  ``(2x + 3) / 6`` on ``[-3, 3]`` ends included; ``hardtanh`` and ``leaky_relu`` are
  ``maximum``/``minimum`` compositions (a tie at a bound splits the gradient in half, as
  theirs); ``prelu`` takes the negative slope at 0, ``elu``/``celu`` the exponential side;
- exponentials of the negative side read ``min(x, 0)`` (no overflow on the unused side);
- ``prelu(x, weight)``: ``weight`` (one value or one per channel, axis 1; axis 0 for 1-D
  inputs) scales the negative entries, its gradient summed over the rest;
- ``selu``: ``scale * elu(x, alpha)`` with the self-normalizing constants.
"""

from __future__ import annotations

from typing import Any

from ._class_form import class_form
from ._utils import argument_error
from .activations import softplus
from .elementwise import abs, add, div, greater, less, maximum, minimum, mul, neg, select, sub, tanh
from .math_unary import expm1
from .nn_ops import softmax
from .shape_ops import reshape

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def relu6(x):
    return select(greater(x, 0), select(greater(x, 6), 6, x), 0)


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002  (MindSpore's names)
    return minimum(maximum(input, min_val), max_val)


def hardsigmoid(input):  # noqa: A002
    inside = div(add(input, 3.0), 6.0)
    return select(greater(input, -3.0), select(less(input, 3.0), inside, 1.0), 0.0)


def hardswish(x):
    inside = div(add(x, 3.0), 6.0)  # x * this on [-3, 3], ends included (its gradient's rule)
    return mul(x, select(less(x, -3.0), 0.0, select(greater(x, 3.0), 1.0, inside)))


def softsign(x):
    return div(x, add(abs(x), 1.0))


def mish(x):
    return mul(x, tanh(softplus(x)))


def logsigmoid(x):
    return neg(softplus(neg(x)))


def _negative_part(x: Any) -> Any:
    """``x`` where ``x <= 0``, else 0 (a select: at 0 the gradient takes this side)."""
    return select(greater(x, 0), 0.0, x)


def elu(input_x, alpha=1.0):
    neg_side = mul(expm1(_negative_part(input_x)), float(alpha))
    return select(greater(input_x, 0), input_x, neg_side)


def selu(input_x):
    return mul(elu(input_x, SELU_ALPHA), SELU_SCALE)


def celu(x, alpha=1.0):
    if alpha == 0:
        raise argument_error("celu", ValueError("alpha must not be 0"))
    neg_side = mul(expm1(div(_negative_part(x), float(alpha))), float(alpha))
    return select(greater(x, 0), x, neg_side)


def leaky_relu(input, alpha=0.2):  # noqa: A002
    return maximum(input, mul(input, alpha))


def prelu(x, weight):
    rank = len(x.shape)
    if len(weight.shape) != 1:
        raise argument_error("prelu", ValueError(f"weight must be 1-D, got shape {weight.shape}"))
    channels = x.shape[1] if rank >= 2 else (x.shape[0] if rank == 1 else 1)
    if weight.shape[0] not in (1, channels):
        raise argument_error("prelu", ValueError(
            f"weight has {weight.shape[0]} values; x has {channels} channels"))
    w = weight if rank < 2 else reshape(weight, (weight.shape[0],) + (1,) * (rank - 2))
    return select(greater(x, 0), x, mul(x, w))


def softshrink(x, lambd=0.5):
    return select(greater(x, lambd), sub(x, lambd), select(less(x, -lambd), add(x, lambd), 0.0))


def hardshrink(x, lambd=0.5):
    return select(greater(abs(x), lambd), x, 0.0)


def tanhshrink(x):
    return sub(x, tanh(x))


def threshold(input, thr, value):  # noqa: A002
    return select(greater(input, thr), input, value)


def softmin(x, axis=-1):
    return softmax(neg(x), axis)


def _attr_call(fn, *names: str) -> Any:
    def run(x, **attrs):
        return fn(x, *(attrs[n] for n in names))

    run.__name__ = fn.__name__
    return run


ReLU6 = class_form("ReLU6", relu6)
HSigmoid = class_form("HSigmoid", hardsigmoid)
HSwish = class_form("HSwish", hardswish)
Softsign = class_form("Softsign", softsign)
Mish = class_form("Mish", mish)
SeLU = class_form("SeLU", selu)
Elu = class_form("Elu", _attr_call(elu, "alpha"), alpha=1.0)
CeLU = class_form("CeLU", _attr_call(celu, "alpha"), alpha=1.0)
HShrink = class_form("HShrink", _attr_call(hardshrink, "lambd"), lambd=0.5)
SoftShrink = class_form("SoftShrink", _attr_call(softshrink, "lambd"), lambd=0.5)
PReLU = class_form("PReLU", prelu)
