"""Graph mode: trace a callable once per input signature, compile it, run it.

``jit(fn)`` (or ``@jit``) always compiles; in ``GRAPH_MODE`` every top-level
``Cell.__call__`` goes through here as well. A compiled function takes the traced
Parameters (kept resident on the device between calls), the call's tensors and any
host-drawn random masks, and returns the user outputs plus the new values of every
Parameter the function updated (optimizer steps, BatchNorm statistics).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .context import get_context
from .frontend import convert
from .interpreters import is_tracing, using
from .interpreters.trace import TraceInterpreter
from .ir import Graph, Value, optimize, to_dot, to_text
from .tensor import Tensor

# Compile-cache counters (tests read them): memory hits, disk hits, fresh compiles.
cache_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0, "traces": 0}


def _flatten(obj: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """Leaves of nested tuples/lists/dicts and a function rebuilding the structure."""
    if isinstance(obj, tuple | list):
        parts = [_flatten(o) for o in obj]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves: list[Any]) -> Any:
            out, i = [], 0
            for (_, fn), n in zip(parts, sizes):
                out.append(fn(leaves[i:i + n]))
                i += n
            return type(obj)(out) if isinstance(obj, list) else tuple(out)

        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(obj, dict):
        keys = list(obj)
        leaves, rebuild_values = _flatten([obj[k] for k in keys])
        return leaves, lambda ls: dict(zip(keys, rebuild_values(ls)))
    return [obj], lambda ls: ls[0]


def _arg_key(arg: Any) -> Any:
    """What of an argument the trace depends on: tensors by shape and dtype, Python values
    by type and value (1, 1.0 and True trace differently)."""
    if isinstance(arg, Tensor | np.ndarray):
        data = arg._data if isinstance(arg, Tensor) else arg
        return ("tensor", tuple(data.shape), str(data.dtype))
    if isinstance(arg, tuple | list):
        return (type(arg).__name__, tuple(_arg_key(a) for a in arg))
    if isinstance(arg, dict):
        return ("dict", tuple((k, _arg_key(v)) for k, v in arg.items()))
    try:
        hash(arg)
        return (type(arg).__name__, arg)
    except TypeError:
        return (type(arg).__name__, repr(arg))


def _guard(cells: list[Any]) -> tuple:
    """The state of the traced cells that the graph baked in: train/eval flags and which
    Parameter objects they hold. A compiled graph is reused only while it still holds."""
    return tuple((cell.training, tuple(id(p) for p in cell._params.values())) for cell in cells)


_PY_CONSTANTS = (bool, int, float, str, type(None))


@dataclass
class CompiledGraph:
    """One traced + compiled signature of a JitFunction."""

    graph: Graph
    executable: Any
    params: list[Any]  # Parameters in graph-input order (then call tensors, then masks)
    random: list[tuple[Value, Any]]  # host-drawn masks, after the call tensors
    updated: list[Any]  # Parameters whose new values follow the graph's user outputs
    slots: list[tuple[str, Any]]  # per output leaf: ("graph", index) or ("const", value)
    rebuild: Callable[[list[Any]], Any]
    cells: list[Any] = field(default_factory=list)  # cells the trace went through
    guard: tuple = ()
    summary: dict[str, Any] = field(default_factory=dict)

    def valid(self) -> bool:
        return _guard(self.cells) == self.guard

    def run(self, tensors: list[Any]) -> Any:
        ex = self.executable
        args = [ex.param_array(p) for p in self.params]
        args += [ex.to_device(t._data if isinstance(t, Tensor) else np.asarray(t)) for t in tensors]
        args += [ex.to_device(prim.draw_mask(v.shape, v.dtype)) for v, prim in self.random]
        results = ex(*args)
        n_graph = len(results) - len(self.updated)
        for param, array in zip(self.updated, results[n_graph:]):
            param._set_device(array)
        leaves = []
        for kind, value in self.slots:
            if kind == "graph":
                leaves.append(Tensor._wrap(results[value].numpy()))
            else:
                leaves.append(Tensor(value) if isinstance(value, np.ndarray) else value)
        return self.rebuild(leaves)


class JitFunction:
    """A callable compiled per input signature (shapes, dtypes, Python constants, target,
    tuning, IR dump folder) and re-traced when a cell it went through changed its
    train/eval flag or had a Parameter replaced."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None,
                 ir_dir: str | None = None, cell: Any = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", "function").replace(".", "_")
        self.ir_dir = ir_dir
        self.cell = cell if cell is not None else getattr(fn, "__self__", None)
        self._cache: dict[Any, list[CompiledGraph]] = {}
        self._dumps = 0  # IR dumps written so far (later signatures get numbered folders)
        self._latest: CompiledGraph | None = None
        self.last_call_compiled = False  # did the latest call trace + compile (or load)?
        functools.update_wrapper(self, fn)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        key = f"_jit_{self.name}_{id(self)}"
        bound = obj.__dict__.get(key)
        if bound is None:
            bound = JitFunction(self.fn.__get__(obj, objtype), self.name, self.ir_dir, cell=obj)
            obj.__dict__[key] = bound
        return bound

    def _signature(self, args: tuple) -> tuple:
        return (tuple(_arg_key(a) for a in args), get_context("device_target"),
                get_context("tuning"), bool(get_context("save_graphs")) or self.ir_dir is not None)

    def _lookup(self, args: tuple) -> CompiledGraph:
        candidates = self._cache.setdefault(self._signature(args), [])
        for compiled in candidates:
            if compiled.valid():
                self.last_call_compiled = False
                cache_stats["memory_hits"] += 1
                return compiled
        self.last_call_compiled = True
        compiled = self._compile(args)
        candidates.append(compiled)
        self._latest = compiled
        return compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{self.name}: graph mode takes positional arguments only")
        if is_tracing():  # called inside another traced function: inline it
            return convert(self.fn)(*args)
        compiled = self._lookup(args)
        tensors = [a for a in _flatten(list(args))[0] if isinstance(a, Tensor | np.ndarray)]
        return compiled.run(tensors)

    def compile(self, *args: Any, load: bool = True) -> dict[str, Any]:
        """Trace and compile for these arguments' signature without running; the summary.

        ``load=False`` only builds (and writes IR artifacts): CUDA code can be generated
        on a machine without a GPU.
        """
        if not load:
            self._latest = self._compile(args, load=False)
            return self._latest.summary
        return self._lookup(args).summary

    # -- tracing and compiling ---------------------------------------------------------------
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

    def trace(self, args: tuple) -> tuple[Graph, TraceInterpreter, Callable, list]:
        graph = Graph(self.name)
        ir_dir = self._ir_dir()
        leaves, rebuild_args = _flatten(list(args))
        traced_leaves = []
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Tensor | np.ndarray):
                data = leaf._data if isinstance(leaf, Tensor) else leaf
                value = graph.add_input(data.shape, data.dtype, "input", f"arg{i}")
                traced_leaves.append(Tensor._wrap(value))
            else:
                traced_leaves.append(leaf)
        interp = TraceInterpreter(graph, fail_dir=ir_dir or get_context("save_graphs_path"))
        cache_stats["traces"] += 1
        if hasattr(self.cell, "cells_and_names"):  # a Cell's construct
            interp.enter_cell(self.cell)
        with using(interp):
            try:
                out = convert(self.fn)(*rebuild_args(traced_leaves))
            except Exception as error:
                interp.report_failure(error)
                raise
            finally:
                interp.restore_parameters()
        out_leaves, rebuild_out = _flatten(out)
        return graph, interp, rebuild_out, out_leaves

    def _compile(self, args: tuple, load: bool = True) -> CompiledGraph:
        start = time.perf_counter()
        from .backend.tvm.compiler import compile_graph  # TVM loads on first use (~1 s)

        import_s = time.perf_counter() - start
        start = time.perf_counter()
        ir_dir = self._ir_dir()
        graph, interp, rebuild, out_leaves = self.trace(args)
        outputs: list[Value] = []
        slots: list[tuple[str, Any]] = []
        for leaf in out_leaves:
            if isinstance(leaf, Tensor) and isinstance(leaf._data, Value):
                slots.append(("graph", len(outputs)))
                outputs.append(leaf._data)
            elif isinstance(leaf, Tensor | np.ndarray):
                slots.append(("const", np.asarray(leaf._data if isinstance(leaf, Tensor) else leaf)))
            elif isinstance(leaf, _PY_CONSTANTS):
                slots.append(("const", leaf))  # e.g. an optimizer's ``return True``
            else:
                raise TypeError(f"{self.name}: graph mode returns Tensors, Python numbers/strings "
                                f"(or tuples/lists/dicts of them), got a {type(leaf).__name__}")
        updated = [param for param, _ in interp.updates.values()]
        graph.outputs = outputs + [value for _, value in interp.updates.values()]
        order = {"param": 0, "input": 1, "random": 2}  # the calling convention of ``run``
        graph.inputs.sort(key=lambda v: order[v.kind])
        graph.verify()
        if ir_dir:  # the IR before the passes, as traced
            texts = {"00_trace.ir": to_text(graph, "traced program, without gradient nodes",
                                            phases=("forward",)),
                     "01_grad.ir": to_text(graph, "with gradient nodes")}
        before = len(graph.nodes)
        stats = optimize(graph)
        if ir_dir:
            self._dumps += 1
            texts["02_opt.ir"] = to_text(graph, f"after passes {stats}")
            _write_texts(ir_dir, {**texts, "graph.dot": to_dot(graph)})
        trace_s = time.perf_counter() - start
        executable = compile_graph(graph, get_context("device_target"), ir_dir,
                                   fingerprint(graph), run=load)
        hit = executable.cache_hit
        cache_stats["disk_hits" if hit else "compiles"] += 1
        summary = {"function": self.name, "nodes_traced": before, "nodes_optimized": len(graph.nodes),
                   "passes": stats, "trace_seconds": round(trace_s, 4),
                   "compile_seconds": round(executable.compile_seconds, 4),
                   "backend_import_seconds": round(import_s, 4),
                   "tune_seconds": round(executable.tune_seconds, 4), "cache_hit": hit,
                   "target": executable.target_name,
                   "params": len(interp.params), "updates": len(updated)}
        if ir_dir:
            _write_texts(ir_dir, {"summary.json": json.dumps(summary, indent=2) + "\n"})
        params = [param for param, _ in interp.params.values()]
        cells = list(interp.cells.values())
        return CompiledGraph(graph, executable, params, interp.random_inputs, updated, slots, rebuild,
                             cells, _guard(cells), summary)

    @property
    def last_summary(self) -> dict[str, Any] | None:
        """The summary of the most recent compilation (None before the first)."""
        return self._latest.summary if self._latest else None


def fingerprint(graph: Graph) -> str:
    """Stable hash of the optimized graph: its text plus every constant's bytes."""
    digest = hashlib.sha256(to_text(graph, locations=False).encode())
    for v in graph.inputs:
        digest.update(f"{v.kind}:{v.dtype}{v.shape}".encode())
    for v in graph.constants():
        digest.update(np.ascontiguousarray(v.data).tobytes())
    return digest.hexdigest()


def _write_texts(directory: str, files: dict[str, str]) -> None:
    from .serialization import atomic_write

    for name, text in files.items():
        atomic_write(os.path.join(directory, name), text.encode())


def jit(fn: Callable[..., Any] | None = None, *, ir_dir: str | None = None,
        **_options: Any) -> Any:
    """Compile ``fn`` with graph mode whatever the context (``@ms.jit`` or ``ms.jit(fn)``)."""
    if fn is None:
        return lambda f: JitFunction(f, ir_dir=ir_dir)
    return JitFunction(fn, ir_dir=ir_dir)
