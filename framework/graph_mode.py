"""Graph mode: compile a callable once per input signature, then run it.

``jit(fn)`` (or ``@jit``) always compiles; in ``GRAPH_MODE`` every top-level
``Cell.__call__`` goes through here as well. A compiled function takes the traced
Parameters (kept resident on the device between calls), the call's tensors and any
host-drawn random masks, and returns the user outputs plus the new values of every
Parameter the function updated (optimizer steps, BatchNorm statistics). Compiling runs
the stages of :mod:`framework.staging`.

Tensors given as arguments, as MindSpore 2.10's graph mode treats them:

- updated in place inside (``x.add_(y)``, ``x.copy_(v)``, ``ops.assign(x, v)``): the caller's
  tensor holds the final value after the call (a Parameter given as an argument too);
- the same Tensor object given twice is one tensor inside (MindSpore's aliasing); a list
  argument's tensors are copies (neither aliased nor written back), a tuple's or dict's not;
- hooks registered on them with ``Tensor.register_hook`` apply to gradients taken inside.

Not MindSpore's: a view (``x[0]``, ``x.T``) updated in place takes the value alone (MindSpore
refuses a slice's or transpose's and writes a reshape's through to its base), and an in-place
update of an argument inside a tensor-valued ``if`` is refused (MindSpore leaves it out).

An op whose output shape depends on values (``masked_select``, ``nonzero``, ``unique``,
``x[mask]``) splits the compiled function: the signature runs as segments, the next one
compiled per shape of the op's host-computed answer (:mod:`framework.graph_split`); the
compile report's ``splits`` / ``split_before`` name the op and its line.

The cache key is the argument signature (shapes, dtypes, Python values), the target, the
tuning, whether IR is dumped and the hook functions of each hooked Tensor argument
(:func:`framework.autograd.hooks.tensor_hooks`; the key holds the functions, so a graph
traced with a hook is reused only while the same hook functions are registered: adding,
removing or replacing one traces again). A graph that writes arguments back also records
which Tensor arguments were the same object (:func:`framework.staging.aliases`) and serves
only calls that repeat them alike; one that writes none serves any call.

Dynamic axes: where the input signature (``Cell.set_inputs``, ``jit(input_signature=...)``)
has ``None`` or Symbol dimensions, the function is traced at probe sizes and, when the
traces are one program up to sizes (:func:`framework.ir.symbolic.generalize_sizes`), compiled
once with those axes symbolic; each new size is traced (milliseconds) and checked against
that program before it runs on the one library (:mod:`framework.graph_symbolic`). Otherwise it
compiles per size, the reason in the report (``symbolic_fallback``).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import dynamic_shapes, flops, staging
from .autograd import tape as _tape
from .autograd.hooks import tensor_hooks
from .common.tensor import Tensor
from .compile_report import CompileReport
from .context import get_context
from .frontend import convert, fallback
from .graph_split import Segmented, Stage, split_entry
from .graph_symbolic import Narrowed, Symbolic, call_symbolic, compile_symbolic
from .graph_symbolic import front as _front  # noqa: F401  (tests trace with it)
from .interpreters import is_tracing
from .ir.graph import NeedsValueError
from .ops.host_split import HostSplit
from .signature import flatten, tensors
from .staging import Program, Slot, fingerprint  # noqa: F401  (fingerprint: public)

# Compile-cache counters (tests read them): memory hits, disk hits, fresh compiles.
cache_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0, "traces": 0}


def _guard(cells: list[Any]) -> tuple:
    """The state of the traced cells that the graph baked in: train/eval flags and which
    Parameter objects they hold. A compiled graph is reused only while it still holds."""
    return tuple((cell.training, tuple(id(p) for p in cell._params.values())) for cell in cells)


@dataclass
class CompiledGraph:
    """One traced + compiled signature of a JitFunction."""

    program: Program
    executable: Any
    report: CompileReport
    guard: tuple = ()
    aliases: tuple | None = None  # the aliasing it was traced for (None: any, it writes none)

    @property
    def graph(self) -> Any:
        return self.program.graph

    def valid(self, aliases: tuple | None) -> bool:
        """Whether this graph serves a call whose Tensor arguments repeat as ``aliases`` says
        (it matters only to a graph that writes arguments back: :attr:`aliases` is None)."""
        return (_guard(self.program.cells) == self.guard
                and (self.aliases is None or self.aliases == aliases))

    def _execute(self, args: list[Any], draws: list[np.ndarray] | None,
                 host: list[np.ndarray]) -> tuple[list[Any], list[Any]]:
        """The graph's results for the call's tensors ``args`` and, in a split function
        (:mod:`framework.graph_split`), the host answers before this segment and the random
        masks drawn by the segments before it (``draws``, extended here)."""
        ex, program = self.executable, self.program
        inputs = [ex.param_array(p) for p in program.params]
        borrowed = [ex.to_device(t._data if isinstance(t, Tensor) else np.asarray(t)) for t in args]
        borrowed += [ex.to_device(_mask(draws, k, v, prim)) for k, (v, prim) in enumerate(program.random)]
        borrowed += [ex.to_device(a) for a in host]
        return ex(*inputs, *borrowed), borrowed

    def outputs(self, args: list[Any], draws: list[np.ndarray], host: list[np.ndarray]) -> list[np.ndarray]:
        """Only the graph's outputs, as arrays (a segment before a split)."""
        return [r.numpy() for r in self._execute(args, draws, host)[0]]

    def run(self, args: list[Any], draws: list[np.ndarray] | None = None,
            host: list[np.ndarray] | None = None) -> Any:
        ex, program = self.executable, self.program
        results, borrowed = self._execute(args, draws, host or [])
        n_graph = len(results) - len(program.updated)
        if program.checks:  # before any Parameter takes its new value (ops/range_check.py)
            first = n_graph - 2 * len(program.checks)
            for k, check in enumerate(program.checks):
                failure = check.verdict(results[first + 2 * k].numpy(),
                                        results[first + 2 * k + 1].numpy())
                if failure is not None:
                    raise failure
        for param, array in zip(program.updated, results[n_graph:]):
            param._set_device(ex.owned(array, borrowed))
        _write_back(program, args, results)
        leaves = []
        for slot, value in program.slots:
            if slot is Slot.GRAPH:
                leaves.append(Tensor._wrap(results[value].numpy()))
            elif slot is Slot.HOST:  # a NumPy array: the caller's own copy
                leaves.append(value.copy() if isinstance(value, np.ndarray) else value)
            else:
                leaves.append(Tensor(value) if isinstance(value, np.ndarray) else value)
        return program.rebuild(leaves)


def _mask(draws: list[np.ndarray] | None, k: int, value: Any, prim: Any) -> np.ndarray:
    """The ``k``-th random mask of this call: drawn once, then shared by the later segments of a
    split function (each is traced from the start, so they draw in the same order)."""
    if draws is None:
        return prim.draw_mask(value.shape, value.dtype)
    if k == len(draws):
        draws.append(prim.draw_mask(value.shape, value.dtype))
    return draws[k]


def _write_back(program: Program, args: list[Any], results: list[Any]) -> None:
    """The caller's tensors updated in place inside the compiled function take their values."""
    from .parameter import Parameter

    for index, slot, value in program.written:
        array = results[value].numpy() if slot is Slot.GRAPH else value.copy()
        if isinstance(args[index], Parameter):
            args[index]._set_host(array)
        else:
            args[index]._data = array


class JitFunction:
    """A callable compiled per input signature (shapes, dtypes, Python constants, target,
    tuning, IR dump folder) and re-traced when a cell it went through changed its
    train/eval flag or had a Parameter replaced. A signature whose Python code needs a
    runtime tensor's value runs interpreted (:mod:`framework.frontend.fallback`)."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None,
                 ir_dir: str | None = None, cell: Any = None) -> None:
        self.fn = fn
        owner = getattr(fn, "__self__", None)
        if name is None and owner is not None and getattr(fn, "__name__", "") == "construct":
            name = type(owner).__name__  # a Cell's construct is named after its class
        self.name = name or getattr(fn, "__qualname__", "function").replace(".", "_")
        self.ir_dir = ir_dir
        self.cell = cell if cell is not None else getattr(fn, "__self__", None)
        self._cache: dict[Any, list[CompiledGraph]] = {}
        self._dumps = 0  # IR dumps written so far (later signatures get numbered folders)
        self._latest: CompiledGraph | None = None
        self.last_call_compiled = False  # did the latest call trace + compile (or load)?
        # the input signature (set_inputs, jit(input_signature=...)) declaring dynamic axes
        self.signature_of: Callable[[], Any] = lambda: getattr(self, "jit_options", {}).get(
            "input_signature")
        self._symbolic: dict[Any, Symbolic | Narrowed | str] = {}  # masked key -> compiled, or why not
        # without a signature: True, axis 0 of the batch is dynamic; "sequence", also axis 1
        # of its token ids (dynamic_shapes.batch_axes)
        self.dynamic_batch: bool | str = False
        functools.update_wrapper(self, fn)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        key = f"_jit_{self.name}_{id(self)}"
        bound = obj.__dict__.get(key)
        if bound is None:
            bound = JitFunction(self.fn.__get__(obj, objtype), self.name, self.ir_dir, cell=obj)
            bound.jit_config = getattr(self, "jit_config", None)
            obj.__dict__[key] = bound
        return bound

    def _lookup(self, args: tuple) -> CompiledGraph:
        return self._find(*flatten(list(args)))

    def _find(self, leaves: list[Any], structure: Any,
              rebuild: Callable) -> CompiledGraph | fallback.Interpreted:
        """The compiled graph for these flattened arguments (compiling it if needed), or
        the interpreted entry of a signature graph mode falls back on."""
        key = (structure, get_context("device_target"), get_context("tuning"),
               bool(get_context("save_graphs")) or self.ir_dir is not None, tensor_hooks(leaves))
        candidates = self._cache.setdefault(key, [])
        aliases = None  # read only for a graph that writes arguments back (the rare case)
        for compiled in candidates:
            if aliases is None and compiled.aliases is not None:
                aliases = staging.aliases(leaves, rebuild)
            if compiled.valid(aliases):
                self.last_call_compiled = False
                cache_stats["memory_hits"] += 1
                return compiled
        self.last_call_compiled = True
        allowed = fallback.allowed(getattr(self, "jit_config", None))
        dynamic = dynamic_shapes.declared(self.signature_of(), leaves, structure)
        if dynamic is None and self.dynamic_batch:
            dynamic = dynamic_shapes.batch_axes(leaves, self.dynamic_batch == "sequence")
        reason = None
        if dynamic is not None and not key[-1]:  # (hooked tensors trace per call)
            found = self._symbolic_call(leaves, rebuild, dynamic, key)
            if isinstance(found, CompiledGraph):
                candidates.append(found)
                self._latest = found
                return found
            reason, self.last_call_compiled = found, True
        try:
            compiled = self._compile(leaves, rebuild, quiet=allowed, symbolic_fallback=reason)
        except NeedsValueError as error:
            if not allowed:
                raise
            candidates.append(fallback.Interpreted(self.fn, str(error)))
            return candidates[-1]
        if isinstance(compiled, Stage):  # a value-dependent op: the graph is split there
            compiled = Segmented(compiled)
        candidates.append(compiled)
        self._latest = getattr(compiled, "latest", compiled)
        return compiled

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """Keyword arguments as positional ones (defaults filled in up to the last one
        given), so that the traced signature is the same however a caller spells it."""
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self.name}: {error}") from None
        bound.apply_defaults()
        if bound.kwargs:
            raise TypeError(f"{self.name}: graph mode cannot pass {', '.join(sorted(bound.kwargs))} "
                            "through **kwargs; name the parameters in the signature")
        return bound.args

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = self._bind(args, kwargs)
        if is_tracing():  # called inside another traced function: inline it
            return convert(self.fn)(*args)
        if _tape.active() is not None:  # a PyNative grad is recording: the tape must see it
            return self.fn(*args)
        leaves, structure, rebuild = flatten(list(args))
        compiled = self._find(leaves, structure, rebuild)
        if isinstance(compiled, fallback.Interpreted):
            return compiled.call(args)
        if isinstance(compiled, Segmented):
            return self._call_segmented(compiled, args, leaves, rebuild)
        return compiled.run(tensors(leaves))

    def _call_segmented(self, segmented: Segmented, args: tuple, leaves: list[Any],
                        rebuild: Callable) -> Any:
        """Run a split signature; a later segment whose code needs a tensor's Python value
        turns the whole signature interpreted, as a first trace needing one does."""
        allowed = fallback.allowed(getattr(self, "jit_config", None))
        try:
            return segmented.call(
                tensors(leaves),
                lambda answers: self._compile(leaves, rebuild, quiet=allowed, answers=answers),
                self._compiled_now)
        except NeedsValueError as error:
            if not allowed:
                raise
            interpreted = fallback.Interpreted(self.fn, str(error))
            for candidates in self._cache.values():
                candidates[:] = [interpreted if c is segmented else c for c in candidates]
            return interpreted.call(args)

    def _compiled_now(self, segment: Any) -> None:
        self.last_call_compiled = True
        self._latest = segment

    def compile(self, *args: Any, load: bool = True) -> CompileReport:
        """Trace and compile for these arguments' signature without running; its report.

        ``load=False`` only builds (and writes IR artifacts): CUDA code can be generated
        on a machine without a GPU.
        """
        if not load:
            leaves, _, rebuild = flatten(list(args))
            self._latest = self._compile(leaves, rebuild, load=False)
            return self._latest.report
        return self._lookup(args).report

    def trace(self, args: tuple) -> staging.Traced:
        """Only the first stage: the graph as traced for these arguments."""
        leaves, _, rebuild = flatten(list(args))
        return staging.trace(self.fn, self.cell, leaves, rebuild, self.name, None)

    def _ir_dir(self) -> str | None:
        """Where this compilation's IR goes: ``<name>`` for the first signature, then
        ``<name>_2``, ``<name>_3`` ... (an eval function sees several batch shapes)."""
        if self.ir_dir is not None:
            base = self.ir_dir
        elif get_context("save_graphs"):
            base = os.path.join(get_context("save_graphs_path"), self.name)
        else:
            return None
        return base if self._dumps == 0 else f"{base}_{self._dumps + 1}"

    def _symbolic_call(self, leaves: list[Any], rebuild: Callable, dynamic: Any,
                       key: tuple) -> CompiledGraph | str:
        """The one function compiled for every size of the dynamic axes, for this call (its
        own trace checked against the symbolic one); else why not, for the report
        (:mod:`framework.graph_symbolic`)."""
        size = dynamic.size(leaves)
        if size is None:
            return "the call's dynamic axes differ in size"
        mkey = (dynamic.masked(key[0]), *key[1:])
        entry = self._symbolic.get(mkey)
        self.last_call_compiled = entry is None
        if entry is None:
            entry = self._symbolic[mkey] = compile_symbolic(self, leaves, rebuild, dynamic, self._ir_dir())
        if isinstance(entry, Narrowed):  # symbolic in some symbols, per size in the others
            dynamic, partial = entry.dynamic, entry.reason
            size, mkey = dynamic.size(leaves), (dynamic.masked(key[0]), *key[1:])
            entry = self._symbolic.get(mkey)
            self.last_call_compiled = entry is None
            if entry is None:
                entry = self._symbolic[mkey] = compile_symbolic(
                    self, leaves, rebuild, dynamic, self._ir_dir(), partial)
        if isinstance(entry, str):
            return entry
        program = call_symbolic(self, entry, leaves, rebuild, dynamic, size)
        if isinstance(program, str):
            return program
        return CompiledGraph(program, entry.executable, entry.report, _guard(program.cells))

    def _compile(self, leaves: list[Any], rebuild: Callable, load: bool = True,
                 quiet: bool = False, answers: list | None = None,
                 symbolic_fallback: str | None = None) -> CompiledGraph | Stage:
        """Trace and build one signature; with ``answers`` (the host answers of the
        value-dependent ops met first), a segment of a split function: a :class:`Stage` when
        the trace stops at the next such op (:mod:`framework.graph_split`).
        ``symbolic_fallback``: why this signature compiles for its own sizes (the report's)."""
        _, import_s = staging.timed(staging.load_backend)  # TVM loads on first use (~1 s)
        aliases = staging.aliases(leaves, rebuild)
        ir_dir = self._ir_dir()
        dump = staging.IRDump(ir_dir)
        fail_dir = ir_dir or get_context("save_graphs_path")
        cache_stats["traces"] += 1

        optimize_s = 0.0
        split: HostSplit | None = None

        def front() -> Program:
            nonlocal optimize_s, split
            quiet_errors = (NeedsValueError,) if quiet else ()
            try:
                traced = staging.trace(self.fn, self.cell, leaves, rebuild, self.name, fail_dir,
                                       quiet=quiet_errors, answers=answers)
                if traced.written and aliases:  # updates an argument given twice: one tensor inside
                    traced = staging.trace(self.fn, self.cell, leaves, rebuild, self.name,
                                           fail_dir, quiet=quiet_errors, alias=True, answers=answers)
            except HostSplit as error:
                split = error
            program = staging.prefix(split) if split else staging.assemble(traced, self.name)
            dump.assembled(program)
            program, optimize_s = staging.timed(lambda: staging.optimize(program))
            return program

        program, trace_s = staging.timed(front)  # optimize_s is part of it
        if ir_dir:
            self._dumps += 1
        dump.optimized(program)
        executable = staging.compile_program(program, get_context("device_target"), ir_dir, load)
        hit = executable.cache_hit
        cache_stats["disk_hits" if hit else "compiles"] += 1
        report = CompileReport(
            function=self.name, target=executable.target_name, nodes_traced=program.nodes_traced,
            nodes_optimized=len(program.graph.nodes), params=len(program.params),
            updates=len(program.updated), backend_import_seconds=import_s,
            trace_seconds=max(trace_s - optimize_s, 0.0), optimize_seconds=optimize_s,
            compile_seconds=executable.compile_seconds, tune_seconds=executable.tune_seconds,
            cache_hit=bool(hit), passes=program.stats, launches=executable.launches,
            splits=tuple(split_entry(step) for step in program.host_steps),
            split_before=split_entry(split) if split else None,
            symbolic_axes=[[] for v in program.graph.inputs if v.kind == "input"],
            symbolic_fallback=symbolic_fallback)
        dump.compiled(report.as_dict())
        if load:
            flops.register(program.graph, self.cell)
        compiled = CompiledGraph(program, executable, report, _guard(program.cells),
                                 aliases if program.written else None)
        if split is not None:
            return Stage(compiled, split.compute, split.inputs, split.op)
        return compiled

    @property
    def last_report(self) -> CompileReport | None:
        """The report of the most recent compilation (None before the first)."""
        return self._latest.report if self._latest else None
