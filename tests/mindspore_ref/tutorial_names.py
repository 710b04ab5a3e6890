"""Which MindSpore names the tutorials use that ``framework`` lacks.

``python -m tests.mindspore_ref.tutorial_names [PAGE ...]`` (needs ``MINDSPORE_DOCS_DIR``,
see :mod:`tests.mindspore_ref.tutorials`) parses every python block of the pages
(default: ``tutorials.PAGES``) and collects:

- module names: every ``mindspore...`` import and every attribute chain rooted at a name
  bound to a MindSpore module (``ops.abs``, ``nn.Dense``, ``ms.dataset.vision.Resize``,
  ``from mindspore.dataset import MnistDataset``), resolved in ``framework`` by import and
  ``getattr`` (the leading ``mindspore`` read as ``framework``);
- Tensor methods: ``.name`` on any other expression where ``name`` is one of MindSpore's
  Tensor attributes (``docs/mindspore_names.json``, namespace ``Tensor``) and not a module
  name: a heuristic (``.shape`` of a dataset row counts too), checked on a framework Tensor.

It prints each missing name with the pages using it, and the counts per kind.
"""

from __future__ import annotations

import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

from tests.mindspore_ref.tutorials import PAGES, load_page
from tests.mindspore_ref.zoo_names import dotted, exists

NAMES = Path(__file__).resolve().parents[2] / "docs" / "mindspore_names.json"


class _Collector(ast.NodeVisitor):
    def __init__(self, tensor_names: set[str]) -> None:
        self.aliases: dict[str, str] = {}
        self.modules: set[str] = set()
        self.methods: set[str] = set()
        self.tensor_names = tensor_names

    def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
        for alias in node.names:
            if alias.name.split(".")[0] == "mindspore":
                self.modules.add(alias.name)
                bound = alias.asname or alias.name.split(".")[0]
                self.aliases[bound] = alias.name if alias.asname else "mindspore"

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        if node.module and node.module.split(".")[0] == "mindspore":
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                self.modules.add(full)
                self.aliases[alias.asname or alias.name] = full

    def visit_Attribute(self, node: ast.Attribute) -> None:  # noqa: N802
        chain = dotted(node)
        if chain and chain[0] in self.aliases:
            self.modules.add(".".join([self.aliases[chain[0]], *chain[1:]]))
            return
        if node.attr in self.tensor_names:
            self.methods.add(node.attr)
        self.generic_visit(node)


def collect(pages: list[str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(module names, Tensor methods)``, each name -> the pages using it."""
    stored = json.loads(NAMES.read_text())["namespaces"]
    tensor_names = set(stored["Tensor"])
    modules: dict[str, set[str]] = defaultdict(set)
    methods: dict[str, set[str]] = defaultdict(set)
    for page in pages:
        for block in load_page(page):
            try:
                tree = ast.parse(block.code)
            except SyntaxError:
                continue
            collector = _Collector(tensor_names)
            collector.visit(tree)
            for name in collector.modules:
                modules[name].add(page)
            for name in collector.methods:
                methods[name].add(page)
    return modules, methods


def main(argv: list[str]) -> None:
    import numpy as np

    import framework

    pages = argv or list(PAGES)
    modules, methods = collect(pages)
    sample = framework.Tensor(np.zeros((2, 3), np.float32))
    missing_modules = sorted(n for n in modules if not exists(n))
    missing_methods = sorted(n for n in methods if not hasattr(sample, n))
    print(f"module names used: {len(modules)}, missing in framework: {len(missing_modules)}")
    for name in missing_modules:
        print(f"  {name}  ({', '.join(sorted(modules[name]))})")
    print(f"Tensor attributes used: {len(methods)}, missing on framework.Tensor: "
          f"{len(missing_methods)}")
    for name in missing_methods:
        print(f"  Tensor.{name}  ({', '.join(sorted(methods[name]))})")


if __name__ == "__main__":
    main(sys.argv[1:])
