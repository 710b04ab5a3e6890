"""Reading an experiment file's YAML (trainer/config.py types and checks what it holds):
YAML 1.2 floats (``1e-3``), the line of every dotted key, duplicate keys, and one
:class:`ConfigError` line for what a parser would raise on bad input: a file that is not
text, too big (over 1 MiB: an experiment file is a few KiB), invalid, nested too deeply (a
``RecursionError`` later), or holding a value YAML cannot construct (a date like
``2024-13-01``). libyaml parses (about 5x faster than pure Python: a 1 MiB file in seconds);
a file it refuses is parsed again in pure Python, whose messages name more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from .config_errors import ConfigError

__all__ = ["MAX_ALIAS_VALUES", "MAX_DEPTH", "MAX_FILE_BYTES", "load_value", "parse_override", "read_yaml"]


class _PyLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 floats: ``1e-3`` and ``5E+2`` need no dot."""


class _Loader(getattr(yaml, "CSafeLoader", _PyLoader)):
    """The same on libyaml's parser, about 5x faster (a 1 MiB file in seconds); a file it
    refuses is parsed again by ``_PyLoader``, whose messages name more (a tab, an alias)."""


for _loader in (_PyLoader, _Loader):
    _loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)$"),
        list("-+.0123456789"))


# -- YAML with line numbers ------------------------------------------------------------------
def _lines(node: yaml.Node, source: Path, path: tuple = (), out: dict | None = None
           ) -> dict[tuple, int]:
    """Line of every dotted key; a key given twice in one mapping is an error."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (key.value,)
            line = key.start_mark.line + 1
            if sub in out:
                raise ConfigError(f"{source}:{line}: key '{'.'.join(map(str, sub))}' is given twice "
                                  f"(lines {out[sub]} and {line}); keep one")
            out[sub] = line
            _lines(value, source, sub, out)
    return out


MAX_FILE_BYTES = 1 << 20  # an experiment file is a few KiB
# Sections are 2-3 levels, the user's args a few more; far deeper data would exhaust Python's
# recursion limit later (printing, copying, logging the config) as a RecursionError.
MAX_DEPTH = 32


def _depth(root: Any, children: Callable[[Any], Iterable[Any]]) -> int:
    """How deeply ``root`` nests (without recursion: the point is data nested too deeply)."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in children(item))
    return deepest


# An alias repeats its anchor's values without repeating its text: nine lines of nine aliases
# each stand for 9**9 values ("billion laughs"), and anything walking the data (the checks,
# printing, copying, logging) would take hours. Beyond the values the document writes, its
# aliases may add this many; experiment files reuse an anchor (shared optimizer settings) a
# few times.
MAX_ALIAS_VALUES = 10_000


class _TooManyAliases(Exception):
    """Aliases expand the YAML to more values than it writes plus ``MAX_ALIAS_VALUES``."""

    def __init__(self, line: int, values: int, limit: int) -> None:
        super().__init__(line)
        self.line, self.values, self.limit = line, values, limit


def _check_nodes(root: yaml.Node) -> None:
    """Raise ``_TooDeep`` when ``root`` nests deeper than ``MAX_DEPTH`` (or holds itself
    through an alias), ``_TooManyAliases`` when its aliases expand it past the document's own
    nodes plus ``MAX_ALIAS_VALUES``. Each distinct node is visited once (sizes and depths
    memoized), so the work is the document's size, whatever its aliases expand to."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            children = _node_children(node)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if depth[key] > MAX_DEPTH:
                raise _TooDeep
            continue
        if key in size:
            continue
        if key in open_:  # an alias inside its own anchor: data that holds itself
            raise _TooDeep
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _node_children(node))
    limit = len(size) + MAX_ALIAS_VALUES
    if size[id(root)] > limit:
        # the innermost collection past the limit: the line whose aliases blow it up
        worst = root
        while True:
            bigger = [c for c in _node_children(worst) if size[id(c)] > limit]
            if not bigger:
                break
            worst = bigger[0]
        raise _TooManyAliases(worst.start_mark.line + 1, size[id(root)], limit)


def _node_children(node: yaml.Node) -> Iterable[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return node.value if isinstance(node, yaml.SequenceNode) else ()


def _data_children(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    return value if isinstance(value, list) else ()


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    if "=" not in text or text.startswith("="):
        raise ConfigError(f"override '{text}': expected KEY=VALUE, e.g. train.epochs=1")
    key, raw = text.split("=", 1)
    deep = ConfigError(f"override '{key}=...': its value is nested too deeply")
    try:
        value = _parse(raw)[1] if raw.strip() else None
    except _TooManyAliases as error:
        raise ConfigError(f"override '{key}=...': its aliases expand to {error.values:,} values, over "
                          f"the {error.limit:,} allowed; write the values out") from None
    except _TooDeep:
        raise deep from None
    except yaml.YAMLError as error:
        if "maximum nesting depth" in str(error):  # libyaml's limit (1,000 levels)
            raise deep from None
        value = raw
    except (ValueError, OverflowError):  # a value YAML's constructors refuse (2024-13-01): text
        value = raw
    except RecursionError:
        raise deep from None
    if _depth(value, _data_children) > MAX_DEPTH:
        raise deep
    return tuple(key.strip().split(".")), value


def load_value(text: str) -> Any:
    """``text`` as YAML data within an experiment file's bounds (a sweep's values): ``yaml.
    YAMLError`` when it is no YAML, :class:`ConfigError` when it nests too deeply or its
    aliases expand past ``MAX_ALIAS_VALUES``."""
    try:
        return _parse(text)[1]
    except (_TooDeep, RecursionError):
        raise ConfigError(f"'{text[:40]}': nested too deeply") from None
    except _TooManyAliases as error:
        raise ConfigError(f"'{text[:40]}': its aliases expand to {error.values:,} values, over the "
                          f"{error.limit:,} allowed") from None


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise ConfigError(f"{path}: experiment file not found")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError(f"{path}: {path.stat().st_size:,} bytes is not an experiment file (those "
                              f"are a few KiB; at most {MAX_FILE_BYTES:,} bytes are read)")
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a text file (byte {error.start} is not UTF-8); an experiment "
                          "is a YAML text file such as experiments/smoke.yaml") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None


class _TooDeep(Exception):
    """The YAML nests deeper than ``MAX_DEPTH``."""


def _parse(text: str, loader_class: type = _Loader) -> tuple[yaml.Node | None, Any]:
    """The node tree (lines) and the data of ``text``, parsed once."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_nodes(node)
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _bad_scalar(node: yaml.Node) -> tuple[int, str]:
    """(line, why) of the first value YAML's constructors refuse with a ``ValueError`` (a
    date such as ``2024-13-01``: YAML reads dates), else (0, "")."""
    stack = [node]
    while stack:
        item = stack.pop(0)
        if isinstance(item, yaml.ScalarNode):
            try:
                _PyLoader("").construct_object(item)
            except (ValueError, OverflowError) as error:
                kind = item.tag.rsplit(":", 1)[-1]
                return item.start_mark.line + 1, (f"{item.value!r} is not a valid {kind} ({error}); "
                                                  "quote it to keep it as text")
        stack.extend(_node_children(item))
    return 0, ""


def _yaml_problem(text: str, error: yaml.YAMLError) -> yaml.YAMLError:
    """The error of the pure-Python parser for a text libyaml refused (its messages name
    more), else ``error``."""
    try:
        _parse(text, _PyLoader)
    except yaml.YAMLError as better:
        return better
    except (RecursionError, _TooDeep, _TooManyAliases, ValueError, OverflowError):
        pass
    return error


def read_yaml(path: str | Path) -> tuple[Any, dict[tuple, int]]:
    """The parsed YAML of an experiment file and the line of every dotted key (errors with
    ``file:line`` for unreadable, non-text, invalid or empty files)."""
    path = Path(path)
    text = _read_text(path)
    deep = ConfigError(f"{path}: invalid YAML: nested too deeply (an experiment file has a few "
                       "levels of sections)")
    try:
        node, data = _parse(text)
    except (RecursionError, _TooDeep):
        raise deep from None
    except _TooManyAliases as error:
        raise ConfigError(f"{path}:{error.line}: invalid YAML: its aliases expand to {error.values:,} "
                          f"values, over the {error.limit:,} allowed (the file's own values plus "
                          f"{MAX_ALIAS_VALUES:,}); write the values out, or reuse an anchor fewer "
                          "times") from None
    except (ValueError, OverflowError) as error:  # a value the constructors refuse
        line, why = _bad_scalar(yaml.compose(text, Loader=_Loader))
        raise ConfigError(f"{path}:{line}: invalid YAML: {why}" if line else
                          f"{path}: invalid YAML: {error}") from None
    except yaml.YAMLError as error:
        if "maximum nesting depth" in str(error):  # libyaml's limit (1,000 levels)
            raise deep from None
        error = _yaml_problem(text, error)
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}{line}: invalid YAML: {problem}") from None
    if data is None:
        raise ConfigError(f"{path}: the file is empty (no keys); write at least `name: <run name>` "
                          "(every other key has a default), or start from experiments/smoke.yaml")
    return data, (_lines(node, path) if node is not None else {})
