"""Kernel by kernel: the character GPT's train step compiled once with batch and length
symbolic against a compile specialised to one length (bench/symbolic_batch.py's models);
``--model lstm_lm``: the character LSTM's step symbolic in the batch (a compile per length:
graph_symbolic's partial symbolic compile) against one specialised to ``--batch``.

    PYTHONPATH=. nice python bench/symbolic_kernels.py [--model gpt|lstm_lm] [--length 64]
        [--batch 32] [--top 25]

Both compiles are cold (a fresh $TWINMODE_CACHE_DIR); each scheduled PrimFunc is built
alone and timed on random inputs of its first call's shapes (bench/kernel_profile.py), the
symbolic ones with the symbols bound to this batch and length (by the values the step's
inputs give them: the kernels' shapes are solved from the call's argument shapes). Prints
kernel count, per-kernel sum and the heaviest kernels of each compile.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import tvm  # noqa: E402
from kernel_profile import _sample, best_time, call_sites, captured_schedules  # noqa: E402
from symbolic_batch import GPT_BATCH, GPT_CONTEXT, GPT_VOCAB, make_step  # noqa: E402
from tvm import relax, tirx  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor  # noqa: E402


def profile(mod: tvm.IRModule, target, bind: dict[str, int]) -> list:
    """(calls x seconds, seconds, calls, name) per called PrimFunc, heaviest first."""

    counts, shapes = call_sites(mod, bind)
    rows = []
    for gv, func in mod.functions.items():
        if not isinstance(func, tirx.PrimFunc) or gv.name_hint not in counts:
            continue
        lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target=target)
        args = []
        for s, d in shapes[gv.name_hint]:
            args.extend(s) if d == "scalars" else args.append(tvm.runtime.tensor(_sample(s, d)))
        best = best_time(lib["main"], args)
        rows.append((best * counts[gv.name_hint], best, counts[gv.name_hint], gv.name_hint))
    rows.sort(key=lambda r: r[0], reverse=True)
    return rows


def compiled(model: str, batch: int, length: int, symbolic: bool):
    os.environ["TWINMODE_CACHE_DIR"] = tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    x, y = (Tensor(rng.integers(0, GPT_VOCAB, (batch, length)).astype(np.int32)) for _ in "xy")
    step = make_step(model)
    if symbolic:
        tokens = Tensor(shape=[None, None], dtype=ms.int32)
        step.set_inputs(tokens, tokens)
    with captured_schedules() as captured:
        step(x, y)  # two tensors: one given twice is not compiled symbolic
    return captured["mod"], captured["target"]


def symbols(mod: tvm.IRModule) -> list[str]:
    """Names of the symbolic extents of the step's parameters (batch first, then length)."""
    main = next(f for gv, f in mod.functions.items() if isinstance(f, relax.Function)
                and gv.name_hint == "main")
    names = []
    for p in main.params:
        shape = getattr(p.ty, "shape", None)
        for d in shape.values if hasattr(shape, "values") else []:
            if isinstance(d, tirx.Var) and d.name not in names:
                names.append(d.name)
    return names


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=("gpt", "lstm_lm"), default="gpt")
    parser.add_argument("--length", type=int, default=None, help="default: the context, 64")
    parser.add_argument("--batch", type=int, default=None, help="default: 12 (gpt), 32 (lstm_lm)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", default=None, help="folder: each scheduled module's script")
    args = parser.parse_args()
    length = args.length or GPT_CONTEXT
    batch = args.batch or (GPT_BATCH if args.model == "gpt" else 32)
    ms.set_context(mode=ms.GRAPH_MODE)
    for symbolic in (False, True):
        mod, target = compiled(args.model, batch, length, symbolic)
        names = symbols(mod) if symbolic else []
        bind = dict(zip(names, (batch, length)))
        if args.dump:
            Path(args.dump).mkdir(parents=True, exist_ok=True)
            Path(args.dump, "symbolic.py" if symbolic else "per_size.py").write_text(mod.script())
        mod = relax.transform.RewriteDataflowReshape()(mod)  # as the build does: views
        rows = profile(mod, target, bind)
        print(f"{'symbolic' if symbolic else 'per-size'} {bind}: kernels {len(rows)}, calls "
              f"{sum(r[2] for r in rows)}, sum {sum(r[0] for r in rows) * 1e3:.1f} ms")
        for total, each, n, name in rows[:args.top]:
            print(f"  {total * 1e3:7.2f} ms {n:4d} x {each * 1e3:7.3f}  {name[:90]}")


if __name__ == "__main__":
    main()
