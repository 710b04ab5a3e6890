"""A flame graph of a profile, as a small standalone SVG (no dependency).

Contract: per compiled function one icicle chart, top down: the function, then its cells
nested by path (``backbone`` > ``backbone.conv1``), then the source lines under the cell
that made their nodes. A box's width is its time per call (kernel time credited to it),
its tooltip (``<title>``) the name and milliseconds. Functions are stacked vertically.
"""

from __future__ import annotations

import zlib
from html import escape

WIDTH = 1200
ROW = 18
FONT = 11


class _Box:
    """A box: its full name (the tooltip), its label (a cell: the last part of its path)."""

    def __init__(self, name: str, label: str | None = None) -> None:
        self.name = name
        self.label = name if label is None else label
        self.ms = 0.0
        self.children: dict[str, _Box] = {}

    def child(self, name: str, label: str | None = None) -> _Box:
        return self.children.setdefault(name, _Box(name, label))

    def depth(self) -> int:
        return 1 + max((c.depth() for c in self.children.values()), default=0)


def _tree(name: str, lines: list[tuple[str, dict[str, float]]]) -> _Box:
    root = _Box(name)
    for line, cells in lines:
        for cell, ms in cells.items():
            box = root
            box.ms += ms
            parts = cell.split(".") if not cell.startswith("(") else [cell]
            for i in range(len(parts)):
                box = box.child(".".join(parts[: i + 1]), parts[i])
                box.ms += ms
            box = box.child(line)
            box.ms += ms
    return root


def _color(name: str) -> str:
    h = zlib.crc32(name.encode())
    return f"rgb({205 + h % 50},{80 + (h >> 8) % 120},{40 + (h >> 16) % 40})"


def _boxes(box: _Box, x: float, y: int, scale: float, out: list[str]) -> None:
    w = box.ms * scale
    if w < 0.5:
        return
    label = box.label
    fits = int((w - 4) / (FONT * 0.6))
    text = escape(label if len(label) <= fits else label[: max(fits - 1, 0)] + ("…" if fits > 1 else ""))
    out.append(f'<g><title>{escape(box.name)}: {box.ms:.3f} ms</title>'
               f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW - 1}" fill="{_color(box.name)}"/>'
               f'<text x="{x + 2:.1f}" y="{y + ROW - 5}">{text}</text></g>')
    offset = x
    for child in sorted(box.children.values(), key=lambda c: -c.ms):
        _boxes(child, offset, y + ROW, scale, out)
        offset += child.ms * scale


def flame_svg(functions: list[tuple[str, float, list[tuple[str, dict[str, float]]]]]) -> str:
    """The SVG of ``[(function name, ms per call, [(line, {cell: ms})])]``."""
    body: list[str] = []
    y = 0
    for name, call_ms, lines in functions:
        root = _tree(f"{name} ({call_ms:.3f} ms per call)", lines)
        body.append(f'<text x="0" y="{y + ROW - 4}" font-weight="bold">{escape(root.name)}: '
                    f'kernels {root.ms:.3f} ms, cells nested by path, source lines last</text>')
        y += ROW
        if root.ms > 0:
            _boxes(root, 0.0, y, WIDTH / root.ms, body)
        y += root.depth() * ROW + ROW
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{max(y, ROW)}" '
            f'font-family="monospace" font-size="{FONT}">\n' + "\n".join(body) + "\n</svg>\n")
