"""Nested mappings as dotted keys: ``{"train": {"epochs": 2}}`` -> ``{"train.epochs": 2}``
(MLflow params, the config changes a resume reports, the resolved config's record)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every leaf of ``tree`` under its dotted path (``prefix.`` before each, if given)."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(flatten(value, name))
        else:
            out[name] = value
    return out
