"""ModelCheckpoint: save resumable training checkpoints and prune old ones."""

from __future__ import annotations

import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from ..._io import remove_stale_temps
from ..checkpoint import (
    TrainState,
    capture_rng,
    checkpoint_name,
    find_checkpoints,
    save_train_state,
    write_pointer,
)
from ..context import RunContext
from ..run_lock import RunLock, claim_prefix
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


RETRIES = 2  # a failed save is tried again this many times before the rescue folder
RETRY_SECONDS = 0.5


def rescue_root() -> Path:
    """Where saves refused by their folder go (read at each use: the temp dir may change)."""
    return Path(tempfile.gettempdir()) / "twinmode-rescue"


def _rescue_folders() -> list[Path]:
    try:
        return [p for p in rescue_root().iterdir() if p.is_dir()]
    except OSError:
        return []


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix="CKP", directory=None, config=None)``.

    Writes ``<directory>/<prefix>-<epoch>_<step in epoch>.ckpt`` (e.g. ``lenet-1_1875.ckpt``;
    ``name_by_step``: ``<prefix>-step-<global step>.ckpt``, for a run counted in steps)
    as ``config`` (a :class:`CheckpointConfig`) says, points ``<directory>/latest`` at the
    newest, and deletes the oldest files of this prefix beyond ``keep_checkpoint_max``.
    Each file holds the network and optimizer Parameters and the whole training state,
    so ``Model.train(..., resume_from="last")`` continues exactly where it stopped.
    ``latest`` (also ``run_context.latest_checkpoint``) is the newest file written.
    It runs after the other callbacks (phase ``save``).

    Each run writes under a prefix of its own, held with a lock while it trains: a new run
    whose prefix already has files (or is held by a running process) takes ``<prefix>_1``,
    ``<prefix>_2`` ... as MindSpore does, so runs sharing a folder never overwrite or prune
    each other's files; a resumed run continues under the prefix of its checkpoint. A save
    that fails (full or read-only disk) is retried, then written to a rescue folder under
    the system's temporary directory, with a warning naming it. A resume of a run that a
    running process is training is refused (``RunBusy``, a ``CheckpointError``).
    """

    phase = "save"
    state_key = "checkpoint"

    def __init__(self, prefix: str = "CKP", directory: str | os.PathLike | None = None,
                 config: CheckpointConfig | None = None, *, run_lock: RunLock | None = None,
                 name_by_step: bool = False) -> None:
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name prefix, got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError("ModelCheckpoint: config must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self.prefix = self.base_prefix = prefix
        self.directory = Path(directory) if directory is not None else Path.cwd()
        self._lock: RunLock | None = None
        # the resumed run's lock, taken by this process before the callbacks existed
        # (run_lock.hold_run): the resume continues under it instead of claiming one
        self._held = run_lock
        self.config = config or CheckpointConfig()
        self.name_by_step = name_by_step
        self.latest: Path | None = None
        self.failure: str | None = None  # why the newest save wrote nothing anywhere (else None)
        self._last_saved_step: int | None = None
        self._last_save_time = time.monotonic()
        self._kept: list[str] = []  # kept by keep_checkpoint_per_n_minutes
        self._last_keep_time: float | None = None  # wall clock (survives a resume)

    # -- hooks ---------------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        resumed = Path(run_context.resumed_from) if run_context.resumed_from else None
        self.prefix, self._lock = claim_prefix(self.directory, self.base_prefix, resumed, self._held)
        for folder in (self.directory, *_rescue_folders()):
            remove_stale_temps(folder)
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
        try:
            if run_context.global_step > 0 and self._last_saved_step != run_context.global_step:
                self.save_now(run_context)
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    # -- saving ----------------------------------------------------------------------------------
    def save_now(self, run_context: RunContext) -> Path | None:
        """Write a checkpoint of the current step boundary; returns its path (None when no
        place at all could take it: training goes on with its state in memory)."""
        state = state_from_context(run_context)
        name = checkpoint_name(self.prefix, run_context.epoch, run_context.step,
                               run_context.global_step if self.name_by_step else None)
        remove_stale_temps(self.directory)  # a killed writer's (another run of this folder)
        info = self.config.appended(run_context.epoch, run_context.global_step)
        error: OSError | None = None
        for attempt in range(RETRIES + 1):
            try:
                path = self._write(self.directory / name, run_context, state, info)
                break
            except OSError as failure:
                error = failure
                time.sleep(RETRY_SECONDS * attempt)
        else:
            path = self._rescue(name, run_context, state, info, error)
            if path is None:
                return None
        self.latest, self.failure = path, None
        run_context.latest_checkpoint = str(path)
        run_context.latest_checkpoint_step = run_context.global_step
        self._last_saved_step = run_context.global_step
        self._last_save_time = time.monotonic()
        self._prune(path)
        return path

    def _write(self, path: Path, ctx: RunContext, state: TrainState, info: dict[str, Any]) -> Path:
        save_train_state(path, ctx.train_network, state, info)
        write_pointer(path.parent, path, state)
        return path

    def _rescue(self, name: str, ctx: RunContext, state: TrainState, info: dict[str, Any],
                error: OSError | None) -> Path | None:
        """The configured folder refused the file: write it to a rescue folder instead."""
        reason = f"{type(error).__name__}: {error.strerror or error}" if error else "unknown error"
        rescue = rescue_root() / f"{self.prefix}-{os.getpid()}"
        try:
            path = self._write(rescue / name, ctx, state, info)
        except OSError as second:
            self.failure = (f"{self.directory / name} could not be written ({reason}), nor "
                            f"{rescue / name} ({second.strerror or second})")
            warnings.warn(f"checkpoint {self.failure}; training goes on with its state in memory and "
                          "saves again at the next checkpoint", stacklevel=2)
            return None
        warnings.warn(f"checkpoint folder {self.directory} cannot be written ({reason}); this run "
                      f"saves its checkpoints to {rescue} instead (resume with --resume {path})",
                      stacklevel=2)
        self.directory = rescue
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
