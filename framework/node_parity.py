"""Node-by-node parity of a compiled function with the NumPy kernels: which IR node's
compiled output differs from what PyNative computes beyond float rounding.

:func:`node_parity` traces ``fn`` on ``args`` (as graph mode does: the optimized graph of
the compiled function) and builds a *debug* copy of that graph whose outputs are every
node's outputs, through the ordinary compile path (``staging.compile_program``, disk cache
included). It runs the debug build once on the current Parameter values, the arguments and
freshly drawn host masks, then evaluates every node with its NumPy kernel **on the
compiled values of its inputs**, so each node's own error is measured, never the error it
inherits from the nodes before it.

Beyond float rounding (per float output, ``u`` the unit roundoff of the output's dtype:
2**-24 for float32, 2**-11 float16, 2**-8 bfloat16): the same kernel is also run in float64
on the same inputs (``r``, the reference). The compiled output ``c`` is beyond rounding when

    max|c - r| > max(NUMPY_FACTOR * max|n - r|,  FLOOR_ULPS * u * max|r|)

with ``n`` the kernel in the output's dtype (what PyNative computes). The first term is the
rounding error NumPy itself makes on these inputs, so it grows with the reduction length and
with cancellation in a sum exactly as much as they matter here; the second is a floor of a
few ulps of the output's magnitude, for kernels that round once (elementwise ops) and for
transcendental approximations. Non-finite values must sit at the same places with the same
values; integer and bool outputs must be equal. A kernel that rejects float64 inputs is
referenced by ``n`` alone (the floor then decides).

Not compared (their compiled outputs still feed the nodes after them): host-random nodes
(``Dropout``, ``Multinomial``: their kernels draw their own randomness), side-effect nodes
(prints; the debug build leaves them out), nodes fed a NaN (an overflowing loss-scaled
step: where a NaN goes, e.g. through a max's argument, is not defined), and nodes whose
kernel raises on the compiled inputs (the reason is kept). Control flow (``If``, ``While``,
``WhileGrad``) is compared as ONE node: its kernel evaluates the regions with NumPy, nodes
inside a region are not bisected, and its floor is multiplied by the number of nodes in its
regions times the trip count (rounding accumulates inside).

The debug build returns every intermediate: its fusion differs from the production build's,
so a difference the production build makes only through fusion (none is known) would not be
seen; it needs the memory of all of one call's intermediates at once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import staging
from .context import get_context
from .errors import shown_path
from .ir import Graph, Value
from .ir.control import ControlFlow, While, WhileGrad, strip_side_effects

NUMPY_FACTOR = 8.0  # the compiled error may be this many times NumPy's own float error
FLOOR_ULPS = 64.0  # ... and at least this many ulps of the output's largest magnitude


def _accumulating_code() -> Any:
    from .ops._utils import float32_accumulation

    return float32_accumulation(lambda self: None).__code__


_ACCUMULATING = _accumulating_code()  # the code of every kernel with float32 accumulation


@dataclass
class NodeCheck:
    """One node output compared: compiled against the NumPy kernel on the same inputs."""

    index: int  # the node's position in the optimized graph
    prim: str
    location: str  # file:line of the user's code ("" when unknown)
    code: str  # that line's source
    cell: str  # the path of the Cell that made it ("" outside any)
    phase: str  # forward, backward, ...
    output: int  # which output of the node
    max_abs: float  # max |compiled - NumPy kernel|
    max_rel: float  # max_abs / max |NumPy kernel|
    error: float  # max |compiled - float64 reference|
    budget: float  # the rounding budget of ``error`` (module docstring)
    note: str = ""  # "control flow: compared as one node", ...

    @property
    def beyond(self) -> bool:
        return not self.error <= self.budget  # NaN counts as beyond

    def lines(self) -> list[str]:
        """What it is, where it was written, how far apart (three lines)."""
        path, _, line = self.location.rpartition(":")
        shown = f"{shown_path(path)}:{line}" if path else self.location
        where = f"{shown}: `{self.code}`" if self.code else (shown or "(no source line)")
        cell = f", cell {self.cell}" if self.cell else ""
        note = f"; {self.note}" if self.note else ""
        apart = (f"max |graph - pynative| {self.max_abs:.3g} (relative {self.max_rel:.3g}); error vs "
                 f"float64 {self.error:.3g} > float rounding budget {self.budget:.3g}")
        if self.max_abs == float("inf"):
            apart = "non-finite values (inf, NaN) at other places or of other signs in the two modes"
        return [f"node {self.index} {self.prim} ({self.phase}{cell}), output {self.output}{note}",
                f"at {where}", apart]

    def describe(self) -> str:
        return "; ".join(self.lines())


@dataclass
class NodeParity:
    """The outcome of :func:`node_parity`."""

    graph: str
    nodes: int
    checks: list[NodeCheck] = field(default_factory=list)
    skipped: list[tuple[int, str, str]] = field(default_factory=list)  # (index, prim, why)
    outputs: dict[int, np.ndarray] = field(default_factory=dict, repr=False)  # value id -> compiled

    @property
    def beyond(self) -> list[NodeCheck]:
        return [c for c in self.checks if c.beyond]

    @property
    def first(self) -> NodeCheck | None:
        """The first node (in execution order) with an output beyond rounding."""
        found = self.beyond
        return found[0] if found else None

    def as_dict(self) -> dict[str, Any]:
        return {"graph": self.graph, "nodes": self.nodes,
                "compared": len({c.index for c in self.checks}),
                "first": dataclasses.asdict(self.first) if self.first else None,
                "beyond": [dataclasses.asdict(c) for c in self.beyond],
                "skipped": [{"index": i, "prim": p, "why": w} for i, p, w in self.skipped]}


def node_parity(fn: Any, *args: Any, device_target: str | None = None) -> NodeParity:
    """Compare every node of ``fn``'s compiled graph on ``args`` with its NumPy kernel (module
    docstring). ``fn``: a Cell (its ``construct``), a function, or an ``ms.jit`` one. The
    Parameters' current values are the state; nothing is updated and the framework's random
    state is left as it was."""
    from . import seed
    from .common.tensor import Tensor
    from .graph_mode import JitFunction
    from .signature import flatten, tensors

    if not isinstance(fn, JitFunction):
        fn = JitFunction(fn.construct) if hasattr(fn, "cells_and_names") else JitFunction(fn)
    program = staging.optimize(staging.assemble(fn.trace(args), fn.name))
    state = seed.get_rng_state()
    try:
        masks = [prim.draw_mask(v.shape, v.dtype) for v, prim in program.random]
    finally:
        seed.set_rng_state(state)
    given = [t._data if isinstance(t, Tensor) else np.asarray(t) for t in tensors(flatten(list(args))[0])]
    arrays = [np.asarray(p.asnumpy()) for p in program.params] + given + masks
    compiled = run_all_nodes(program, arrays, device_target or get_context("device_target"))
    return compare_nodes(program.graph, arrays, compiled)


def debug_graph(graph: Graph) -> Graph:
    """``graph`` without prints, returning the outputs of every node (each once)."""
    plain = strip_side_effects(graph)
    seen: set[int] = set()
    outputs: list[Value] = []
    for node in plain.nodes:
        for v in node.outputs:
            if v.id not in seen:
                seen.add(v.id)
                outputs.append(v)
    return Graph(f"{graph.name}_nodes", list(graph.inputs), list(plain.nodes), outputs)


def run_all_nodes(program: Any, arrays: list[np.ndarray], device_target: str) -> dict[int, np.ndarray]:
    """Build the debug graph of ``program`` and run it on ``arrays``: value id -> output."""
    debug = debug_graph(program.graph)
    executable = staging.compile_program(dataclasses.replace(program, graph=debug), device_target,
                                         None, True)
    results = executable(*[executable.to_device(a) for a in arrays])
    return {v.id: r.numpy() for v, r in zip(debug.outputs, results)}


def compare_nodes(graph: Graph, inputs: list[np.ndarray], compiled: dict[int, np.ndarray]) -> NodeParity:
    """Each node's kernel on the compiled values of its inputs, against its compiled outputs."""
    out = NodeParity(graph.name, len(graph.nodes), outputs=compiled)
    env = {v.id: np.asarray(a) for v, a in zip(graph.inputs, inputs)}
    env.update(compiled)
    for index, node in enumerate(graph.nodes):
        why = _not_compared(node, compiled)
        if why:
            out.skipped.append((index, node.prim.name, why))
            continue
        prim = node.prim.without_side_effects() if isinstance(node.prim, ControlFlow) else node.prim
        values = [v.data if v.kind == "const" else env[v.id] for v in node.inputs]
        if any(_has_nan(a) for a in values):
            out.skipped.append((index, node.prim.name, "NaN among its inputs (where a NaN goes, "
                                                       "e.g. a max's argument, is not defined)"))
            continue
        try:
            plain = _outputs(prim.kernel(*values))
        except Exception as error:  # e.g. an index the compiled code clipped
            out.skipped.append((index, node.prim.name, f"its kernel raised {type(error).__name__}: "
                                                       f"{str(error).splitlines()[0] if str(error) else ''}"))
            continue
        exact, terms = _references(prim, values, plain)
        factor, note = _control_factor(node, compiled)
        for k, v in enumerate(node.outputs):
            out.checks.append(_check(index, node, k, compiled[v.id], np.asarray(plain[k]).astype(v.dtype),
                                     (np.asarray(exact[k]), terms[k]), factor, note))
    return out


def _references(prim: Any, values: list[Any], plain: tuple) -> tuple[tuple, list[float | None]]:
    """The kernel in float64 (``plain`` where it takes no float64) and, for accumulating
    kernels, the largest magnitude of their terms per output (the kernel on |inputs|)."""
    try:
        exact = _outputs(prim.kernel(*[_widen(a) for a in values]))
    except Exception:  # a kernel that takes no float64: NumPy's own result is the reference
        exact = plain
    terms: list[float | None] = [None] * len(exact)
    if getattr(type(prim).kernel, "__code__", None) is _ACCUMULATING:
        try:
            sums = _outputs(prim.kernel(*[np.abs(_widen(a)) if _unit_roundoff(np.asarray(a).dtype)
                                          else a for a in values]))
            terms = [_largest(np.asarray(t)) for t in sums]
        except Exception:  # (a kernel that rejects the absolute values: the output's scale)
            pass
    return exact, terms


def _largest(a: np.ndarray) -> float | None:
    finite = np.abs(a[np.isfinite(a)]) if a.dtype.kind in "fc" and a.size else np.empty(0)
    return float(finite.max()) if finite.size else None


def _not_compared(node: Any, compiled: dict[int, np.ndarray]) -> str:
    if node.prim.host_random:
        return "host-random (its kernel draws its own randomness)"
    if not node.outputs:
        return "no outputs (a print)"
    if any(v.id not in compiled for v in node.outputs):
        return "not in the debug build (a print)"
    return ""


def _has_nan(array: Any) -> bool:
    a = np.asarray(array)
    return _unit_roundoff(a.dtype) is not None and bool(np.isnan(a.astype(np.float32)).any())


def _outputs(result: Any) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def _widen(array: Any) -> Any:
    a = np.asarray(array)
    return a.astype(np.float64) if _unit_roundoff(a.dtype) is not None else a


def _unit_roundoff(dtype: Any) -> float | None:
    """Half the machine epsilon of a float dtype (bfloat16 through ml_dtypes); None otherwise."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return float(np.finfo(dtype).eps) / 2
    if dtype.kind == "V" or dtype.name == "bfloat16":
        import ml_dtypes

        try:
            return float(ml_dtypes.finfo(dtype).eps) / 2
        except ValueError:
            return None
    return None


def _control_factor(node: Any, compiled: dict[int, np.ndarray]) -> tuple[float, str]:
    """Floor multiplier and note of a control-flow node (rounding accumulates in its regions)."""
    prim = node.prim
    if not isinstance(prim, ControlFlow):
        return 1.0, ""
    size = _region_nodes(prim)
    trips = 1
    if isinstance(prim, While):
        trips = int(compiled[node.outputs[-1].id])
    elif isinstance(prim, WhileGrad):
        trips = int(np.asarray(compiled.get(node.inputs[prim.n_carried + prim.n_invariants].id, 1)))
    return float(max(size, 1) * max(trips, 1)), (f"control flow: compared as one node ({size} nodes "
                                                 f"in its regions, not bisected inside)")


def _region_nodes(prim: Any) -> int:
    return sum(len(g.nodes) + sum(_region_nodes(n.prim) for n in g.nodes if n.prim.regions)
               for g in prim.regions)


def _check(index: int, node: Any, k: int, c: np.ndarray, n: np.ndarray, ref: tuple, factor: float,
           note: str) -> NodeCheck:
    loc = node.location
    where = f"{loc.filename}:{loc.lineno}" if loc is not None else ""
    code = loc.code if loc is not None else ""
    max_abs, max_rel, error, budget = _measure(np.asarray(c), n, ref, _unit_roundoff(n.dtype), factor)
    return NodeCheck(index, node.prim.name, where, code, node.cell, node.phase, k, max_abs, max_rel,
                     error, budget, note)


def _measure(c: np.ndarray, n: np.ndarray, ref: tuple, u: float | None, factor: float
             ) -> tuple[float, float, float, float]:
    """(max |c - n|, relative to max |n|, max |c - r|, its budget); integers: exact. ``ref``:
    the float64 result ``r`` and the largest magnitude of the terms (None: of ``r``)."""
    r, terms = ref
    if c.size == 0:
        return 0.0, 0.0, 0.0, 0.0
    c64, n64 = c.astype(np.float64), n.astype(np.float64)
    r64 = r.astype(np.float64) if u is not None else n64
    finite = np.isfinite(c64) & np.isfinite(n64)
    if not np.array_equal(np.isfinite(c64), np.isfinite(n64)) or not np.array_equal(
            c64[~finite], n64[~finite], equal_nan=True):
        return float("inf"), float("inf"), float("inf"), 0.0
    if not finite.any():
        return 0.0, 0.0, 0.0, 0.0
    c64, n64, r64 = c64[finite], n64[finite], r64[finite]
    if not np.isfinite(r64).all():  # float64 went elsewhere: NumPy's own result is the reference
        r64 = n64
    max_abs = float(np.max(np.abs(c64 - n64)))
    max_rel = max_abs / max(float(np.max(np.abs(n64))), np.finfo(np.float64).tiny)
    error = float(np.max(np.abs(c64 - r64)))
    if u is None:  # integers, bools: equal or not
        return max_abs, max_rel, error, 0.0
    own = float(np.max(np.abs(n64 - r64)))
    scale = max(float(np.max(np.abs(r64))), terms or 0.0)
    budget = max(NUMPY_FACTOR * own, FLOOR_ULPS * factor * u * scale)
    return max_abs, max_rel, error, budget
