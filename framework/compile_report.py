"""What one graph-mode compilation did: :class:`CompileReport`, a typed value.

Its stages follow JAX's (traced, lowered, compiled), in our words: load the backend (TVM
is imported on first use), trace (the Python source to our IR), optimize (the IR passes),
lower + build (IR to Relax, then the compiled library, or its load from the disk cache).
``JitFunction.compile`` returns one and ``JitFunction.last_report`` keeps the latest;
``summary.json`` in the IR artifacts is :meth:`CompileReport.as_dict`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CompileReport:
    function: str  # the compiled function's name
    target: str  # "llvm" or "cuda"
    nodes_traced: int
    nodes_optimized: int
    params: int  # Parameters the compiled graph reads
    updates: int  # Parameters it writes (optimizer state, weights)
    backend_import_seconds: float
    trace_seconds: float  # source -> IR, the optimization passes excluded
    optimize_seconds: float
    compile_seconds: float  # lower to Relax + build (or load)
    tune_seconds: float = 0.0  # kernel tuning, part of compile_seconds
    cache_hit: bool = False  # the library came from the disk cache
    passes: dict[str, Any] = field(default_factory=dict)  # pass name -> what it changed
    # CUDA: kernel launches per step without / with the CUDA graph (backend cuda_graph.py)
    launches: dict[str, Any] | None = None
    # value-dependent ops (ops/host_split.py) this segment takes the host answers of: op,
    # source line, answer shapes; and the one it stops before (a segment before a split)
    splits: tuple[dict[str, Any], ...] = ()
    split_before: dict[str, Any] | None = None
    # symbolic dimensions (framework/ir/symbolic.py): per tensor argument its symbolic axes,
    # [] when compiled for its shapes; why a function with dynamic axes compiles per size
    # (or, with its symbolic_axes, which axis compiles per size: "axis t per size (...)")
    symbolic_axes: list[list[int]] = field(default_factory=list)
    symbolic_fallback: str | None = None

    @property
    def stages(self) -> dict[str, float]:
        """Stage -> seconds, in the order they run."""
        return {"load backend": self.backend_import_seconds, "trace": self.trace_seconds,
                "optimize": self.optimize_seconds, "lower + build": self.compile_seconds}

    @property
    def total_seconds(self) -> float:
        return sum(self.stages.values())

    def as_dict(self) -> dict[str, Any]:
        """JSON data (``summary.json``)."""
        data = {**asdict(self), "total_seconds": round(self.total_seconds, 4)}
        data["splits"] = list(data["splits"])
        return data
