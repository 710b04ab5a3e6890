"""The TVM pipeline and schedules: legalize, fuse, then schedule per target.

On CPU every kernel gets a default schedule from :mod:`.cpu_rules` (no search). With the
context key ``tuning`` set (trials per heavy task, or ``'<N>s'`` seconds in all),
:mod:`.tuning` first measures variants of those rules and MetaSchedule candidates for the
heavy kernels, keeping the records in a database on disk; each kernel then gets its fastest
record. On GPU the backend's dlight rules schedule everything.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from pathlib import Path
from typing import Any

import tvm
from tvm import relax

from ...._io import disk_full, skip_optional
from ....context import get_context
from ..lower.inlining import inline_marked
from . import (cpu_rules, cuda_graph, early_contractions, flash_attention, padded_casts, row_tails,
               shared_casts, size_guard, tensor_cores, vector_math)
from .vector_tails import peel_module

# framework modules outside the backend whose values the lowerings compile into kernels
BAKED_IN = (Path(__file__).parents[3] / "ops" / "int_edges.py",)


@functools.cache
def backend_digest() -> str:
    """Hash of this backend's source (lowerings, rules, kernels, pipeline) and of
    ``BAKED_IN``: any edit to them changes the compile-cache key, so stale libraries are
    never loaded."""
    digest = hashlib.sha256()
    root = Path(__file__).parents[1]  # the whole backend: lower/, schedule/, runtime/
    for path in sorted(root.rglob("*.py")):  # lowerings/ too
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    for path in BAKED_IN:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def schedule_key(target: tvm.target.Target) -> str:
    """What besides the graph decides the compiled code: backend source and tuning budget."""
    if target.kind.name != "llvm":
        return backend_digest()
    return f"{backend_digest()}/tuning={get_context('tuning')}"


def apply_schedules(mod: tvm.IRModule, target: tvm.target.Target, provenance: Any = None
                    ) -> tuple[tvm.IRModule, float]:
    """Legalize and fuse, then schedule the kernels; returns (module, tuning seconds).
    ``provenance`` (a ``..profile.Provenance``) records which nodes each kernel runs: its
    two passes go just before and after FuseOps."""
    passes = _legalize_passes(target)
    if provenance is not None:
        at = next(i for i, p in enumerate(passes) if p.info.name == "FuseOps")
        before, after = provenance.passes()
        passes = passes[:at] + [before, passes[at], after] + passes[at + 1:]
    if target.kind.name == "llvm":
        passes.append(shared_casts.share_conversions)  # one float32 copy per value and block
        passes.append(padded_casts.fold_padded_casts)  # 16-bit operands widened as they are padded
        passes.append(early_contractions.hoist_contractions)  # matmuls where operands are hot
    with target:
        mod = tvm.transform.Sequential(passes)(mod)
    if target.kind.name != "llvm":
        return mod, 0.0
    vector_math.install()  # vector exp/erf in every LLVM build from here on
    tune_seconds = 0.0
    tuning = get_context("tuning")
    if tuning != "off":
        from . import tuning as _tuning

        try:
            mod, tune_seconds = _tuning.tune_and_apply(mod, target, tuning)
        except Exception as error:  # its database is kept in the kernel cache
            reason = disk_full(error)
            if reason is None:
                raise
            skip_optional("kernel tuning database in", _tuning.cache_dir(), reason,
                          "tuning is skipped: the kernels keep their default schedules")
    # symbolic sizes: parallel loops run serial below the rules' work threshold,
    # vector loops over symbolic extents peeled into whole vectors and a scalar tail,
    # register tiles over them into whole tiles and a tail tile
    scheduled = row_tails.peel_module(peel_module(cpu_rules.schedule_module(mod, target)))
    return size_guard.guard_module(scheduled), tune_seconds


def build_pipeline(target: tvm.target.Target, launches: dict | None = None) -> tvm.transform.Pass:
    """What remains after scheduling: lower dataflow and finalize for the VM. On CUDA the
    kernel launches per step are counted into ``launches`` (cuda_graph.launch_counts)."""
    passes = _backend(target)
    lower = passes.dataflow_lower_passes(target)
    after = 1 + next(i for i, p in enumerate(lower) if p.info.name == "ToNonDataflow")
    count = []
    if launches is not None and target.kind.name == "cuda":
        @tvm.transform.module_pass(opt_level=0, name="CountKernelLaunches")
        def count_launches(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
            launches.update(cuda_graph.launch_counts(mod))
            return mod
        count = [count_launches]
    return tvm.transform.Sequential(lower[:after] + [inline_marked] + lower[after:]
                                    + passes.finalize_passes(target) + count)


def _legalize_passes(target: tvm.target.Target) -> list:
    """The backend's legalize passes; on GPU its dlight rules are wrapped so that a rule
    that raises on a kernel (TVM_NOTES pitfall 7) passes it on to the next one.

    Relax's ``FoldConstant`` is left out: it evaluates every call whose arguments are all
    constants by building that kernel with LLVM on the spot (about a second each); a
    ResNet's zero cotangents (BatchNorm's unused mean/variance outputs, one per layer) cost
    ~17 s of compile that way. Our IR folds its own constants before lowering; what is
    left (creating small zero or one tensors) runs in microseconds per step."""
    backend = _backend(target)
    # library dispatch first: sort/argsort/topk/cumsum (TopK, Sort, Multinomial) have no
    # LegalizeOps rule; DispatchSortScan turns them into TOPI kernels
    passes = backend.library_dispatch_passes(target)
    for p in backend.legalize_passes(target):
        if p.info.name == "FuseOps":  # bindings nothing reads (an eval graph's) would stay unfused
            passes.append(relax.transform.DeadCodeElimination())
        if p.info.name == "LegalizeOps":
            p = relax.transform.LegalizeOps({"relax.reshape": _reshape_view})
        if p.info.name != "FoldConstant":
            passes.append(p)
    if target.kind.name != "cuda":
        return passes
    from tvm.s_tir import dlight as dl

    # 16-bit GEMMs on the tensor cores: their operand casts folded first (tensor_cores.py)
    rules = [tensor_cores.TensorCoreMatmul(), dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
             dl.gpu.GeneralReduction()]
    kept = [p for p in passes if not isinstance(p, dl.ApplyDefaultSchedule)]
    # attention as one kernel first: the operand-cast folding would hide its pattern
    return ([flash_attention.fuse_causal_attention, tensor_cores.fold_operand_casts] + kept
            + [dl.ApplyDefaultSchedule(*[_Tolerant(rule) for rule in rules], dl.gpu.Fallback())])


def _reshape_view(bb: relax.BlockBuilder, call: relax.Call) -> relax.Expr:
    """A reshape of a symbolic shape (framework/ir/symbolic.py) is a kernel with per-group
    indices (lower/symbolic_reshape.py): TOPI's indexes through ``// t % n``, which
    RewriteDataflowReshape cannot prove a view. Shapes it cannot group stay ``R.reshape``,
    a view. A static one is TOPI's kernel as before (fused into its consumers, or made a
    view)."""
    shapes = [call.args[0].ty.shape, call.ty.shape]
    if all(isinstance(s, relax.ShapeExpr) and all(isinstance(d, tvm.tirx.IntImm) for d in s.values)
           for s in shapes):
        from tvm import topi
        from tvm.relax.transform.legalize_ops.manipulate import _reshape

        return _reshape(topi.reshape, "reshape")(bb, call)
    from ..lower.symbolic_reshape import reshape_kernel

    kernel = reshape_kernel(bb, call)  # grouped indices: fuses, or becomes a view again
    return call if kernel is None else kernel


class _Tolerant:
    """A dlight rule that answers None (next rule) where the wrapped rule raises."""

    def __init__(self, rule) -> None:
        self.rule = rule

    def apply(self, func, target, tunable):
        try:
            return self.rule.apply(func, target, tunable)
        except Exception:
            return None


def _backend(target: tvm.target.Target):
    name = "cuda" if target.kind.name == "cuda" else "cpu_generic"
    return importlib.import_module(f"tvm.relax.backend.{name}.pipeline")
