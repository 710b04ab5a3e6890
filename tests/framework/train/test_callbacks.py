"""Each callback's behaviour, the hook protocol and the run context."""

from __future__ import annotations

import io
import re
import types
from pathlib import Path

import numpy as np
import pytest

from framework.serialization import read_arrays
from framework.train import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    InvalidLossError,
    LambdaCallback,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
    RunContext,
    TimeMonitor,
)
from framework.train.callbacks import model_checkpoint

from . import tiny

STEPS = tiny.STEPS_PER_EPOCH


class Recorder(Callback):
    """Logs every hook, through MindSpore's short names for training."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin(self, run_context: RunContext) -> None:
        self.calls.append("begin")

    def epoch_begin(self, run_context: RunContext) -> None:
        self.calls.append(f"epoch_begin {run_context.cur_epoch_num}")

    def step_end(self, run_context: RunContext) -> None:
        args = run_context.original_args()
        self.calls.append(f"step_end {args.cur_epoch_num}/{args.step_in_epoch}/{args.cur_step_num}")

    def epoch_end(self, run_context: RunContext) -> None:
        self.calls.append(f"epoch_end {run_context.epoch} {sorted(run_context.metrics)}")

    def end(self, run_context: RunContext) -> None:
        self.calls.append("end")

    def on_eval_begin(self, run_context: RunContext) -> None:
        self.calls.append(f"eval_begin {run_context.phase}")

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self.calls.append("eval_step")

    def on_eval_end(self, run_context: RunContext) -> None:
        self.calls.append(f"eval_end {sorted(run_context.metrics)}")


def test_hooks_in_order_with_mindspore_short_names() -> None:
    rec = Recorder()
    tiny.model().fit(2, tiny.loader(), tiny.loader(shuffle=False, batch_size=48), callbacks=[rec])
    epoch1 = [f"step_end 1/{s}/{s}" for s in range(1, STEPS + 1)]
    epoch2 = [f"step_end 2/{s}/{STEPS + s}" for s in range(1, STEPS + 1)]
    evals = ["eval_begin eval", "eval_step", "eval_step", "eval_end ['accuracy', 'loss']"]
    metrics = "['eval_accuracy', 'eval_loss', 'loss']"
    assert rec.calls == (["begin", "epoch_begin 1", *epoch1, *evals, f"epoch_end 1 {metrics}",
                          "epoch_begin 2", *epoch2, *evals, f"epoch_end 2 {metrics}", "end"])


def test_request_stop_ends_training_after_the_step() -> None:
    rec = Recorder()
    stopper = LambdaCallback(
        on_train_step_end=lambda ctx: ctx.request_stop() if ctx.global_step == 5 else None)
    ctx = tiny.model().train(3, tiny.loader(), callbacks=[stopper, rec])
    assert ctx.global_step == 5 and ctx.stop_requested
    assert rec.calls[-2:] == ["step_end 1/5/5", "end"]  # a cut-short epoch gets no epoch end
    with pytest.raises(TypeError, match="unknown hook 'on_step'"):
        LambdaCallback(on_step=print)
    with pytest.raises(TypeError, match="Callback instances"):
        tiny.model().train(1, tiny.loader(), callbacks=[print])


def test_loss_monitor_prints_every_n_steps() -> None:
    out = io.StringIO()
    history = History()
    tiny.model().train(1, tiny.loader(), callbacks=[LossMonitor(5, file=out), history])
    lines = out.getvalue().splitlines()
    assert lines == [f"epoch: 1 step: {s}, loss is {history.step_losses[s - 1]}" for s in (5, 10)]
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)


def test_loss_monitor_stops_on_nan_before_anything_is_saved(tmp_path: Path) -> None:
    x, y = tiny.data()
    x[3 * tiny.BATCH + 2, 0, 0] = np.nan  # the 4th batch (no shuffling) holds a NaN
    batches = [(x[i:i + tiny.BATCH, None], y[i:i + tiny.BATCH]) for i in range(0, len(y), tiny.BATCH)]
    saver = ModelCheckpoint("nan", tmp_path, CheckpointConfig(save_checkpoint_steps=1))
    with pytest.raises(InvalidLossError, match=r"loss is nan at epoch 1, step 4 \(global step 4\)"):
        tiny.model().train(1, batches, callbacks=[saver, LossMonitor(0)])
    assert sorted(p.name for p in tmp_path.glob("*.ckpt")) == ["nan-1_1.ckpt", "nan-1_2.ckpt", "nan-1_3.ckpt"]


def test_time_monitor_pynative() -> None:
    out = io.StringIO()
    monitor = TimeMonitor(file=out)
    tiny.model(mode="pynative").train(2, tiny.loader(), callbacks=[monitor])
    assert [r["epoch"] for r in monitor.records] == [1, 2]
    assert all(r["steps"] == STEPS and r["compile_s"] == 0 and 0 < r["step_ms"] < r["epoch_ms"]
               for r in monitor.records)
    assert "graph compiled" not in out.getvalue()
    assert out.getvalue().count("Train epoch time: ") == 2 and "per step time: " in out.getvalue()


def test_time_monitor_reports_compilation_apart(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    monitor = TimeMonitor(file=out)
    model = tiny.model(mode="graph")
    ctx = model.train(2, tiny.loader(), callbacks=[monitor])
    first, second = monitor.records
    assert first["compile_s"] > 0 and second["compile_s"] == 0
    assert first["compile_s"] == pytest.approx(ctx.timings.first_compile_seconds)
    report = model._step_for(model.train_network, "graph").report
    assert ctx.timings.first_compile_seconds >= report.compile_seconds + report.trace_seconds
    assert first["epoch_ms"] / 1000 > first["compile_s"]  # the epoch includes it ...
    assert first["step_ms"] * STEPS < first["epoch_ms"] - first["compile_s"] * 1000 + 1e-6  # ... steps do not
    assert out.getvalue().count("graph compiled in") == 1
    epoch_lines = [line for line in out.getvalue().splitlines() if "epoch time" in line]
    assert len(epoch_lines) == 2 and all(re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: "
                                                      r"\d+\.\d{3} ms", line) for line in epoch_lines)


def test_model_checkpoint_names_pointer_and_pruning(tmp_path: Path) -> None:
    cfg = CheckpointConfig(save_checkpoint_steps=5, keep_checkpoint_max=2)
    saver = ModelCheckpoint("tiny", tmp_path, cfg)
    ctx = tiny.model().train(2, tiny.loader(), callbacks=[saver])
    # saved at global steps 5, 10, 15, 20 and at the end (24); the two newest remain
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest", "tiny-2_12.ckpt", "tiny-2_8.ckpt"]
    assert ctx.latest_checkpoint == str(tmp_path / "tiny-2_12.ckpt") == str(saver.latest)
    assert '"checkpoint": "tiny-2_12.ckpt"' in (tmp_path / "latest").read_text()
    keep_all = ModelCheckpoint("all", tmp_path / "all", CheckpointConfig(save_checkpoint_steps=5,
                                                                          keep_checkpoint_max=0))
    tiny.model().train(2, tiny.loader(), callbacks=[keep_all])
    names = sorted(p.name for p in (tmp_path / "all").glob("*.ckpt"))
    assert names == sorted(f"all-{e}_{s}.ckpt" for e, s in [(1, 5), (1, 10), (2, 3), (2, 8), (2, 12)])


def _fake_clock(monkeypatch, step_seconds: float) -> types.SimpleNamespace:
    """ModelCheckpoint's clock: advanced by ``step_seconds`` per training step."""
    clock = types.SimpleNamespace(now=1000.0)
    fake = types.SimpleNamespace(monotonic=lambda: clock.now, time=lambda: clock.now)
    monkeypatch.setattr(model_checkpoint, "time", fake)
    clock.tick = LambdaCallback(
        on_train_step_begin=lambda ctx: setattr(clock, "now", clock.now + step_seconds))
    return clock


def test_time_based_saving(tmp_path: Path, monkeypatch) -> None:
    clock = _fake_clock(monkeypatch, 4.0)
    cfg = CheckpointConfig(save_checkpoint_seconds=10, keep_checkpoint_max=0)
    saver = ModelCheckpoint("t", tmp_path, cfg)
    tiny.model().train(1, tiny.loader(), callbacks=[clock.tick, saver])
    # 4 s per step: saves when >= 10 s have passed, i.e. every 3rd step, plus the final step
    assert sorted(p.name for p in tmp_path.glob("*.ckpt")) == sorted(
        f"t-1_{s}.ckpt" for s in (3, 6, 9, 12))


def test_keep_one_checkpoint_per_n_minutes(tmp_path: Path, monkeypatch) -> None:
    clock = _fake_clock(monkeypatch, 60.0)  # one minute per step
    cfg = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2, keep_checkpoint_per_n_minutes=5)
    tiny.model().train(1, tiny.loader(), callbacks=[clock.tick, ModelCheckpoint("m", tmp_path, cfg)])
    kept = sorted(int(p.stem.split("_")[1]) for p in tmp_path.glob("*.ckpt"))
    assert kept == [1, 6, 11, 12]  # one per 5 minutes (steps 1, 6, 11) + the 2 newest (11, 12)


def test_append_info_and_config_validation(tmp_path: Path) -> None:
    cfg = CheckpointConfig(save_checkpoint_steps=12, append_info=["epoch_num", "step_num", {"lr": 0.1}])
    tiny.model().train(1, tiny.loader(), callbacks=[ModelCheckpoint("a", tmp_path, cfg)])
    _, meta = read_arrays(tmp_path / "a-1_12.ckpt")
    assert meta["append_info"] == {"epoch_num": 1, "step_num": 12, "lr": 0.1}
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["bogus"])
    with pytest.raises(ValueError, match="keep_checkpoint_max"):
        CheckpointConfig(keep_checkpoint_max=-1)
    with pytest.raises(ValueError, match="prefix"):
        ModelCheckpoint("a/b", tmp_path)
    assert CheckpointConfig().save_checkpoint_steps == 1
    assert CheckpointConfig(save_checkpoint_seconds=30).save_checkpoint_steps is None


def test_model_checkpoint_runs_after_the_other_callbacks(tmp_path: Path) -> None:
    seen = []
    probe = LambdaCallback(on_train_step_end=lambda ctx: seen.append(ctx.latest_checkpoint))
    saver = ModelCheckpoint("o", tmp_path, CheckpointConfig(save_checkpoint_steps=1))
    tiny.model().train(1, tiny.loader(), callbacks=[saver, probe])
    assert seen[0] is None and seen[1] == str(tmp_path / "o-1_1.ckpt")


def _epochs(stopper: EarlyStopping, values: list[float], key: str = "eval_loss") -> int:
    """Feed one value per epoch; the epoch at which it stopped (0: never)."""
    ctx = RunContext()
    stopper.on_train_begin(ctx)
    for epoch, value in enumerate(values, 1):
        ctx.epoch, ctx.metrics = epoch, {key: value}
        stopper.on_train_epoch_end(ctx)
        if ctx.stop_requested:
            return epoch
    return 0


def test_early_stopping_rules() -> None:
    assert _epochs(EarlyStopping(patience=2), [1.0, 0.9, 0.95, 0.91, 0.5]) == 4
    assert _epochs(EarlyStopping(patience=2), [1.0, 0.9, 0.95, 0.8, 0.85, 0.7]) == 0
    assert _epochs(EarlyStopping(patience=0), [1.0, 1.0]) == 2
    assert _epochs(EarlyStopping(patience=1, min_delta=0.05), [1.0, 0.97, 0.90]) == 2
    acc = EarlyStopping(monitor="accuracy", patience=1)  # auto: max; found as eval_accuracy
    assert acc.mode == "max" and _epochs(acc, [0.5, 0.6, 0.55], "eval_accuracy") == 3
    assert acc.best == 0.6 and acc.best_epoch == 2
    assert _epochs(EarlyStopping(monitor="loss", mode="max", patience=1), [1.0, 2.0, 1.5], "loss") == 3
    assert _epochs(EarlyStopping(baseline=0.5, patience=1), [0.6, 0.55]) == 1
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")


def test_early_stopping_in_fit_and_restore_best_weights() -> None:
    history = History()
    stopper = EarlyStopping(monitor="loss", min_delta=100.0, patience=1, restore_best_weights=True)
    model = tiny.model()
    ctx = model.fit(5, tiny.loader(), callbacks=[stopper, history])
    assert history.epochs == [1, 2] and stopper.stopped_epoch == 2 and ctx.epoch == 2
    assert ctx.global_step == 2 * STEPS
    # the weights are those of epoch 1 (the best), not those after epoch 2
    replay = tiny.model()
    replay.train(1, tiny.loader())
    for (name, p), (_, q) in zip(model.network.parameters_and_names(), replay.network.parameters_and_names()):
        assert np.array_equal(p.asnumpy(), q.asnumpy()), name
    with pytest.warns(UserWarning, match="'eval_f1' is not among"):
        tiny.model().train(1, tiny.loader(), callbacks=[EarlyStopping(monitor="eval_f1")])


def test_progress_bar_shows_loss_speed_and_compilation(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    tiny.model(mode="pynative").fit(2, tiny.loader(), tiny.loader(shuffle=False),
                                    callbacks=[ProgressBar(file=out, disable=False, mininterval=0)])
    text = out.getvalue()
    assert "epoch 1/2" in text and "epoch 2/2" in text and f"{STEPS}/{STEPS}" in text
    assert "loss=" in text and "samples/s=" in text and "accuracy=" in text and "compiling" not in text
    out = io.StringIO()
    tiny.model(mode="graph").train(1, tiny.loader(), callbacks=[ProgressBar(file=out, disable=False)])
    text = out.getvalue()
    # compilation is its own phase (a spinner, then one line with the stages), not a postfix
    assert "compiling graph (" in text and "graph compiled in" in text and "compile=" not in text
    assert text.index("graph compiled in") < text.index("epoch 1/1:")


def test_history_records_epochs_and_steps() -> None:
    history = History()
    ctx = tiny.model().fit(2, tiny.loader(), tiny.loader(shuffle=False), callbacks=[history])
    assert history.epochs == [1, 2] and len(history.step_losses) == 2 * STEPS
    assert history.history["loss"] == pytest.approx([np.mean(history.step_losses[:STEPS]),
                                                     np.mean(history.step_losses[STEPS:])])
    assert history.history["eval_accuracy"][-1] == ctx.metrics["eval_accuracy"]
    assert all(s > 0 for s in history.history["epoch_seconds"])
    restored = History()
    restored.load_state_dict(history.state_dict())
    assert restored.history == history.history and restored.epochs == history.epochs
