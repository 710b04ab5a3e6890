"""Per-kernel profile of a compiled train step: a sequence model of bench/seq_engines.py, or
a model of bench/amp.py (ResNet-20, LeNet), in float32 or amp O2 low precision.

    python bench/kernel_profile.py [--model lstm|gpt|resnet20|lenet] [--precision fp32|bf16|fp16]
                                   [--top 30] [--threads N]

TVM 0.27's Relax VM has no profiler; this compiles the step cold (a fresh
$TWINMODE_CACHE_DIR), counts the ``call_tir`` sites of every scheduled PrimFunc in the
module, builds each PrimFunc alone, times it on random inputs of its call's shapes (best of
3 x 5 calls, warm caches) and prints calls x time, heaviest first. The sum is a lower
bound of the step: in the step, operands are colder and the VM adds its per-call cost.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_env  # noqa: E402, F401  (first: --threads sizes the thread pools)
import numpy as np  # noqa: E402
import seq_engines as se  # noqa: E402
import tvm  # noqa: E402
from tvm import relax, tirx  # noqa: E402

import framework as ms  # noqa: E402
from framework.backend.tvm import compiler  # noqa: E402


def best_time(kernel, args: list) -> float:
    """Seconds per call of ``kernel(*args)``, warm: the best of 3 rounds of 5 calls (the
    kernel looked up once by the caller: a lookup per call adds ~9 us)."""
    kernel(*args)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(5):
            kernel(*args)
        best = min(best, (time.perf_counter() - t0) / 5)
    return best


def _sample(shape: list[int], dtype: str) -> np.ndarray:
    """Zeros for integer inputs (indices stay in range), uniform [0, 1) otherwise."""
    if "int" in dtype:
        return np.zeros(shape, dtype)
    return np.asarray(np.random.rand(*shape)).astype(dtype)


@contextlib.contextmanager
def captured_schedules() -> Iterator[dict]:
    """While open, every module the compiler schedules is kept: ``captured["mod"]`` (the
    last one scheduled) and ``captured["target"]``. Only a cold compile schedules."""
    captured: dict = {}
    schedule = compiler.apply_schedules

    def keep(mod, target, *args, **kwargs):  # whatever else the compiler passes, passed on
        out = schedule(mod, target, *args, **kwargs)
        captured["mod"], captured["target"] = out[0], target
        return out

    compiler.apply_schedules = keep
    try:
        yield captured
    finally:
        compiler.apply_schedules = schedule


def call_sites(mod: tvm.IRModule, bind: dict[str, int] | None = None) -> tuple[collections.Counter, dict]:
    """How often the Relax functions of ``mod`` call each PrimFunc, and the (shape, dtype)
    of its arguments and outputs at its first call; symbols by name in ``bind`` (a symbolic
    compile), a call's trailing shape arguments (symbolic extents) kept as ints ("scalars")."""
    bind = bind or {}
    counts, shapes = collections.Counter(), {}
    call_tir = tvm.ir.Op.get("relax.call_tir")
    ops = {"Add": int.__add__, "Sub": int.__sub__, "Mul": int.__mul__, "FloorDiv": int.__floordiv__,
           "FloorMod": int.__mod__, "Max": max, "Min": min}

    def value(d) -> int:  # a shape expression over the symbols, by name
        if isinstance(d, tirx.IntImm):
            return int(d)
        if isinstance(d, tirx.Var):
            return bind[d.name]
        return ops[type(d).__name__](value(d.a), value(d.b))

    def visit(expr) -> None:
        if isinstance(expr, relax.Call) and expr.op.same_as(call_tir):
            name = expr.args[0].name_hint
            counts[name] += 1
            if name not in shapes:
                out = expr.ty_args[0]
                shapes[name] = []
                for a in list(expr.args[1].fields) + (
                        list(out.fields) if isinstance(out, relax.TupleType) else [out]):
                    t = a if isinstance(a, relax.TensorType) else a.ty
                    if not isinstance(t, relax.TensorType):  # a symbol passed as a scalar
                        shapes[name].append(([value(a)], "scalars"))
                        continue
                    shapes[name].append(([value(v) for v in t.shape.values],
                                         str(getattr(t.dtype, "dtype", t.dtype))))
                if len(expr.args) > 2:  # tir_vars: the symbols the kernel takes as scalars
                    shapes[name].append(([value(v) for v in expr.args[2].values], "scalars"))

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return counts, shapes


def symbols(mod: tvm.IRModule) -> set[str]:
    """The names of the symbolic extents of ``mod``'s Relax functions' tensor parameters (a
    step compiled for every batch size has one)."""
    return {d.name for f in mod.functions.values() if isinstance(f, relax.Function)
            for p in f.params if isinstance(p.ty, relax.TensorType)
            for d in p.ty.shape.values if isinstance(d, tirx.Var)}


def profile(mod: tvm.IRModule, target, bind: dict[str, int] | None = None
            ) -> list[tuple[float, float, int, str, list]]:
    """``(calls x seconds, seconds per call, calls, name, shapes)`` per called PrimFunc of
    ``mod``, heaviest first; each built alone and timed best of 3 x 5 calls; symbolic
    extents by name in ``bind`` (:func:`call_sites`)."""
    # as the build pipeline does first: a reshape kernel left unfused becomes a view (no call)
    mod = relax.transform.RewriteDataflowReshape()(mod)
    counts, shapes = call_sites(mod, bind)
    rows = []
    for gv, func in mod.functions.items():
        if not isinstance(func, tirx.PrimFunc) or gv.name_hint not in counts:
            continue
        lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target=target)
        arrays = []
        for s, d in shapes[gv.name_hint]:  # a symbol's values as ints, tensors otherwise
            arrays += [int(v) for v in s] if d == "scalars" else [tvm.runtime.tensor(_sample(s, d))]
        best = best_time(lib["main"], arrays)
        n = counts[gv.name_hint]
        rows.append((best * n, best, n, gv.name_hint, shapes[gv.name_hint]))
    rows.sort(key=lambda r: r[0], reverse=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="lstm", choices=["lstm", "gpt", "resnet20", "lenet"])
    parser.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "fp16"],
                        help="bf16/fp16: the model in amp O2 of that dtype")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--threads", type=int, default=None)  # read by bench_env
    args = parser.parse_args()
    os.environ["TWINMODE_CACHE_DIR"] = tempfile.mkdtemp()  # cold: the step is scheduled
    with captured_schedules() as captured:
        if args.model in ("lstm", "gpt"):
            amp_dtype = {"fp32": None, "bf16": ms.bfloat16, "fp16": ms.float16}[args.precision]
            step, _, _ = se.framework_step(args.model, ms.GRAPH_MODE, amp_dtype)
            batch = se.batch_of(args.model)
        else:  # bench/amp.py's image models
            import amp

            step, batch = amp.our_step(args.model, args.precision), amp._batches(args.model, 1)[0]
        start = time.perf_counter()
        step(*batch)
    print(f"first step (cold compile) {time.perf_counter() - start:.1f} s")
    # a symbolic batch (the image models' steps compile one for every size): this batch's
    bind = {name: len(batch[0]) for name in symbols(captured["mod"])}
    rows = profile(captured["mod"], captured["target"], bind)
    print(f"kernels {len(rows)}, sum {sum(r[0] for r in rows) * 1e3:.1f} ms per step (warm, alone)")
    casts = [r for r in rows if r[3].startswith("cast")]
    print(f"of which {len(casts)} plain casts: {sum(r[0] for r in casts) * 1e3:.2f} ms")
    for total, each, n, name, shapes in rows[:args.top]:
        print(f"{total * 1e3:8.2f} ms {n:5d} x {each * 1e3:7.3f} ms  {name[:70]}  {shapes}"[:200])


if __name__ == "__main__":
    main()
