"""Graphviz (``graph.dot``) rendering of a Graph, clustered by cell.

Inputs are boxes, nodes ellipses labelled op + shapes (backward nodes blue), outputs
double circles labelled as :func:`.printer.to_text` labels them. The top-level nodes are
grouped by phase (``forward``, ``backward`` ...) and, inside, by the path of the Cell that
made them (``Node.cell``: ``network._backbone.layer1.0.conv1``), one nested cluster per
path part. A cluster whose nodes repeat an earlier sibling's op for op and shape for shape
(the second and third BasicBlock of a ResNet stage) is collapsed into one box saying which it repeats, so
a 500-node network renders in seconds and reads as its architecture. Regions (the
branches of an ``If``, a ``While``'s condition and body) are clusters under their node,
never collapsed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .graph import Graph, Node
from .printer import value_type


@dataclass
class _Cluster:
    name: str  # the last part shown as its label (a phase, or a cell path)
    nodes: list[int] = field(default_factory=list)  # dot ids of the nodes directly inside
    children: dict[str, _Cluster] = field(default_factory=dict)
    signature: tuple = ()

    def all_nodes(self) -> list[int]:
        return self.nodes + [k for child in self.children.values() for k in child.all_nodes()]


class _Dot:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.source: dict[int, str] = {}  # value id -> dot node defining it
        self.edges: list[tuple[str, int, str]] = []  # (source, node, style) of top-level nodes
        self.node_lines: dict[int, list[str]] = {}  # dot id -> its line(s) (regions included)
        self.ops: dict[int, str] = {}

    def inputs(self, graph: Graph, indent: str) -> None:
        for v in graph.inputs:
            self.source[v.id] = f"v{v.id}"
            self.lines.append(f'{indent}v{v.id} [shape=box, label="{v.name}\\n{value_type(v)}"];')
        for v in graph.constants(recursive=False):
            self.source[v.id] = f"v{v.id}"
            self.lines.append(f'{indent}v{v.id} [shape=box, style=dashed, label="const\\n{value_type(v)}"];')

    def node(self, node: Node, indent: str, deferred: bool) -> int:
        """Write ``node`` (and its regions) into ``node_lines``; its edges are kept for the
        end when ``deferred`` (top level: a collapsed cluster redirects them)."""
        k = self.count
        self.count += 1
        shapes = ", ".join(value_type(o) for o in node.outputs)
        self.ops[k] = f"{node.prim.name} {shapes}"  # what a repeat must match
        color = "black" if node.phase == "forward" else "blue"
        out = [f'{indent}n{k} [label="{node.prim.name}\\n{shapes}", color={color}];']
        for v in node.inputs:
            if v.id in self.source:
                if deferred:
                    self.edges.append((self.source[v.id], k, ""))
                else:
                    out.append(f"{indent}{self.source[v.id]} -> n{k};")
        for label, region in zip(node.prim.region_labels, node.prim.regions):
            out.append(f'{indent}subgraph cluster_{k}_{label} {{')
            out.append(f'{indent}  label="{node.prim.name} {label}"; style=rounded;')
            saved, self.lines = self.lines, []
            self.inputs(region, indent + "  ")
            for inner in region.nodes:
                self.lines += self.node_lines.pop(self.node(inner, indent + "  ", False))
            out += self.lines
            self.lines = saved
            for v in region.outputs:
                if v.id in self.source:
                    out.append(f'{indent}  {self.source[v.id]} -> n{k} [style=dashed];')
            out.append(f"{indent}}}")
        for o in node.outputs:
            self.source[o.id] = f"n{k}"
        self.node_lines[k] = out
        return k


def _tree(dot: _Dot, graph: Graph) -> _Cluster:
    root = _Cluster("")
    for node in graph.nodes:
        k = dot.node(node, "", True)
        where = root.children.setdefault(node.phase, _Cluster(node.phase))
        parts = node.cell.split(".") if node.cell else []
        for i in range(len(parts)):
            path = ".".join(parts[: i + 1])
            where = where.children.setdefault(path, _Cluster(path))
        where.nodes.append(k)
    return root


def _sign(cluster: _Cluster, dot: _Dot) -> tuple:
    parts = [dot.ops[k] for k in cluster.nodes]
    parts += [_sign(child, dot) for child in cluster.children.values()]
    cluster.signature = tuple(parts)
    return cluster.signature


def _emit(cluster: _Cluster, dot: _Dot, indent: str, collapsed: dict[int, str], out: list[str]) -> None:
    for k in cluster.nodes:
        out += [indent + line.lstrip() if i == 0 else indent + line for i, line in
                enumerate(dot.node_lines[k])]
    seen: dict[tuple, str] = {}
    for child in cluster.children.values():
        members = child.all_nodes()
        first = seen.get(child.signature)
        plain = all(len(dot.node_lines[k]) == 1 for k in members)  # no regions inside
        if first is not None and len(members) > 1 and plain:
            box = f"c{members[0]}"
            out.append(f'{indent}{box} [shape=box3d, label="{child.name}\\nrepeats {first} '
                       f'({len(members)} nodes)"];')
            collapsed.update({k: box for k in members})
            continue
        seen.setdefault(child.signature, child.name)
        out.append(f'{indent}subgraph "cluster_{child.name}_{members[0] if members else 0}" {{')
        out.append(f'{indent}  label="{child.name}"; style=rounded; color=grey;')
        _emit(child, dot, indent + "  ", collapsed, out)
        out.append(f"{indent}}}")


def to_dot(graph: Graph, output_labels: list[str | None] | None = None) -> str:
    """The digraph of ``graph`` (module docstring)."""
    dot = _Dot()
    lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", "  node [fontsize=10];"]
    dot.inputs(graph, "  ")
    lines += dot.lines
    root = _tree(dot, graph)
    _sign(root, dot)
    collapsed: dict[int, str] = {}
    _emit(root, dot, "  ", collapsed, lines)
    done = set()
    for src, k, _ in dot.edges:
        a = collapsed.get(int(src[1:]), src) if src.startswith("n") else src
        b = collapsed.get(k, f"n{k}")
        if a != b and (a, b) not in done:
            done.add((a, b))
            lines.append(f"  {a} -> {b};")
    labels = output_labels or [None] * len(graph.outputs)
    for k, (v, label) in enumerate(zip(graph.outputs, labels)):
        lines.append(f'  out{k} [shape=doublecircle, label="{label or f"out {k}"}"];')
        if v.id in dot.source:
            src = dot.source[v.id]
            src = collapsed.get(int(src[1:]), src) if src.startswith("n") else src
            lines.append(f"  {src} -> out{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"
