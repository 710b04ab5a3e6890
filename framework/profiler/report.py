"""A profile's figures: the timed kernel calls of compiled functions, credited to the IR
nodes they ran (``backend/tvm/profile.py``: sites and split rule), then summed by the
nodes' source line (``file:line``) and Cell path.

Contracts:

- Per compiled function, over its timed calls: ``call_ms`` is the mean wall time of a
  timed call (instrument included); ``kernel_ms`` the kernels' time credited to nodes;
  ``runtime_ms`` the VM's own calls (``vm.builtin.*``: allocation, shape checks);
  ``unattributed_ms`` kernels no node could be found for. A line's ``ms`` is its nodes'
  share of kernel time per call, and ``percent`` is of ``call_ms``. A Relax function called
  from the step (an If branch, a loop body) is not counted itself: its kernels are.
- A node without a source location is credited to the line ``(no source line)``; a node
  made outside any Cell to the cell ``(top)``.
- ``to_dict()`` is what ``profile.json`` holds (``version`` 1); :meth:`ProfileReport.svg`
  the flame graph (:mod:`.flame`).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..errors import shown_path
from .flame import flame_svg

RULE = ("each timed kernel call is split among the IR nodes it runs by their estimated work "
        "(FLOPs + elements read and written of each node's own kernel); a kernel shared by several "
        "call sites gives each an equal part; nodes are summed by source line and by cell")
NO_LINE = "(no source line)"
TOP = "(top)"


@dataclass
class LineProfile:
    """One source line's share of a compiled function's call."""

    line: str  # file:line (:func:`shown_path`)
    function: str = ""
    code: str = ""
    ms: float = 0.0
    percent: float = 0.0
    cells: dict[str, float] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)
    kernels: set[str] = field(default_factory=set)

    @property
    def cell(self) -> str:
        """The cell most of the time went to (``+N`` more cells share the line)."""
        if not self.cells:
            return TOP
        top = max(self.cells, key=self.cells.__getitem__)
        return top + (f" +{len(self.cells) - 1}" if len(self.cells) > 1 else "")

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "function": self.function, "code": self.code,
                "ms": self.ms, "percent": self.percent, "cells": self.cells, "phases": self.phases,
                "kernels": sorted(self.kernels)}


@dataclass
class FunctionProfile:
    """One compiled function's profile."""

    name: str
    calls: int
    call_ms: float
    kernel_ms: float
    runtime_ms: float
    unattributed_ms: float
    lines: list[LineProfile]
    cells: dict[str, float]
    nodes: int
    located_nodes: int

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "calls_timed": self.calls, "call_ms": self.call_ms,
                "kernel_ms": self.kernel_ms, "runtime_ms": self.runtime_ms,
                "unattributed_ms": self.unattributed_ms, "nodes": self.nodes,
                "nodes_with_line": self.located_nodes, "cells": self.cells,
                "lines": [row.as_dict() for row in self.lines]}


@dataclass
class ProfileReport:
    """Profiles of the compiled functions timed (heaviest call first)."""

    functions: list[FunctionProfile]

    def function(self, name: str | None = None) -> FunctionProfile | None:
        """The profile of ``name`` (its first signature), else the heaviest per call."""
        if name is not None:
            return next((f for f in self.functions if f.name == name), None)
        return self.functions[0] if self.functions else None

    def table(self, name: str | None = None, top: int = 10, width: int | None = None) -> str:
        """The hot lines of one function (:meth:`function`) as a text table fitted to
        ``width`` columns (default: the terminal's): the code column narrows first, then goes."""
        profile = self.function(name)
        if profile is None:
            return ("profile: no graph-mode call was timed (profiling covers graph mode's compiled "
                    "functions; PyNative ops are not profiled)")
        width = width or shutil.get_terminal_size((100, 24)).columns
        other = max(profile.call_ms - profile.kernel_ms - profile.runtime_ms - profile.unattributed_ms, 0.0)
        head = [f"hot lines of {profile.name} (graph mode, {profile.calls} calls timed): "
                f"{profile.call_ms:.3f} ms per call",
                f"  kernels {profile.kernel_ms:.3f} ms, VM runtime {profile.runtime_ms:.3f} ms, "
                f"unattributed {profile.unattributed_ms:.3f} ms, timer and other {other:.3f} ms"]
        rows = [(r.line, r.code, r.cell, f"{r.ms:.3f}", f"{r.percent:.1f}%", str(len(r.kernels)))
                for r in profile.lines[:top]]
        titles = ("line", "code", "cell", "ms/call", "% call", "kernels")
        widths = [max(len(t), *(len(r[i]) for r in rows)) if rows else len(t) for i, t in enumerate(titles)]
        widths[2] = min(widths[2], 24)
        room = width - 2 - 2 * (len(titles) - 1) - sum(widths) + widths[1]  # what the code may take
        keep = [0, 1, 2, 3, 4, 5]
        if room >= 12:
            widths[1] = min(widths[1], room)
        else:  # too narrow for the code: drop it, then shorten the line's path from the left
            keep.remove(1)
            widths[0] = max(12, min(widths[0], widths[0] + room + 2))

        def fmt(cols: tuple[str, ...]) -> str:
            parts = [(_cut(cols[i], widths[i], left=i == 0).ljust(widths[i]) if i < 3
                      else cols[i].rjust(widths[i])) for i in keep]
            return "  " + "  ".join(parts).rstrip()

        more = len(profile.lines) - top
        tail = [f"  ... {more} more lines in profile.json"] if more > 0 else []
        return "\n".join([*head, fmt(titles), *map(fmt, rows), *tail])

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "rule": RULE, "functions": [f.as_dict() for f in self.functions]}

    def svg(self) -> str:
        return flame_svg([(f.name, f.call_ms, [(row.line, row.cells) for row in f.lines])
                          for f in self.functions])

    def save(self, folder: str | os.PathLike) -> tuple[Path, Path]:
        """``profile.json`` and ``profile.svg`` in ``folder`` (created); their paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = folder / "profile.json", folder / "profile.svg"
        atomic_write(paths[0], (json.dumps(self.to_dict(), indent=1) + "\n").encode())
        atomic_write(paths[1], self.svg().encode())
        return paths


def _cut(text: str, width: int, left: bool = False) -> str:
    """``text`` in ``width`` characters: its end cut off (``left``: its start) with an ellipsis."""
    if len(text) <= width:
        return text
    return "…" + text[len(text) - width + 1:] if left else text[: width - 1] + "…"


def _where(location: Any) -> tuple[str, str, str]:
    if location is None:
        return NO_LINE, "", ""
    return f"{shown_path(location.filename)}:{location.lineno}", location.function, location.code


def _credit(record: Any) -> tuple[dict[int, float], dict[int, set[str]], float, float]:
    """Kernel seconds per node index summed over the timed calls; the kernels per node; the
    VM's own seconds; the unattributed seconds."""
    sites = record.sites or {"kernels": {}, "functions": []}
    kernels, functions = sites["kernels"], set(sites["functions"])
    per_node: dict[int, float] = {}
    names: dict[int, set[str]] = {}
    runtime = unattributed = 0.0
    for call in record.calls:
        for symbol, seconds in call:
            if symbol in functions:
                continue  # a Relax function: its kernels are timed on their own
            if symbol not in kernels:
                if symbol.startswith("vm.builtin."):
                    runtime += seconds
                else:
                    unattributed += seconds
                continue
            share = seconds / len(kernels[symbol])
            for site in kernels[symbol]:
                if not site:
                    unattributed += share
                for node, weight in site.items():
                    per_node[int(node)] = per_node.get(int(node), 0.0) + share * weight
                    names.setdefault(int(node), set()).add(symbol)
    return per_node, names, runtime, unattributed


def _function_profile(record: Any) -> FunctionProfile:
    from . import numbered

    nodes = numbered(record.graph)
    per_node, names, runtime, unattributed = _credit(record)
    n = len(record.calls)
    call_ms = 1000 * sum(record.walls) / n
    lines: dict[str, LineProfile] = {}
    cells: dict[str, float] = {}
    for index, seconds in per_node.items():
        if index >= len(nodes):
            unattributed += seconds
            continue
        node, ms = nodes[index], 1000 * seconds / n
        line, function, code = _where(node.location)
        row = lines.setdefault(line, LineProfile(line, function, code))
        cell = node.cell or TOP
        row.ms += ms
        row.cells[cell] = row.cells.get(cell, 0.0) + ms
        row.phases[node.phase] = row.phases.get(node.phase, 0.0) + ms
        row.kernels |= names[index]
        cells[cell] = cells.get(cell, 0.0) + ms
    for row in lines.values():
        row.percent = 100 * row.ms / call_ms if call_ms else 0.0
    ordered = sorted(lines.values(), key=lambda r: -r.ms)
    kernel_ms = sum(r.ms for r in ordered)
    return FunctionProfile(record.name, n, call_ms, kernel_ms, 1000 * runtime / n, 1000 * unattributed / n,
                           ordered, dict(sorted(cells.items(), key=lambda kv: -kv[1])), len(nodes),
                           sum(1 for node in nodes if node.location is not None))


def build_report(records: list[Any]) -> ProfileReport:
    profiles = [_function_profile(r) for r in records]
    return ProfileReport(sorted(profiles, key=lambda f: -f.call_ms))
