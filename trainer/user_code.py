"""The user's own code named from YAML: ``model.class: mymodels.py:SmallCNN``.

A *target* is ``FILE.py:NAME`` (a Python file; a relative path is taken next to the
experiment file, then in the current folder) or ``package.module:NAME`` (imported from
``sys.path``, the current folder first). ``NAME`` may be dotted (``Outer.Inner``).

Arguments (``model.args``) are checked against the callable's ``__init__`` signature
before anything runs: unknown names (with "did you mean"), missing required ones, and
values against the type hints. Type checks use pydantic (already installed with MLflow and
typer) in strict JSON mode, so hints such as ``tuple[int, int]``, ``Literal[...]``,
``list[float] | None`` work as they read and YAML's lists fill tuples, while ``"32"`` is not
an ``int`` — the same strictness as the rest of the schema. Parameters without a hint take
any value. A failure is a :class:`~trainer.config.ConfigError` naming the file:line of the
key (the ``where`` callback of the config loader).

Errors raised by the user's code itself (at import or inside ``__init__``) are
:class:`UserCodeError` naming the user's file and line, never a traceback.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import json
import sys
import traceback
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any


class UserCodeError(ValueError):
    """The user's own code failed (import or call); the message names its file:line."""


def _user_line(error: BaseException, files: set[str]) -> str:
    """``file:line`` of the innermost traceback frame in one of ``files`` (else the last)."""
    frames = traceback.extract_tb(error.__traceback__)
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    inside = [f for f in frames if str(Path(f.filename).resolve()) in files] or frames[-1:]
    return f"{inside[-1].filename}:{inside[-1].lineno}" if inside else "?"


_LOADED: dict[tuple[str, int], Any] = {}  # (file, mtime_ns) -> module: each file runs once


def _load_file(file: Path) -> Any:
    """Import a user's file once (again only when it changed). Its folder goes on
    ``sys.path``, so it can import its sibling modules as a script would."""
    key = (str(file), file.stat().st_mtime_ns)
    if key in _LOADED:
        return _LOADED[key]
    if str(file.parent) not in sys.path:
        sys.path.append(str(file.parent))
    name = "twinmode_user." + "_".join(file.with_suffix("").parts[-2:]).replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _LOADED[key] = module
    return module


def resolve(target: str, base: Path | None, what: str) -> tuple[Any, str]:
    """The object named by ``target`` and a description of where it came from.

    Raises ``LookupError`` (not found: a plain message) or :class:`UserCodeError` (the
    module raised while being imported)."""
    if not isinstance(target, str) or ":" not in target.strip(":") or target.count(":") != 1:
        raise LookupError(f"{what} must be 'FILE.py:NAME' or 'package.module:NAME', got {target!r}")
    module_part, name = target.split(":")
    if module_part.endswith(".py"):
        candidates = [Path(module_part).expanduser()]
        if not candidates[0].is_absolute():
            candidates = ([base / candidates[0]] if base else []) + [Path.cwd() / candidates[0]]
        file = next((c for c in candidates if c.is_file()), None)
        if file is None:
            places = dict.fromkeys(str(c.parent) for c in candidates)
            raise LookupError(f"{what}: file {module_part} not found (looked in {', '.join(places)})")
        file = file.resolve()
        loader = lambda: _load_file(file)  # noqa: E731
        source = str(file)
    else:
        if str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        loader = lambda: importlib.import_module(module_part)  # noqa: E731
        source = module_part
    try:
        obj = loader()
    except ModuleNotFoundError as error:
        if error.name and module_part.startswith(error.name):
            raise LookupError(f"{what}: no module named {module_part!r} (is it on the path?)") from None
        raise UserCodeError(f"{_user_line(error, _files(source))}: importing {source} failed: "
                            f"{type(error).__name__}: {error}") from None
    except Exception as error:  # noqa: BLE001 - anything the user's module raises
        raise UserCodeError(f"{_user_line(error, _files(source))}: importing {source} failed: "
                            f"{type(error).__name__}: {error}") from None
    for part in name.split("."):
        if not hasattr(obj, part):
            names = [n for n in dir(obj) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise LookupError(f"{what}: {source} has no {part!r}{hint}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise LookupError(f"{what}: {target} is not a class or function")
    return obj, source


def _files(source: str) -> set[str]:
    return {str(Path(source).resolve())} if source.endswith(".py") else set()


def _signature(obj: Any) -> inspect.Signature:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return inspect.Signature([inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])


def check_args(obj: Any, args: dict[str, Any], path: tuple, where: Callable[[tuple], str],
               display: str, anchor: tuple | None = None) -> None:
    """Raise ``ConfigError`` (from trainer.config) for args that ``obj(**args)`` would refuse
    or that break its type hints. ``path`` is the dotted path of the args mapping;
    ``anchor`` the key a missing argument is reported at (default ``path``)."""
    from pydantic import ConfigDict, TypeAdapter, ValidationError

    from .config_errors import ConfigError

    sig = _signature(obj)
    params = {n: p for n, p in sig.parameters.items()
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    takes_any = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    try:
        hints = typing.get_type_hints(obj.__init__ if inspect.isclass(obj) else obj)
    except Exception:  # noqa: BLE001 - unresolvable hints: check names only
        hints = {}
    for key, value in args.items():
        dotted = ".".join(path + (str(key),))
        if key not in params:
            if takes_any:
                continue
            close = difflib.get_close_matches(str(key), list(params), n=1)
            hint = (f" (did you mean '{'.'.join(path + (close[0],))}'?)" if close
                    else f"; {display} takes: {', '.join(params) or 'no arguments'}")
            raise ConfigError(f"{where(path + (key,))}: unknown key '{dotted}': {display} has no "
                              f"parameter {key!r}{hint}")
        tp = hints.get(key)
        if tp is None or tp is Any:
            continue
        try:
            adapter = TypeAdapter(tp, config=ConfigDict(strict=True, arbitrary_types_allowed=True))
            adapter.validate_json(json.dumps(value))
        except ValidationError as error:
            first = error.errors()[0]
            inner = ".".join(str(p) for p in first["loc"])
            at = f" (at {inner})" if inner else ""
            raise ConfigError(f"{where(path + (key,))}: '{dotted}' must be {_hint_name(tp)}, got "
                              f"{value!r}{at}: {first['msg']}") from None
        except Exception:  # noqa: BLE001 - a hint pydantic cannot check, a non-JSON value
            continue
    missing = [n for n, p in params.items() if p.default is p.empty and n not in args
               and n != "self"]
    if missing:
        raise ConfigError(f"{where(anchor or path)}: {display} needs {', '.join(repr(m) for m in missing)}; "
                          f"add it under {'.'.join(path)}: {{{missing[0]}: ...}}")


def _hint_name(tp: Any) -> str:
    from .config_errors import type_name as _type_name

    if tp in (int, float, str, bool):
        return _type_name(tp)
    text = getattr(tp, "__name__", None) if not typing.get_args(tp) else None
    return text or str(tp).replace("typing.", "")


def call(obj: Any, args: dict[str, Any], display: str) -> Any:
    """``obj(**args)``; an exception raised by the user's code becomes :class:`UserCodeError`
    naming the user's file and line."""
    try:
        return obj(**args)
    except Exception as error:  # noqa: BLE001 - the user's code may raise anything
        try:
            files = {str(Path(inspect.getfile(obj)).resolve())}
        except (TypeError, OSError):
            files = set()
        raise UserCodeError(f"{_user_line(error, files)}: {display}(...) raised "
                            f"{type(error).__name__}: {error}") from None


def check_targets(config: Any, data: Any, base: Path, where: Callable[[tuple], str]) -> None:
    """The ``class``/``args`` of the ``model`` and ``dataset`` sections (trainer/config.py):
    the target imports, its signature takes the args (a dataset function also ``split``);
    a relative file path is stored resolved (absolute), so runs and MLflow's copy of the
    config find it from any folder; ``dataset.name: npz`` has an existing ``root`` file."""
    from .config_errors import ConfigError

    for section in ("model", "dataset"):
        part = getattr(config, section)
        given = data.get(section, {}) if isinstance(data, dict) else {}
        given = given if isinstance(given, dict) else {}
        if part.class_ is None:
            if section == "dataset" and part.name == "synthetic":  # its settings are args
                from datasets import make_synthetic

                check_args(make_synthetic, {"split": "train", **part.args}, (section, "args"),
                           where, "synthetic")
                _check_synthetic(part.args, where)
                continue
            if part.args:
                builtin = ("a built-in model.name takes num_classes and num_channel"
                           if section == "model" else "of the dataset.names only synthetic takes args")
                raise ConfigError(f"{where((section, 'args'))}: '{section}.args' is for "
                                  f"{section}.class (your own code); {builtin}")
            continue
        if "name" in given:
            raise ConfigError(f"{where((section, 'name'))}: give {section}.name (built in) or "
                              f"{section}.class (your own), not both")
        try:
            obj, source = resolve(part.class_, base, f"'{section}.class'")
        except LookupError as error:
            raise ConfigError(f"{where((section, 'class'))}: {error}") from None
        except UserCodeError as error:
            raise ConfigError(str(error)) from None
        display = part.class_.split(":")[1]
        anchor = None if "args" in given else (section, "class")
        if section == "dataset":
            if "split" in part.args:
                raise ConfigError(f"{where((section, 'args', 'split'))}: 'dataset.args.split' is "
                                  f"set by the trainer ('train', then 'test'); remove it")
            sig = _signature(obj)
            if "split" not in sig.parameters and not any(
                    p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
                raise ConfigError(f"{where((section, 'class'))}: {display} must take a `split` "
                                  f"argument (it is called with split='train' and split='test')")
            check_args(obj, {"split": "train", **part.args}, (section, "args"), where, display,
                       anchor)
        else:
            check_args(obj, part.args, (section, "args"), where, display, anchor)
        if source.endswith(".py"):
            part.class_ = f"{source}:{display}"
    m = config.model
    if m.class_ and isinstance(m.args.get("num_classes"), int) and not isinstance(
            m.args["num_classes"], bool):
        m.num_classes = m.args["num_classes"]
    d = config.dataset
    if d.class_ is None and d.name == "image_folder":
        if not d.root:
            raise ConfigError(f"{where(('dataset', 'name'))}: dataset.name image_folder needs "
                              f"dataset.root: a folder with train/<class>/ and test/<class>/")
        found = _existing(d.root, base, Path.is_dir)
        if found is None:
            raise ConfigError(f"{where(('dataset', 'root'))}: 'dataset.root': folder {d.root} not "
                              f"found (looked next to the experiment file and in the cwd)")
        d.root = str(found.resolve())
    if d.class_ is None and d.name == "npz":
        if not d.root:
            raise ConfigError(f"{where(('dataset', 'name'))}: dataset.name npz needs dataset.root: "
                              f"the .npz file (with x_train, y_train, x_test, y_test)")
        candidates = [Path(d.root).expanduser()]
        if not candidates[0].is_absolute():
            candidates = [base / candidates[0], Path.cwd() / candidates[0]]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            places = ", ".join(dict.fromkeys(str(c.parent) for c in candidates))
            raise ConfigError(f"{where(('dataset', 'root'))}: 'dataset.root': npz file {d.root} not "
                              f"found (looked in {places})")
        d.root = str(found.resolve())


def _check_synthetic(args: dict[str, Any], where: Callable[[tuple], str]) -> None:
    """The values ``make_synthetic`` refuses, at config load (file:line of the key)."""
    from datasets import make_synthetic

    from .config_errors import ConfigError

    for split in ("train", "test"):
        try:
            make_synthetic(split, **{**args, "train_size": 1, "test_size": 1})
        except ValueError as error:
            key = next((k for k in args if f" {k} " in f" {error} ".replace(":", " ")), None)
            raise ConfigError(f"{where(('dataset', 'args', key) if key else ('dataset', 'args'))}: "
                              f"dataset.args: {error}") from None
    for key in ("train_size", "test_size"):
        if key in args and args[key] < 1:
            raise ConfigError(f"{where(('dataset', 'args', key))}: 'dataset.args.{key}' must be "
                              f">= 1, got {args[key]}")


def _existing(path: str, base: Path, test: Callable[[Path], bool]) -> Path | None:
    """``path`` itself when absolute, else next to the experiment file, then in the cwd."""
    candidate = Path(path).expanduser()
    places = [candidate] if candidate.is_absolute() else [base / candidate, Path.cwd() / candidate]
    return next((p for p in places if test(p)), None)
