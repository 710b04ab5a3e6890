"""The import graph of the readers (``datasets``), the framework and the application
(``trainer``), every import counted (those written inside functions too). Three layers,
each importing only those below it: ``datasets`` (file formats, downloads, NumPy only),
``framework`` (its training core ``framework.train`` included), ``trainer`` (YAML, CLI,
MLflow, sweeps). No knot (strongly connected set of modules) spans layers or has more than
ten modules: ``Tensor`` knows no op (its methods are attached by the MindSpore surface,
``framework.ops.tensor_methods``), the primitive library (``framework.ops`` but its
generated surfaces) imports only the core and itself, at module level; the one knot in it
is the elementwise/shape/reduce family, whose gradients are written with each other. The
knot of ``Dataset`` and the pipeline nodes its methods build stays inside
``framework.dataset``; every other knot has at most three modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("framework", "trainer", "datasets")
SMALL_KNOT = 3
LARGEST_KNOT = 10
# the primitive families whose gradients are written with each other (one knot, imported as
# modules: ``from . import shape_ops as _shape``)
PRIMITIVE_KNOT = {"framework.ops._holomorphic", "framework.ops.array_ops", "framework.ops.complex_ops",
                  "framework.ops.elementwise", "framework.ops.reduce", "framework.ops.shape_ops"}
# the MindSpore surface inside framework.ops: generated from framework/api_spec, or written
# over the functional surface (mint's views, Tensor's in-place and Tensor-only methods); everything else in
# framework.ops is the primitive library
SURFACE = {"framework.ops", "framework.ops.functional", "framework.ops.signature_wrappers",
           "framework.ops.elementwise_signatures",
           "framework.ops.tensor_delegates", "framework.ops.tensor_methods", "framework.ops.auto_generate",
           "framework.ops.view_ops", "framework.ops.tensor_inplace", "framework.ops.tensor_only"}
FUNCTION_LEVEL_IMPORTS_IN_LIBRARY = 20


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(name: str, path: Path, node: ast.AST, modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        if node.level:
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        wanted = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in modules else prefix for a in node.names]
    out = []
    for target in wanted:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.append(target)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges[name].update(_targets(name, path, node, modules))
    return edges


def _knots(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    knots = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    knot = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        knot.add(w)
                        if w == v:
                            break
                    if len(knot) > 1:
                        knots.append(knot)
    return knots


def _library(module: str) -> bool:
    return (module.startswith("framework.ops.") and module not in SURFACE
            and not module.startswith("framework.ops.operations"))


def test_no_knot_spans_layers():
    knots = _knots(_graph())  # the framework's, the trainer's, the readers
    assert max(len(k) for k in knots) <= LARGEST_KNOT, sorted(max(knots, key=len))
    dataset = [k for k in knots if "framework.dataset.engine" in k]
    assert all(m.startswith("framework.dataset.") for k in dataset for m in k), dataset
    primitive = [k for k in knots if k & PRIMITIVE_KNOT]
    assert all(k <= PRIMITIVE_KNOT for k in primitive), primitive
    too_big = [sorted(k) for k in knots if k not in dataset and k not in primitive and len(k) > SMALL_KNOT]
    assert not too_big, too_big


def test_tensor_knows_no_op_and_the_library_no_surface():
    edges = _graph()
    assert not [m for m in edges["framework.common.tensor"] if m.startswith("framework.ops")]
    bad = sorted((a, b) for a in edges if _library(a) for b in edges[a]
                 if b in SURFACE or b.startswith("framework.ops.operations"))
    assert not bad, bad


def test_the_primitive_library_imports_at_module_level():
    inside = []
    for name, path in _modules().items():
        if not _library(name):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inside += [f"{name}:{n.lineno}" for n in ast.walk(node)
                           if isinstance(n, ast.Import | ast.ImportFrom)]
    assert len(set(inside)) <= FUNCTION_LEVEL_IMPORTS_IN_LIBRARY, sorted(set(inside))


def test_no_module_has_its_class_swapped_or_another_modules_attribute_set():
    """``module.__class__ = ...`` and ``functional.grad = grad`` hide what a module is."""
    found = []
    for name, path in _modules().items():
        if not name.startswith("framework.ops"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom | ast.Import)
                    for a in n.names}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and (
                                t.attr == "__class__" or t.value.id in imported):
                            found.append(f"{name}:{node.lineno}")
    assert not found, found


JIT_LAYER = ("framework.graph_mode", "framework.staging", "framework.frontend", "framework.backend",
             "framework.jit_api")


@pytest.mark.parametrize("layer, above", [
    ("framework.ir", ("framework.autograd",) + JIT_LAYER),  # autograd registers its rules
    ("framework.autograd", JIT_LAYER),  # the jit layer installs its hooks (autograd/grad.py)
    # the TVM backend: compiler.py drives schedule/, which reads lower/; runtime/ is below both
    ("framework.backend.tvm.runtime", ("framework.backend.tvm.lower", "framework.backend.tvm.schedule",
                                       "framework.backend.tvm.compiler")),
    ("framework.backend.tvm.lower", ("framework.backend.tvm.schedule", "framework.backend.tvm.compiler")),
    ("framework.backend.tvm.schedule", ("framework.backend.tvm.compiler",)),
])
def test_a_layer_never_imports_the_layers_above(layer, above):
    edges = _graph()
    bad = sorted((a, b) for a in edges if a == layer or a.startswith(layer + ".") for b in edges[a]
                 if b.startswith(above))
    assert not bad, bad


@pytest.mark.parametrize("layer, above", [("datasets", ("framework", "trainer")),
                                          ("framework", ("trainer",))])
def test_no_edge_from_a_package_into_the_one_above(layer, above):
    edges = _graph()
    found = sorted((a, b) for a in edges if a.split(".")[0] == layer for b in edges[a]
                   if b.split(".")[0] in above)
    assert not found, found


def test_the_graph_reader_sees_imports_inside_functions(tmp_path):
    """The reader itself: a function-level import makes an edge (the knot it closes is found)."""
    modules = {"framework.a": tmp_path / "a.py", "framework.b": tmp_path / "b.py"}
    tree = ast.parse("def f():\n    from . import b\n")
    edges = {"framework.a": set(), "framework.b": {"framework.a"}}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            edges["framework.a"].update(_targets("framework.a", modules["framework.a"], node, modules))
    assert _knots(edges) == [{"framework.a", "framework.b"}]


def test_the_framework_imports_no_private_name_of_the_application():
    bad = []
    for name, path in _modules().items():
        if not name.startswith("framework"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level \
                    and (node.module or "").split(".")[0] in ("trainer", "datasets"):
                bad += [f"{name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert not bad, bad
