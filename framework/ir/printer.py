"""Readable IR text (``.ir``) and Graphviz (``.dot``) renderings of a Graph."""

from __future__ import annotations

import os

import numpy as np

from .graph import Graph, Node, Value  # noqa: F401


def _ty(v: Value) -> str:
    return f"{v.dtype}[{', '.join(str(d) for d in v.shape)}]"


class _Names:
    """Local value numbering (%0, %1, ...) in order of appearance: stable across runs."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}

    def __call__(self, v: Value) -> str:
        if v.kind == "const" and v.size <= 4:
            return f"const({np.asarray(v.data).tolist()})"
        return f"%{self.ids.setdefault(v.id, len(self.ids))}"


def _attrs(node: Node) -> str:
    parts = []
    for key, value in node.prim.attrs.items():
        if isinstance(value, np.dtype):
            value = value.name
        parts.append(f"{key}={value}")
    return "{" + ", ".join(parts) + "}" if parts else ""


def _location(node: Node) -> str:
    loc = node.location
    if loc is None:
        return ""
    return f"  # {os.path.basename(loc.filename)}:{loc.lineno} {loc.function}"


def to_text(graph: Graph, title: str = "", phases: tuple[str, ...] | None = None,
            locations: bool = True, failed: Node | None = None) -> str:
    """One line per input, constant and node: op, attributes, shapes, source line.

    ``failed`` (a node whose shape rule raised) is printed last, marked ``>>>``.
    """
    name = _Names()
    nodes = [n for n in graph.nodes if phases is None or n.phase in phases]
    if failed is not None:
        nodes.append(failed)
    lines = [f"# graph {graph.name}{': ' + title if title else ''} ({len(nodes)} nodes)"]
    for v in graph.inputs:
        lines.append(f"input {name(v)}: {_ty(v)}  ({v.kind} {v.name})")
    for v in graph.constants():
        if v.size > 4:
            data = np.asarray(v.data)
            lines.append(f"const {name(v)}: {_ty(v)}  (min {data.min():.4g}, max {data.max():.4g})")
    for node in nodes:
        args = ", ".join(name(v) for v in node.inputs)
        arg_types = ", ".join(_ty(v) for v in node.inputs)
        outs = ", ".join(f"{name(o)}: {_ty(o)}" for o in node.outputs)
        phase = "" if node.phase == "forward" else f" [{node.phase}]"
        where = _location(node) if locations else ""
        if node is failed:
            lines.append(f">>> FAILED: {node.prim.name}{_attrs(node)}({args})  : ({arg_types}){where}")
            continue
        lines.append(f"{outs} = {node.prim.name}{_attrs(node)}({args})  : ({arg_types}){phase}{where}")
    if graph.outputs:
        lines.append("return (" + ", ".join(name(v) for v in graph.outputs) + ")")
    return "\n".join(lines) + "\n"


def to_dot(graph: Graph) -> str:
    """Graphviz digraph: inputs as boxes, nodes as ellipses labelled op + shapes."""
    lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", "  node [fontsize=10];"]
    for v in graph.inputs:
        lines.append(f'  v{v.id} [shape=box, label="{v.name}\\n{_ty(v)}"];')
    for v in graph.constants():
        lines.append(f'  v{v.id} [shape=box, style=dashed, label="const\\n{_ty(v)}"];')
    for i, node in enumerate(graph.nodes):
        shapes = ", ".join(_ty(o) for o in node.outputs)
        color = "black" if node.phase == "forward" else "blue"
        lines.append(f'  n{i} [label="{node.prim.name}\\n{shapes}", color={color}];')
        for v in node.inputs:
            src = f"v{v.id}" if v.producer is None else f"n{graph.nodes.index(v.producer)}"
            lines.append(f"  {src} -> n{i};")
    for k, v in enumerate(graph.outputs):
        src = f"v{v.id}" if v.producer is None else f"n{graph.nodes.index(v.producer)}"
        lines.append(f'  out{k} [shape=doublecircle, label="out {k}"];')
        lines.append(f"  {src} -> out{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"
