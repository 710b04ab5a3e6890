"""The user's own code named from YAML: ``model.class: mymodels.py:SmallCNN``.

A *target* is ``FILE.py:NAME`` (a Python file; a relative path is taken next to the
experiment file, then in the current folder) or ``package.module:NAME`` (imported from
``sys.path``, the current folder first). ``NAME`` may be dotted (``Outer.Inner``).

Arguments (``model.args``) are checked against the callable's ``__init__`` signature
before anything runs (:mod:`trainer.user_args`): unknown names, missing required ones, and
values against the type hints, each a :class:`~trainer.config.ConfigError` naming the
file:line of the key.

Errors raised by the user's code itself (at import or inside ``__init__``) are
:class:`UserCodeError` naming the user's file and line, never a traceback.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import sys
import traceback
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .user_args import check_args, signature, takes_kwargs


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


def _check_target_form(target: Any, what: str) -> None:
    """A ``LookupError`` unless ``target`` reads ``MODULE:NAME`` with exactly one colon."""
    if not isinstance(target, str) or ":" not in target.strip(":") or target.count(":") != 1:
        raise LookupError(f"{what} must be 'FILE.py:NAME' or 'package.module:NAME', got {target!r}")


def _places(path: str, base: Path | None) -> list[Path]:
    """Where a user's path is looked for: itself when absolute, else next to the experiment
    file (``base``, when known), then in the current folder."""
    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        return [candidate]
    return ([base / candidate] if base else []) + [Path.cwd() / candidate]


def _looked_in(candidates: list[Path]) -> str:
    """The folders of ``candidates``, once each, for a "not found" message."""
    return ", ".join(dict.fromkeys(str(c.parent) for c in candidates))


def _module_loader(module_part: str, base: Path | None, what: str) -> tuple[Callable[[], Any], str]:
    """A function importing the module part of a target, and its source (a resolved file
    path, or the dotted module name); a ``LookupError`` for a file that does not exist."""
    if module_part.endswith(".py"):
        candidates = _places(module_part, base)
        file = next((c for c in candidates if c.is_file()), None)
        if file is None:
            raise LookupError(f"{what}: file {module_part} not found (looked in {_looked_in(candidates)})")
        file = file.resolve()
        return (lambda: _load_file(file)), str(file)
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    return (lambda: importlib.import_module(module_part)), module_part


def _import_user_module(loader: Callable[[], Any], module_part: str, source: str, what: str) -> Any:
    """``loader()``: a module that is not there is a ``LookupError``; anything the module
    raises while importing (a missing module of its own included) is a :class:`UserCodeError`."""
    try:
        return loader()
    except ModuleNotFoundError as error:
        if error.name and module_part.startswith(error.name):
            raise LookupError(f"{what}: no module named {module_part!r} (is it on the path?)") from None
        raise UserCodeError(_import_failure(error, source)) from None
    except Exception as error:  # noqa: BLE001 - anything the user's module raises
        raise UserCodeError(_import_failure(error, source)) from None


def _import_failure(error: BaseException, source: str) -> str:
    return (f"{_user_line(error, _files(source))}: importing {source} failed: "
            f"{type(error).__name__}: {error}")


def _attribute(obj: Any, name: str, source: str, what: str) -> Any:
    """``obj.<name>`` for a dotted ``name``; a ``LookupError`` with a "did you mean"."""
    for part in name.split("."):
        if not hasattr(obj, part):
            names = [n for n in dir(obj) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise LookupError(f"{what}: {source} has no {part!r}{hint}")
        obj = getattr(obj, part)
    return obj


def resolve(target: str, base: Path | None, what: str, *, cell: bool = False) -> tuple[Any, str]:
    """The object named by ``target`` and a description of where it came from; ``cell``: a
    class must be an ``nn.Cell`` (``model.class``; a function may return one).

    Raises ``LookupError`` (not found, or not a class or function of the user's: a plain
    message) or :class:`UserCodeError` (the module raised while being imported)."""
    _check_target_form(target, what)
    module_part, name = target.split(":")
    loader, source = _module_loader(module_part, base, what)
    obj = _attribute(_import_user_module(loader, module_part, source, what), name, source, what)
    _check_kind(obj, target, what, cell)
    return obj, source


def locate(target: str, base: Path | None, what: str) -> str:
    """Where ``target``'s module is (a resolved file path, or the dotted module name),
    without importing it: what ``--print-config`` shows, running none of the user's code."""
    _check_target_form(target, what)
    return _module_loader(target.split(":")[0], base, what)[1]


def _check_kind(obj: Any, target: str, what: str, cell: bool) -> None:
    """Only a class or a function written in Python, outside Python's standard library, is
    called (``os:system`` or ``subprocess:call`` would run whatever ``args`` say before any
    check of what they return); a ``cell`` target's class is an ``nn.Cell``. Checked before
    anything is called."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        raise LookupError(f"{what}: {target} is a {type(obj).__name__}, not a class or a function "
                          "written in Python")
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] in (*sys.stdlib_module_names, "builtins"):
        raise LookupError(f"{what}: {target} is {module}.{obj.__qualname__} of Python's standard library, "
                          "not code of yours; name your own class (FILE.py:Class)")
    if cell and inspect.isclass(obj):
        from framework import nn

        if not issubclass(obj, nn.Cell):
            raise LookupError(f"{what}: {target} is a class that is not an nn.Cell; point it at a Cell "
                              "subclass or a function returning one")


def _files(source: str) -> set[str]:
    return {str(Path(source).resolve())} if source.endswith(".py") else set()


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


class _RootRule(typing.NamedTuple):
    """What a built-in dataset reading ``dataset.root`` needs there."""

    exists: Callable[[Path], bool]  # the test a found path passes
    needs: str  # what dataset.root must be, when it is missing
    noun: str  # names the path in "not found"
    looked: Callable[[list[Path]], str]  # where it was looked for, in "not found"


_ROOT_RULES = {
    "image_folder": _RootRule(Path.is_dir, "a folder with train/<class>/ and test/<class>/", "folder",
                              lambda _: "next to the experiment file and in the cwd"),
    "npz": _RootRule(Path.is_file, "the .npz file (with x_train, y_train, x_test, y_test)", "npz file",
                     lambda candidates: f"in {_looked_in(candidates)}"),
}


def check_targets(config: Any, data: Any, base: Path, where: Callable[[tuple], str],
                  import_code: bool = True) -> None:
    """The ``class``/``args`` of the ``model`` and ``dataset`` sections (trainer/config.py):
    the target imports, its signature takes the args (a dataset function also ``split``);
    a relative file path is stored resolved (absolute), so runs and MLflow's copy of the
    config find it from any folder; ``dataset.name: npz`` has an existing ``root`` file.
    Without ``import_code`` (``--print-config``) the targets' files are found, not run."""
    for section in ("model", "dataset"):
        part = getattr(config, section)
        given = data.get(section, {}) if isinstance(data, dict) else {}
        given = given if isinstance(given, dict) else {}
        if part.class_ is None:
            if not (section == "model" and _task(config.task).data_sizes):
                _check_builtin_args(section, part, where)  # (a zoo that takes args: the task checks them)
        else:
            _check_user_target(section, part, given, base, where, config.task, import_code)
    _adopt_num_classes(config.model)
    d = config.dataset
    rule = _ROOT_RULES.get(d.name) if d.class_ is None else None
    if rule is not None:
        _check_root(d, rule, base, where)


def _check_builtin_args(section: str, part: Any, where: Callable[[tuple], str]) -> None:
    """A built-in ``name`` takes no ``args``, except ``dataset.name: synthetic`` (its
    settings are the args of ``make_synthetic``)."""
    from .config_errors import ConfigError

    if section == "dataset" and part.name == "synthetic":
        from datasets import make_synthetic

        check_args(make_synthetic, {"split": "train", **part.args}, (section, "args"), where,
                   "synthetic")
        _check_synthetic(part.args, where)
    elif part.args:
        builtin = ("a built-in model.name takes num_classes and num_channel"
                   if section == "model" else "of the dataset.names only synthetic takes args")
        raise ConfigError(f"{where((section, 'args'))}: '{section}.args' is for "
                          f"{section}.class (your own code); {builtin}")


def _task(name: str) -> Any:
    from .config_checks import TASK_SCHEMAS

    return TASK_SCHEMAS[name]


def _check_user_target(section: str, part: Any, given: dict, base: Path,
                       where: Callable[[tuple], str], task: str = "classification",
                       import_code: bool = True) -> None:
    """``<section>.class`` (not with ``name``) imports and takes ``<section>.args`` (a
    language model's network also the data's sizes it names); a file target is stored
    with its resolved path. Without ``import_code`` only the file is found."""
    from .config_errors import ConfigError

    if "name" in given:
        raise ConfigError(f"{where((section, 'name'))}: give {section}.name (built in) or "
                          f"{section}.class (your own), not both")
    display = part.class_.split(":")[-1]
    try:
        if not import_code:  # its file is found, its path resolved; nothing of it runs
            source = locate(part.class_, base, f"'{section}.class'")
            if source.endswith(".py"):
                part.class_ = f"{source}:{display}"
            return
        obj, source = resolve(part.class_, base, f"'{section}.class'", cell=section == "model")
    except LookupError as error:
        raise ConfigError(f"{where((section, 'class'))}: {error}{_builtin_hint(section, part.class_, task)}"
                          ) from None
    except UserCodeError as error:
        raise ConfigError(str(error)) from None
    anchor = None if "args" in given else (section, "class")
    if section == "dataset":
        _check_dataset_function(obj, part.args, display, anchor, where)
    else:
        named = signature(obj).parameters
        sizes = {k: v for k, v in _task(task).data_sizes.items() if k in named and k not in part.args}
        check_args(obj, {**sizes, **part.args}, (section, "args"), where, display, anchor)
    if source.endswith(".py"):
        part.class_ = f"{source}:{display}"


def _builtin_hint(section: str, target: str, task: str) -> str:
    """For ``model.class=lenet5``: the built-in of that name is ``model.name``."""
    if ":" in target:
        return ""
    if section == "model":
        builtin = target in _task(task).models
    else:
        from datasets import names

        builtin = target in (*names(), *_ROOT_RULES, "synthetic")
    return (f"; {target} is a built-in {section}: give {section}.name={target} (it replaces "
            f"{section}.class and its args)" if builtin else "")


def _check_dataset_function(obj: Any, args: dict[str, Any], display: str, anchor: tuple | None,
                            where: Callable[[tuple], str]) -> None:
    """A dataset function takes ``split`` (set by the trainer, never in ``args``) and
    ``args``."""
    from .config_errors import ConfigError

    if "split" in args:
        raise ConfigError(f"{where(('dataset', 'args', 'split'))}: 'dataset.args.split' is "
                          f"set by the trainer ('train', then 'test'); remove it")
    sig = signature(obj)
    if "split" not in sig.parameters and not takes_kwargs(sig):
        raise ConfigError(f"{where(('dataset', 'class'))}: {display} must take a `split` "
                          f"argument (it is called with split='train' and split='test')")
    check_args(obj, {"split": "train", **args}, ("dataset", "args"), where, display, anchor)


def _adopt_num_classes(model: Any) -> None:
    """A user's model given an int ``num_classes`` in its args: the run's ``num_classes``."""
    if not model.class_:
        return
    value = model.args.get("num_classes")
    if isinstance(value, int) and not isinstance(value, bool):
        model.num_classes = value


def _check_root(d: Any, rule: _RootRule, base: Path, where: Callable[[tuple], str]) -> None:
    """``dataset.root`` is given and found; it is stored resolved (absolute)."""
    from .config_errors import ConfigError

    if not d.root:
        raise ConfigError(f"{where(('dataset', 'name'))}: dataset.name {d.name} needs dataset.root: "
                          f"{rule.needs}")
    candidates = _places(d.root, base)
    found = next((c for c in candidates if rule.exists(c)), None)
    if found is None:
        raise ConfigError(f"{where(('dataset', 'root'))}: 'dataset.root': {rule.noun} {d.root} not "
                          f"found (looked {rule.looked(candidates)})")
    d.root = str(found.resolve())


def _check_synthetic(args: dict[str, Any], where: Callable[[tuple], str]) -> None:
    """The values ``make_synthetic`` refuses, at config load (file:line of the key), without
    generating anything."""
    from datasets.synthetic import check_synthetic

    from .config_errors import ConfigError

    try:
        check_synthetic(**args)
    except ValueError as error:
        key = next((k for k in args if f" {k} " in f" {error} ".replace(":", " ")), None)
        raise ConfigError(f"{where(('dataset', 'args', key) if key else ('dataset', 'args'))}: "
                          f"dataset.args: {error}") from None
