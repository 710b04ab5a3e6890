"""Model registry: experiments name a model; each entry is one Cell class."""

from __future__ import annotations

from typing import Any

from .lenet import LeNet5

MODELS: dict[str, type] = {"lenet5": LeNet5}


def build_model(name: str, **kwargs: Any) -> Any:
    try:
        cls = MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; registered: {', '.join(sorted(MODELS))}") from None
    return cls(**kwargs)


__all__ = ["MODELS", "LeNet5", "build_model"]
