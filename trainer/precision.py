"""What a run in mixed precision (``precision: bf16|fp16``) tells its user.

- At the start, one line saying what is in effect, read from the built model rather than
  the config: ``precision: bf16 (amp O2, float32 master weights, dynamic loss scale
  2^24)`` (:func:`precision_line`).
- A warning when the run will be slower, or no faster, than float32 (:func:`speed_notes`):
  PyNative computes bf16/fp16 in float32 on NumPy, with casts around each kernel. Graph
  mode computes fp16 in float32 in registers and stores float16: on a CPU without native
  float16 conversion (F16C, AVX512-FP16) every conversion is a library call and fp16 is
  slower; with it, elementwise kernels move half the bytes (each operation computed in
  float32 registers and rounded as PyNative and MindSpore round it), but no CPU of ours
  multiplies float16 matrices into float32 sums (AMX-FP16 has no kernels here), so matmuls
  and convolutions run in float32 on converted operands (a padded convolution operand
  converted as it is padded, schedule/padded_casts.py; a matmul's in a pass of its own): fp16
  is no faster than fp32 where matmuls dominate (bench/amp.py time, one Zen 4 core with F16C:
  the character GPT 1.05x fp32's step, ResNet-20 0.95-0.98x; bf16 is the one to use). Our bf16 matmuls and
  convolutions run on AMX-BF16 tiles or, without them, on AVX512-BF16 dot products
  (``VDPBF16PS``) where the core issues them as fast as FMAs (AMD Zen 4/5; an Intel core
  without AMX, e.g. Cooper Lake, at half that rate: float32 there); on a CPU with neither,
  bf16 is correct but no faster. The CPU is the
  compiler's target (its LLVM CPU and features):
  ``$TWINMODE_CPU`` when set, else this machine as LLVM names it, with the
  ``/proc/cpuinfo`` features the compiler adds where LLVM's name lacks them (a virtual
  machine reporting an older model).
- MLflow metrics at the loss's cadence (:class:`AmpMetrics`): ``amp/loss_scale``, the scale
  the next step uses (the train step's own ``scale_sense``), and ``amp/overflow_steps``, the
  steps skipped so far because their gradients held an inf or NaN (cumulative over the
  run, a resume included).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from framework import nn
from framework.train.callbacks.base import Callback
from framework.train.context import RunContext

FP16_NATIVE = ("f16c", "avx512_fp16")  # /proc/cpuinfo names
# our bf16 matmuls and convolutions: AMX tiles, else VDPBF16PS where it beats float32 FMAs ("bf16_dots",
# not a /proc/cpuinfo name: cpu_features adds it where lower/avx512_bf16.pays)
BF16_NATIVE = ("amx_bf16", "bf16_dots")
_LLVM_NAMES = {"f16c": "f16c", "avx512_fp16": "avx512fp16", "avx512_bf16": "avx512bf16",
               "amx_bf16": "amx-bf16"}


def scale_text(value: float) -> str:
    """``2^24`` for a power of two, else the number."""
    exponent = math.log2(value) if value > 0 else 0.5
    return f"2^{int(exponent)}" if exponent == int(exponent) else f"{value:g}"


def loss_scaling(train_network: Any) -> str:
    """How the train step scales the loss: ``dynamic loss scale 2^24``, ``fixed loss scale
    2^10``, or ``no loss scaling`` (the accumulation and clipping steps)."""
    if not isinstance(train_network, nn.TrainOneStepWithLossScaleCell):
        return "no loss scaling"
    scale = float(np.asarray(train_network.scale_sense.asnumpy()).reshape(-1)[0])
    manager = train_network.loss_scaling_manager
    kind = "dynamic" if isinstance(manager, nn.DynamicLossScaleUpdateCell) else "fixed"
    return f"{kind} loss scale {scale_text(scale)}"


def precision_line(precision: str, model: Any) -> str:
    """``precision: bf16 (amp O2, float32 master weights, dynamic loss scale 2^24)``."""
    level = getattr(model.network, "_amp_level", None) or model.amp_level
    dtypes = sorted({getattr(p.dtype, "name", str(p.dtype)) for p in model.network.trainable_params()})
    masters = f"{'/'.join(dtypes)} master weights" if dtypes else "no trainable weights"
    return f"precision: {precision} (amp {level}, {masters}, {loss_scaling(model.train_network)})"


def cpu_features() -> tuple[set[str] | None, str]:
    """``(features, which CPU)``: the half-precision features (``/proc/cpuinfo`` names) of
    the CPU graph mode builds its kernels for, as the compiler's target has them (the LLVM
    CPU ``$TWINMODE_CPU`` names, else this machine's, with the features the compiler adds
    for it), and that CPU in words; None: unknown (a ``TWINMODE_CPU`` LLVM does not know,
    which the compiler reports when it builds)."""
    from tvm.target import codegen

    from framework.backend.tvm.compiler import host_cpu, make_target
    from framework.backend.tvm.lower import avx512_bf16

    forced = bool(os.environ.get("TWINMODE_CPU", "").strip())
    try:
        target = make_target("CPU")
    except ValueError:
        return None, ""
    origin = "TWINMODE_CPU" if forced else "this machine, as LLVM names it"
    which = f"{host_cpu()} ({origin})"
    features = {flag for flag, llvm in _LLVM_NAMES.items() if codegen.target_has_features(llvm, target)}
    return features | ({"bf16_dots"} if avx512_bf16.pays(target) else set()), which


def speed_notes(precision: str, mode: str, device: str, features: set[str] | None,
                cpu: str = "this CPU") -> list[str]:
    """One line per reason ``precision`` will not beat float32 here (module docstring)."""
    if precision == "fp32":
        return []
    if mode == "pynative":
        return [f"precision {precision} in PyNative mode computes in float32 on NumPy with casts around "
                "each kernel: correct, but slower than fp32 (graph mode compiles kernels for the CPU)"]
    if device != "cpu" or features is None:
        return []
    if precision == "fp16" and not features & set(FP16_NATIVE):
        return [f"precision fp16: the kernels are built for {cpu}, which has no native float16 "
                "conversion (F16C or AVX512-FP16): fp16 will be slower than fp32; use precision: bf16"]
    if precision == "fp16":
        faster = f"use precision: bf16 ({_bf16_units(features)})" if features & set(BF16_NATIVE) else \
            "bf16 is no faster on this CPU either"
        return [f"precision fp16: the kernels are built for {cpu}, which converts float16 natively but "
                "has no float16 matrix units our kernels use: matmuls and convolutions compute in "
                "float32 on converted operands, so fp16 is no faster than fp32 where they dominate "
                f"(a transformer's step ~1.05x fp32's; a small CNN's ~0.95x); {faster}"]
    if precision == "bf16" and not features & set(BF16_NATIVE):
        if "avx512_bf16" in features:
            return [f"precision bf16: the kernels are built for {cpu}, which has AVX512-BF16 dot products "
                    "but no AMX-BF16 tiles; its core multiplies bf16 pairs no faster than float32 (our bf16 "
                    "matmuls and convolutions use AMX tiles, or the dot products on AMD Zen 4/5): "
                    "training is correct but will not be faster than fp32"]
        return [f"precision bf16: the kernels are built for {cpu}, which has neither AMX-BF16 tiles nor "
                "AVX512-BF16 dot products (our bf16 matmuls and convolutions use them): training is correct "
                "but will not be faster than fp32"]
    return []


def _bf16_units(features: set[str]) -> str:
    return "AMX-BF16 tiles" if "amx_bf16" in features else "AVX512-BF16 dot products"


def announce(precision: str, mode: str, device: str, model: Any, quiet: bool) -> None:
    """The start line (unless ``quiet``) and the warnings, for a run not in float32."""
    import warnings

    if precision == "fp32":
        return
    if not quiet:
        print(precision_line(precision, model), flush=True)
    features, cpu = cpu_features() if mode == "graph" and device == "cpu" else (None, "")
    for note in speed_notes(precision, mode, device, features, cpu):
        warnings.warn(note, stacklevel=2)


class AmpMetrics(Callback):
    """``amp/loss_scale`` and ``amp/overflow_steps`` every ``log_every`` steps (a train step
    with loss scaling; others log nothing)."""

    phase = "log"
    state_key = "amp"

    def __init__(self, run: Any, log_every: int) -> None:
        self.run = run
        self.log_every = max(1, log_every)
        self.overflow_steps = 0

    def on_train_step_end(self, ctx: RunContext) -> None:
        step = ctx.train_network
        out = ctx.net_outputs
        if not isinstance(step, nn.TrainOneStepWithLossScaleCell) or not isinstance(out, tuple | list) \
                or len(out) != 3:
            return
        self.overflow_steps += int(bool(np.all(out[1].asnumpy())))
        if ctx.global_step % self.log_every:
            return
        scale = float(np.asarray(step.scale_sense.asnumpy()).reshape(-1)[0])
        self.run.log_metric("amp/loss_scale", scale, ctx.global_step)
        self.run.log_metric("amp/overflow_steps", self.overflow_steps, ctx.global_step)

    def state_dict(self) -> dict[str, Any]:
        return {"overflow_steps": self.overflow_steps}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.overflow_steps = int(state.get("overflow_steps", 0))

