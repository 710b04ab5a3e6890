"""The error for a MindSpore name this framework does not have (``nn.Conv3d``,
``ops.some_missing_name``, ``Tensor.foo``): an :class:`AbsentNameError`, an AttributeError
(so ``hasattr`` stays False and ``getattr(x, name, default)`` works) whose one-line message
names it, says whether MindSpore 2.10 has it, where the coverage table is
(``docs/api_coverage.md``), and the closest name present here in any namespace (the same
name elsewhere first, as ``mint.nn.Conv1d`` for ``nn.Conv1d``; else the nearest spelling).

MindSpore's names come from ``mindspore_names.txt`` beside this module (package data,
generated from ``docs/mindspore_names.json`` by ``python -m tests.mindspore_ref.absent_names_data``;
one line per namespace: ``namespace: name name ...``). The message is built when it is
read, never when the error is raised: ``hasattr`` probes stay as cheap as before.

The MindSpore-surface packages end with ``__getattr__ = absent_names.module_getattr("ops",
__name__)``; ``Tensor.__getattr__`` calls :func:`tensor_attribute_error`.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

TABLE = "docs/api_coverage.md"
_DATA = Path(__file__).with_name("mindspore_names.txt")
_ROOT = __name__.rsplit(".", 1)[0]  # "framework"
# MindSpore's namespaces and the module (below the package) or class holding ours
NAMESPACES: dict[str, str] = {
    "ms": "", "ops": "ops", "ops.operations": "ops.operations", "nn": "nn", "Tensor": "Tensor",
    "mint": "mint", "mint.nn": "mint.nn", "mint.nn.functional": "mint.nn.functional",
    "mint.optim": "mint.optim", "mint.special": "mint.special", "mint.linalg": "mint.linalg",
    **{ns: ns for ns in ("nn.optim", "experimental.optim", "experimental.optim.lr_scheduler",
                         "dataset.text", "dataset.vision", "dataset.transforms", "common",
                         "common.tensor", "common.parameter", "common.dtype", "common.initializer",
                         "common.api", "device_context", "device_context.cpu",
                         "device_context.cpu.op_tuning", "ops.operations.nn_ops",
                         "ops.operations.array_ops", "ops.operations.math_ops",
                         "ops.operations._grad_ops")},
}

# names a module loads on first use (framework's Model, dataset ...), by module name
_LAZY_NAMES: dict[str, frozenset[str]] = {}


@functools.cache
def mindspore_names() -> dict[str, frozenset[str]]:
    """MindSpore 2.10's public names by namespace (from the package data)."""
    names: dict[str, frozenset[str]] = {}
    for line in _DATA.read_text().splitlines():
        namespace, _, listed = line.partition(":")
        if listed:
            names[namespace.strip()] = frozenset(listed.split())
    return names


def _holder(namespace: str) -> Any:
    path = NAMESPACES.get(namespace, namespace)  # a namespace not listed: its module path
    if path == "Tensor":
        return importlib.import_module(f"{_ROOT}.common.tensor").Tensor
    return importlib.import_module(f"{_ROOT}.{path}" if path else _ROOT)


def present_names(namespace: str) -> list[str]:
    """The public names ``namespace`` has here (its module's or Tensor's attributes)."""
    try:
        holder = _holder(namespace)
    except ImportError:
        return []
    if inspect.isclass(holder):
        return sorted(n for n in dir(holder) if not n.startswith("_"))
    listed = set(getattr(holder, "__all__", ())) | set(vars(holder)) | _LAZY_NAMES.get(holder.__name__, set())
    return sorted(n for n in listed if not n.startswith("_") and not inspect.ismodule(vars(holder).get(n)))


def closest_present(namespace: str, name: str) -> str | None:
    """The present name nearest to ``namespace.name``: the same name in another namespace,
    then the same name in another case, then the nearest spelling here, then anywhere."""
    order = [namespace, *(n for n in NAMESPACES if n != namespace)]
    present = {ns: present_names(ns) for ns in order}
    for ns in order[1:]:
        if name in present[ns]:
            return f"{ns}.{name}"
    lowered = name.lower()
    for ns in order:
        for candidate in present[ns]:
            if candidate.lower() == lowered:
                return f"{ns}.{candidate}"
    near = difflib.get_close_matches(name, present[namespace], n=1, cutoff=0.75)
    if near:
        return f"{namespace}.{near[0]}"
    everywhere = {f"{ns}.{c}": c for ns in order[1:] for c in present[ns]}
    best = difflib.get_close_matches(name, list(everywhere.values()), n=1, cutoff=0.75)
    if best:
        return next(full for full, c in everywhere.items() if c == best[0])
    return None


class AbsentNameError(AttributeError):
    """``namespace.name`` is not here (see the module docstring); the message is built on
    first read."""

    def __init__(self, namespace: str, name: str) -> None:
        # no name/obj given to AttributeError: Python's traceback would add its own
        # "Did you mean" to the line, from the one namespace only
        super().__init__()
        self.namespace, self.missing = namespace, name
        self._message: str | None = None

    def __str__(self) -> str:
        if self._message is None:
            self._message = absent_message(self.namespace, self.missing)
        return self._message

    def __reduce__(self) -> tuple:
        return type(self), (self.namespace, self.missing)


def absent_message(namespace: str, name: str) -> str:
    where = f"{namespace}.{name}"
    theirs = mindspore_names().get(namespace)
    if theirs is None:
        what = f"{where} is not present here"
    elif name in theirs:
        what = f"{where} is MindSpore 2.10 API that this framework does not have yet"
    else:
        what = f"{where} is not a name of MindSpore 2.10's {namespace} nor of this framework"
    closest = closest_present(namespace, name)
    hint = f"; the closest name present: {closest}" if closest else ""
    return f"{what} (what is present: {TABLE}){hint}"


def module_getattr(namespace: str, module_name: str, lazy: Callable[[str], Any] | None = None,
                   lazy_names: Iterable[str] = ()) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``module_name`` (MindSpore's ``namespace``): ``lazy``
    first (the module's names loaded on first use, ``lazy_names``; a KeyError for others),
    then an :class:`AbsentNameError`."""
    _LAZY_NAMES[module_name] = frozenset(lazy_names)

    def __getattr__(name: str) -> Any:
        if lazy is not None:
            try:
                return lazy(name)
            except KeyError:
                pass
        if name.startswith("__"):  # import machinery's probes (__path__, __wrapped__ ...)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise AbsentNameError(namespace, name)

    return __getattr__


def tensor_attribute_error(tensor: Any, name: str) -> AttributeError:
    """The error for ``tensor.name`` that Tensor lacks (private names: a plain one)."""
    if name.startswith("_"):
        return AttributeError(f"'Tensor' object has no attribute {name!r}")
    return AbsentNameError("Tensor", name)
