"""Profile graph mode by source line: time the compiled functions' kernels and credit
them to the user's lines and cells.

Use::

    ms.set_context(profile=True)      # or profile=N: calls timed per compiled function
    ...train or call graph-mode functions...
    report = ms.profiler.report()     # a ProfileReport: .table(), .to_dict(), .svg(), .save(dir)
    ms.profiler.reset()

or MindSpore's shape: ``profiler = ms.Profiler(output_path="prof")`` ... ``profiler.analyse()``
(writes ``profile.json`` and ``profile.svg`` there and returns the report).

Contracts:

- Graph mode only: PyNative ops are not timed (a report of a PyNative-only program is
  empty and says so).
- Each compiled function (one per traced signature) runs its first call untimed (memory
  pools fill then), times the next ``profile`` calls (``True``: :data:`DEFAULT_CALLS`),
  then runs untimed again. A timed call computes exactly what an untimed one does: only
  an instrument on the VM's call instructions is added (``backend/tvm/profile.py``).
- Off (the default), a compiled call costs one context lookup more.
- Attribution rules are in :mod:`.report` and ``backend/tvm/profile.py``; a node is
  numbered by :func:`numbered`, the order the backend names its kernels' bindings by.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context import get_context, set_context
from .report import ProfileReport, build_report

DEFAULT_CALLS = 20
WARMUP_CALLS = 1


def numbered(graph: Any) -> list[Any]:
    """The graph's nodes with those of its regions (If branches, loop bodies), pre-order:
    the index of a node in this list is its number in kernel names and in the profile."""
    out = []
    for node in graph.nodes:
        out.append(node)
        for region in node.prim.regions:
            out.extend(numbered(region))
    return out


@dataclass
class FunctionRecord:
    """The timed calls of one compiled function."""

    name: str
    graph: Any
    sites: dict[str, Any] | None
    seen: int = 0
    calls: list[list[tuple[str, float]]] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)


_records: list[FunctionRecord] = []
_by_executable: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def calls_to_time() -> int:
    """How many calls of each compiled function the context asks to time (0: off)."""
    value = get_context("profile")
    return DEFAULT_CALLS if value is True else int(value)


def run(executable: Any, args: tuple) -> list[Any]:
    """Call ``executable`` (a backend Executable) on ``args``, timed if its turn is due."""
    record = _by_executable.get(executable)
    if record is None:
        record = FunctionRecord(executable.graph.name, executable.graph, None)
        _by_executable[executable] = record
        _records.append(record)
    record.seen += 1
    if record.seen <= WARMUP_CALLS or len(record.calls) >= calls_to_time():
        return executable.run(*args)
    if record.sites is None:
        record.sites = executable.sites()
    results, kernels, wall = executable.timed_call(*args)
    record.calls.append(kernels)
    record.walls.append(wall)
    return results


def report() -> ProfileReport:
    """What was timed since the start (or :func:`reset`), by function, line and cell."""
    return build_report([r for r in _records if r.calls])


def reset() -> None:
    """Forget every timing (compiled functions start a new window: warm-up, then timed)."""
    _records.clear()
    _by_executable.clear()


class Profiler:
    """MindSpore's ``Profiler`` shape: profiling starts when it is made (``start_profile``
    True) and ends at :meth:`stop`; :meth:`analyse` writes ``profile.json`` and
    ``profile.svg`` into ``output_path`` and returns the :class:`ProfileReport`."""

    def __init__(self, output_path: str = "./profiler_data", start_profile: bool = True,
                 calls: int = DEFAULT_CALLS) -> None:
        self.output_path = Path(output_path)
        self.calls = calls
        if start_profile:
            self.start()

    def start(self) -> None:
        reset()
        set_context(profile=self.calls)

    def stop(self) -> None:
        set_context(profile=False)

    def analyse(self) -> ProfileReport:
        self.stop()
        result = report()
        result.save(self.output_path)
        return result


__all__ = ["DEFAULT_CALLS", "ProfileReport", "Profiler", "numbered", "report", "reset"]
