"""Which MindSpore names the model-zoo networks of :mod:`tests.mindspore_ref.zoo_networks` use
that ``framework`` lacks: a tool, not a test.

``MINDSPORE_MODELS_DIR=... .venv/bin/python -m tests.mindspore_ref.zoo_names [NAME ...]``

Reads each network's definition file and the project files it imports (``from .x import``,
``from src.x import``), with Python's ``ast``: every name reached from a ``mindspore``
import (``nn.Dense``, ``P.ReLU``, ``ops.operations.Shape``, ``ms.numpy.zeros``, ``from
mindspore.common.initializer import Normal``) is looked up in ``framework`` under the same
path; it prints the missing ones with the networks using them, then the totals.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
from collections import defaultdict
from pathlib import Path

from tests.mindspore_ref.zoo_networks import NETWORKS, Spec


def _aliases(tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """``{local name: mindspore path}`` bound by the imports, and the imported paths."""
    aliases, imported = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "mindspore" or a.name.startswith("mindspore."):
                    aliases[a.asname or "mindspore"] = a.name if a.asname else "mindspore"
                    imported.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == "mindspore" or node.module.startswith("mindspore.")):
            for a in node.names:
                path = f"{node.module}.{a.name}"
                aliases[a.asname or a.name] = path
                imported.add(path)
    return aliases, imported


def dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``['a', 'b', 'c']``; None for what is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def names_used(source: str) -> set[str]:
    """The full ``mindspore...`` paths a module's code reaches through its imports."""
    tree = ast.parse(source)
    aliases, used = _aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = dotted(node)
            if parts and parts[0] in aliases:
                used.add(".".join([aliases[parts[0]], *parts[1:]]))
    return {n for n in used if not _is_prefix_only(n, used)}


def _is_prefix_only(name: str, used: set[str]) -> bool:
    return any(other.startswith(name + ".") for other in used)


def _local_imports(source: str, path: Path, project: Path) -> list[Path]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = path.parent
        for _ in range(max(node.level - 1, 0)):
            base = base.parent
        module = (node.module or "").replace(".", "/")
        root = base if node.level else project
        candidates = [root / f"{module}.py"] + [root / module / f"{a.name}.py" for a in node.names]
        found += [c for c in candidates if c.is_file() and (node.level or module.startswith("src"))]
    return found


def network_files(models_dir: Path, spec: Spec) -> list[Path]:
    """The definition file and the project files it imports, transitively."""
    project = models_dir / spec.project
    todo, seen = [project / spec.file], []
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.append(path)
        todo += _local_imports(path.read_text(encoding="utf-8", errors="replace"), path, project)
    return seen


def exists(name: str) -> bool:
    """``mindspore.a.b.C`` as ``framework.a.b.C``: a module or an attribute chain."""
    parts = ["framework", *name.split(".")[1:]]
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except Exception:  # noqa: BLE001  (a refusal or a missing name: absent)
            return False
        return True
    return False


def missing_names(models_dir: Path, names: list[str]) -> dict[str, list[str]]:
    """``{missing mindspore name: [networks]}`` and the count of names checked."""
    users: dict[str, list[str]] = defaultdict(list)
    for net in names:
        for path in network_files(models_dir, NETWORKS[net]):
            for name in names_used(path.read_text(encoding="utf-8", errors="replace")):
                if net not in users[name]:
                    users[name].append(net)
    return {n: users[n] for n in sorted(users) if not exists(n)}, len(users)


def main(argv: list[str]) -> int:
    models_dir = Path(os.environ.get("MINDSPORE_MODELS_DIR", ""))
    if not (models_dir / "official").is_dir():
        print("zoo_names: set MINDSPORE_MODELS_DIR to a checkout of mindspore-ai/models", file=sys.stderr)
        return 2
    unknown = [n for n in argv if n not in NETWORKS]
    if unknown:
        print(f"zoo_names: unknown networks {unknown}; known: {', '.join(NETWORKS)}", file=sys.stderr)
        return 2
    missing, total = missing_names(models_dir, argv or list(NETWORKS))
    for name, nets in missing.items():
        print(f"{name:60s} {', '.join(nets)}")
    print(f"{len(missing)} of {total} MindSpore names used by {len(argv or NETWORKS)} networks are missing")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
