"""The real-size GPU benchmark (bench/gpu_models.py: GPT-2 small, ResNet-50), checked here.

The full sizes are built only by ``bench/gpu_check.py prepare``; here small configurations
of the same code compile for CUDA (sm_90) into a bundle whose recipes draw parameters of the
step's own shapes, whose 16-bit products run on the tensor cores, and whose step is one CUDA
graph launch. The FLOP counts behind the reported model FLOP utilisation are checked against
published figures and against the model's own parameter count.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import gpu_models  # noqa: E402
import resnet50  # noqa: E402


def test_resnet50_flops_are_the_published_count():
    # torchvision's model card: ResNet-50 at 224x224, 4.09 G multiply-adds per image
    macs = resnet50.matmul_flops(**{k: resnet50.FULL[k] for k in ("blocks", "width", "classes", "image")},
                                 batch=1) / 6
    assert macs == pytest.approx(4.09e9, rel=2e-3)


def test_gpt2_flops_follow_the_models_own_parameter_count():
    from trainer.models.gpt import GPT

    cfg = {"vocab": 101, "block": 16, "layers": 3, "heads": 2, "embd": 24, "batch": 5}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = GPT(cfg["vocab"], cfg["block"], cfg["layers"], cfg["heads"], cfg["embd"])
    assert gpu_models.flops_per_step("gpt2", cfg) == net.flops_per_step(cfg["batch"], cfg["block"])
    # GPT-2 small: nanoGPT's 124M parameters, 85M of them outside the embeddings
    full = gpu_models.CONFIGS["gpt2"]
    per_token = gpu_models.flops_per_step("gpt2", full) / (full["batch"] * full["block"])
    params = (per_token - 12 * 12 * 768 * 1024) / 6
    assert params + 1024 * 768 == pytest.approx(124.4e6, rel=2e-3)


@pytest.mark.parametrize("array", [np.full((3, 4), 0.5, np.float32), np.arange(10, dtype=np.int32),
                                   np.linspace(0, 1, 2048, dtype=np.float32),
                                   np.random.default_rng(1).normal(0.1, 0.02, (300, 400)).astype(np.float32)])
def test_a_recipe_draws_an_array_of_the_same_kind(array):
    entry = json.loads(json.dumps(gpu_models.recipe(array, seed=7)))  # as the bundle keeps it
    drawn = gpu_models.materialize(entry)
    assert drawn.shape == array.shape and drawn.dtype == array.dtype
    if array.size <= gpu_models.SMALL_ARRAY:
        np.testing.assert_array_equal(drawn, array)  # constants and small arrays travel as such
    else:
        assert abs(drawn.mean() - array.mean()) < 1e-3 and abs(drawn.std() / array.std() - 1) < 1e-2
        np.testing.assert_array_equal(drawn, gpu_models.materialize(entry))  # seeded


def _kernels(source: str) -> dict[str, str]:
    parts = re.split(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', source)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.slow
@pytest.mark.parametrize("model", gpu_models.MODELS)
def test_a_small_configuration_compiles_for_cuda_into_a_bundle(tmp_path, model):
    import gpu_check

    cfg = gpu_models.SMALL[model]
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path / "ir"))
    try:
        meta = gpu_models.prepare(model, tmp_path / model, cfg, gpu_check._layout)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    assert (tmp_path / model / "step.so").stat().st_size > 0
    assert meta["launches"]["per_step"] <= 3 < meta["launches"]["kernels"]
    saved = json.loads((tmp_path / model / "meta.json").read_text())
    params = [gpu_models.materialize(entry) for entry in saved["recipes"]]
    assert len(params) == len(saved["params"])
    # every trainable parameter reaches PyTorch under a name of its own
    names = [n for n in saved["torch_names"] if n]
    assert len(names) == len(set(names)) > 4
    x, y = gpu_models.batch_of(model, cfg, 0)
    assert x.shape[0] == y.shape[0] == cfg["batch"]
    (folder,) = (tmp_path / "ir").iterdir()
    kernels = _kernels((folder / "20_kernels.cu").read_text())
    matmuls = [body for name, body in kernels.items() if "matmul" in name]
    assert matmuls and any("wmma::mma_sync" in body for body in matmuls)
