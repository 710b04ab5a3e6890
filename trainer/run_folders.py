"""Where a run's checkpoints go, and which checkpoint ``last`` and ``best`` mean.

Layout: every run from YAML writes into a folder of its own under the experiment's
``checkpoint.dir`` (``checkpoints/<name>/``): ``<YYYYmmdd-HHMMSS>-<mode>/`` holding its
``<name>-<epoch>_<step>.ckpt`` files (a language model's: ``<name>-step-<N>.ckpt``),
``<name>-best.ckpt`` (``checkpoint.keep_best``) and its ``latest`` pointer. A resumed run
goes on writing into the folder of the checkpoint it resumed (it is the same run). Files
of older versions, directly in ``checkpoints/<name>/``, count as one more run folder.

``--resume last`` is the newest checkpoint *of this config*: of the runs whose config
equals this one except for the keys a resume may change (:data:`RESUMABLE`: how long to
train, how often to evaluate and log, the mode and device, where things are written and
logged). ``train eval|sample|export --checkpoint last`` is the newest checkpoint *of these
weights*: of the runs whose network, data and tokenizer (:data:`WEIGHTS`) are this config's,
whatever the optimizer or the run's length. When only other runs have checkpoints, ``last``
is refused with the keys that differ (:class:`ResumeMismatch`, exit 2): a diverged run with
another learning rate is never resumed by accident. ``best`` is the keep-best file of that
newest run. A run's start removes the temporaries of killed writers in every run folder
(:func:`remove_stale_temps_under`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from framework._io import remove_stale_temps
from framework.serialization import CheckpointError
from framework.train.checkpoint import (
    CheckpointRead,
    config_changes,
    find_checkpoints,
    latest_valid,
    read_checkpoint,
)
from framework.train.dotted import flatten

# keys a resume may change without making it another run: run length, how often (in epochs)
# and on how much it evaluates, mode, places, logging (a language model's
# train.eval_every_steps is not one: its intervals are the epochs the checkpoint counts)
RESUMABLE = ("train.epochs", "train.max_steps", "train.eval_every", "train.eval_batches",
             "dataset.test_limit", "mode", "device", "graph.", "dist.", "checkpoint.", "mlflow.",
             "ir.", "train.log_every", "train.early_stopping.")
# what trained weights are of: the network, and the data and tokenizer it reads (its input
# size, normalisation, vocabulary); evaluating or sampling them needs nothing else
WEIGHTS = ("task", "model.", "dataset.name", "dataset.root", "dataset.class", "dataset.args.",
           "dataset.resize", "dataset.normalize", "dataset.tokenizer", "dataset.vocab_size",
           "dataset.block_size", "dataset.val_fraction")


def _matches(key: str, keys: tuple[str, ...]) -> bool:
    return any(key == r or (r.endswith(".") and key.startswith(r)) for r in keys)


class ResumeMismatch(CheckpointError):
    """``last`` found only checkpoints of other configs (the CLI exits with status 2)."""


def identity(config: Mapping[str, Any]) -> dict[str, Any]:
    """The flattened config without the :data:`RESUMABLE` keys: what makes two runs one."""
    return {k: v for k, v in flatten(config).items() if not _matches(k, RESUMABLE)}


def weights_identity(config: Mapping[str, Any]) -> dict[str, Any]:
    """The flattened config's :data:`WEIGHTS` keys: what makes two runs' weights usable alike."""
    return {k: v for k, v in flatten(config).items() if _matches(k, WEIGHTS)}


def new_run_folder(base: str | Path, mode: str, now: float | None = None, create: bool = False) -> Path:
    """``<base>/<YYYYmmdd-HHMMSS>-<mode>`` (``-2``, ``-3`` ... when taken). ``create``: made
    here, atomically, so that two runs started in the same second never share one (a base
    that cannot be written is left to the run's folder checks to report)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    n = 1
    while True:
        folder = Path(base) / (f"{stamp}-{mode}" if n == 1 else f"{stamp}-{mode}-{n}")
        n += 1
        if folder.exists():
            continue
        if not create:
            return folder
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
        except OSError:
            return folder


def run_folders(base: str | Path) -> list[Path]:
    """The run folders under ``base`` (and ``base`` itself when it holds checkpoints of an
    older layout), the one with the newest checkpoint first."""
    base = Path(base)
    if not base.is_dir():
        return []
    folders = [p for p in base.iterdir() if p.is_dir()] + [base]
    newest = {}
    for folder in folders:
        files = find_checkpoints(folder)
        if files:
            newest[folder] = files[0].stat().st_mtime_ns
    return sorted(newest, key=newest.__getitem__, reverse=True)


def remove_stale_temps_under(base: str | Path) -> list[Path]:
    """The temporaries of killed writers in every run folder under ``base`` (a run that is
    never resumed would otherwise keep its half-written checkpoint for good)."""
    base = Path(base)
    try:
        folders = [base, *(p for p in base.iterdir() if p.is_dir())]
    except OSError:
        return []
    return [path for folder in folders for path in remove_stale_temps(folder)]


def _differences(read: CheckpointRead, config: Mapping[str, Any], defaults: Mapping[str, Any] | None,
                 same: Any = identity) -> list[str]:
    old = read.state.config
    if old is None:
        return []  # written outside the trainer: nothing to compare
    return config_changes(same(old), same(config), same(defaults) if defaults else None)


def find_last(base: str | Path, prefix: str, config: Mapping[str, Any],
              defaults: Mapping[str, Any] | None = None, weights: bool = False) -> CheckpointRead | None:
    """The newest valid checkpoint of a run of this config (``weights``: of a run whose
    network, data and tokenizer are this config's), None when there is no checkpoint at all.
    Raises :class:`ResumeMismatch` when every checkpoint found is another config's."""
    same = weights_identity if weights else identity
    newest_other: tuple[CheckpointRead, list[str]] | None = None
    for folder in run_folders(base):
        read = latest_valid(folder, prefix, runs=True)
        if read is None:
            continue
        changes = _differences(read, config, defaults, same)
        if not changes:
            return read
        newest_other = newest_other or (read, changes)
    if newest_other is None:
        return None
    read, changes = newest_other
    shown = "; ".join(changes[:6]) + (f"; and {len(changes) - 6} more" if len(changes) > 6 else "")
    what, other = ("this model and data", "train this model first") if weights else ("this config",
                                                                                     "start a new run")
    raise ResumeMismatch(f"'last': no checkpoint of {what} under {base}; the newest, {read.path}, "
                         f"was written with another one ({shown}). Give that file's path to use it "
                         f"anyway, or {other}")


def find_best(base: str | Path, prefix: str, config: Mapping[str, Any],
              defaults: Mapping[str, Any] | None = None) -> Path:
    """The keep-best checkpoint of the newest run of this model and data."""
    last = find_last(base, prefix, config, defaults, weights=True)
    if last is None:
        raise CheckpointError(f"'best': no checkpoint under {base}; train first (checkpoint.keep_best "
                              "writes the best one)")
    best = sorted(last.path.parent.glob("*-best.ckpt"))
    if not best:
        raise CheckpointError(f"'best': the newest run of this model ({last.path.parent}) kept no best "
                              "checkpoint; set checkpoint.keep_best (e.g. eval/accuracy) or use 'last'")
    return best[0]


def checkpoint_of(config: Any, checkpoint: str | Path) -> CheckpointRead:
    """``checkpoint`` read: ``last`` (the newest of the runs of this config's network, data
    and tokenizer), ``best`` (its keep-best file) or a path (``config``: an ExperimentConfig)."""
    prefix, base = config.name.replace("/", "_"), config.checkpoint_dir
    current, defaults = config.to_dict(), type(config)().to_dict()
    if str(checkpoint) in ("last", "latest"):
        found = find_last(base, prefix, current, defaults, weights=True)
        if found is None:
            raise CheckpointError(f"'last': no checkpoint of {config.name} under {base}; train first, "
                                  "or give a checkpoint's path")
        return found
    if str(checkpoint) == "best":
        return read_checkpoint(find_best(base, prefix, current, defaults))
    return read_checkpoint(checkpoint)
