"""Item 5: runs that share a checkpoint folder never overwrite or prune each other's files.

Before the fix a second run with the same name rotated the first run's checkpoints away
through ``keep_max`` and two concurrent runs wrote into one set of files.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from framework.train import CheckpointConfig, ModelCheckpoint, read_train_state
from framework.train.run_lock import RunBusy, claim_prefix, hold_run

from ..framework.train import tiny
from .helpers import DATA, ROOT, TINY, env, experiment, one_error, train

KEEP = 2


def _saver(folder: Path) -> ModelCheckpoint:
    return ModelCheckpoint("run", folder, CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=KEEP))


def _snapshot(folder: Path, prefix: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.glob(f"{prefix}-*.ckpt")}


def test_a_second_run_keeps_the_first_runs_files(tmp_path: Path) -> None:
    tiny.model(seed=0, mode="pynative").train(2, tiny.loader(), callbacks=[_saver(tmp_path)])
    first = _snapshot(tmp_path, "run")
    assert len(first) == KEEP
    second_saver = _saver(tmp_path)
    tiny.model(seed=1, mode="pynative").train(2, tiny.loader(), callbacks=[second_saver])
    assert second_saver.prefix == "run_1"
    assert _snapshot(tmp_path, "run") == first  # untouched, not rotated away
    assert len(_snapshot(tmp_path, "run_1")) == KEEP


def test_a_prefix_held_by_a_running_process_is_not_shared(tmp_path: Path) -> None:
    prefix, lock = claim_prefix(tmp_path, "run")  # as a concurrent run holds it
    try:
        assert prefix == "run"
        saver = _saver(tmp_path)
        tiny.model(seed=1, mode="pynative").train(1, tiny.loader(), callbacks=[saver])
        assert saver.prefix == "run_1"
        assert not list(tmp_path.glob("run-*.ckpt"))
    finally:
        lock.release()
    assert claim_prefix(tmp_path, "run")[0] == "run"  # released: free again (no files yet)


def test_resume_last_takes_the_newest_run_and_continues_its_files(tmp_path: Path) -> None:
    tiny.model(seed=0, mode="pynative").train(1, tiny.loader(), callbacks=[_saver(tmp_path)])
    time.sleep(0.01)
    tiny.model(seed=1, mode="pynative").train(1, tiny.loader(), callbacks=[_saver(tmp_path)])
    newest = max(tmp_path.glob("run_1-*.ckpt"), key=lambda p: p.stat().st_mtime_ns)
    expected_step = read_train_state(newest)[1].global_step
    saver = _saver(tmp_path)
    ctx = tiny.model(seed=7, mode="pynative").train(2, tiny.loader(), callbacks=[saver], resume_from="last")
    assert ctx.resumed_from == str(newest) and expected_step == tiny.STEPS_PER_EPOCH
    assert saver.prefix == "run_1" and Path(ctx.latest_checkpoint).name.startswith("run_1-2_")


@pytest.mark.slow
@pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
def test_concurrent_cli_runs_with_one_name_keep_their_own_checkpoints(tmp_path: Path) -> None:
    file = experiment(tmp_path, TINY)
    runs = [subprocess.Popen([sys.executable, "-m", "trainer.cli", "run", str(file), f"seed={seed}",
                              "--quiet", "mlflow.tracking_uri=file:" + str(tmp_path / f"mlruns{seed}")],
                             cwd=tmp_path, env={**env(tmp_path), "PYTHONPATH": str(ROOT)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in (1, 2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    folders = [p for p in (tmp_path / "checkpoints" / "tiny").iterdir() if p.is_dir()]
    assert len(folders) == 2  # started in the same second: still a folder each
    seeds = {folder: {read_train_state(path)[1].config["seed"] for path in folder.glob("tiny-*.ckpt")}
             for folder in folders}
    assert sorted(next(iter(s)) for s in seeds.values()) == [1, 2]  # one run's seed per folder
    assert all(len(s) == 1 for s in seeds.values())


def test_a_resume_of_a_run_held_by_a_running_process_is_refused(tmp_path: Path) -> None:
    """Two resumes of one run at once: the second must not fork it into ``run_1`` files of
    the same folder (before: it trained on as ``run_1``, beside the first)."""
    tiny.model(seed=0, mode="pynative").train(1, tiny.loader(), callbacks=[_saver(tmp_path)])
    newest = max(tmp_path.glob("run-*.ckpt"), key=lambda p: p.stat().st_mtime_ns)
    lock = hold_run(newest)  # as a first resume holds it while it trains
    try:
        with pytest.raises(RunBusy, match="belongs to a run that another process is training now"):
            tiny.model(seed=0, mode="pynative").train(2, tiny.loader(), callbacks=[_saver(tmp_path)],
                                                      resume_from="last")
        with pytest.raises(RunBusy):
            hold_run(newest)
    finally:
        lock.release()
    assert not list(tmp_path.glob("run_1-*"))
    saver = _saver(tmp_path)  # the lock given back: the resume goes on under the run's prefix
    tiny.model(seed=0, mode="pynative").train(2, tiny.loader(), callbacks=[saver], resume_from="last")
    assert saver.prefix == "run"


@pytest.mark.slow
@pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
def test_a_second_cli_resume_of_a_running_run_stops_with_one_line(tmp_path: Path) -> None:
    """``--resume last`` while another process trains that run: exit 2 and one line; no
    folder, checkpoint or MLflow run is made or touched (before: it trained on into the same
    folder under the same MLflow run id)."""
    import mlflow

    file = experiment(tmp_path, TINY)
    assert train(tmp_path, "run", str(file), "train.epochs=1", "--quiet").returncode == 0
    (folder,) = (tmp_path / "checkpoints" / "tiny").iterdir()
    newest = max(folder.glob("tiny-*.ckpt"), key=lambda p: p.stat().st_mtime_ns)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    lock = hold_run(newest)  # the first resume, training
    try:
        line = one_error(train(tmp_path, "run", str(file), "--resume", "last", "--quiet"))
    finally:
        lock.release()
    assert line == (f"error: --resume {newest.relative_to(tmp_path)} belongs to a run that another "
                    "process is training now (it holds the run's lock); wait for that process to end, "
                    "then resume again")
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    assert [p.name for p in (tmp_path / "checkpoints" / "tiny").iterdir()] == [folder.name]
    client = mlflow.MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert len(runs) == 1 and runs[0].info.status == "FINISHED"
    resumed = train(tmp_path, "run", str(file), "--resume", "last", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert {p.name for p in folder.glob("*.ckpt")} >= {"tiny-2_6.ckpt"} and not list(folder.glob("tiny_1-*"))
