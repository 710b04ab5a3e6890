"""Readable IR text (``.ir``) and Graphviz (``.dot``) renderings of a Graph.

Regions (the branches of an ``If``, the condition and body of a ``While``) are printed
nested under their node, indented, with their own inputs and ``return``; in ``.dot``
they are clusters.

Values are numbered ``%0, %1, ...`` in order of appearance; a :class:`ValueNames` shared
by the files of one compilation (``00_trace``, ``01_grad``, ``02_opt``) keeps a value's
number from file to file (values made by the passes get new numbers). ``output_labels``
name the outputs in ``return``: the outputs that are a parameter's new value say which
(``%612  # new conv1.weight``).
"""

from __future__ import annotations

import os

import numpy as np

from .graph import Graph, Node, Value


def _ty(v: Value) -> str:
    return f"{v.dtype}[{', '.join(str(d) for d in v.shape)}]"


class ValueNames:
    """Value numbering (%0, %1, ...) in order of appearance: stable across runs, and across
    the files of one compilation when they share one."""

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
        text = repr(value) if isinstance(value, str) and not value.isprintable() else value
        parts.append(f"{key}={text}")
    return "{" + ", ".join(parts) + "}" if parts else ""


def _location(node: Node) -> str:
    loc = node.location
    if loc is None:
        return ""
    return f"  # {os.path.basename(loc.filename)}:{loc.lineno} {loc.function}"


def _lines(graph: Graph, name: ValueNames, indent: str, phases: tuple[str, ...] | None,
           locations: bool, failed: Node | None) -> list[str]:
    lines = []
    nodes = [n for n in graph.nodes if phases is None or n.phase in phases]
    if failed is not None:
        nodes.append(failed)
    for node in nodes:
        args = ", ".join(name(v) for v in node.inputs)
        arg_types = ", ".join(_ty(v) for v in node.inputs)
        outs = ", ".join(f"{name(o)}: {_ty(o)}" for o in node.outputs)
        phase = "" if node.phase == "forward" else f" [{node.phase}]"
        where = _location(node) if locations else ""
        if node is failed:
            lines.append(f"{indent}>>> FAILED: {node.prim.name}{_attrs(node)}({args})  : "
                         f"({arg_types}){where}")
            continue
        lhs = f"{outs} = " if outs else ""
        lines.append(f"{indent}{lhs}{node.prim.name}{_attrs(node)}({args})  : ({arg_types}){phase}{where}")
        for label, region in zip(node.prim.region_labels, node.prim.regions):
            params = ", ".join(f"{name(v)}: {_ty(v)}" for v in region.inputs)
            lines.append(f"{indent}  {label}({params}):")
            lines += _lines(region, name, indent + "    ", None, locations, None)
            lines.append(f"{indent}    return (" + ", ".join(name(v) for v in region.outputs) + ")")
    return lines


def to_text(graph: Graph, title: str = "", phases: tuple[str, ...] | None = None,
            locations: bool = True, failed: Node | None = None, names: ValueNames | None = None,
            output_labels: list[str | None] | None = None) -> str:
    """One line per input, constant and node: op, attributes, shapes, source line.

    ``failed`` (a node whose shape rule raised) is printed last, marked ``>>>``. ``names``:
    the numbering to continue; ``output_labels``: one per output (None: unlabelled).
    """
    name = names if names is not None else ValueNames()
    count = sum(1 for n in graph.nodes if phases is None or n.phase in phases) + (failed is not None)
    lines = [f"# graph {graph.name}{': ' + title if title else ''} ({count} nodes)"]
    for v in graph.inputs:
        lines.append(f"input {name(v)}: {_ty(v)}  ({v.kind} {v.name})")
    for v in graph.constants():
        if v.size > 4:
            data = np.asarray(v.data)
            lines.append(f"const {name(v)}: {_ty(v)}  (min {data.min():.4g}, max {data.max():.4g})")
    lines += _lines(graph, name, "", phases, locations, failed)
    if graph.outputs and output_labels and any(output_labels):
        lines.append("return (")
        for v, label in zip(graph.outputs, output_labels):
            lines.append(f"  {name(v)},{'  # ' + label if label else ''}")
        lines.append(")")
    elif graph.outputs:
        lines.append("return (" + ", ".join(name(v) for v in graph.outputs) + ")")
    return "\n".join(lines) + "\n"


class _Dot:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.source: dict[int, str] = {}  # value id -> dot node defining it

    def graph(self, graph: Graph, indent: str) -> None:
        for v in graph.inputs:
            self.source[v.id] = f"v{v.id}"
            self.lines.append(f'{indent}v{v.id} [shape=box, label="{v.name}\\n{_ty(v)}"];')
        for v in graph.constants(recursive=False):
            self.source[v.id] = f"v{v.id}"
            self.lines.append(f'{indent}v{v.id} [shape=box, style=dashed, label="const\\n{_ty(v)}"];')
        for node in graph.nodes:
            k = self.count
            self.count += 1
            shapes = ", ".join(_ty(o) for o in node.outputs)
            color = "black" if node.phase == "forward" else "blue"
            self.lines.append(f'{indent}n{k} [label="{node.prim.name}\\n{shapes}", color={color}];')
            for v in node.inputs:
                if v.id in self.source:
                    self.lines.append(f"{indent}{self.source[v.id]} -> n{k};")
            for label, region in zip(node.prim.region_labels, node.prim.regions):
                self.lines.append(f'{indent}subgraph cluster_{k}_{label} {{')
                self.lines.append(f'{indent}  label="{node.prim.name} {label}"; style=rounded;')
                self.graph(region, indent + "  ")
                for v in region.outputs:
                    if v.id in self.source:
                        self.lines.append(f'{indent}  {self.source[v.id]} -> n{k} [style=dashed];')
                self.lines.append(f"{indent}}}")
            for o in node.outputs:
                self.source[o.id] = f"n{k}"


def to_dot(graph: Graph, output_labels: list[str | None] | None = None) -> str:
    """Graphviz digraph: inputs as boxes, nodes as ellipses labelled op + shapes, regions
    as clusters whose results flow (dashed) into their node; outputs labelled as in
    :func:`to_text`."""
    dot = _Dot()
    dot.lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", "  node [fontsize=10];"]
    dot.graph(graph, "  ")
    labels = output_labels or [None] * len(graph.outputs)
    for k, (v, label) in enumerate(zip(graph.outputs, labels)):
        dot.lines.append(f'  out{k} [shape=doublecircle, label="{label or f"out {k}"}"];')
        if v.id in dot.source:
            dot.lines.append(f"  {dot.source[v.id]} -> out{k};")
    dot.lines.append("}")
    return "\n".join(dot.lines) + "\n"
