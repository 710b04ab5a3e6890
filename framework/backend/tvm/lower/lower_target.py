"""The target a graph is being lowered for, as the lowerings may ask it (a leaf module)."""

from __future__ import annotations

import tvm


def on_cpu() -> bool:
    """Whether the graph is lowered for the CPU (LLVM): the compiler lowers inside its
    target's scope; no target (tests, tools) means the CPU. Kernels written as already
    scheduled loops (row_scatter) or with several blocks (concat_copies) are CPU-only:
    on CUDA their loops would run on the host, over device memory."""
    target = tvm.target.Target.current(allow_none=True)
    return target is None or target.kind.name == "llvm"
