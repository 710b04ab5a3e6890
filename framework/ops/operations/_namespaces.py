"""The ``framework.ops`` and ``framework.mint`` namespaces, for the ``P.*`` classes of
``prim_*.py`` that are written with them.

Modules inside ``framework.ops`` never import the ``framework.ops`` package itself (its
``__init__`` gathers autograd's ``grad``/``vmap``, which are written with ops) nor
``framework.mint`` (written with ops, above it): each puts itself here at the end of its
own import (``import framework`` does both), as the jit layer installs autograd's hooks.
Calling such a class before then is a one-line RuntimeError.
"""

from __future__ import annotations

from typing import Any

INSTALLED: dict[str, Any] = {"ops": None, "mint": None}


def _installed(name: str) -> Any:
    module = INSTALLED[name]
    if module is None:
        raise RuntimeError(f"this primitive is written with framework.{name}, which is not "
                           "imported yet: import framework first")
    return module


def ops() -> Any:
    """The installed ``framework.ops`` package."""
    return _installed("ops")


def mint() -> Any:
    """The installed ``framework.mint`` module."""
    return _installed("mint")
