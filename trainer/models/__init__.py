"""Model registry: experiments name a model; each entry is a Cell class or a function
returning one. Image classifiers (``MODELS``) are called with ``num_classes`` and
``num_channel``; language models (``LANGUAGE_MODELS``) with ``vocab_size``, ``block_size``
and ``model.args``."""

from __future__ import annotations

from typing import Any

from .gpt import GPT
from .lenet import LeNet5
from .lstm_lm import LSTMLM
from .mlp import MLP
from .mobilenet import MobileNetV2, mobilenet_v2
from .resnet import CifarResNet, resnet8, resnet20

MODELS: dict[str, Any] = {"lenet5": LeNet5, "mlp": MLP, "resnet8": resnet8, "resnet20": resnet20,
                          "mobilenet_v2": mobilenet_v2}
LANGUAGE_MODELS: dict[str, Any] = {"gpt": GPT, "lstm_lm": LSTMLM}


def build_model(name: str, **kwargs: Any) -> Any:
    try:
        cls = MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; registered: {', '.join(sorted(MODELS))}") from None
    return cls(**kwargs)


def network_for(model: Any, registry: dict[str, Any] | None = None,
                sizes: dict[str, Any] | None = None) -> Any:
    """The network a ``ModelConfig`` describes: the user's ``class`` called with ``args``
    (its errors name the user's file:line, trainer/user_code.py), else the built-in
    ``name`` of ``registry`` (default: the image classifiers, with ``num_classes`` and
    ``num_channel``). ``sizes`` are what the data decides (a language model's
    ``vocab_size`` and ``block_size``): given to a built-in model with ``args``, and to the
    user's class when its signature names them and ``args`` does not."""
    if model.class_ is None:
        if registry is None:
            return build_model(model.name, num_classes=model.num_classes, num_channel=model.num_channel)
        return registry[model.name](**(sizes or {}), **dict(model.args))
    import inspect

    from framework import nn

    from ..user_code import UserCodeError, call, resolve

    cls, source = resolve(model.class_, None, "model.class", cell=True)
    display = model.class_.rsplit(":", 1)[1]
    args = dict(model.args)
    try:
        named = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        named = {}
    args.update({k: v for k, v in (sizes or {}).items() if k in named and k not in args})
    net = call(cls, args, display)
    if not isinstance(net, nn.Cell):
        raise UserCodeError(f"{source}: model.class {display}(...) returned {type(net).__name__}, "
                            "not an nn.Cell; point model.class at a Cell subclass or a function "
                            "returning one")
    return net


__all__ = ["GPT", "LANGUAGE_MODELS", "LSTMLM", "MLP", "MODELS", "CifarResNet", "LeNet5", "MobileNetV2",
           "build_model", "mobilenet_v2", "network_for", "resnet8", "resnet20"]
