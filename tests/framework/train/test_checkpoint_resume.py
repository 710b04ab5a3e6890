"""Resuming from training checkpoints: exactness, cross-mode, corrupt and mismatched files."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework.serialization import read_arrays
from framework.train import (
    Callback,
    CheckpointConfig,
    CheckpointError,
    ConfigMismatchWarning,
    CorruptCheckpointWarning,
    EarlyStopping,
    History,
    ModelCheckpoint,
    RunContext,
    latest_checkpoint,
    read_train_state,
)

from . import tiny

EPOCHS = 3
TOTAL = EPOCHS * tiny.STEPS_PER_EPOCH  # 36


class StopAt(Callback):
    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_step_end(self, run_context: RunContext) -> None:
        if run_context.global_step == self.step:
            run_context.request_stop()


@pytest.fixture(scope="module")
def reference() -> tuple[list[float], dict[str, np.ndarray]]:
    """An uninterrupted PyNative run of EPOCHS epochs: per-step losses and final parameters."""
    ms.set_seed(0)
    history = History()
    model = tiny.model(seed=0, mode="pynative")
    model.train(EPOCHS, tiny.loader(), callbacks=[history])
    return history.step_losses, tiny.params(model)


def _saver(directory: Path, steps: int = 5, keep: int | None = None) -> ModelCheckpoint:
    return ModelCheckpoint("tiny", directory, CheckpointConfig(save_checkpoint_steps=steps,
                                                               keep_checkpoint_max=keep))


def _first_part(directory: Path, stop: int, mode: str = "pynative") -> None:
    """Train until global step ``stop`` with a checkpoint every 5 steps."""
    tiny.model(seed=0, mode=mode).train(EPOCHS, tiny.loader(), callbacks=[StopAt(stop), _saver(directory)])


def _resume(directory: Path, resume_from: str | Path = "last", mode: str = "pynative", **kw):
    model = tiny.model(seed=99, mode=mode, **kw)  # other initial weights: all must come from the file
    history = History()
    ctx = model.train(EPOCHS, tiny.loader(seed=1), callbacks=[history, _saver(directory)],
                      resume_from=resume_from)
    return model, history, ctx


def _assert_params(model, expected: dict[str, np.ndarray], exact: bool = True) -> None:
    params = tiny.params(model)
    assert params.keys() == expected.keys()
    for name, value in expected.items():
        if exact:
            assert np.array_equal(params[name], value), name
        else:
            np.testing.assert_allclose(params[name], value, rtol=1e-4, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("stop", [15, 12, 24])  # mid-epoch, and at the end of epochs 1 and 2
def test_resume_is_bitwise_in_pynative(tmp_path, reference, stop) -> None:
    ref_losses, ref_params = reference
    _first_part(tmp_path, stop)
    path = tmp_path / f"tiny-{(stop - 1) // 12 + 1}_{(stop - 1) % 12 + 1}.ckpt"
    assert latest_checkpoint(tmp_path, "tiny") == path
    model, history, ctx = _resume(tmp_path)
    assert ctx.resumed_from == str(path)
    assert history.step_numbers == list(range(stop + 1, TOTAL + 1))
    assert history.step_losses == ref_losses[stop:]  # bitwise
    _assert_params(model, ref_params)
    assert ctx.global_step == TOTAL and ctx.epoch == EPOCHS


def test_resume_from_an_explicit_older_file(tmp_path, reference) -> None:
    _first_part(tmp_path, 15)
    model, history, _ = _resume(tmp_path, tmp_path / "tiny-1_10.ckpt")
    assert history.step_losses == reference[0][10:]
    _assert_params(model, reference[1])


@pytest.mark.parametrize("first, second", [("pynative", "graph"), ("graph", "pynative")])
def test_resume_in_the_other_mode(tmp_path, monkeypatch, reference, first, second) -> None:
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "compiled"))
    _first_part(tmp_path, 15, mode=first)
    assert read_train_state(tmp_path / "tiny-2_3.ckpt")[1].mode == first
    model, history, ctx = _resume(tmp_path, mode=second)
    assert ctx.mode == second
    np.testing.assert_allclose(history.step_losses, reference[0][15:], rtol=1e-4, atol=1e-6)
    _assert_params(model, reference[1], exact=False)


def test_corrupt_newest_checkpoint_is_skipped_with_a_warning(tmp_path, reference) -> None:
    _first_part(tmp_path, 15)
    newest = tmp_path / "tiny-2_3.ckpt"
    raw = bytearray(newest.read_bytes())
    raw[-100] ^= 0xFF  # in the tensor data
    newest.write_bytes(bytes(raw))
    with pytest.warns(CorruptCheckpointWarning, match=r"tiny-2_3\.ckpt.*checksum"):
        model, history, ctx = _resume(tmp_path)
    assert ctx.resumed_from == str(tmp_path / "tiny-1_10.ckpt")
    assert history.step_losses == reference[0][10:]
    _assert_params(model, reference[1])


def test_killed_writes_leave_no_valid_looking_file(tmp_path) -> None:
    _first_part(tmp_path, 15)
    good = (tmp_path / "tiny-2_3.ckpt").read_bytes()
    # a write killed before its rename leaves only a temp file; one cut short is refused
    (tmp_path / ".tiny-2_8.ckpt.x1y2.tmp").write_bytes(good[: len(good) // 2])
    (tmp_path / "tiny-2_8.ckpt").write_bytes(good[:-40])
    with pytest.raises(CheckpointError, match="truncated"):
        read_train_state(tmp_path / "tiny-2_8.ckpt")
    with pytest.warns(CorruptCheckpointWarning, match="tiny-2_8"):
        _, _, ctx = _resume(tmp_path)
    assert ctx.resumed_from == str(tmp_path / "tiny-2_3.ckpt")
    assert not list(tmp_path.glob("*.tmp"))  # ModelCheckpoint removes stale temp files


def test_corrupt_explicit_file_is_an_error(tmp_path) -> None:
    _first_part(tmp_path, 5)
    path = tmp_path / "tiny-1_5.ckpt"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="truncated"):
        _resume(tmp_path, path)
    (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="not a twinmode checkpoint"):
        _resume(tmp_path, tmp_path / "junk.ckpt")


def test_checkpoint_from_another_network_or_optimizer(tmp_path) -> None:
    _first_part(tmp_path, 5)
    path = tmp_path / "tiny-1_5.ckpt"
    from framework import nn
    from framework.train import Model

    ms.set_seed(0)
    wide = nn.SequentialCell(nn.Flatten(), nn.Dense(16, 20), nn.ReLU(), nn.Dense(20, 3))
    model = Model(wide, tiny.loss_fn(), nn.Momentum(wide.trainable_params(), 0.1, 0.9))
    with pytest.raises(CheckpointError, match=r"does not fit this network.*1\.weight float32\[12, 16\] "
                                              r"vs float32\[20, 16\]"):
        model.train(1, tiny.loader(), resume_from=path)
    with pytest.raises(CheckpointError, match=r"missing from the checkpoint \(moment1\..*unknown to the "
                                              r"network \(moments\."):
        _resume(tmp_path, path, optimizer="adam")


def test_config_change_warns_with_the_changed_keys(tmp_path) -> None:
    config = {"optimizer": {"name": "momentum", "lr": 0.1}, "seed": 0}
    tiny.model(seed=0, config=config).train(1, tiny.loader(), callbacks=[StopAt(5), _saver(tmp_path)])
    state = read_train_state(tmp_path / "tiny-1_5.ckpt")[1]
    assert state.config == config and state.config_hash
    changed = {"optimizer": {"name": "momentum", "lr": 0.2}, "seed": 0, "epochs": 3}
    with pytest.warns(ConfigMismatchWarning, match=r"epochs: added \(3\); optimizer\.lr: 0\.1 -> 0\.2"):
        _resume(tmp_path, config=changed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConfigMismatchWarning)
        _resume(tmp_path, tmp_path / "tiny-1_5.ckpt", config=dict(reversed(list(config.items()))))
    with pytest.warns(ConfigMismatchWarning, match="hash"):
        _resume(tmp_path, tmp_path / "tiny-1_5.ckpt", config_hash="0123456789abcdef")


def test_other_files_and_settings_are_refused(tmp_path) -> None:
    model = tiny.model(seed=0)
    ms.save_checkpoint(model.network, str(tmp_path / "weights.ckpt"))
    with pytest.raises(CheckpointError, match="parameters only"):
        model.train(1, tiny.loader(), resume_from=tmp_path / "weights.ckpt")
    _first_part(tmp_path, 5)
    with pytest.raises(CheckpointError, match="training data differs.*batch_size"):
        tiny.model().train(1, tiny.loader(batch_size=4), resume_from=tmp_path / "tiny-1_5.ckpt")
    with pytest.raises(ValueError, match="no ModelCheckpoint callback"):
        tiny.model().train(1, tiny.loader(), resume_from="last")


def test_last_without_checkpoints_starts_fresh(tmp_path, reference) -> None:
    with pytest.warns(UserWarning, match="starting from the beginning"):
        model, history, ctx = _resume(tmp_path / "empty")
    assert ctx.resumed_from is None and len(history.step_losses) == TOTAL


def test_checkpoint_contents(tmp_path) -> None:
    _first_part(tmp_path, 15)
    arrays, meta = read_arrays(tmp_path / "tiny-2_3.ckpt")
    assert {"1.weight", "learning_rate", "global_step", "moments.1.weight"} <= set(arrays)
    assert int(arrays["global_step"]) == 15
    state = meta["twinmode_train_state"]
    assert (state["epoch"], state["step_in_epoch"], state["global_step"]) == (2, 3, 15)
    assert state["data_state"]["epoch"] == 1 and state["data_state"]["position"] == 3
    assert {"framework", "numpy", "python"} <= set(state["rng"]) and state["mode"] == "pynative"
    pointer = json.loads((tmp_path / "latest").read_text())
    assert pointer["checkpoint"] == "tiny-2_3.ckpt" and pointer["global_step"] == 15
    weights = ms.load_checkpoint(str(tmp_path / "tiny-2_3.ckpt"))  # also a plain framework checkpoint
    net = tiny.network()
    ms.load_param_into_net(net, weights)
    assert np.array_equal(net.trainable_params()[0].asnumpy(), arrays["1.weight"])


def test_callback_state_survives_a_resume(tmp_path) -> None:
    valid = tiny.loader(shuffle=False)
    straight = History()
    tiny.model(seed=0).fit(EPOCHS, tiny.loader(), valid, callbacks=[straight])
    first = History()
    stop = EarlyStopping(monitor="eval_loss", patience=5)
    tiny.model(seed=0).fit(EPOCHS, tiny.loader(), valid,
                           callbacks=[first, stop, StopAt(24), _saver(tmp_path)])
    resumed, stop2 = History(), EarlyStopping(monitor="eval_loss", patience=5)
    tiny.model(seed=7).fit(EPOCHS, tiny.loader(), valid, resume_from="last",
                           callbacks=[resumed, stop2, _saver(tmp_path)])
    assert resumed.epochs == [1, 2, 3]  # epochs 1-2 came from the checkpoint (saved at epoch end)
    for key in ("loss", "eval_loss", "eval_accuracy"):
        assert resumed.history[key] == straight.history[key], key
    assert stop2.best == min(straight.history["eval_loss"])


def test_resume_to_train_more_epochs(tmp_path) -> None:
    tiny.model(seed=0).train(2, tiny.loader(), callbacks=[_saver(tmp_path, steps=100)])
    with pytest.warns(UserWarning, match="already at epoch 2 of 2; nothing to train"):
        ctx = tiny.model(seed=3).train(2, tiny.loader(), callbacks=[_saver(tmp_path)], resume_from="last")
    assert ctx.global_step == 24
    straight = History()
    tiny.model(seed=0).train(3, tiny.loader(), callbacks=[straight])
    more = History()
    tiny.model(seed=3).train(3, tiny.loader(), callbacks=[more, _saver(tmp_path)], resume_from="last")
    assert more.step_numbers == list(range(25, 37)) and more.step_losses == straight.step_losses[24:]
