"""ModelCheckpoint: save resumable training checkpoints and prune old ones."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..checkpoint import (
    TrainState,
    capture_rng,
    checkpoint_name,
    find_checkpoints,
    save_train_state,
    write_pointer,
)
from ..context import RunContext
from .base import Callback
from .checkpoint_config import CheckpointConfig


def state_from_context(ctx: RunContext) -> TrainState:
    """The TrainState of a run at the current step boundary."""
    model = ctx.model
    callbacks = ctx.callbacks.state_dict() if hasattr(ctx.callbacks, "state_dict") else {}
    return TrainState(
        epoch=ctx.epoch, step_in_epoch=ctx.step, global_step=ctx.global_step,
        steps_per_epoch=ctx.steps_per_epoch, mode=ctx.mode, data_state=ctx.data_state,
        rng=capture_rng(), config_hash=getattr(model, "config_hash", None),
        config=getattr(model, "config", None), callbacks=callbacks,
        loop={"epoch_loss_sum": ctx.epoch_loss_sum, "epoch_loss_count": ctx.epoch_loss_count},
        network=describe(ctx.network, ctx.optimizer), saved_at=time.time())


def describe(network: Any, optimizer: Any) -> str:
    """``"LeNet5 with Momentum"``: how errors name the network a checkpoint belongs to."""
    name = type(network).__name__ if network is not None else "a network"
    return f"{name} with {type(optimizer).__name__}" if optimizer is not None else name


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix="CKP", directory=None, config=None)``.

    Writes ``<directory>/<prefix>-<epoch>_<step in epoch>.ckpt`` (e.g. ``lenet-1_1875.ckpt``)
    as ``config`` (a :class:`CheckpointConfig`) says, points ``<directory>/latest`` at the
    newest, and deletes the oldest files of this prefix beyond ``keep_checkpoint_max``.
    Each file holds the network and optimizer Parameters and the whole training state,
    so ``Model.train(..., resume_from="last")`` continues exactly where it stopped.
    ``latest`` (also ``run_context.latest_checkpoint``) is the newest file written.
    It runs after the other callbacks (``order = 100``).
    """

    order = 100

    def __init__(self, prefix: str = "CKP", directory: str | os.PathLike | None = None,
                 config: CheckpointConfig | None = None) -> None:
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name prefix, got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError("ModelCheckpoint: config must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self.prefix = prefix
        self.directory = Path(directory) if directory is not None else Path.cwd()
        self.config = config or CheckpointConfig()
        self.latest: Path | None = None
        self._last_saved_step: int | None = None
        self._last_save_time = time.monotonic()
        self._kept: list[str] = []  # kept by keep_checkpoint_per_n_minutes
        self._last_keep_time: float | None = None  # wall clock (survives a resume)

    # -- hooks ---------------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob(f".{self.prefix}-*.tmp"):  # left by a killed write
            stale.unlink(missing_ok=True)
        self._last_saved_step = run_context.global_step if run_context.resumed_from else None
        self._last_save_time = time.monotonic()

    def on_train_step_end(self, run_context: RunContext) -> None:
        cfg = self.config
        due = bool(cfg.save_checkpoint_steps) and run_context.global_step % cfg.save_checkpoint_steps == 0
        elapsed = time.monotonic() - self._last_save_time
        if cfg.save_checkpoint_seconds and elapsed >= cfg.save_checkpoint_seconds:
            due = True
        if due:
            self.save_now(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        # A file written at the epoch's last step is rewritten with the callbacks' epoch-end
        # state (validation, early stopping), so a resume does not redo or lose that work.
        if self._last_saved_step == run_context.global_step:
            self.save_now(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        if run_context.global_step > 0 and self._last_saved_step != run_context.global_step:
            self.save_now(run_context)

    # -- saving ----------------------------------------------------------------------------------
    def save_now(self, run_context: RunContext) -> Path:
        """Write a checkpoint of the current step boundary; returns its path."""
        state = state_from_context(run_context)
        path = self.directory / checkpoint_name(self.prefix, run_context.epoch, run_context.step)
        save_train_state(path, run_context.train_network, state,
                         self.config.appended(run_context.epoch, run_context.global_step))
        write_pointer(self.directory, path, state)
        self.latest = path
        run_context.latest_checkpoint = str(path)
        run_context.latest_checkpoint_step = run_context.global_step
        self._last_saved_step = run_context.global_step
        self._last_save_time = time.monotonic()
        self._prune(path)
        return path

    def _prune(self, newest: Path) -> None:
        cfg = self.config
        minutes = cfg.keep_checkpoint_per_n_minutes
        now = time.time()
        if minutes and (self._last_keep_time is None or now - self._last_keep_time >= minutes * 60):
            self._kept.append(newest.name)
            self._last_keep_time = now
        if not cfg.keep_checkpoint_max and not minutes:
            return
        keep = max(cfg.keep_checkpoint_max or 1, 1)
        files = find_checkpoints(self.directory, self.prefix)
        for path in files[keep:]:
            if path != newest and path.name not in self._kept:
                path.unlink(missing_ok=True)

    # -- resume ------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"kept": list(self._kept), "last_keep_time": self._last_keep_time}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._kept = list(state.get("kept", []))
        self._last_keep_time = state.get("last_keep_time")
