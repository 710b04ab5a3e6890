"""A profile's figures: the timed kernel calls of compiled functions, credited to the IR
nodes they ran (``backend/tvm/profile.py``: sites and split rule), then summed by the
nodes' source line (``file:line``) and Cell path.

Contracts:

- Per compiled function, over its timed calls: ``call_ms`` is the median wall time of a
  timed call (instrument included); each kernel's time per call is its median over the
  timed calls (times the calls of it per call): a kernel that a busy machine preempted
  once (milliseconds for a microsecond kernel, as a thread pool waiting for a core does)
  moves no line. ``kernel_ms`` is the kernels' time credited to nodes;
  ``runtime_ms`` the VM's own calls (``vm.builtin.*``: allocation, shape checks);
  ``unattributed_ms`` kernels no node could be found for. A line's ``ms`` is its nodes'
  share of kernel time per call, and ``percent`` is of ``call_ms``. A Relax function called
  from the step (an If branch, a loop body) is not counted itself: its kernels are.
- A node without a source location is credited to the line ``(no source line)``; a node
  made outside any Cell to the cell ``(top)``. A line that several cells share is named
  by the cell of its first node in graph order (``conv1 +2`` for
  ``pool(relu(conv1(x)))``), so the name does not change between runs with the timings.
- :meth:`ProfileReport.table` fits every line into ``width`` columns (default: the
  terminal's, that of stderr when stdout is piped, else 80) and names the other functions
  timed, which ``profile.svg`` and ``profile.json`` hold too.
- ``to_dict()`` is what ``profile.json`` holds (``version`` 1); :meth:`ProfileReport.svg`
  the flame graph (:mod:`.flame`).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..errors import shown_path
from .flame import flame_svg

RULE = ("each kernel's median time per call (over the timed calls) is split among the IR nodes it "
        "runs by their estimated work (FLOPs + elements read and written of each node's own kernel); "
        "a kernel shared by several call sites gives each an equal part; nodes are summed by source "
        "line and by cell")
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
        """The cell of the line's first node in graph order (``+N`` more cells share the
        line): ``cells`` is filled in node order, and timings never reorder it."""
        if not self.cells:
            return TOP
        first = next(iter(self.cells))
        return first + (f" +{len(self.cells) - 1}" if len(self.cells) > 1 else "")

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
        """The hot lines of one function (:meth:`function`) as a text table, every line
        within ``width`` columns (default: :func:`terminal_width`): the code column narrows
        first, then goes, then the cell and the line's path are cut (from the left: their
        last parts name the layer and the file);
        the other functions timed are named last (they are in profile.svg and .json)."""
        profile = self.function(name)
        if profile is None:
            return ("profile: no graph-mode call was timed (profiling covers graph mode's compiled "
                    "functions; PyNative ops are not profiled)")
        width = max(width or terminal_width(), 44)  # the narrowest table
        other = max(profile.call_ms - profile.kernel_ms - profile.runtime_ms - profile.unattributed_ms, 0.0)
        head = _wrap(f"hot lines of {profile.name}: {profile.call_ms:.3f} ms/call (median of "
                     f"{profile.calls} timed calls)", width)
        head += _wrap(f"kernels {profile.kernel_ms:.3f} ms, VM runtime {profile.runtime_ms:.3f} ms, "
                      f"unattributed {profile.unattributed_ms:.3f} ms, timer and other {other:.3f} ms",
                      width, "  ")
        rows = [(r.line, r.code, r.cell, f"{r.ms:.3f}", f"{r.percent:.1f}%", str(len(r.kernels)))
                for r in profile.lines[:top]]
        titles = ("line", "code", "cell", "ms/call", "% call", "kernels")
        widths = [max(len(t), *(len(r[i]) for r in rows)) if rows else len(t) for i, t in enumerate(titles)]
        widths[2] = min(widths[2], 24)
        keep = [0, 1, 2, 3, 4, 5]

        def total() -> int:
            return 2 + 2 * (len(keep) - 1) + sum(widths[i] for i in keep)

        if total() - width > widths[1] - 12:  # too narrow for 12 columns of code: drop it
            keep.remove(1)
        elif total() > width:
            widths[1] -= total() - width
        for i, least in ((2, 10), (0, 12)):  # then the cell, then the line's path (from the left)
            widths[i] = max(least, widths[i] - max(total() - width, 0))
        if total() > width:  # narrower still: the kernels' count goes too
            keep.remove(5)

        def fmt(cols: tuple[str, ...]) -> str:
            parts = [(_cut(cols[i], widths[i], left=i != 1).ljust(widths[i]) if i < 3
                      else cols[i].rjust(widths[i])) for i in keep]
            return "  " + "  ".join(parts).rstrip()

        more = len(profile.lines) - top
        tail = _wrap(f"... {more} more lines in profile.json", width, "  ") if more > 0 else []
        others = [f"{f.name} {f.call_ms:.3f} ms per call" for f in self.functions if f is not profile]
        if others:
            tail += _wrap(f"also timed, in profile.svg and profile.json: {', '.join(others)}", width, "  ")
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


def terminal_width() -> int:
    """Columns of the terminal the table goes to: ``COLUMNS``, stdout's terminal, stderr's
    (stdout piped into a pager or ``tee`` from a terminal), else 80."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    for stream in (sys.stdout, sys.stderr):
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            continue
    return 80


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns, continued with two more spaces."""
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def _cut(text: str, width: int, left: bool = False) -> str:
    """``text`` in ``width`` characters: its end cut off (``left``: its start, for a path
    whose last part says most; a cell's `` +N`` stays) with an ellipsis."""
    if len(text) <= width:
        return text
    if not left:
        return text[: width - 1] + "…"
    head, plus, more = text.rpartition(" +")
    suffix = plus + more if plus and more.isdigit() and len(plus + more) < width - 4 else ""
    body = head if suffix else text
    room = width - len(suffix)
    return "…" + body[len(body) - room + 1:] + suffix


def _where(location: Any) -> tuple[str, str, str]:
    if location is None:
        return NO_LINE, "", ""
    return f"{shown_path(location.filename)}:{location.lineno}", location.function, location.code


def _per_call(calls: list[list[tuple[str, float]]]) -> dict[str, float]:
    """Seconds per call of each symbol: the median of its timed runs times its runs per
    call (robust to the few runs a busy machine stretched by orders of magnitude)."""
    runs: dict[str, list[float]] = {}
    for call in calls:
        for symbol, seconds in call:
            runs.setdefault(symbol, []).append(seconds)
    n = max(len(calls), 1)
    return {symbol: statistics.median(times) * len(times) / n for symbol, times in runs.items()}


def _credit(record: Any) -> tuple[dict[int, float], dict[int, set[str]], float, float]:
    """Kernel seconds per call per node index; the kernels per node; the VM's own seconds
    per call; the unattributed seconds per call."""
    sites = record.sites or {"kernels": {}, "functions": []}
    kernels, functions = sites["kernels"], set(sites["functions"])
    per_node: dict[int, float] = {}
    names: dict[int, set[str]] = {}
    runtime = unattributed = 0.0
    for symbol, seconds in _per_call(record.calls).items():
        if symbol in functions:
            continue  # a Relax function: its kernels are timed on their own
        if symbol not in kernels:
            # the VM's builtins, and the shapes of a symbolic function (TVM's VMShapeLower
            # computes them in one ``shape_func`` per call: framework/ir/symbolic.py)
            if symbol.startswith("vm.builtin.") or symbol == "shape_func":
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
    call_ms = 1000 * statistics.median(record.walls)
    lines: dict[str, LineProfile] = {}
    cells: dict[str, float] = {}
    for index, seconds in sorted(per_node.items()):  # graph order: a line's first cell first
        if index >= len(nodes):
            unattributed += seconds
            continue
        node, ms = nodes[index], 1000 * seconds
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
    return FunctionProfile(record.name, n, call_ms, kernel_ms, 1000 * runtime, 1000 * unattributed,
                           ordered, dict(sorted(cells.items(), key=lambda kv: -kv[1])), len(nodes),
                           sum(1 for node in nodes if node.location is not None))


def build_report(records: list[Any]) -> ProfileReport:
    profiles = [_function_profile(r) for r in records]
    return ProfileReport(sorted(profiles, key=lambda f: -f.call_ms))
