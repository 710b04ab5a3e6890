"""Readable IR text (``.ir``) of a Graph (its Graphviz rendering: :mod:`.dot`).

Regions (the branches of an ``If``, the condition and body of a ``While``) are printed
nested under their node, indented, with their own inputs and ``return``.

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


def value_type(v: Value) -> str:
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
        arg_types = ", ".join(value_type(v) for v in node.inputs)
        outs = ", ".join(f"{name(o)}: {value_type(o)}" for o in node.outputs)
        phase = "" if node.phase == "forward" else f" [{node.phase}]"
        where = _location(node) if locations else ""
        if node is failed:
            lines.append(f"{indent}>>> FAILED: {node.prim.name}{_attrs(node)}({args})  : "
                         f"({arg_types}){where}")
            continue
        lhs = f"{outs} = " if outs else ""
        lines.append(f"{indent}{lhs}{node.prim.name}{_attrs(node)}({args})  : ({arg_types}){phase}{where}")
        for label, region in zip(node.prim.region_labels, node.prim.regions):
            params = ", ".join(f"{name(v)}: {value_type(v)}" for v in region.inputs)
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
        lines.append(f"input {name(v)}: {value_type(v)}  ({v.kind} {v.name})")
    for v in graph.constants():
        if v.size > 4:
            data = np.asarray(v.data)
            lines.append(f"const {name(v)}: {value_type(v)}  (min {data.min():.4g}, max {data.max():.4g})")
    lines += _lines(graph, name, "", phases, locations, failed)
    if graph.outputs and output_labels and any(output_labels):
        lines.append("return (")
        for v, label in zip(graph.outputs, output_labels):
            lines.append(f"  {name(v)},{'  # ' + label if label else ''}")
        lines.append(")")
    elif graph.outputs:
        lines.append("return (" + ", ".join(name(v) for v in graph.outputs) + ")")
    return "\n".join(lines) + "\n"
