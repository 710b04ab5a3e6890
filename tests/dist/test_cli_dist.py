"""``train run --nproc 2``: the launcher, rank 0's MLflow run, a killed rank, no dist extra."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.trainer.cli_env import SMOKE, needs_data
from trainer.dist_launch import find_mpiexec

from .test_ranks import MPIEXEC

TRAIN = Path(sys.executable).with_name("train")
needs_mpi = pytest.mark.skipif(MPIEXEC is None, reason="the dist extra (mpi4py + mpich) is not installed")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return tmp_path


def test_nproc_without_the_dist_extra_says_what_to_install(workdir):
    (workdir / "hide").mkdir()  # a Python that cannot import mpi4py
    (workdir / "hide" / "sitecustomize.py").write_text("import sys\nsys.modules['mpi4py'] = None\n")
    path = os.pathsep.join([str(workdir / "hide"), os.environ.get("PYTHONPATH", "")])  # this checkout too
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-m", "trainer.cli", "run", str(SMOKE), "--nproc", "2"],
                          cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    missing = "mpi4py" if find_mpiexec() else "mpi4py and mpiexec"  # a venv without the extra: both
    assert done.stderr.strip().splitlines() == [
        f"error: --nproc 2 needs MPI ({missing} not found): pip install -e '.[dist]' in the project's "
        "folder (mpi4py + mpich)"]


@needs_mpi
def test_a_bad_host_name_is_bad_input(workdir):
    done = subprocess.run([str(TRAIN), "run", str(SMOKE), "--nproc", "2", "--hosts", "a,bad host"],
                          cwd=workdir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: dist.hosts: 'bad host' is not a host name (host or host:slots)"


@pytest.mark.slow
@needs_mpi
@needs_data
def test_two_ranks_log_one_mlflow_run_from_rank_0(workdir):
    """--hosts 127.0.0.1: the host list goes through MPICH's hydra (both ranks local)."""
    import mlflow

    done = subprocess.run([str(TRAIN), "run", str(SMOKE), "--nproc", "2", "--hosts", "127.0.0.1",
                           "--mode", "pynative", "--quiet",
                           "dataset.limit=640", "dataset.test_limit=256", "train.epochs=1",
                           "mlflow.log_model=false", "mlflow.system_metrics=false"],
                          cwd=workdir, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("smoke [pynative]: eval/accuracy") == 1  # rank 0 reports
    assert "ranks:      2 (data parallel, 32 samples per rank and step" in done.stdout
    client = mlflow.MlflowClient(f"sqlite:///{workdir / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("twinmode-smoke").experiment_id])
    assert len(runs) == 1
    run = runs[0]
    assert run.data.tags["world_size"] == "2"
    metrics = run.data.metrics
    per_rank = [metrics["dist/rank0_ms_per_step"], metrics["dist/rank1_ms_per_step"]]
    assert metrics["dist/samples_per_second"] == pytest.approx(sum(32000 / ms for ms in per_rank))
    # 640 samples in 2 shards of 320: 10 steps of 32 per rank, one checkpoint at the end
    from framework.train import read_train_state

    (ckpt,) = (workdir / "checkpoints" / "smoke").glob("*/smoke-1_10.ckpt")  # the run's folder
    state = read_train_state(ckpt)[1]
    assert state.data_state["num_shards"] == 2 and state.data_state["shard_id"] == 0


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@needs_mpi
@needs_data
def test_a_killed_rank_ends_the_job_within_30_s_naming_it(workdir):
    proc = subprocess.Popen([str(TRAIN), "run", str(SMOKE), "--nproc", "2", "--mode", "pynative",
                             "--quiet", "train.epochs=50", "mlflow.system_metrics=false"],
                            cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    family = []
    try:
        deadline = time.monotonic() + 120
        while not (workdir / "checkpoints" / "smoke").is_dir():  # made when training starts
            assert time.monotonic() < deadline and proc.poll() is None, "the job did not start"
            time.sleep(0.2)
        time.sleep(1.0)
        family = psutil.Process(proc.pid).children(recursive=True)
        ranks = [p for p in family
                 if p.name().startswith("python") and "trainer.cli" in " ".join(p.cmdline())]
        assert len(ranks) == 2
        victim = ranks[-1]
        victim.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        _, err = proc.communicate(timeout=60)
        assert time.monotonic() - killed < 30
        assert not [p for p in family if _alive(p)]
    finally:  # nothing of the job outlives the test
        if proc.poll() is None:
            proc.kill()
        for p in family:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
    assert proc.returncode != 0
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: rank "), err[-2000:]
    assert lines[-1].endswith(f"of 2 (pid {victim.pid}) ended (Killed (signal 9)); the other ranks were "
                              "stopped"), err[-2000:]
    assert not any("BAD TERMINATION" in line for line in lines)  # hydra's banner became that line
