"""The TVM pipeline and schedules: legalize, fuse, then schedule per target."""

from __future__ import annotations

import importlib

import tvm


def apply_schedules(mod: tvm.IRModule, target: tvm.target.Target) -> tuple[tvm.IRModule, float]:
    """Legalize and fuse, then schedule the kernels; returns (module, tuning seconds)."""
    passes = _backend(target)
    with target:
        mod = tvm.transform.Sequential(passes.legalize_passes(target))(mod)
    return mod, 0.0


def build_pipeline(target: tvm.target.Target) -> tvm.transform.Pass:
    """What remains after scheduling: lower dataflow and finalize for the VM."""
    passes = _backend(target)
    return tvm.transform.Sequential(passes.dataflow_lower_passes(target)
                                    + passes.finalize_passes(target))


def _backend(target: tvm.target.Target):
    name = "cuda" if target.kind.name == "cuda" else "cpu_generic"
    return importlib.import_module(f"tvm.relax.backend.{name}.pipeline")
