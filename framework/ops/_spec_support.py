"""What the generated surfaces (``functional.py``) call besides the implementations: the
check that a MindSpore argument the implementation does not have yet was left at its
default (see ``framework/api_spec``)."""

from __future__ import annotations

from typing import Any


def at_default(where: str, name: str, value: Any, default: Any) -> None:
    """Nothing when ``value`` is ``default``; one line naming the argument otherwise."""
    if value is default:
        return
    try:
        same = type(value) is type(default) and bool(value == default)
    except Exception:  # noqa: BLE001  (a tensor or an object with odd equality: not the default)
        same = False
    if not same:
        raise NotImplementedError(
            f"{where}: {name}={value!r} is not supported here yet (only the default, {default!r}); "
            "docs/api_coverage.md lists what is")
