"""What a run in mixed precision tells its user (trainer/precision.py): the start line read
from the built train step, the warnings when half precision will not be faster (the CPU the
kernels are built for, as Intel documents its instruction sets; PyNative's NumPy), the
model summary of the user's layers, and the ``amp/*`` metrics against the loss-scaling
state the checkpoint holds. The slow tests are real ``train run``s of experiments/smoke.yaml
into a SQLite store in a temporary folder."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import nn
from framework.train.model import Model
from trainer.build import build_model_for
from trainer.config import load_config
from trainer.model_summary import model_summary
from trainer.precision import cpu_features, precision_line, speed_notes
from trainer.run_summary import run_label

from .cli_env import SMOKE, needs_data
from .test_cli import invoke, search, uri

X = np.zeros((2, 1, 32, 32), np.float32)
SMALL = ["dataset.limit=640", "dataset.test_limit=100", "mlflow.system_metrics=false",
         "train.log_every=5", "checkpoint.save_steps=0"]


def built(*overrides: str):
    return build_model_for(load_config(SMOKE, list(overrides), import_code=False))


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_the_summary_of_a_mixed_precision_run_shows_the_float32_runs_layers(precision):
    """amp O2 wraps the network (and would show ``_OutputTo32``, ``_backbone.conv1``)."""
    _, plain = built()
    _, mixed = built(f"precision={precision}")
    assert type(mixed).__name__ == "_OutputTo32"  # what the summary must look through
    assert model_summary(mixed, X) == model_summary(plain, X)
    assert model_summary(mixed, X).splitlines()[0] == "model: LeNet5, input (N, 1, 32, 32)"


def test_the_start_line_says_the_level_the_master_weights_and_the_loss_scaling_in_effect():
    model, _ = built("precision=bf16")
    default = ms.amp.DynamicLossScaleManager().get_loss_scale()
    assert default == 2 ** 24  # MindSpore's documented init_loss_scale
    assert precision_line("bf16", model) == \
        "precision: bf16 (amp O2, float32 master weights, dynamic loss scale 2^24)"
    # gradient accumulation trains without loss scaling (its step has none)
    model, _ = built("precision=bf16", "train.accumulate_grad_batches=2")
    assert precision_line("bf16", model).endswith("float32 master weights, no loss scaling)")
    _, net = built("precision=fp16")
    fixed = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.01, 0.9),
                  loss_scale_manager=ms.amp.FixedLossScaleManager(1024.0))
    assert precision_line("fp16", fixed) == \
        "precision: fp16 (amp O2, float32 master weights, fixed loss scale 2^10)"


@pytest.mark.parametrize(("cpu", "fp16_slow", "bf16_slow"), [
    ("sandybridge", True, True),  # AVX, no F16C (it came with Ivy Bridge)
    ("haswell", False, True),  # AVX2 and F16C, no AVX-512
    ("skylake-avx512", False, True),  # AVX-512 and F16C, no bf16 instructions
    ("cooperlake", False, True),  # AVX512-BF16 dot products at half the FMA rate, no AMX tiles
    ("znver4", False, False),  # AMD: AVX512-BF16 dot products (VDPBF16PS kernels)
    ("sapphirerapids", False, False),  # AMX-BF16 and AVX512-FP16
])
def test_graph_mode_warns_when_the_cpu_the_kernels_are_built_for_lacks_the_instructions(
        monkeypatch, cpu, fp16_slow, bf16_slow):
    monkeypatch.setenv("TWINMODE_CPU", cpu)
    features, which = cpu_features()
    assert which == f"{cpu} (TWINMODE_CPU)"
    (fp16,) = speed_notes("fp16", "graph", "cpu", features, which)
    bf16 = speed_notes("bf16", "graph", "cpu", features, which)
    assert len(bf16) == int(bf16_slow)
    if fp16_slow:
        assert "no native float16 conversion" in fp16 and fp16.endswith("use precision: bf16")
    else:  # F16C: elementwise kernels in half the bytes, but float32 matmuls and convolutions
        assert "converts float16 natively" in fp16 and "no faster than fp32 where they dominate" in fp16
        units = "AMX-BF16 tiles" if cpu == "sapphirerapids" else "AVX512-BF16 dot products"
        assert fp16.endswith(f"use precision: bf16 ({units})" if not bf16_slow
                             else "bf16 is no faster on this CPU either")
    if bf16_slow and cpu == "cooperlake":
        assert bf16 == [f"precision bf16: the kernels are built for {cpu} (TWINMODE_CPU), which has "
                        "AVX512-BF16 dot products but no AMX-BF16 tiles; its core multiplies bf16 pairs no "
                        "faster than float32 (our bf16 matmuls and convolutions use AMX tiles, or the dot "
                        "products on AMD Zen 4/5): training is correct but will not be faster than fp32"]
    elif bf16_slow:
        assert bf16 == [f"precision bf16: the kernels are built for {cpu} (TWINMODE_CPU), which has neither "
                        "AMX-BF16 tiles nor AVX512-BF16 dot products (our bf16 matmuls and convolutions use "
                        "them): training is correct but will not be faster than fp32"]
    assert speed_notes("fp32", "graph", "cpu", set(), which) == []
    assert speed_notes("fp16", "graph", "cuda", set(), which) == []  # the GPU's, not this CPU's


def test_pynative_says_half_precision_is_computed_in_float32():
    for precision in ("bf16", "fp16"):
        (note,) = speed_notes(precision, "pynative", "cpu", {"avx512_bf16", "f16c"})
        assert note.startswith(f"precision {precision} in PyNative mode computes in float32")


def test_the_run_label_carries_the_precision_when_not_float32():
    assert run_label(load_config(SMOKE, [], import_code=False), "graph") == "smoke [graph]"
    assert run_label(load_config(SMOKE, ["precision=bf16"], import_code=False), "pynative") == \
        "smoke [pynative, bf16]"


def _amp_history(run_id: str) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    import mlflow

    client = mlflow.MlflowClient(uri())
    return tuple([(m.step, m.value) for m in sorted(client.get_metric_history(run_id, key),
                                                     key=lambda m: m.step)]
                 for key in ("amp/loss_scale", "amp/overflow_steps"))


def _checkpoint_scale(output: str) -> float:
    line = next(line for line in output.splitlines() if line.strip().startswith("checkpoint:"))
    saved = ms.load_checkpoint(line.split(":", 1)[1].strip())
    return float(saved["scale_sense"].asnumpy())


@needs_data
@pytest.mark.slow
def test_fp16_in_graph_mode_logs_the_loss_scale_and_the_skipped_steps_across_a_resume(workdir):
    """fp16 at MindSpore's initial scale 2^24 overflows in its first steps: each skipped
    step halves the scale, none doubles it before 2000 steps, so the scale is 2^(24 - skips)."""
    first = invoke("run", SMOKE, "--mode", "graph", "precision=fp16", "train.epochs=1", *SMALL)
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert lines[0] == "precision: fp16 (amp O2, float32 master weights, dynamic loss scale 2^24)"
    _, plain = built()
    assert model_summary(plain, X) in first.output
    assert "_backbone" not in first.output and "_OutputTo32" not in first.output
    assert "smoke [graph, fp16]: eval/accuracy" in first.output
    run = search().iloc[0]
    assert run["tags.precision"] == "fp16" and "-graph-fp16-" in run["tags.mlflow.runName"]
    scales, skipped = _amp_history(run["run_id"])
    assert [s for s, _ in scales] == [s for s, _ in skipped] == [5, 10, 15, 20]
    assert skipped[-1][1] > 0 and all(a[1] <= b[1] for a, b in zip(skipped, skipped[1:]))
    for (_, scale), (_, count) in zip(scales, skipped):
        assert scale == 2.0 ** (24 - count)
    assert scales[-1][1] == _checkpoint_scale(first.output)

    again = invoke("run", SMOKE, "--mode", "graph", "--resume", "last", "precision=fp16",
                   "train.epochs=2", *SMALL)
    assert again.exit_code == 0, again.output
    scales, skipped = _amp_history(run["run_id"])
    assert [s for s, _ in skipped] == [5, 10, 15, 20, 25, 30, 35, 40]
    assert all(a[1] <= b[1] for a, b in zip(skipped, skipped[1:]))  # counted on from the checkpoint
    assert scales[-1][1] == 2.0 ** (24 - skipped[-1][1]) == _checkpoint_scale(again.output)


@needs_data
@pytest.mark.slow
def test_bf16_in_pynative_keeps_its_scale_and_says_it_is_not_faster(workdir):
    with pytest.warns(UserWarning, match="precision bf16 in PyNative mode computes in float32"):
        result = invoke("run", SMOKE, "--mode", "pynative", "precision=bf16", "train.epochs=1", *SMALL)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == \
        "precision: bf16 (amp O2, float32 master weights, dynamic loss scale 2^24)"
    _, plain = built()
    assert model_summary(plain, X) in result.output
    assert "smoke [pynative, bf16]: eval/accuracy" in result.output
    run = search().iloc[0]
    assert run["tags.precision"] == "bf16"
    scales, skipped = _amp_history(run["run_id"])
    # bfloat16 has float32's exponent range: 2^24 times the loss overflows nothing
    steps = (5, 10, 15, 20)
    assert scales == [(s, 2.0 ** 24) for s in steps] and skipped == [(s, 0.0) for s in steps]
    assert _checkpoint_scale(result.output) == 2.0 ** 24
    assert math.isfinite(float(run["metrics.eval/loss"]))
    assert not any(Path("mlruns-offline").glob("*"))  # logged to the store, not offline
