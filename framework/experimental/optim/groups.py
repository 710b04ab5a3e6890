"""The arguments every optimizer of :mod:`framework.experimental.optim` shares: PyTorch's
``params`` (a list of Parameters, or of groups ``{"params": [...], "weight_decay": x}``)
and the options refused here (``maximize=True``, ``amsgrad=True``)."""

from __future__ import annotations

from typing import Any


def params_of(owner: str, params: Any, weight_decay: float) -> Any:
    """``params`` as :class:`framework.optim.Optimizer` takes them, ``weight_decay`` applied
    to every parameter (PyTorch's rule: no ``beta``/``gamma`` filter)."""
    params = list(params)
    if any(isinstance(p, dict) for p in params):
        for group in params:
            if isinstance(group, dict) and set(group) - {"params", "weight_decay"}:
                raise ValueError(f"{owner}: parameter groups take 'params' and 'weight_decay' "
                                 f"only here, got {sorted(group)}")
        return params
    return [{"params": params, "weight_decay": weight_decay}] if weight_decay else params


def refuse(owner: str, **flags: bool) -> None:
    """One line for each option given as True that is not supported here."""
    for name, value in flags.items():
        if value:
            raise ValueError(f"{owner}: {name}=True is not supported")
