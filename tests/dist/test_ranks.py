"""Two MPI ranks against one process: data parallelism computes what one process computes.

Each test starts ``tests/dist/ranks.py`` under the ``dist`` extra's ``mpiexec -n 2`` (skipped
when mpi4py/mpiexec are not installed; CI installs the extra, so they run there).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from trainer.dist_launch import find_mpiexec

SCRIPT = Path(__file__).with_name("ranks.py")
ROOT = Path(__file__).resolve().parents[2]
MPIEXEC = find_mpiexec()
try:
    import mpi4py  # noqa: F401
except ImportError:
    MPIEXEC = None
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="the dist extra (mpi4py + mpich) is not installed")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TWINMODE_CACHE_DIR": str(tmp_path / "compiled"), "PYTHONUNBUFFERED": "1",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "TVM_NUM_THREADS": "1"}


def _cmd(ranks: int, *args: str) -> list[str]:
    prefix = [MPIEXEC, "-n", str(ranks)] if ranks > 1 else []
    return [*prefix, sys.executable, str(SCRIPT), *args]


def _run(tmp_path: Path, ranks: int, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(ranks, *args), cwd=ROOT, env=_env(tmp_path), capture_output=True,
                          text=True, timeout=timeout)


def test_two_ranks_of_32_equal_one_process_of_64_in_both_modes(tmp_path):
    """LeNet, 20 Momentum steps, gradients_mean=True: rank r takes rows r::2 of each shuffled
    64-sample batch, so the all-reduced mean gradient is the one of the whole batch."""
    two = _run(tmp_path, 2, "equivalence", str(tmp_path / "two.npz"), "--batch", "32")
    assert two.returncode == 0, two.stderr[-3000:]
    one = _run(tmp_path, 1, "equivalence", str(tmp_path / "one.npz"), "--batch", "64")
    assert one.returncode == 0, one.stderr[-3000:]
    got, want = np.load(tmp_path / "two.npz"), np.load(tmp_path / "one.npz")
    assert sorted(got) == sorted(want) and len(want) == 16  # 8 LeNet parameters x 2 modes
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-5, err_msg=key)


def test_model_on_a_sharded_dataset_pipeline_equals_one_process(tmp_path):
    """MindSpore's script shape: NumpySlicesDataset(num_shards=2, shard_id=rank).batch(32) and
    Model.train on 2 ranks == the unsharded pipeline batched by 64 on one process."""
    two = _run(tmp_path, 2, "pipeline", str(tmp_path / "two.npz"), "--batch", "32")
    assert two.returncode == 0, two.stderr[-3000:]
    one = _run(tmp_path, 1, "pipeline", str(tmp_path / "one.npz"), "--batch", "64")
    assert one.returncode == 0, one.stderr[-3000:]
    got, want = np.load(tmp_path / "two.npz"), np.load(tmp_path / "one.npz")
    assert len(want) == 8
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-5, err_msg=key)


def _kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the whole job: mpiexec, hydra's proxy and the ranks."""
    family = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGKILL)
    for child in family:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    proc.wait(timeout=30)


def test_resume_after_sigkill_of_the_whole_job_is_bit_exact(tmp_path):
    """PyNative, 2 ranks, Model.train with a checkpoint every 3 steps written by rank 0; the
    job SIGKILLed after step 6 and resumed with resume_from='last' ends with exactly the
    parameters of an uninterrupted job (every rank continues its own shard)."""
    (tmp_path / "ref").mkdir()
    (tmp_path / "cut").mkdir()
    ref = _run(tmp_path, 2, "train", str(tmp_path / "ref"))
    assert ref.returncode == 0, ref.stderr[-3000:]
    proc = subprocess.Popen(_cmd(2, "train", str(tmp_path / "cut"), "--sleep", "0.4"), cwd=ROOT,
                            env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "cut" / "dp-1_6.ckpt").exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint at step 6"
        time.sleep(0.05)
    _kill_tree(proc)
    assert not (tmp_path / "cut" / "final.npz").exists()  # it died before the end
    resumed = _run(tmp_path, 2, "train", str(tmp_path / "cut"))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    got, want = np.load(tmp_path / "cut" / "final.npz"), np.load(tmp_path / "ref" / "final.npz")
    assert sorted(got) == sorted(want)
    for key in want:
        assert np.array_equal(got[key], want[key]), key


def test_a_raising_rank_ends_the_job_with_one_line_naming_it(tmp_path):
    start = time.monotonic()
    done = _run(tmp_path, 2, "fail", "1", timeout=60)
    assert time.monotonic() - start < 30
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("rank ")]
    assert lines == ["rank 1 of 2 failed: ValueError: bad batch at step 3; stopping all ranks"]


def test_ranks_with_different_parameter_shapes_stop_at_start(tmp_path):
    done = _run(tmp_path, 2, "mismatch", timeout=60)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("rank ")]
    assert lines, done.stderr  # each rank that sees it before the abort says the same
    for line in lines:
        assert line.endswith("failed: RankMismatch: ranks disagree on the parameter shapes: parameter 6 "
                             "is fc3.weight (10, 84) Float32 on rank 0 but fc3.weight (12, 84) Float32 "
                             "on rank 1; start every rank with the same config and code; stopping all "
                             "ranks"), line


def test_sync_batchnorm_on_two_ranks_is_batchnorm_of_the_global_batch(tmp_path):
    """2 ranks x 8 with nn.SyncBatchNorm == 1 process x 16 with nn.BatchNorm2d (parameters
    and moving statistics after 5 steps; PyNative here, graph mode runs the same code
    through the compiled AllReduce: `python tests/dist/ranks.py syncbn ... --modes graph`).
    Per-rank BatchNorm2d (the default) ends 1e-2 away, so the comparison can fail."""
    for ranks, batch, args, out in ((2, 8, (), "sync"), (1, 16, ("--plain",), "one")):
        done = _run(tmp_path, ranks, "syncbn", str(tmp_path / f"{out}.npz"), "--batch", str(batch),
                    "--modes", "pynative", *args)
        assert done.returncode == 0, done.stderr[-3000:]
    sync, one = np.load(tmp_path / "sync.npz"), np.load(tmp_path / "one.npz")
    assert sorted(sync) == sorted(one) and len(one) == 7
    for key in one:
        np.testing.assert_allclose(sync[key], one[key], rtol=0, atol=1e-5, err_msg=key)
