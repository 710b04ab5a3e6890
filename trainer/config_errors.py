"""What a bad experiment file is reported as: :class:`ConfigError` (exit 2 from the CLI)
and the words naming the types the schema wants. A leaf: the schema (config), its range
checks (config_checks) and the checks of ``class`` targets' args (user_code) all use it."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal


class ConfigError(ValueError):
    """A bad experiment file or override (the CLI exits with status 2)."""


def type_name(tp: Any) -> str:
    """How an error names the type the schema wants (``an integer``, ``a list of strings``)."""
    origin = typing.get_origin(tp)
    if origin is Literal:
        return " or ".join(repr(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return f"a list of {type_name(typing.get_args(tp)[0])}s"
    if origin is dict:
        return "a mapping of names to values"
    return {int: "an integer", float: "a number", str: "a string", bool: "true/false",
            type(None): "null"}.get(tp, getattr(tp, "__name__", str(tp)))
