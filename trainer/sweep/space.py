"""Search-space dimensions and their text forms (on the command line and in YAML values).

Forms, one per dotted key:

- ``0.01,0.05,0.1`` (Hydra's multirun syntax: comma-separated values at the top level;
  commas inside ``[...]``, ``{...}``, ``(...)`` or quotes do not split) -> :class:`Choice`
  marked ``grid`` (every value is a grid point);
- ``choice(32, 64, 128)`` -> :class:`Choice`;
- ``uniform(low, high)``, ``uniform(low, high, step=0.1)``, ``loguniform(low, high)``
  -> :class:`Float` (``log=True`` for loguniform);
- ``int(low, high)``, ``int(low, high, step=2)``, ``int(low, high, log=true)`` -> :class:`Int`.

Each value is read as YAML 1.2 (``1e-4`` is a number, ``adam`` a string). A malformed
form raises :class:`SpaceError` with the bare problem; callers prefix where it was written
(``file:line`` or ``override '...'``). ``to_optuna`` gives the Optuna distribution.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

FUNCTIONS = ("choice", "uniform", "loguniform", "int")
_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", re.S)


class SpaceError(ValueError):
    """A malformed search-space text (the message names the problem, not the place)."""


@dataclass(frozen=True)
class Choice:
    values: tuple[Any, ...]
    grid: bool = False  # written as a comma list (Hydra multirun) rather than choice(...)

    def text(self) -> str:
        inner = ",".join(_show(v) for v in self.values)
        return inner if self.grid else f"choice({inner})"


@dataclass(frozen=True)
class Float:
    low: float
    high: float
    log: bool = False
    step: float | None = None

    def text(self) -> str:
        if self.log:
            return f"loguniform({_show(self.low)},{_show(self.high)})"
        step = f",step={_show(self.step)}" if self.step is not None else ""
        return f"uniform({_show(self.low)},{_show(self.high)}{step})"


@dataclass(frozen=True)
class Int:
    low: int
    high: int
    log: bool = False
    step: int = 1

    def text(self) -> str:
        extra = (",log=true" if self.log else "") + (f",step={self.step}" if self.step != 1 else "")
        return f"int({self.low},{self.high}{extra})"


Dimension = Choice | Float | Int


def _show(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("\n...")


def _scalar(text: str) -> Any:
    from ..config_errors import ConfigError
    from ..config_yaml import load_value

    try:
        return load_value(text) if text.strip() else None
    except yaml.YAMLError:
        return text.strip()
    except ConfigError as error:  # an alias bomb, or nesting past an experiment file's
        raise SpaceError(f"search space value {error}") from None


def split_top_level(text: str) -> list[str]:
    """``text`` split at commas that are not inside brackets, braces, parentheses or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def is_call(text: str) -> bool:
    """Whether ``text`` is one of the function forms (``loguniform(...)``, ...)."""
    call = _CALL.match(text)
    return bool(call and call.group(1) in FUNCTIONS)


def is_space_text(text: str) -> bool:
    """Whether a raw override value is a search space: a function form, a comma list, or a
    call-like ``name(a, b)`` (parsed to say that ``name`` is no search space we know)."""
    call = _CALL.match(text)
    return is_call(text) or len(split_top_level(text)) > 1 or bool(call and "," in call.group(2))


def _number(value: Any, what: str, integer: bool = False) -> Any:
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or isinstance(value, bool) or (not integer and not math.isfinite(value)):
        raise SpaceError(f"{what} must be {'an integer' if integer else 'a finite number'}, got {value!r}")
    return value


def _parse_list(text: str, call: re.Match[str] | None) -> Choice:
    """A comma list ``a,b,c`` (a grid :class:`Choice`); a call-like ``name(a, b)`` whose
    ``name`` is no known form is refused rather than read as a list."""
    if call and "," in call.group(2) and len(split_top_level(text)) == 1:
        raise SpaceError(f"unknown search space '{call.group(1)}(...)'; use one of "
                         f"{', '.join(f + '(...)' for f in FUNCTIONS)} or a comma list a,b,c")
    values = [_scalar(v) for v in split_top_level(text)]
    if any(v is None for v in values):
        raise SpaceError(f"empty value in the list '{text}'")
    return Choice(tuple(values), grid=True)


def _arguments(name: str, inner: str, text: str) -> tuple[list[Any], dict[str, Any]]:
    """The positional and keyword values inside ``name(inner)`` (keywords last)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for part in split_top_level(inner) if inner.strip() else []:
        key, eq, value = part.partition("=")
        if eq and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", key):
            kwargs[key.strip()] = _scalar(value)
        elif kwargs:
            raise SpaceError(f"{name}(...): a positional value follows a keyword one in '{text}'")
        else:
            args.append(_scalar(part))
    return args, kwargs


def _low_high(name: str, args: list[Any], text: str) -> tuple[Any, Any]:
    """The checked ``low, high`` pair of a range form (two numbers, low below high)."""
    if len(args) != 2:
        raise SpaceError(f"{name}(...) needs a low and a high value, got {len(args)} in '{text}'; "
                         f"write {_FORMS[name].usage}")
    integer = name == "int"
    low = _number(args[0], f"{name}: low", integer)
    high = _number(args[1], f"{name}: high", integer)
    if not low < high:
        raise SpaceError(f"{name}({_show(low)}, {_show(high)}): low must be below high")
    return low, high


def _choice(name: str, args: list[Any], kwargs: dict[str, Any], text: str) -> Choice:
    """``choice(a, b, ...)``: one or more scalar values."""
    if not args:
        raise SpaceError(f"choice() needs at least one value; write {_FORMS[name].usage}")
    if any(v is None or isinstance(v, dict | list) for v in args):
        raise SpaceError(f"choice(...) values must be numbers, strings or true/false; got {text}")
    return Choice(tuple(args))


def _uniform(name: str, args: list[Any], kwargs: dict[str, Any], text: str) -> Float:
    """``uniform(low, high[, step=S])``: a float range, optionally stepped."""
    low, high = _low_high(name, args, text)
    step = kwargs.get("step")
    if step is not None and _number(step, "uniform: step") <= 0:
        raise SpaceError(f"uniform: step must be > 0, got {step}")
    return Float(float(low), float(high), step=None if step is None else float(step))


def _loguniform(name: str, args: list[Any], kwargs: dict[str, Any], text: str) -> Float:
    """``loguniform(low, high)``: a float range on a log scale (low > 0)."""
    low, high = _low_high(name, args, text)
    if low <= 0:
        raise SpaceError(f"loguniform({_show(low)}, {_show(high)}): low must be > 0 (a log scale)")
    return Float(float(low), float(high), log=True)


def _int(name: str, args: list[Any], kwargs: dict[str, Any], text: str) -> Int:
    """``int(low, high[, step=S][, log=true])``: an integer range (log needs low >= 1, no step)."""
    low, high = _low_high(name, args, text)
    log = kwargs.get("log", False)
    if not isinstance(log, bool):
        raise SpaceError(f"int: log must be true or false, got {log!r}")
    step = _number(kwargs.get("step", 1), "int: step", integer=True)
    if step < 1:
        raise SpaceError(f"int: step must be >= 1, got {step}")
    if log and (low < 1 or step != 1):
        raise SpaceError("int(..., log=true) needs low >= 1 and no step")
    return Int(low, high, log=log, step=step)


@dataclass(frozen=True)
class _Form:
    """One function form: how to write it, its keyword options, and its builder."""

    usage: str
    options: frozenset[str]
    build: Callable[[str, list[Any], dict[str, Any], str], Dimension]


_FORMS: dict[str, _Form] = {
    "choice": _Form("choice(a, b, ...)", frozenset(), _choice),
    "uniform": _Form("uniform(low, high[, step=S])", frozenset({"step"}), _uniform),
    "loguniform": _Form("loguniform(low, high)", frozenset(), _loguniform),
    "int": _Form("int(low, high[, step=S][, log=true])", frozenset({"step", "log"}), _int),
}


def parse(text: str) -> Dimension:
    """The dimension written as ``text`` (see the module docstring for the forms)."""
    call = _CALL.match(text)
    if not (call and call.group(1) in FUNCTIONS):
        return _parse_list(text, call)
    name = call.group(1)
    form = _FORMS[name]
    args, kwargs = _arguments(name, call.group(2), text)
    unknown = set(kwargs) - form.options
    if unknown:
        raise SpaceError(f"{name}(...) has no option {', '.join(sorted(unknown))}; write {form.usage}")
    return form.build(name, args, kwargs, text)


def bounds(dim: Dimension) -> list[Any]:
    """The values that stand for a dimension when it is checked against the schema."""
    if isinstance(dim, Choice):
        return list(dim.values)
    return [dim.low, dim.high]


def to_optuna(dim: Dimension) -> Any:
    """The Optuna distribution of a dimension."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    if isinstance(dim, Choice):
        return CategoricalDistribution(list(dict.fromkeys(dim.values)))
    if isinstance(dim, Float):
        return FloatDistribution(dim.low, dim.high, log=dim.log, step=dim.step)
    return IntDistribution(dim.low, dim.high, log=dim.log, step=dim.step)
