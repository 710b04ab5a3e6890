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
- Several symbols of which some generalize and some do not (an LSTM unrolled over a
  symbolic length: its structure depends on ``t``, not on ``n``): :func:`compile_symbolic`
  returns a :class:`Narrowed` naming the symbols kept; graph mode then compiles one
  function per size of the others, symbolic in the kept ones (the report's
  ``symbolic_fallback`` says which axis compiles per size and why). The LSTM LM's step,
  symbolic in the batch, runs as fast as its per-size compile at batch 32
  (``bench/symbolic_batch.py --model lstm_lm``: its recurrent matmuls over symbolic rows
  on packed panels, schedule/row_tails.py). ``$TWINMODE_PARTIAL_SYMBOLIC=0`` turns it off:
  such a call then compiles per size, as one whose symbols all fail to generalize does.
- Counters: a symbolic compile counts once in ``graph_mode.cache_stats`` (``compiles`` or
  ``disk_hits``, and ``traces``), however many sizes it serves.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import flops, staging
from .compile_report import CompileReport
from .context import get_context
from .ir.graph import NeedsValueError
from .ir.symbolic import NotSymbolic, Template, generalize, generalize_sizes
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


@dataclass
class Narrowed:
    """Some of a call's symbols generalize: ``dynamic`` keeps those; ``reason`` says why
    the others compile per size."""

    dynamic: Any
    reason: str


def _narrowed(traces: list[Program], probes: list[Any], dynamic: Any, error: NotSymbolic) -> Narrowed | None:
    """The symbols that generalize each on its own, when only some do (else None; None
    when ``$TWINMODE_PARTIAL_SYMBOLIC`` is 0, see the module)."""
    syms = dynamic.syms()
    if len(syms) < 2 or os.environ.get("TWINMODE_PARTIAL_SYMBOLIC", "1").strip() == "0":
        return None
    graph, base = traces[0].graph, probes[0]
    kept, reasons = [], []
    for i, (sym, trace, size) in enumerate(zip(syms, traces[1:], probes[1:])):
        try:
            generalize(graph, base[i], trace.graph, size[i], sym)
            kept.append(dynamic.positions()[i])
        except NotSymbolic as why:
            reasons.append(f"axis {sym.name} per size ({str(why).splitlines()[0]})")
    if not kept or not reasons:
        return None
    return Narrowed(dynamic.only(kept), "; ".join(reasons))


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
                     ir_dir: str | None, partial: str | None = None) -> Symbolic | Narrowed | str:
    """Trace at the probe sizes, generalize, compile once (or why not; or the symbols that
    generalize alone). ``partial``: why some axes of the call are not among ``dynamic``'s
    (the report's ``symbolic_fallback``)."""
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
        try:
            template = generalize_sizes([(t.graph, p) for t, p in zip(traces, probes)], dynamic.syms())
        except NotSymbolic as error:
            narrowed = _narrowed(traces, probes, dynamic, error)
            if narrowed is None:
                raise
            return narrowed
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
        symbolic_axes=axes, symbolic_fallback=partial)
    if ir_dir:
        jit._dumps += 1
        dump.compiled(report.as_dict())
    flops.register(a.graph, jit.cell)
    return Symbolic(template, executable, report, dict(zip(probes, traces)), a)
