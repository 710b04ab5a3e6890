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
from .interpreters import current, using
from .interpreters.trace import TraceInterpreter
from .ir import Graph, Value, optimize, to_dot, to_text
from .tensor import Tensor

# Compile-cache counters (tests read them): memory hits, disk hits, fresh compiles.
cache_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0, "traces": 0}


def is_tracing() -> bool:
    return isinstance(current(), TraceInterpreter)


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
    if isinstance(arg, Tensor | np.ndarray):
        data = arg._data if isinstance(arg, Tensor) else arg
        return ("tensor", tuple(data.shape), str(data.dtype))
    if isinstance(arg, tuple | list):
        return (type(arg).__name__, tuple(_arg_key(a) for a in arg))
    try:
        hash(arg)
        return ("const", arg)
    except TypeError:
        return ("const", repr(arg))


@dataclass
class CompiledGraph:
    """One traced + compiled signature of a JitFunction."""

    graph: Graph
    executable: Any
    params: list[Any]  # Parameters in graph-input order
    n_inputs: int  # call tensors, after the params
    random: list[tuple[Value, Any]]  # host-drawn masks, after the call tensors
    updated: list[Any]  # Parameters whose new values follow the user outputs
    n_outputs: int
    rebuild: Callable[[list[Any]], Any]
    const_outputs: dict[int, np.ndarray] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    def run(self, tensors: list[Any]) -> Any:
        ex = self.executable
        args = [ex.param_array(p) for p in self.params]
        args += [ex.to_device(t._data if isinstance(t, Tensor) else np.asarray(t)) for t in tensors]
        args += [ex.to_device(prim.draw_mask(v.shape, v.dtype)) for v, prim in self.random]
        results = ex(*args)
        for param, array in zip(self.updated, results[self.n_outputs:]):
            param._set_device(array)
        leaves = []
        for i in range(self.n_outputs):
            if i in self.const_outputs:
                leaves.append(Tensor(self.const_outputs[i]))
            else:
                leaves.append(Tensor._wrap(results[i].numpy()))
        return self.rebuild(leaves)


class JitFunction:
    """A callable compiled per input signature (shapes, dtypes, constants, train flags)."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None,
                 ir_dir: str | None = None, cell: Any = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", "function").replace(".", "_")
        self.ir_dir = ir_dir
        self.cell = cell if cell is not None else getattr(fn, "__self__", None)
        self._cache: dict[Any, CompiledGraph] = {}
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
        from .nn.cell import Cell

        flags = ()
        if isinstance(self.cell, Cell):
            flags = tuple(c.training for _, c in self.cell.cells_and_names())
        return (tuple(_arg_key(a) for a in args), flags, get_context("device_target"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{self.name}: graph mode takes positional arguments only")
        if is_tracing():  # called inside another traced function: inline it
            return self.fn(*args)
        key = self._signature(args)
        compiled = self._cache.get(key)
        self.last_call_compiled = compiled is None
        if compiled is None:
            compiled = self._compile(args)
            self._cache[key] = compiled
        else:
            cache_stats["memory_hits"] += 1
        tensors = [a for a in _flatten(list(args))[0] if isinstance(a, Tensor | np.ndarray)]
        return compiled.run(tensors)

    def compile(self, *args: Any, load: bool = True) -> dict[str, Any]:
        """Trace and compile for these arguments' signature without running; the summary.

        ``load=False`` only builds (and writes IR artifacts): CUDA code can be generated
        on a machine without a GPU.
        """
        key = self._signature(args)
        if not load:
            return self._compile(args, load=False).summary
        if key not in self._cache:
            self._cache[key] = self._compile(args)
        return self._cache[key].summary

    # -- tracing and compiling ---------------------------------------------------------------
    def _ir_dir(self) -> str | None:
        if self.ir_dir is not None:
            return self.ir_dir
        if get_context("save_graphs"):
            return os.path.join(get_context("save_graphs_path"), self.name)
        return None

    def trace(self, args: tuple) -> tuple[Graph, TraceInterpreter, Callable, list]:
        graph = Graph(self.name)
        ir_dir = self._ir_dir()
        interp = TraceInterpreter(graph, fail_dir=ir_dir or get_context("save_graphs_path"))
        leaves, rebuild_args = _flatten(list(args))
        traced_leaves = []
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Tensor | np.ndarray):
                data = leaf._data if isinstance(leaf, Tensor) else leaf
                value = graph.add_input(data.shape, data.dtype, "input", f"arg{i}")
                traced_leaves.append(Tensor._wrap(value))
            else:
                traced_leaves.append(leaf)
        cache_stats["traces"] += 1
        with using(interp):
            try:
                out = self.fn(*rebuild_args(traced_leaves))
            finally:
                interp.restore_parameters()
        out_leaves, rebuild_out = _flatten(out)
        return graph, interp, rebuild_out, out_leaves

    def _compile(self, args: tuple, load: bool = True) -> CompiledGraph:
        start = time.perf_counter()
        from .backend.tvm.compiler import compile_graph  # TVM loads on first use (~1 s)

        import_s = time.perf_counter() - start
        start = time.perf_counter()
        graph, interp, rebuild, out_leaves = self.trace(args)
        const_outputs: dict[int, np.ndarray] = {}
        outputs: list[Value] = []
        for i, leaf in enumerate(out_leaves):
            if isinstance(leaf, Tensor) and isinstance(leaf._data, Value):
                outputs.append(leaf._data)
            elif isinstance(leaf, Tensor | np.ndarray):
                data = leaf._data if isinstance(leaf, Tensor) else leaf
                const_outputs[i] = np.asarray(data)
                outputs.append(Value(data.shape, data.dtype, kind="const", data=np.asarray(data)))
            else:
                raise TypeError(f"{self.name}: graph mode returns Tensors (or tuples/lists/dicts "
                                f"of them), got a {type(leaf).__name__}")
        updated = [param for param, _ in interp.updates.values()]
        graph.outputs = outputs + [value for _, value in interp.updates.values()]
        order = {"param": 0, "input": 1, "random": 2}  # the calling convention of ``run``
        graph.inputs.sort(key=lambda v: order[v.kind])
        graph.verify()
        ir_dir = self._ir_dir()
        texts = {"00_trace.ir": to_text(graph, "traced program, without gradient nodes",
                                        phases=("forward",)),
                 "01_grad.ir": to_text(graph, "with gradient nodes")}
        before = len(graph.nodes)
        stats = optimize(graph)
        texts["02_opt.ir"] = to_text(graph, f"after passes {stats}")
        if ir_dir:
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
        n_call = sum(1 for v in graph.inputs if v.kind == "input")
        return CompiledGraph(graph, executable, params, n_call, interp.random_inputs, updated,
                             len(out_leaves), rebuild, const_outputs, summary)

    @property
    def last_summary(self) -> dict[str, Any] | None:
        if not self._cache:
            return None
        return list(self._cache.values())[-1].summary


def fingerprint(graph: Graph) -> str:
    """Stable hash of the optimized graph: its text plus every constant's bytes."""
    digest = hashlib.sha256(to_text(graph, locations=False).encode())
    for v in graph.inputs:
        digest.update(f"{v.kind}:{v.dtype}{v.shape}".encode())
    for v in graph.constants():
        digest.update(np.ascontiguousarray(v.data).tobytes())
    return digest.hexdigest()


def _write_texts(directory: str, files: dict[str, str]) -> None:
    os.makedirs(directory, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)


def jit(fn: Callable[..., Any] | None = None, *, ir_dir: str | None = None,
        **_options: Any) -> Any:
    """Compile ``fn`` with graph mode whatever the context (``@ms.jit`` or ``ms.jit(fn)``)."""
    if fn is None:
        return lambda f: JitFunction(f, ir_dir=ir_dir)
    return JitFunction(fn, ir_dir=ir_dir)
