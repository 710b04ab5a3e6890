"""``nn.get_activation``: an activation cell by MindSpore's name for it."""

from __future__ import annotations

from typing import Any

_NAMES = ("softmin", "softmax", "softmax2d", "logsoftmax", "relu", "relu6", "rrelu", "silu",
          "tanh", "tanhshrink", "hardtanh", "gelu", "fast_gelu", "elu", "sigmoid", "softsign",
          "prelu", "leakyrelu", "hswish", "hsigmoid", "logsigmoid", "softshrink", "hshrink",
          "threshold", "mish")


def _classes() -> dict[str, Any]:
    from .. import nn  # the cells live all over framework.nn; looked up when asked

    spelled = {"softmin": "Softmin", "softmax": "Softmax", "softmax2d": "Softmax2d",
               "logsoftmax": "LogSoftmax", "relu": "ReLU", "relu6": "ReLU6", "rrelu": "RReLU",
               "silu": "SiLU", "tanh": "Tanh", "tanhshrink": "Tanhshrink", "hardtanh": "Hardtanh",
               "gelu": "GELU", "fast_gelu": "FastGelu", "elu": "ELU", "sigmoid": "Sigmoid",
               "softsign": "Softsign", "prelu": "PReLU", "leakyrelu": "LeakyReLU",
               "hswish": "HSwish", "hsigmoid": "HSigmoid", "logsigmoid": "LogSigmoid",
               "softshrink": "SoftShrink", "hshrink": "HShrink", "threshold": "Threshold",
               "mish": "Mish"}
    return {name: getattr(nn, spelled[name]) for name in _NAMES}


def get_activation(name: Any, prim_name: Any = None) -> Any:
    """A new activation cell for ``name`` (``'relu'``, ``'leakyrelu'`` ...) built with its
    defaults; None for None; KeyError naming the known names for another."""
    if name is None:
        return None
    classes = _classes()
    if name not in classes:
        who = f"For '{prim_name}', the" if prim_name else "The"
        raise KeyError(f"{who} 'name' must be one of {list(classes)}, got {name!r}")
    return classes[name]()
