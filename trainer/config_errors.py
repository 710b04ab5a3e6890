"""What a bad experiment file is reported as: :class:`ConfigError` (exit 2 from the CLI), the
words naming the types the schema wants, and pydantic's validation errors turned into one
line naming ``file:line``, the dotted key and, for a misspelt key or a common alias
(``lr``), the valid one. A leaf: the schema (config), its range checks (config_checks) and
the checks of ``class`` targets' args (user_code) all use it."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

Where = Callable[[tuple], str]  # dotted key path -> "file:line" or "override 'k=v'"

# Names users reach for, by section-independent key: the schema's name for them.
ALIASES = {"lr": "learning_rate", "learningrate": "learning_rate", "wd": "weight_decay",
           "decay": "weight_decay", "bs": "batch_size", "batch": "batch_size",
           "batchsize": "batch_size", "epoch": "epochs", "num_epochs": "epochs",
           "n_epochs": "epochs", "classes": "num_classes", "n_classes": "num_classes",
           "nclasses": "num_classes", "channels": "num_channel", "num_channels": "num_channel",
           "in_channels": "num_channel", "path": "root", "data_dir": "root", "dataset_dir": "root",
           "keep": "keep_max", "max_keep": "keep_max", "keep_checkpoint_max": "keep_max",
           "save_checkpoint_steps": "save_steps", "every": "save_steps", "uri": "tracking_uri",
           "beta": "momentum", "optimizer": "name", "type": "name", "random_seed": "seed"}


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
        return f"a list of {_plural(typing.get_args(tp)[0])}"
    if origin is dict:
        return "a mapping of names to values"
    return {int: "an integer", float: "a number", str: "a string", bool: "true/false",
            type(None): "null"}.get(tp, getattr(tp, "__name__", str(tp)))


def _plural(tp: Any) -> str:
    """The items of a list: ``numbers``, ``numbers or lists of numbers``."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return " or ".join(_plural(a) for a in typing.get_args(tp))
    if typing.get_origin(tp) is list:
        return f"lists of {_plural(typing.get_args(tp)[0])}"
    return {int: "integers", float: "numbers", str: "strings", bool: "true/false values"}.get(
        tp, f"{type_name(tp)} values")


def unknown_key(path: tuple, key: Any, known: list[str], where: Where) -> ConfigError:
    """``unknown key 'a.b'`` with the closest valid key (or an alias's) as a suggestion."""
    alias = ALIASES.get(str(key).lower().replace("-", "_"))
    close = [alias] if alias in known else difflib.get_close_matches(str(key), known, n=1)
    hint = f" (did you mean '{'.'.join(path + (close[0],))}'?)" if close else (
        f"; valid keys: {', '.join(known)}")
    return ConfigError(f"{where(path + (key,))}: unknown key '{'.'.join(path + (str(key),))}'{hint}")


# -- pydantic's errors as one line -------------------------------------------------------------
@functools.cache
def yaml_keys(cls: type) -> dict[str, str]:
    """A schema dataclass's YAML keys -> field names (the key ``class`` is the field ``class_``)."""
    return {f.name.rstrip("_"): f.name for f in dataclasses.fields(cls)}


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)  # without Annotated's extras: the types the words name


def _locate(root: type, loc: tuple) -> tuple[str, tuple, Any]:
    """Where pydantic's error ``loc`` falls in the schema: ``("unknown", section path, (section
    class, key))``, ``("mapping", path, None)`` for a section that is not a mapping, or
    ``("type", path of the key, its annotation)``; a location inside a key's value (a list
    index, a union member) is reported at the key."""
    cls, path = root, ()
    for key in loc:
        fields = yaml_keys(cls)
        if key not in fields:
            return "unknown", path, (cls, key)
        tp = _hints(cls)[fields[key]]
        path += (key,)
        if not dataclasses.is_dataclass(tp):
            return "type", path, tp
        cls = tp
    return "mapping", path, None


def _position(data: Any, path: tuple) -> tuple[int, ...]:
    """Where ``path`` was written in ``data``: the index of each key in its mapping, so that
    comparing positions is file order, a section before its keys."""
    out = []
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return (*out, sys.maxsize)
        out.append(list(data).index(key))
        data = data[key]
    return tuple(out)


def _key_of(spot: tuple[str, tuple, Any]) -> tuple:
    """The key path an error is reported at: an unknown key's own, else the path."""
    kind, path, info = spot
    return path + (info[1],) if kind == "unknown" else path


def _value(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def schema_error(errors: list[dict[str, Any]], root: type, data: Any, where: Where) -> ConfigError:
    """The first of pydantic's ``errors`` in file order as one line: an unknown key with a
    suggestion, a section that is not a mapping, or a key's wrong type naming the type wanted
    and the value given."""
    spots = [_locate(root, tuple(error["loc"])) for error in errors]
    kind, path, info = min(spots, key=lambda spot: _position(data, _key_of(spot)))  # ties: pydantic's order
    if kind == "unknown":
        return unknown_key(path, info[1], list(yaml_keys(info[0])), where)
    value = _value(data, path)
    dotted = ".".join(path)
    if kind == "mapping":
        return ConfigError(f"{where(path)}: {dotted or 'the file'} must be a mapping of keys, got {value!r}")
    sweep = isinstance(value, str) and re.match(r"\s*(choice|uniform|loguniform|int)\(", value)
    hint = ("; a search space is for `train sweep`, or give one value: "
            f"{dotted}=VALUE" if sweep else "")
    if value is None and len(path) == 2 and path[1] == "args":  # model.args=null
        hint = (f" ({path[0]}.args={{}} changes no arguments); to use a built-in {path[0]}.name "
                f"instead of {path[0]}.class, override {path[0]}.class=null: the class's args go "
                "with it")
    return ConfigError(f"{where(path)}: '{dotted}' must be {type_name(info)}, got {value!r}{hint}")
