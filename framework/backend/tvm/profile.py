"""Graph-mode profiling, backend half: which IR nodes each compiled kernel runs, and
each kernel call's time on the Relax VM.

Contracts:

- **Names.** While :mod:`.lower.relax_builder` lowers node ``k`` (its index in
  :func:`framework.profiler.numbered`, the graph's nodes with its regions' nodes, pre-order),
  every binding its :class:`TaggingBuilder` emits without a name of its own is named
  ``n<k>_`` (``n<k>x<m>_`` for a binding standing for several nodes). Node order follows the
  graph's text, which the compile-cache key hashes, so identical graphs get identical
  names (and the same cache entry); names change no computation.
- **Provenance.** :class:`Provenance` is run as two passes: ``before_fuse`` (just before
  FuseOps) resolves the unnamed bindings (Relax's normalizer binds nested calls as ``lv``;
  such a binding belongs to its first consumer) and keys every ``call_tir`` by
  ``(callee, argument names)``; ``after_fuse`` records, for each fused function, the
  nodes of the bindings it holds (FuseOps renames each fused function's output binding,
  found again by that key). :meth:`Provenance.sites` (after scheduling) gives, per kernel
  (PrimFunc) name, its call sites, each a ``{node index: share}`` (shares sum to 1).
- **Split rule.** A fused kernel's time is split among its nodes in proportion to each
  node's estimated work: the FLOPs of its own unfused PrimFunc (TVM's
  ``estimate_tir_flops``) plus the elements that PrimFunc reads and writes. A kernel
  called from several sites (TVM shares structurally equal PrimFuncs, e.g. one ReLU of one
  shape) gives each site an equal part of its time (equal work per call).
- **Timing.** :func:`timed_call` runs a VM function with an instrument that times every
  call instruction (``perf_counter`` around it, device synchronized on a GPU); the
  instrument is removed afterwards, so untimed calls pay nothing. Each interval includes
  the instrument's own cost (about 0.5 us per call on CPU). On CPU the kernel thread pool
  is woken (a tiny parallel kernel, untimed) just before a timed call: its workers sleep
  between calls, and the wake-up (milliseconds on a busy machine) would otherwise be
  credited to whichever kernel comes first (LeNet's conv1).
"""

from __future__ import annotations

import re
import time
from typing import Any

import tvm
import tvm_ffi
from tvm import relax, tirx

_TAG = re.compile(r"^n(\d+(?:x\d+)*)_")
_CALL_TIR = ("relax.call_tir", "relax.call_tir_inplace")


def tag_of(nodes: list[int]) -> str:
    """The name prefix of a binding made for ``nodes``."""
    return "n" + "x".join(str(n) for n in nodes) + "_"


def parse_tag(name: str) -> list[int] | None:
    match = _TAG.match(name)
    return [int(n) for n in match.group(1).split("x")] if match else None


class TaggingBuilder(relax.BlockBuilder):
    """A BlockBuilder naming what it emits after the node being lowered (``tag``)."""

    def __init__(self) -> None:
        super().__init__()
        self.tag = ""

    def emit(self, expr: relax.Expr, name_hint: str = "") -> relax.Var:
        return super().emit(expr, name_hint or self.tag)


def _bindings(func: relax.Function) -> list[relax.Binding]:
    body = func.body
    return [b for block in body.blocks for b in block.bindings] if isinstance(body, relax.SeqExpr) else []


def _call_tir(value: Any) -> tuple[str, tuple[str, ...]] | None:
    """``(callee name, argument names)`` of a ``call_tir`` value, else None."""
    if not isinstance(value, relax.Call) or not isinstance(value.op, tvm.ir.Op):
        return None
    if value.op.name not in _CALL_TIR:
        return None
    args = value.args[1]
    fields = args.fields if isinstance(args, relax.Tuple) else [args]
    return value.args[0].name_hint, tuple(getattr(a, "name", "const") for a in fields)


def _relax_functions(mod: tvm.IRModule) -> list[tuple[str, relax.Function]]:
    return [(gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, relax.Function)]


class Provenance:
    """Node provenance recorded across the pipeline (module docstring)."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[int]] = {}
        self.by_call: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self.fused: dict[str, dict[int, float]] = {}
        self.calls: dict[str, list[dict[int, float]]] = {}  # callee -> its sites, after FuseOps
        self._costs: dict[str, float] = {}

    def passes(self) -> tuple[tvm.transform.Pass, tvm.transform.Pass]:
        """The two recording passes (module unchanged): before and after FuseOps."""
        def before(mod: tvm.IRModule, _ctx: Any) -> tvm.IRModule:
            self.before_fuse(mod)
            return mod

        def after(mod: tvm.IRModule, _ctx: Any) -> tvm.IRModule:
            self.after_fuse(mod)
            return mod

        return (tvm.transform.module_pass(before, opt_level=0, name="RecordNodeNames"),
                tvm.transform.module_pass(after, opt_level=0, name="RecordFusedNodes"))

    def before_fuse(self, mod: tvm.IRModule) -> None:
        for _, func in _relax_functions(mod):
            tags: dict[str, list[int]] = {}
            consumer: dict[str, list[int]] = {}
            for binding in reversed(_bindings(func)):
                name = binding.var.name
                nodes = parse_tag(name) or consumer.get(name)
                if nodes is None:
                    continue
                tags[name] = nodes
                for used in relax.analysis.free_vars(binding.value):
                    consumer[used.name] = nodes  # (walking backwards: the first consumer wins)
            for binding in _bindings(func):
                nodes = tags.get(binding.var.name)
                call = _call_tir(binding.value)
                if nodes is not None:
                    self.by_name.setdefault(binding.var.name, nodes)
                    if call is not None:
                        self.by_call.setdefault(call, nodes)

    def after_fuse(self, mod: tvm.IRModule) -> None:
        functions = _relax_functions(mod)
        for name, func in functions:
            if not _primitive(func):
                continue
            shares: dict[int, float] = {}
            for binding in _bindings(func):
                call = _call_tir(binding.value)
                if call is None:
                    continue
                nodes = self._nodes(binding.var.name, call)
                cost = self._cost(mod, call[0])
                for n in nodes or ():
                    shares[n] = shares.get(n, 0.0) + cost / len(nodes)
            self.fused[name] = _normalized(shares)
        for _, func in functions:  # the call sites, while their bindings still have our names
            if not _primitive(func):
                for binding in _bindings(func):
                    self._site(binding, self.calls)

    def _site(self, binding: relax.Binding, out: dict[str, list[dict[int, float]]]) -> None:
        """The site of ``binding`` (a call_tir, or a call of a fused function) into ``out``."""
        value = binding.value
        if isinstance(value, relax.Call) and isinstance(value.op, relax.GlobalVar):
            callee = value.op.name_hint
            if callee in self.fused:
                out.setdefault(callee, []).append(self.fused[callee])
            return
        call = _call_tir(value)
        if call is None:
            return
        site = self.fused.get(call[0])
        if site is None:
            nodes = self._nodes(binding.var.name, call) or []
            site = {n: 1.0 / len(nodes) for n in nodes}
        out.setdefault(call[0], []).append(site)

    def _nodes(self, name: str, call: tuple[str, tuple[str, ...]] | None) -> list[int] | None:
        found = self.by_call.get(call) if call is not None else None
        return found or parse_tag(name) or self.by_name.get(name)

    def _cost(self, mod: tvm.IRModule, callee: str) -> float:
        """Estimated work of the PrimFunc ``callee``: FLOPs plus elements read and written."""
        if callee not in self._costs:
            func = mod[callee]
            # (a symbolic size's scalar parameter is a Var, not a buffer: no elements)
            elements = sum(_size(_shape(p)) for p in func.params if isinstance(p, tirx.Buffer))
            try:
                flops = float(tvm.s_tir.analysis.estimate_tir_flops(tvm.IRModule({"main": func})))
            except Exception:  # a kernel TVM cannot count (extern calls): its data only
                flops = 0.0
            self._costs[callee] = max(flops + elements, 1.0)
        return self._costs[callee]

    def sites(self, mod: tvm.IRModule) -> dict[str, Any]:
        """``{"kernels": {name: [site, ...]}, "functions": [...]}`` of the scheduled module;
        a site is ``{node index: share}`` ({} when no node could be found)."""
        final: dict[str, list[dict[int, float]]] = {}
        functions = []
        for fname, func in _relax_functions(mod):
            functions.append(fname)
            for binding in _bindings(func):
                self._site(binding, final)
        # the sites seen after FuseOps (names intact) for the kernels still called; a kernel
        # made later (none known) by the names it has now
        kernels = {k: self.calls.get(k, sites) for k, sites in final.items()}
        return {"kernels": {k: [{str(n): s for n, s in site.items()} for site in v]
                            for k, v in kernels.items()},
                "functions": functions}


def _primitive(func: relax.Function) -> bool:
    return bool(func.attrs) and "Primitive" in func.attrs


def _shape(param: Any) -> Any:
    try:
        return param.shape
    except AttributeError:
        return ()


def _size(shape: Any) -> int:
    total = 1
    for dim in shape:
        total *= int(dim) if isinstance(dim, int | tirx.IntImm) else 1
    return total


def _normalized(shares: dict[int, float]) -> dict[int, float]:
    total = sum(shares.values())
    return {n: s / total for n, s in shares.items()} if total else {}


def timed_call(function: Any, vm: Any, device: Any, args: tuple) -> tuple[list[Any], list[tuple[str, float]],
                                                                           float]:
    """``function(*args)`` with every VM call instruction timed: (results, [(symbol,
    seconds)] in call order, wall seconds). Nested calls (a Relax function calling kernels)
    are listed after the calls inside them."""
    sync = device.dlpack_device_type() != tvm.cpu().dlpack_device_type()
    records: list[tuple[str, float]] = []
    starts: list[float] = []
    clock = time.perf_counter

    def instrument(_func: Any, symbol: str, before: bool, _ret: Any, *_args: Any) -> int:
        if sync:
            device.sync()
        if before:
            starts.append(clock())
        else:
            now = clock()
            records.append((symbol, now - starts.pop()))
        return 0

    vm.set_instrument(tvm_ffi.convert(instrument))
    try:
        if not sync:
            wake_thread_pool()
        start = clock()
        results = list(function(*args))
        if sync:
            device.sync()
        wall = clock() - start
    finally:
        vm.set_instrument(None)
    return results, records, wall


_wake: list[Any] = []  # [the compiled waker, its buffer], or [None] when it cannot be built


def wake_thread_pool() -> None:
    """Run a tiny parallel kernel twice, so the CPU thread pool's workers are spinning when
    the timed call's first kernel starts (compiled once per process, ~0.1 s)."""
    if not _wake:
        try:
            import numpy as np
            from tvm.script import tirx as T

            @T.prim_func
            def wake(a: T.Buffer((256,), "float32")) -> None:
                T.func_attr({"global_symbol": "wake", "tir.noalias": True})
                for i in T.parallel(256):
                    a[i] = a[i] + T.float32(1)

            lib = tvm.compile(tvm.IRModule({"wake": wake}), target="llvm")
            _wake.extend([lib["wake"], tvm.runtime.tensor(np.zeros(256, np.float32))])
        except Exception:  # noqa: BLE001 - profiling goes on without it (first kernel wakes the pool)
            _wake[:] = [None]
    if _wake[0] is not None:
        for _ in range(2):
            _wake[0](_wake[1])
