"""The arguments of the user's code (``model.args``, ``dataset.args``) checked against
the callable's signature before anything runs (:mod:`trainer.user_code`).

Unknown names (with "did you mean"), missing required ones, and values against the type
hints. Type checks use pydantic (already installed with MLflow and typer) in strict JSON
mode, so hints such as ``tuple[int, int]``, ``Literal[...]``, ``list[float] | None`` work as
they read and YAML's lists fill tuples, while ``"32"`` is not an ``int`` — the same
strictness as the rest of the schema. Parameters without a hint take any value. A failure
is a :class:`~trainer.config.ConfigError` naming the file:line of the key (the ``where``
callback of the config loader).
"""

from __future__ import annotations

import difflib
import inspect
import json
import typing
from collections.abc import Callable
from typing import Any


def signature(obj: Any) -> inspect.Signature:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return inspect.Signature([inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])


def takes_kwargs(sig: inspect.Signature) -> bool:
    """Whether the signature has a ``**kwargs``."""
    return any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())


def _named_parameters(sig: inspect.Signature) -> dict[str, inspect.Parameter]:
    """The parameters an argument can be given to by name."""
    return {n: p for n, p in sig.parameters.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _missing(params: dict[str, inspect.Parameter], args: dict[str, Any]) -> list[str]:
    """The required parameters (no default) that ``args`` leaves out."""
    return [n for n, p in params.items() if p.default is p.empty and n not in args
            and n != "self"]


def _type_hints(obj: Any) -> dict[str, Any]:
    """The type hints of ``obj``'s ``__init__`` (a class) or of ``obj``; none when they do
    not resolve (then only the names are checked)."""
    try:
        return typing.get_type_hints(obj.__init__ if inspect.isclass(obj) else obj)
    except Exception:  # noqa: BLE001 - unresolvable hints: check names only
        return {}


def _unknown_key(key: Any, params: dict[str, inspect.Parameter], path: tuple,
                 where: Callable[[tuple], str], display: str) -> Exception:
    """The ``ConfigError`` for an argument the callable has no parameter for."""
    from .config_errors import ConfigError

    dotted = ".".join(path + (str(key),))
    close = difflib.get_close_matches(str(key), list(params), n=1)
    hint = (f" (did you mean '{'.'.join(path + (close[0],))}'?)" if close
            else f"; {display} takes: {', '.join(params) or 'no arguments'}")
    return ConfigError(f"{where(path + (key,))}: unknown key '{dotted}': {display} has no "
                       f"parameter {key!r}{hint}")


def _check_value(key: Any, value: Any, tp: Any, path: tuple, where: Callable[[tuple], str]) -> None:
    """Validate ``value`` against the hint ``tp`` with pydantic (strict, as JSON): a
    ``ConfigError`` when it does not fit; hints pydantic cannot check pass."""
    from pydantic import ConfigDict, TypeAdapter, ValidationError

    from .config_errors import ConfigError

    try:
        adapter = TypeAdapter(tp, config=ConfigDict(strict=True, arbitrary_types_allowed=True))
        adapter.validate_json(json.dumps(value))
    except ValidationError as error:
        first = error.errors()[0]
        inner = ".".join(str(p) for p in first["loc"])
        at = f" (at {inner})" if inner else ""
        dotted = ".".join(path + (str(key),))
        raise ConfigError(f"{where(path + (key,))}: '{dotted}' must be {_hint_name(tp)}, got "
                          f"{value!r}{at}: {first['msg']}") from None
    except Exception:  # noqa: BLE001 - a hint pydantic cannot check, a non-JSON value
        return


def check_args(obj: Any, args: dict[str, Any], path: tuple, where: Callable[[tuple], str],
               display: str, anchor: tuple | None = None) -> None:
    """Raise ``ConfigError`` (from trainer.config) for args that ``obj(**args)`` would refuse
    or that break its type hints. ``path`` is the dotted path of the args mapping;
    ``anchor`` the key a missing argument is reported at (default ``path``)."""
    from .config_errors import ConfigError

    sig = signature(obj)
    params = _named_parameters(sig)
    takes_any = takes_kwargs(sig)
    hints = _type_hints(obj)
    for key, value in args.items():
        if key not in params:
            if takes_any:
                continue
            raise _unknown_key(key, params, path, where, display)
        tp = hints.get(key)
        if tp is not None and tp is not Any:
            _check_value(key, value, tp, path, where)
    missing = _missing(params, args)
    if missing:
        raise ConfigError(f"{where(anchor or path)}: {display} needs {', '.join(repr(m) for m in missing)}; "
                          f"add it under {'.'.join(path)}: {{{missing[0]}: ...}}")


def _hint_name(tp: Any) -> str:
    from .config_errors import type_name as _type_name

    if tp in (int, float, str, bool):
        return _type_name(tp)
    text = getattr(tp, "__name__", None) if not typing.get_args(tp) else None
    return text or str(tp).replace("typing.", "")
