"""Graph mode's one compile for every size of a signature's dynamic axes.

Contract (what :class:`framework.graph_mode.JitFunction` delegates here):

- :func:`compile_symbolic` traces the function at the probe sizes of its
  :class:`framework.dynamic_shapes.DynamicAxes` (chosen from the Symbols alone, so the
  compiled function and its cache key do not depend on the first call's size: a base and
  one change per symbol, e.g. batch ``n`` and length ``t``), generalizes the traces
  (:func:`framework.ir.symbolic.generalize_sizes`: control-flow regions included,
  their subgraphs compared recursively) and compiles the first one once with those axes
  symbolic. It returns a :class:`Symbolic`, or a one-line reason (the report's
  ``symbolic_fallback``) when the function must compile per size: a structure, attribute
  or constant that depends on the size otherwise, a lowering that needs static sizes, an
  argument updated in place, a Tensor given twice, a value-dependent split.
- :func:`call_symbolic` serves one call: it traces the call's size (milliseconds; cached
  per size) and runs it on the one executable only when that trace *is* the symbolic
  program at that size (:meth:`framework.ir.symbolic.Template.matches`); else a reason, and
  graph mode compiles that call per size. A call is never run on a different program.
- Counters: a symbolic compile counts once in ``graph_mode.cache_stats`` (``compiles`` or
  ``disk_hits``, and ``traces``), however many sizes it serves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import flops, staging
from .compile_report import CompileReport
from .context import get_context
from .ir.graph import NeedsValueError
from .ir.symbolic import NotSymbolic, Template, generalize_sizes
from .ops.host_split import HostSplit
from .staging import Program


@dataclass
class Symbolic:
    """One function compiled for every size of a signature's dynamic axes."""

    template: Template
    executable: Any
    report: CompileReport
    programs: dict[Any, Program]  # per size seen: its own trace (calling convention)
    first: Program  # the trace compiled

    def matches(self, program: Program, size: Any) -> bool:
        return ([id(p) for p in program.params] == [id(p) for p in self.first.params]
                and not program.written and self.template.matches(program.graph, size))


def front(jit: Any, leaves: list[Any], rebuild: Callable, dump: staging.IRDump | None = None) -> Program:
    """Trace, assemble and optimize ``jit``'s function for ``leaves``, its IR into ``dump``
    (not counted in ``cache_stats["traces"]``, which counts the signatures compiled)."""
    traced = staging.trace(jit.fn, jit.cell, leaves, rebuild, jit.name, None, quiet=(NeedsValueError,))
    program = staging.assemble(traced, jit.name)
    if dump is not None:
        dump.assembled(program)
    program = staging.optimize(program, symbolic=True)
    if dump is not None:
        dump.optimized(program)
    return program


def call_symbolic(jit: Any, entry: Symbolic, leaves: list[Any], rebuild: Callable, dynamic: Any,
                  size: Any) -> Program | str:
    """This call's own trace (at ``size``) when ``entry``'s executable computes it; else why not."""
    program = entry.programs.get(size)
    if program is None:
        try:
            program = front(jit, dynamic.resized(leaves, size), rebuild)
        except NeedsValueError as error:
            return f"tracing needs a value ({str(error).splitlines()[0]})"
        if not entry.matches(program, size):
            return f"its trace at size {size} is not the symbolic one"
        entry.programs[size] = program
    return program


def compile_symbolic(jit: Any, leaves: list[Any], rebuild: Callable, dynamic: Any,
                     ir_dir: str | None) -> Symbolic | str:
    """Trace at the probe sizes, generalize, compile once (or why not)."""
    from .graph_mode import cache_stats  # (graph_mode imports this module)

    probes = dynamic.probes()
    if probes is None:
        return "its Symbols allow fewer than two sizes"
    if staging.aliases(leaves, rebuild):
        return "a Tensor is given twice"
    dump = staging.IRDump(ir_dir)  # the IR of the first probe, the one compiled
    try:
        traces = [front(jit, dynamic.resized(leaves, p), rebuild, None if i else dump)
                  for i, p in enumerate(probes)]
        a = traces[0]
        if a.written or any([id(p) for p in a.params] != [id(p) for p in b.params] for b in traces):
            raise NotSymbolic("it updates its tensor arguments in place")
        template = generalize_sizes([(t.graph, p) for t, p in zip(traces, probes)], dynamic.syms())
        _, import_s = staging.timed(staging.load_backend)
        executable, seconds = staging.timed(lambda: staging.compile_program(
            a, get_context("device_target"), ir_dir, True, template))
    except (NotSymbolic, NeedsValueError) as error:
        return str(error).splitlines()[0]
    except HostSplit as split:  # segments compile per answer shape (graph_split.py)
        return f"a value-dependent op ({split.op}) splits it"
    except Exception as error:  # noqa: BLE001 - a backend limit: compiled per size instead
        first = (str(error).splitlines() or [""])[0][:160]
        return f"the backend refused symbolic shapes ({type(error).__name__}: {first})"
    cache_stats["disk_hits" if executable.cache_hit else "compiles"] += 1
    cache_stats["traces"] += 1  # one signature compiled (traced at two sizes)
    axes = [template.input_axes()[i] for i, v in enumerate(a.graph.inputs) if v.kind == "input"]
    report = CompileReport(
        function=jit.name, target=executable.target_name, nodes_traced=a.nodes_traced,
        nodes_optimized=len(a.graph.nodes), params=len(a.params), updates=len(a.updated),
        backend_import_seconds=import_s, trace_seconds=0.0, optimize_seconds=0.0,
        compile_seconds=seconds, tune_seconds=executable.tune_seconds,
        cache_hit=bool(executable.cache_hit), passes=a.stats, launches=executable.launches,
        symbolic_axes=axes)
    if ir_dir:
        jit._dumps += 1
        dump.compiled(report.as_dict())
    flops.register(a.graph, jit.cell)
    return Symbolic(template, executable, report, dict(zip(probes, traces)), a)
