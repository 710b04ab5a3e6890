"""Graph mode on a CUDA GPU, checked on a machine that has the GPU but not the TVM compiler.

The TVM wheel (its compiler) does not travel to the lent GPU machines; its runtime does.
So the check is in two halves:

``prepare --out DIR`` (here, with the compiler, no GPU needed): for each model, our
graph-mode train step is compiled for target ``cuda`` (``$TWINMODE_CUDA_ARCH``, sm_90 by
default) and a bundle is written to ``DIR/<model>/``: the exported library, the initial
parameters in the compiled function's input order, a few batches, the calling convention
(which outputs are the loss and the new parameter values) and, as the reference, the losses
of the same steps in graph mode on the CPU. PyTorch-named weights go along for the baseline.

- ``lenet``: the tutorial's LeNet-5 step (``bench/engines.py``: cross-entropy, Momentum
  0.01/0.9, batch 32 of 1x32x32);
- ``gpt``: nanoGPT's character model step (``bench/seq_engines.py``: AdamW, global-norm
  clip 1.0, batch 12 x 64 tokens);
- ``lstm``: the 2-layer LSTM language model step (the same file: hidden 256, batch 32 x 64
  tokens, the time loop unrolled into the one function);
- ``lenet-nocapture``: LeNet built with ``TWINMODE_CUDA_GRAPH=0`` (a launch per kernel), to
  time what replaying the step as one CUDA graph (the default) saves;
- ``gpt-bf16``: the character GPT in amp O2 bfloat16 (its GEMMs on the tensor cores); its
  reference is the same step in bfloat16 on the CPU, PyTorch's runs under ``autocast``;
- ``gpt2``, ``resnet50``: GPT-2 small (124M, batch 8 x 1024) and ResNet-50 (224x224, batch
  64) in amp O2 bfloat16 (``gpu_models.py``): random weights and data drawn on the GPU
  machine from recipes in the bundle (no CPU reference: too slow here; PyTorch float32,
  bf16 eager and ``torch.compile`` on the same GPU are the references), timed within a
  budget each (``--budget``), with tokens or images per second and model FLOP utilisation;
  asked for by name (``prepare --models gpt2,resnet50``), a bundle of their own.

Each step's kernel launches per step (the compile report's ``launches``) are printed here and
kept in the bundle.

``run --bundle DIR`` (on the GPU machine: NumPy, nvcc, the TVM runtime alone from
``DIR/site`` plus an ``apache-tvm-ffi`` wheel for its Python, PyTorch if present):
loads each library on ``cuda(0)`` through the runtime-only TVM, runs the steps with the
parameters resident on the GPU (only batches cross), checks each step's loss against the
CPU's, then times the step side by side with PyTorch eager on the same GPU (same weights,
same batch; interleaved rounds, medians) and prints one line per model.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import gpu_models
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
MODELS = ("lenet", "lenet-nocapture", "gpt", "gpt-bf16", "lstm", *gpu_models.MODELS)
# prepared unless ``--models`` says otherwise: gpt-bf16 is asked for by name while its CUDA
# build (the TIR lowering of the bfloat16 step) can take many minutes on a loaded machine
# gpt2 and resnet50 too are asked for by name: a bundle must fit the 64 MiB that a device
# call carries (the runtime 16 MB, gpt2 about 7, resnet50 about 9, the small four about 30)
DEFAULT_MODELS = ("lenet", "lenet-nocapture", "gpt", "lstm")
BUDGET = {"gpt2": 150.0, "resnet50": 120.0}  # seconds each on the GPU, load and references included
CHECK_STEPS = 6  # steps whose losses are compared with the CPU's
# worst relative difference from the CPU's losses: float32 alike; bfloat16 sums in another order
TOLERANCE = {"gpt-bf16": 1e-2}


def _base(model: str) -> str:
    return model.split("-")[0]


# ---------------------------------------------------------------- prepare (with the compiler)
def _batches(model: str, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    model = _base(model)
    if model in ("gpt", "lstm"):
        import seq_engines

        return [seq_engines.batch_of(model, seed) for seed in range(n)]
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((32, 1, 32, 32)).astype(np.float32),
             rng.integers(0, 10, 32).astype(np.int32)) for _ in range(n)]


def _framework_step(model: str):
    """``(JitFunction of our graph-mode step, torch-named initial weights)``."""
    import framework as ms

    amp = ms.bfloat16 if model.endswith("-bf16") else None
    model = _base(model)
    if model in ("gpt", "lstm"):
        import seq_engines

        _, compiled, net = seq_engines.framework_step(model, ms.GRAPH_MODE, amp)
        return compiled, seq_engines.torch_state(net)
    import engines

    _, compiled, params = engines.framework_step(ms.GRAPH_MODE)
    return compiled, params


def _layout(compiled) -> dict:
    """The compiled function's calling convention, read off its Program."""
    from framework.staging import Slot

    program = compiled._latest.program
    if program.random:
        raise SystemExit(f"{compiled.name}: host-drawn random masks are not shipped by this check")
    (slot, loss_output), = program.slots  # the step returns the loss alone
    assert slot is Slot.GRAPH
    ids = [id(p) for p in program.params]
    return {"params": [p.name for p in program.params], "loss_output": loss_output,
            "updated": [ids.index(id(p)) for p in program.updated]}


def _ship_tvm_runtime(out: Path) -> None:
    """The installed ``tvm`` package without its compiler (libtvm_compiler is 260 MB; the
    runtime, with CUDA's, is 5 MB) into ``out/site``: PYTHONPATH for ``run``. ``tvm_ffi``
    (its compiled core is per Python version) is installed there from a wheel."""
    import tvm

    site = out / "site" / "tvm"
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(Path(tvm.__file__).parent, site, ignore=shutil.ignore_patterns(
        "libtvm_compiler.so", "3rdparty", "src", "web", "include", "__pycache__"))


def _prepare_nan(folder: Path) -> None:
    """NaN through ReLU, maximum and max pooling, forward and gradient, as PyNative (NumPy)
    gives them: the GPU's code tests NaN as ``x != x``, under nvcc's --use_fast_math."""
    import framework as ms
    from framework import Tensor, nn, ops
    from framework.staging import Slot

    pool = nn.MaxPool2d(kernel_size=2, stride=2)

    def loss(x):
        a, b = pool(ops.relu(x)), ops.maximum(pool(x), 0.5)
        return (a + b).sum(), a, b

    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    x[0, 0, 1, 1] = x[1, 2, 4:6, 6] = np.nan  # windows with one NaN; the rest stay finite
    grad = ms.value_and_grad(loss, has_aux=True)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (value, a, b), dx = grad(Tensor(x))
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU")
    compiled = ms.jit(grad)
    compiled.compile(Tensor(x), load=False)
    program = compiled._latest.program
    assert not program.params and all(slot is Slot.GRAPH for slot, _ in program.slots)
    folder.mkdir(parents=True)
    shutil.copyfile(compiled._latest.executable.library, folder / "step.so")
    expected = [t.asnumpy() for t in (value, a, b, dx)]
    np.savez(folder / "check.npz", x=x, **{f"out{i}": v for i, v in enumerate(expected)})
    (folder / "meta.json").write_text(json.dumps({"outputs": [i for _, i in program.slots],
                                                  "launches": compiled.last_report.launches}))
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    print(f"nan: NaN in the outputs: {[int(np.isnan(v).sum()) for v in expected]} -> {folder}")


def prepare(out: Path, models: tuple[str, ...] = DEFAULT_MODELS) -> None:
    import framework as ms
    from framework import Tensor

    _ship_tvm_runtime(out)
    shutil.rmtree(out / "nan", ignore_errors=True)
    _prepare_nan(out / "nan")

    for model in MODELS:
        folder = out / model
        shutil.rmtree(folder, ignore_errors=True)
        if model not in models:
            continue
        if model in gpu_models.MODELS:
            started = time.perf_counter()
            meta = gpu_models.prepare(model, folder, gpu_models.CONFIGS[model], _layout)
            print(f"{model}: {len(meta['params'])} parameters, {meta['launches'].get('kernels')} "
                  f"kernels, {meta['launches'].get('per_step')} launches per step, "
                  f"{meta['flops_per_step'] / 1e12:.2f} TFLOP per step, compiled in "
                  f"{time.perf_counter() - started:.0f} s -> {folder}", flush=True)
            continue
        folder.mkdir(parents=True)
        batches = _batches(model, CHECK_STEPS)
        ms.set_context(device_target="GPU")
        compiled, torch_weights = _framework_step(model)
        capture = os.environ.get("TWINMODE_CUDA_GRAPH")
        if model.endswith("-nocapture"):
            os.environ["TWINMODE_CUDA_GRAPH"] = "0"
        try:
            report = compiled.compile(Tensor(batches[0][0]), Tensor(batches[0][1]), load=False)
        finally:
            os.environ.pop("TWINMODE_CUDA_GRAPH", None)
            if capture is not None:
                os.environ["TWINMODE_CUDA_GRAPH"] = capture
        layout = {**_layout(compiled), "launches": report.launches}
        program = compiled._latest.program
        initial = {f"p{i}": p.asnumpy().copy() for i, p in enumerate(program.params)}
        shutil.copyfile(compiled._latest.executable.library, folder / "step.so")
        ms.set_context(device_target="CPU")  # the reference: the same steps, graph mode, CPU
        reference, _ = _framework_step(model)
        losses = [float(reference(Tensor(x), Tensor(y)).asnumpy()) for x, y in batches]
        # compressed: the optimizer's zero states shrink to nothing on the way to the GPU
        np.savez_compressed(folder / "params.npz", **initial)
        np.savez_compressed(folder / "batches.npz", **{f"x{i}": x for i, (x, _) in enumerate(batches)},
                            **{f"y{i}": y for i, (_, y) in enumerate(batches)})
        np.savez_compressed(folder / "torch_weights.npz", **torch_weights)
        (folder / "meta.json").write_text(json.dumps({**layout, "cpu_losses": losses}, indent=1))
        launches = report.launches or {}
        print(f"{model}: {len(layout['params'])} parameters, {len(layout['updated'])} updated, "
              f"{launches.get('kernels')} kernels, {launches.get('per_step')} launches per step, "
              f"CPU losses {', '.join(f'{v:.5f}' for v in losses)} -> {folder}")


# ---------------------------------------------------------------- run (runtime only, on the GPU)
def _runtime_only_tvm():
    """``tvm`` as the runtime alone (``TVM_USE_RUNTIME_LIB=1``: no libtvm_compiler), with its
    CUDA runtime and a compiler for the shipped CUDA C. Three things the full TVM does for
    itself are done here by hand: libcudart is loaded first; TVM's CUDA runtime library is
    loaded (the backend's Python hook that loads it needs the compiler's modules); and
    ``tvm_callback_cuda_compile`` runs nvcc itself (TVM's own callback asks the compiler
    for the current Target): nvcc -O3 --use_fast_math for this GPU's arch, as TVM's does."""
    import ctypes
    import os

    os.environ.setdefault("TVM_USE_RUNTIME_LIB", "1")
    ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
    import tvm
    import tvm_ffi

    if not tvm.cuda(0).exist:
        ctypes.CDLL(os.path.join(os.path.dirname(tvm.__file__), "lib", "libtvm_runtime_cuda.so"),
                    mode=ctypes.RTLD_LOCAL)
    if not tvm.cuda(0).exist:
        raise SystemExit("TVM's CUDA runtime sees no GPU here")
    arch = "sm_" + tvm.cuda(0).compute_version.replace(".", "")

    def compile_cuda(code: str) -> bytearray:
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            source, binary = Path(tmp) / "kernels.cu", Path(tmp) / "kernels.fatbin"
            source.write_text(code)
            done = subprocess.run(["nvcc", "--fatbin", "-O3", "--use_fast_math", "-std=c++17",
                                   "--expt-relaxed-constexpr", f"-arch={arch}", "-o", str(binary),
                                   str(source)], capture_output=True, text=True)
            if done.returncode:  # its warnings (unused variables) only when it fails
                raise RuntimeError(f"nvcc failed on the shipped CUDA C:\n{done.stderr[-4000:]}")
            return bytearray(binary.read_bytes())

    tvm_ffi.register_global_func("tvm_callback_cuda_compile", compile_cuda, override=True)
    return tvm


class Resident:
    """Calls of a shipped function built to replay as one CUDA graph (the backend's
    ``cuda_graph.resident_step``): its arguments keep their device buffers from call to call
    (a NumPy argument is copied into its buffer; a device one becomes its buffer on the first
    call), and buffers for its outputs follow them; otherwise plain calls."""

    def __init__(self, tvm, main, device, meta: dict) -> None:
        self.tvm, self.main, self.device = tvm, main, device
        outputs = (meta.get("launches") or {}).get("resident_outputs")
        self.outputs = None if outputs is None else [
            tvm.runtime.empty(tuple(shape), dtype, device) for shape, dtype in outputs]
        self.buffers: list = []

    def __call__(self, *args) -> list:
        if self.outputs is None:
            return list(self.main(*[a if not isinstance(a, np.ndarray)
                                    else self.tvm.runtime.tensor(a, self.device) for a in args]))
        if not self.buffers:
            self.buffers = [self.tvm.runtime.tensor(a, self.device) if isinstance(a, np.ndarray)
                            else a for a in args]
        else:
            for buffer, arg in zip(self.buffers, args):
                if isinstance(arg, np.ndarray) or not arg.same_as(buffer):
                    buffer.copyfrom(arg)
        return list(self.main(*self.buffers, *self.outputs))


class TvmStep:
    """The shipped step on ``cuda(0)``: parameters stay there, each call sends one batch."""

    def __init__(self, folder: Path, params: list[np.ndarray] | None = None) -> None:
        tvm = _runtime_only_tvm()
        from tvm.runtime.vm import VirtualMachine

        self.tvm, self.device = tvm, tvm.cuda(0)
        self.meta = json.loads((folder / "meta.json").read_text())
        self.vm = VirtualMachine(tvm.runtime.load_module(str(folder / "step.so")), self.device)
        self.main = Resident(tvm, self.vm["main"], self.device, self.meta)
        if params is None:
            with np.load(folder / "params.npz") as saved:
                params = [saved[f"p{i}"] for i in range(len(self.meta["params"]))]
        self.params = [tvm.runtime.tensor(p, self.device) for p in params]

    def __call__(self, x: np.ndarray, y: np.ndarray) -> float:
        results = self.main(*self.params, x, y)
        first_update = len(results) - len(self.meta["updated"])
        for index, array in zip(self.meta["updated"], results[first_update:]):
            self.params[index] = array
        return float(results[self.meta["loss_output"]].numpy())  # waits for the step


def _torch_step(model: str, folder: Path):
    """PyTorch eager on the GPU, with the bundle's weights; None without a CUDA PyTorch."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    with np.load(folder / "torch_weights.npz") as saved:
        weights = {k: saved[k] for k in saved.files}
    if _base(model) in ("gpt", "lstm"):
        import seq_engines

        return seq_engines.torch_step_from_state(_base(model), weights, device="cuda",
                                                 autocast="bfloat16" if "bf16" in model else None)
    import engines

    return engines.torch_step(weights, device="cuda")


def _run_nan(folder: Path) -> bool:
    tvm = _runtime_only_tvm()
    from tvm.runtime.vm import VirtualMachine

    device = tvm.cuda(0)
    meta = json.loads((folder / "meta.json").read_text())
    main = VirtualMachine(tvm.runtime.load_module(str(folder / "step.so")), device)["main"]
    with np.load(folder / "check.npz") as saved:
        results = Resident(tvm, main, device, meta)(saved["x"])
        ours = [results[i].numpy() for i in meta["outputs"]]
        expected = [saved[f"out{i}"] for i in range(len(ours))]
    same = all(a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b))
               and np.allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=1e-6) for a, b in zip(ours, expected))
    print(f"nan: loss, pool(relu(x)), maximum(pool(x), 0.5), gradient: NaN at "
          f"{[int(np.isnan(v).sum()) for v in ours]} places, PyNative "
          f"{[int(np.isnan(v).sum()) for v in expected]}; values {'same' if same else 'DIFFER'}",
          flush=True)
    return same


def run(bundle: Path, rounds: int, steps: int, budget: dict[str, float]) -> int:
    from timing import interleave

    started = time.perf_counter()
    failed = 0 if _run_nan(bundle / "nan") else 1
    rate = None
    for model in [m for m in MODELS if (bundle / m).is_dir()]:  # those prepared
        folder = bundle / model
        if model in gpu_models.MODELS:
            if rate is None:
                rate = gpu_models.bf16_rate()
                print(f"bf16 dense rate {rate[0] / 1e12:.0f} TFLOP/s ({rate[1]})", flush=True)
            failed += not gpu_models.run(model, folder, TvmStep, budget[model], rate)
            continue
        ours = TvmStep(folder)
        with np.load(folder / "batches.npz") as saved:
            batches = [(saved[f"x{i}"], saved[f"y{i}"]) for i in range(CHECK_STEPS)]
        losses = [ours(x, y) for x, y in batches]
        expected = ours.meta["cpu_losses"]
        worst = max(abs(a - b) / max(abs(b), 1e-6) for a, b in zip(losses, expected))
        agree = worst < TOLERANCE.get(model, 1e-4)
        failed += not agree
        launches = ours.meta.get("launches") or {}
        print(f"{model}: {launches.get('per_step')} launches per step "
              f"({launches.get('kernels')} kernels)", flush=True)
        print(f"{model}: GPU losses {', '.join(f'{v:.5f}' for v in losses)}; CPU "
              f"{', '.join(f'{v:.5f}' for v in expected)}; worst relative difference "
              f"{worst:.1e} ({'agree' if agree else 'DIFFER'})", flush=True)
        runners = {"graph-cuda": ours}
        theirs = _torch_step(model, folder)
        if theirs is not None:
            runners["torch-eager-cuda"] = theirs
        times = interleave(runners, batches[0], rounds, steps, warmup=10)
        medians = {name: statistics.median(t) for name, t in times.items()}
        line = ", ".join(f"{name} {ms:.3f} ms" for name, ms in medians.items())
        if theirs is not None:
            line += f"; ours/PyTorch {medians['graph-cuda'] / medians['torch-eager-cuda']:.2f}x"
        print(f"{model}: step (median of {rounds} rounds of {steps}): {line}", flush=True)
    print(f"run: {time.perf_counter() - started:.0f} s in all", flush=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    preparer = sub.add_parser("prepare")
    preparer.add_argument("--out", type=Path, default=Path(".gpu"))
    preparer.add_argument("--models", default=",".join(DEFAULT_MODELS),
                          help=f"comma-separated, of {', '.join(MODELS)}")
    runner = sub.add_parser("run")
    runner.add_argument("--bundle", type=Path, default=Path(".gpu"))
    runner.add_argument("--rounds", type=int, default=7)
    runner.add_argument("--steps", type=int, default=20)
    runner.add_argument("--budget", default=",".join(f"{m}={s:.0f}" for m, s in BUDGET.items()),
                        help="seconds for each real-size model, e.g. gpt2=150,resnet50=120")
    args = parser.parse_args()
    if args.command == "prepare":
        models = tuple(m.strip() for m in args.models.split(",") if m.strip())
        unknown = [m for m in models if m not in MODELS]
        if unknown:
            parser.error(f"--models: unknown {', '.join(unknown)} (choose from {', '.join(MODELS)})")
        prepare(args.out, models)
        return 0
    budget = dict(BUDGET)
    for item in filter(None, args.budget.split(",")):
        name, _, seconds = item.partition("=")
        if name not in BUDGET or not seconds.replace(".", "", 1).isdigit():
            parser.error(f"--budget: {item!r} is not MODEL=SECONDS with MODEL one of {', '.join(BUDGET)}")
        budget[name] = float(seconds)
    return run(args.bundle, args.rounds, args.steps, budget)


if __name__ == "__main__":
    raise SystemExit(main())
