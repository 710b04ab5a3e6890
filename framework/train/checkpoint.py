"""Training checkpoints: everything needed to continue a run exactly, in the safe format.

A training checkpoint is an ordinary framework checkpoint (``ms.load_checkpoint`` reads
its network parameters) written with ``framework.serialization.write_arrays``:
checksummed, written to a temp file and renamed, so a kill at any moment leaves either
the old file or the complete new one. It holds every Parameter of the training network
(network weights plus the optimizer's moments, ``global_step`` and ``learning_rate``)
and, in the JSON metadata under ``twinmode_train_state``, a :class:`TrainState`: the
epoch and step, the data iterator's position, the random generators' states, the mode,
the experiment-config hash and the callbacks' own state (EarlyStopping, History ...).

Files are named ``<prefix>-<epoch>_<step in epoch>.ckpt`` (MindSpore's scheme) or, for a
run counted in steps, ``<prefix>-step-<global step>.ckpt`` (:mod:`.checkpoint_names`); a
``latest`` file in the same folder names the newest one. This module has no knowledge
of callbacks or of the Model, so a command line can drive it directly.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from framework import seed as ms_seed
from framework.serialization import CheckpointError, atomic_write, read_arrays, write_arrays

from .checkpoint_names import checkpoint_name, parse
from .dotted import flatten
from .run_lock import in_family, pointer_lock

STATE_KEY = "twinmode_train_state"
FORMAT = 1
POINTER = "latest"

__all__ = ["CheckpointError", "CheckpointRead", "ConfigMismatchWarning", "CorruptCheckpointWarning",
           "TrainState", "checkpoint_name", "config_hash", "find_checkpoints", "latest_checkpoint",
           "load_train_state", "read_train_state", "save_train_state", "write_pointer"]


class ConfigMismatchWarning(UserWarning):
    """The checkpoint was written under a different experiment configuration."""


class CorruptCheckpointWarning(UserWarning):
    """A checkpoint file was skipped because it cannot be read."""


@dataclass
class TrainState:
    """Where a run stood when the checkpoint was written (all plain JSON data)."""

    epoch: int  # 1-based epoch of the last completed step
    step_in_epoch: int  # steps completed in that epoch
    global_step: int
    steps_per_epoch: int | None = None
    mode: str = "pynative"
    data_state: dict[str, Any] | None = None
    rng: dict[str, Any] = field(default_factory=dict)
    config_hash: str | None = None
    config: dict[str, Any] | None = None
    callbacks: dict[str, Any] = field(default_factory=dict)
    loop: dict[str, Any] = field(default_factory=dict)  # the loop's running sums (epoch loss)
    network: str = ""  # e.g. "LeNet5 with Momentum"
    saved_at: float = 0.0
    path: str | None = None  # where it was read from (not stored)

    def next_position(self) -> tuple[int, int]:
        """``(0-based epoch index, steps already done in it)`` to continue from."""
        if self.steps_per_epoch is not None and self.step_in_epoch >= self.steps_per_epoch:
            return self.epoch, 0
        return self.epoch - 1, self.step_in_epoch


@dataclass(frozen=True)
class CheckpointRead:
    """A training checkpoint read and verified once: its arrays and train state. Whoever
    resolves a resume (``latest_valid``, a run's plan) hands it on (``load_train_state``,
    ``Model.fit(resume_from=...)``) instead of the path, so the file is read once."""

    path: Path
    arrays: dict[str, np.ndarray]
    state: TrainState


def read_checkpoint(path: str | os.PathLike) -> CheckpointRead:
    arrays, state = read_train_state(path)
    return CheckpointRead(Path(path), arrays, state)


# -- config -------------------------------------------------------------------------------
def config_hash(config: Mapping[str, Any]) -> str:
    """A short stable hash of an experiment config (key order does not matter)."""
    text = json.dumps(config, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def config_changes(old: Mapping[str, Any], new: Mapping[str, Any],
                   defaults: Mapping[str, Any] | None = None) -> list[str]:
    """``["optimizer.lr: 0.01 -> 0.02", "seed: added (1)", ...]``; a key ``old`` lacks that
    ``new`` holds at its value in ``defaults`` is no change (the schema grew)."""
    a, b = flatten(old), flatten(new)
    known = flatten(defaults) if defaults is not None else {}
    changes = []
    for key in sorted(set(a) | set(b)):
        if key not in b:
            changes.append(f"{key}: removed (was {a[key]!r})")
        elif key not in a:
            if key not in known or json.dumps(known[key], default=str) != json.dumps(b[key], default=str):
                changes.append(f"{key}: added ({b[key]!r})")
        elif json.dumps(a[key], default=str) != json.dumps(b[key], default=str):
            changes.append(f"{key}: {a[key]!r} -> {b[key]!r}")
    return changes


# -- random generators ----------------------------------------------------------------------
def capture_rng() -> dict[str, Any]:
    """The framework generator's state plus NumPy's and Python's global ones (JSON data)."""
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    version, internal, py_gauss = random.getstate()
    return {"framework": ms_seed.get_rng_state(),
            "numpy": {"kind": kind, "keys": keys.tolist(), "pos": int(pos),
                      "has_gauss": int(has_gauss), "gauss": float(gauss)},
            "python": {"version": version, "state": list(internal), "gauss": py_gauss}}


def restore_rng(rng: Mapping[str, Any]) -> None:
    if "framework" in rng:
        ms_seed.set_rng_state(rng["framework"])
    if "numpy" in rng:
        s = rng["numpy"]
        np.random.set_state((s["kind"], np.array(s["keys"], dtype=np.uint32), s["pos"],
                             s["has_gauss"], s["gauss"]))
    if "python" in rng:
        s = rng["python"]
        random.setstate((s["version"], tuple(s["state"]), s["gauss"]))


# -- parameters -------------------------------------------------------------------------------
def named_parameters(train_network: Any) -> dict[str, Any]:
    """``{checkpoint name: Parameter}`` of a training network (weights + optimizer state)."""
    out: dict[str, Any] = {}
    for path, param in train_network.parameters_and_names():
        name = param.name or path
        if name in out and out[name] is not param:
            raise CheckpointError(f"two parameters of {type(train_network).__name__} are named "
                                  f"{name!r}; give them distinct names to checkpoint them")
        out[name] = param
    return out


def _check_fits(path: Path, arrays: Mapping[str, np.ndarray], params: Mapping[str, Any],
                saved_from: str, network: str, settings: set[str] = frozenset()) -> None:
    """``settings`` (the optimizer's hyper-parameters, kept from the resuming run) may be
    absent or shaped otherwise (a schedule's length)."""
    missing = [n for n in params if n not in arrays and n not in settings]
    unexpected = [n for n in arrays if n not in params]
    wrong = _misshapen(arrays, params, settings)
    if not (missing or unexpected or wrong):
        return
    raise CheckpointError(
        f"{path} does not fit this network: it was saved from {saved_from or 'another network'} "
        f"and this is {network}; " + _misfit(missing, unexpected, wrong)
        + ". Resume with the same network and optimizer, or start without resume_from")


def _misshapen(arrays: Mapping[str, np.ndarray], params: Mapping[str, Any],
               settings: set[str]) -> list[str]:
    """``"name dtype[shape] vs dtype[shape]"`` for each parameter whose saved array differs
    in shape or dtype (``settings`` excepted)."""
    wrong = []
    for name, param in params.items():
        if name in arrays and name not in settings:
            have, want = arrays[name], param.asnumpy()
            if have.shape != want.shape or have.dtype != want.dtype:
                wrong.append(f"{name} {have.dtype}{list(have.shape)} vs {want.dtype}{list(want.shape)}")
    return wrong


def _some(names: list[str]) -> str:
    """The first five names, and how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _misfit(missing: list[str], unexpected: list[str], wrong: list[str]) -> str:
    """What differs between a checkpoint and the network, in ``; ``-separated parts."""
    parts = [f"{len(missing)} parameter(s) missing from the checkpoint ({_some(missing)})" if missing else "",
             f"{len(unexpected)} unknown to the network ({_some(unexpected)})" if unexpected else "",
             f"shape/dtype differ: {_some(wrong)}" if wrong else ""]
    return "; ".join(p for p in parts if p)


# -- save / load ---------------------------------------------------------------------------------
def save_train_state(path: str | os.PathLike, train_network: Any, state: TrainState,
                     append_info: Mapping[str, Any] | None = None) -> Path:
    """Write the parameters of ``train_network`` and ``state`` atomically to ``path``."""
    path = Path(path)
    arrays = {name: param.asnumpy() for name, param in named_parameters(train_network).items()}
    meta = asdict(state)
    meta.pop("path")
    meta["saved_at"] = meta["saved_at"] or time.time()
    meta["network"] = meta["network"] or type(train_network).__name__
    metadata: dict[str, Any] = {STATE_KEY: meta, "format": FORMAT}
    if append_info:
        metadata["append_info"] = dict(append_info)
    write_arrays(path, arrays, metadata)
    return path


def read_train_state(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], TrainState]:
    """Read and verify a training checkpoint (raises ``CheckpointError`` with the reason)."""
    path = Path(path)
    arrays, metadata = read_arrays(path)
    meta = metadata.get(STATE_KEY)
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path} holds parameters only, not a training state; load it with "
                              "ms.load_checkpoint(path, net=net) instead of resume_from")
    known = set(TrainState.__dataclass_fields__)
    try:
        state = TrainState(**{k: v for k, v in meta.items() if k in known})
    except TypeError as error:
        raise CheckpointError(f"{path} has an unreadable training state: {error}") from None
    problem = rng_problem(state.rng) if state.rng else None
    if problem:
        raise CheckpointError(f"{path} has a damaged random-generator state ({problem}); resume from "
                              "another checkpoint (its weights alone: ms.load_checkpoint)")
    state.path = str(path)
    return arrays, state


def rng_problem(rng: Any) -> str | None:
    """Why the saved generator states ``rng`` cannot be restored, or None: each is tried on a
    scratch generator of its kind, so a damaged one is found when the file is read, before a
    resume changes anything."""
    if not isinstance(rng, Mapping):
        return f"a {type(rng).__name__}, not a mapping"
    trials = {"framework": lambda s: setattr(np.random.default_rng().bit_generator, "state", s),
              "numpy": lambda s: np.random.RandomState().set_state(
                  (s["kind"], np.array(s["keys"], dtype=np.uint32), s["pos"], s["has_gauss"], s["gauss"])),
              "python": lambda s: random.Random().setstate((s["version"], tuple(s["state"]), s["gauss"]))}
    for name, trial in trials.items():
        if name in rng:
            try:
                trial(rng[name])
            except (KeyError, TypeError, ValueError, OverflowError, IndexError) as error:
                return f"{name}: {type(error).__name__}: {' '.join(str(error).split())[:80]}"
    return None


def load_train_state(source: str | os.PathLike | CheckpointRead, train_network: Any, *,
                     config: Mapping[str, Any] | None = None, expected_hash: str | None = None,
                     restore_random: bool = True, network_name: str | None = None,
                     keep: Any = (), defaults: Mapping[str, Any] | None = None,
                     may_change: Sequence[str] = ()) -> TrainState:
    """Load a training checkpoint (a path, or one already read) into ``train_network`` (and
    the random generators).

    ``network_name`` describes the network in error messages (default: its class name).
    Parameters in ``keep`` (the optimizer's hyper-parameters, e.g. the learning rate) keep
    their current values: the configuration of the resumed run wins for settings, while
    weights, moments and the step count come from the checkpoint. ``may_change``: config
    keys (``a.b``, or a prefix ending in ``.``) that differ without a warning (a longer run).

    Raises ``CheckpointError`` when the file is corrupt or was saved from another network;
    warns (``ConfigMismatchWarning``) listing what changed when the config differs.
    """
    read = source if isinstance(source, CheckpointRead) else read_checkpoint(source)
    path, arrays, state = read.path, read.arrays, read.state
    params = named_parameters(train_network)
    kept = {name for name, param in params.items() if any(param is k for k in keep)}
    # settings are not checked against the file: a longer LR schedule, a schedule where the
    # run that wrote it had one learning rate
    _check_fits(Path(path), arrays, params, state.network, network_name or type(train_network).__name__,
                settings=kept)
    changed = _config_changed(state, config, expected_hash, defaults, may_change)
    if changed is not None:
        warnings.warn(f"resuming from {path}, which was written with a different experiment config: "
                      f"{changed}. The new settings apply (learning rate and other hyper-parameters); "
                      "weights, optimizer moments, step count and data position come from the "
                      "checkpoint", ConfigMismatchWarning, stacklevel=2)
    for name, param in params.items():
        if name not in kept:
            param.set_data(arrays[name])
    if restore_random and state.rng:
        restore_rng(state.rng)
    return state


def _config_changed(state: TrainState, config: Mapping[str, Any] | None, expected_hash: str | None,
                    defaults: Mapping[str, Any] | None, may_change: Sequence[str] = ()) -> str | None:
    """What differs between the checkpoint's config and this run's (None: nothing that
    counts; keys added to the schema since, at their defaults, do not; nor ``may_change``)."""
    current = config_hash(config) if config is not None else expected_hash
    if current is None or state.config_hash is None or current == state.config_hash:
        return None
    if state.config is None or not config:
        return f"hash {state.config_hash} -> {current}"
    old, new = _without(state.config, may_change), _without(config, may_change)
    changes = config_changes(old, new, _without(defaults, may_change) if defaults is not None else None)
    if not changes:
        return None if defaults is not None or may_change else f"hash {state.config_hash} -> {current}"
    return "; ".join(changes)


def _without(config: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """``config`` flattened, less ``keys`` (a key, or a prefix ending in ``.``)."""
    return {k: v for k, v in flatten(config).items()
            if not any(k == r or (r.endswith(".") and k.startswith(r)) for r in keys)}


# -- finding checkpoints --------------------------------------------------------------------------
def find_checkpoints(directory: str | os.PathLike, prefix: str | None = None,
                     runs: bool = False) -> list[Path]:
    """``<prefix>-E_S.ckpt`` and ``<prefix>-step-N.ckpt`` files in ``directory``, newest
    first (mtime, then the numbers in the name); with ``runs`` also those of later runs of
    the same name (``<prefix>_1-E_S.ckpt`` ...)."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    found = []
    for entry in directory.iterdir():
        parsed = parse(entry.name)
        wanted = prefix is None or parsed and (in_family(parsed.prefix, prefix) if runs
                                               else parsed.prefix == prefix)
        if parsed and wanted and entry.is_file():
            found.append((entry.stat().st_mtime_ns, parsed.order, entry))
    return [item[-1] for item in sorted(found, key=lambda item: item[:2], reverse=True)]


def write_pointer(directory: str | os.PathLike, path: str | os.PathLike, state: TrainState) -> None:
    """Atomically point ``<directory>/latest`` at ``path``."""
    info = {"checkpoint": Path(path).name, "epoch": state.epoch, "step_in_epoch": state.step_in_epoch,
            "global_step": state.global_step, "mode": state.mode}
    with pointer_lock(Path(directory)):  # its temporaries are only ever made under this lock
        atomic_write(Path(directory) / POINTER, (json.dumps(info, indent=1) + "\n").encode())


def read_pointer(directory: str | os.PathLike) -> Path | None:
    try:
        info = json.loads((Path(directory) / POINTER).read_text())
        return Path(directory) / info["checkpoint"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def latest_valid(directory: str | os.PathLike, prefix: str | None = None, runs: bool = False
                 ) -> CheckpointRead | None:
    """The newest readable checkpoint, read; corrupt newer ones are skipped with a warning.
    ``runs``: of any run of ``prefix`` (``prefix``, ``prefix_1`` ...), the newest."""
    candidates = find_checkpoints(directory, prefix, runs)
    pointed = read_pointer(directory)
    if pointed is not None and pointed.is_file() and pointed not in candidates:
        candidates.append(pointed)
    for path in candidates:
        try:
            return read_checkpoint(path)
        except (CheckpointError, OSError) as error:
            reason = str(error) if str(path) in str(error) else f"{path}: {error}"
            warnings.warn(f"skipping a checkpoint that cannot be used: {reason}; trying the previous one",
                          CorruptCheckpointWarning, stacklevel=2)
            continue
    return None


def latest_checkpoint(directory: str | os.PathLike, prefix: str | None = None) -> Path | None:
    """Path of the newest valid training checkpoint in ``directory`` (None if there is none)."""
    found = latest_valid(directory, prefix)
    return found.path if found else None
