"""``experiments/gpt_shakespeare.yaml`` as the trainer builds it, against nanoGPT's
``train.py``/``model.py`` for that configuration (written out here from their documented
behaviour; bench/nanogpt_loop.py is the bench's PyTorch twin): the learning rate of each
step (``get_lr``), the initialisation of every parameter, the AdamW groups, the data
split and vocabulary, the batches' windows, and a few whole update steps against PyTorch.

The experiment's optimizer, schedule, model and batch settings are the file's; only the
text is swapped for a small one (``dataset.name=text``) where the data do not matter.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from framework import Tensor
from tests.torch_ref import needs_torch, reference
from trainer.build import build_model_for
from trainer.config import load_config
from trainer.distributed import Rank
from trainer.tasks import task_of

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "experiments" / "gpt_shakespeare.yaml"
SCRIPT = Path(__file__).with_name("torch_nanogpt_steps.py")
SHAKESPEARE = Path(os.environ.get("TRAIN_DATA_DIR", "/nonexistent")) / "tinyshakespeare" / "input.txt"


def nanogpt_get_lr(it, lr=1e-3, min_lr=1e-4, warmup=100, decay=2000):
    """nanoGPT train.py's ``get_lr`` with the configuration's values, written out."""
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    if it > decay:
        return min_lr
    ratio = (it - warmup) / (decay - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


def _build(workdir, *overrides):
    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;:!?'\n-")
    (workdir / "corpus.txt").write_text("".join(rng.choice(letters, 20_000)))
    config = load_config(EXPERIMENT, ["dataset.name=text", "dataset.root=corpus.txt", "mode=pynative",
                                      *overrides])
    data = task_of(config).data(config, Rank())
    model, net = build_model_for(config, data)
    return config, data, model, net


@pytest.fixture
def built(workdir):
    return _build(workdir)


def test_the_learning_rate_of_each_step_is_nanogpts_get_lr(built):
    _, _, model, _ = built
    opt = model.optimizer
    for step in (0, 1, 50, 99, 100, 101, 1000, 1999, 2000, 2500):
        got = float(opt.lr_at(Tensor(np.array(step, np.int32))).asnumpy())
        # float32 storage; step 2000 and later read the last value, lr(1999) = min_lr + 6e-10
        assert got == pytest.approx(nanogpt_get_lr(step), rel=1e-5), f"step {step}"


def test_every_parameter_is_initialised_as_nanogpts_init_weights(built):
    _, data, _, net = built
    c, n_layer, vocab = 128, 4, data.info["vocab_size"]
    counted = 0
    for p in net.trainable_params():
        value = p.asnumpy().astype(np.float64)
        counted += value.size
        if p.name.endswith("gamma"):  # LayerNorm weight: ones, no bias parameter
            np.testing.assert_array_equal(value, 1.0, err_msg=p.name)
            continue
        assert value.ndim == 2, p.name
        std = 0.02 / math.sqrt(2 * n_layer) if p.name.endswith("c_proj.weight") else 0.02
        assert value.std() == pytest.approx(std, rel=0.04), p.name  # >= 8k draws: sd of std < 1%
        assert abs(value.mean()) < 5 * std / math.sqrt(value.size), p.name
    names = {p.name for p in net.trainable_params()}
    assert not any("lm_head" in n or n.endswith("beta") or n.endswith("bias") for n in names)
    # nanoGPT's count with lm_head tied to wte (counted once) and no biases
    assert counted == n_layer * (12 * c * c + 2 * c) + vocab * c + 64 * c + c


def test_weight_decay_groups_are_nanogpts_configure_optimizers(built):
    _, _, model, net = built
    opt = model.optimizer
    decays = {p.name: (p.asnumpy().ndim, d) for p, d in zip(opt.parameters, opt.decay_values, strict=True)}
    assert sorted(decays) == sorted(p.name for p in net.trainable_params())
    for name, (ndim, decay) in decays.items():
        assert decay == pytest.approx(0.1 if ndim >= 2 else 0.0), name
    assert opt.beta1 == 0.9 and opt.beta2 == 0.99 and opt.eps == 1e-8


def test_batches_are_windows_at_random_starts_over_the_whole_split(built):
    config, data, _, _ = built
    ids, t = data.train.ids, config.dataset.block_size
    starts = np.concatenate([data.train.starts(k) for k in range(500)])
    assert starts.min() >= 0 and starts.max() < len(ids) - t  # get_batch's randint bound
    x, y = data.train.batch(3)
    first = data.train.starts(3)[0]
    np.testing.assert_array_equal(x[0], ids[first:first + t])
    np.testing.assert_array_equal(y[0], ids[first + 1:first + 1 + t])
    assert x.shape == (12, 64)


@pytest.mark.skipif(not SHAKESPEARE.is_file(), reason="TRAIN_DATA_DIR with tinyshakespeare/ is not set")
def test_split_and_vocabulary_are_nanogpts_prepare(workdir, monkeypatch):
    config = load_config(EXPERIMENT, ["mode=pynative"])
    data = task_of(config).data(config, Rank())
    text = SHAKESPEARE.read_text(encoding="utf-8")
    n = int(len(text) * 0.9)  # prepare.py: the first 90% of the characters train
    chars = sorted(set(text))  # prepare.py: every character of the whole text
    tokenizer = data.extra["tokenizer"]
    assert data.info["vocab_size"] == len(chars) == 65
    np.testing.assert_array_equal(data.valid.ids, [chars.index(ch) for ch in text[n:]])
    assert len(data.train.ids) == n
    np.testing.assert_array_equal(tokenizer.encode(text[:200]), [chars.index(ch) for ch in text[:200]])


@pytest.mark.slow
@needs_torch
def test_update_steps_equal_nanogpts_loop_in_pytorch(workdir):
    """From the same weights on the same batches: the trainer's train cell (schedule, AdamW
    with PyTorch's bias correction, decay groups, clipping) against nanoGPT's steps. A
    small model, a high learning rate and a low clip norm, so each of them shows."""
    settings = {"learning_rate": 0.02, "min_lr": 0.002, "warmup_iters": 2, "lr_decay_iters": 6,
                "grad_clip": 0.25}
    config, data, model, net = _build(
        workdir, "model.args={n_layer: 2, n_head: 4, n_embd: 32, dropout: 0.0, bias: false}",
        "dataset.block_size=16", "dataset.batch_size=4", "train.max_steps=8", "train.eval_every_steps=8",
        "optimizer.learning_rate=0.02", "optimizer.clip_grad_norm=0.25",
        "optimizer.schedule={name: cosine, warmup_steps: 2, lr_decay_steps: 6, min_lr: 0.002}")
    cfg = {"vocab": data.info["vocab_size"], "block": 16, "layers": 2, "heads": 4, "embd": 32}
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import seq_engines as se

    state = se.torch_state(net)
    batches = [data.train.batch(k) for k in range(8)]
    xs, ys = np.stack([b[0] for b in batches]), np.stack([b[1] for b in batches])
    ref = reference(SCRIPT, workdir, cfg=json.dumps(cfg), settings=json.dumps(settings), xs=xs, ys=ys,
                    **{f"s:{k}": v for k, v in state.items()})
    step = model.train_network
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in zip(xs, ys, strict=True)]
    np.testing.assert_allclose(losses, ref["losses"], rtol=2e-5)
    after = se.torch_state(net)
    for name, value in after.items():
        moved, want = value - state[name], ref[f"q:{name}"] - state[name]
        np.testing.assert_allclose(moved, want, rtol=0, atol=1e-3 * np.abs(want).max(), err_msg=name)
