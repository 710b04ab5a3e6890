"""Model registry: experiments name a model; each entry is a Cell class or a function
returning one, called with ``num_classes`` and ``num_channel``."""

from __future__ import annotations

from typing import Any

from .lenet import LeNet5
from .mlp import MLP
from .mobilenet import MobileNetV2, mobilenet_v2
from .resnet import CifarResNet, resnet8, resnet20

MODELS: dict[str, Any] = {"lenet5": LeNet5, "mlp": MLP, "resnet8": resnet8, "resnet20": resnet20,
                          "mobilenet_v2": mobilenet_v2}


def build_model(name: str, **kwargs: Any) -> Any:
    try:
        cls = MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; registered: {', '.join(sorted(MODELS))}") from None
    return cls(**kwargs)


def network_for(model: Any) -> Any:
    """The network a ``ModelConfig`` describes: the user's ``class`` called with ``args``
    (its errors name the user's file:line, trainer/user_code.py), else the built-in
    ``name`` with ``num_classes`` and ``num_channel``."""
    if model.class_ is None:
        return build_model(model.name, num_classes=model.num_classes, num_channel=model.num_channel)
    from framework import nn

    from ..user_code import UserCodeError, call, resolve

    cls, source = resolve(model.class_, None, "model.class")
    display = model.class_.rsplit(":", 1)[1]
    net = call(cls, dict(model.args), display)
    if not isinstance(net, nn.Cell):
        raise UserCodeError(f"{source}: model.class {display}(...) returned {type(net).__name__}, "
                            "not an nn.Cell; point model.class at a Cell subclass or a function "
                            "returning one")
    return net


__all__ = ["MLP", "MODELS", "CifarResNet", "LeNet5", "MobileNetV2", "build_model",
           "mobilenet_v2", "network_for", "resnet8", "resnet20"]
