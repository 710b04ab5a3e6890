"""Item 9: leftovers of killed writes are cleaned, and small lies are gone.

Before the fix ``.latest.*.tmp`` files stayed after a SIGKILL, a resume with nothing left
to train printed ``nan ms/step`` and logged an empty MLflow run, ``Dense(-4, 2)`` said
``math domain error`` and a string input gave an AttributeError.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from framework import nn
from framework.train import CheckpointConfig, ModelCheckpoint

from ..framework.train import tiny
from .helpers import DATA, ROOT, TINY, experiment, train


def test_stale_temporaries_in_the_checkpoint_folder_are_removed(tmp_path: Path) -> None:
    ours = [tmp_path / ".latest.k3j2h1.tmp", tmp_path / ".run-1_4.ckpt.a8f7d6.tmp"]
    other = tmp_path / ".another-1_4.ckpt.b9c8.tmp"  # another run's prefix: not ours to judge
    for path in (*ours, other):
        path.write_bytes(b"half written")
    saver = ModelCheckpoint("run", tmp_path, CheckpointConfig(save_checkpoint_steps=4))
    tiny.model(seed=0, mode="pynative").train(1, tiny.loader(), callbacks=[saver])
    assert not any(p.exists() for p in ours)
    assert other.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp") and p != other]


WRITER = """\
import sys, time
from framework._io import atomic_write

def chunks():
    yield b"half a checkpoint"
    print("writing", flush=True)
    time.sleep(120)
    yield b"never"

atomic_write(sys.argv[1], chunks())
"""


def _writer(target: Path) -> subprocess.Popen:
    """A process stopped in the middle of ``atomic_write(target)`` (its temporary made)."""
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout.readline() == "writing\n"
    return child


def test_a_killed_writers_temporary_is_removed_at_the_next_save(tmp_path: Path) -> None:
    """SIGKILLed mid-write, a writer leaves ``.<name>.w<pid>@<host>.<random>.tmp``; the next
    save in that folder removes it, whatever run it was (before: only temporaries of the
    saving run's own prefix went, so a run never resumed kept its temporary for good). A
    live writer's temporary is left alone."""
    killed, alive = _writer(tmp_path / "other-1_4.ckpt"), _writer(tmp_path / "third-1_4.ckpt")
    try:
        killed.kill()
        killed.wait()
        (dead,) = tmp_path.glob(".other-1_4.ckpt.*.tmp")
        (live,) = tmp_path.glob(".third-1_4.ckpt.*.tmp")
        assert f".w{killed.pid}@" in dead.name and f".w{alive.pid}@" in live.name
        saver = ModelCheckpoint("run", tmp_path, CheckpointConfig(save_checkpoint_steps=4))
        tiny.model(seed=0, mode="pynative").train(1, tiny.loader(), callbacks=[saver])
        assert not dead.exists() and live.exists()
    finally:
        alive.kill()
        alive.wait()
    assert not list(tmp_path.glob("other-*")) and not list(tmp_path.glob("third-*"))


@pytest.mark.slow
@pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
def test_resume_with_nothing_left_says_so_and_logs_no_run(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    file = experiment(tmp_path, TINY)
    assert train(tmp_path, "run", str(file), "train.epochs=1", "--quiet").returncode == 0
    again = train(tmp_path, "run", str(file), "train.epochs=1", "--quiet", "--resume", "last")
    assert again.returncode == 0, again.stderr
    assert "nan" not in again.stdout
    assert re.search(r"nothing to train: checkpoints/tiny/\d{8}-\d{6}-pynative/tiny-1_6\.ckpt is already at "
                     r"epoch 1 of train\.epochs=1", again.stdout) and "train.epochs=2" in again.stdout
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("reliability").experiment_id])
    assert len(runs) == 1  # no empty second run


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.Dense(-4, 2), ValueError, "Dense: in_channels must be >= 1, got -4"),
    (lambda: nn.Dense(4, 0), ValueError, "Dense: out_channels must be >= 1, got 0"),
    (lambda: nn.Dense("hello", 2), TypeError, "Dense: in_channels must be a positive int, got 'hello' (str)"),
    (lambda: nn.Dense(2.5, 2), TypeError, "Dense: in_channels must be a positive int, got 2.5 (float)"),
    (lambda: nn.Conv2d(1, -2, 3), ValueError, "Conv2d: out_channels must be >= 1, got -2"),
    (lambda: nn.BatchNorm2d(0), ValueError, "BatchNorm2d: num_features must be >= 1, got 0"),
    (lambda: nn.Dense(4, 2)("hello"), TypeError, "Dense(4, 2): the input must be a Tensor, got str 'hello'"),
])
def test_layer_arguments_get_one_clear_line(make, error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        make()
    assert str(caught.value).startswith(message)
