"""A run SIGKILLed (or Ctrl-C'd) and resumed ends exactly like an uninterrupted one.

Each test runs tests/framework/train/train_script.py in subprocesses: a reference run, a run
that dies at a given step, and a run resuming with ``resume_from="last"``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from framework.train import read_train_state

SCRIPT = Path(__file__).with_name("train_script.py")
ROOT = Path(__file__).resolve().parents[2]
TOTAL = 36  # 3 epochs of 12 steps


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TWINMODE_CACHE_DIR": str(tmp_path / "compiled"), "PYTHONUNBUFFERED": "1"}


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=300)


def _losses(directory: Path) -> list[tuple[int, float]]:
    lines = (directory / "losses.txt").read_text().split()
    return [(int(step), float.fromhex(value)) for step, value in zip(lines[::2], lines[1::2])]


def _reference(tmp_path: Path, mode: str) -> tuple[dict[int, float], dict[str, np.ndarray]]:
    done = _run(tmp_path, "--dir", str(tmp_path / "ref"), "--mode", mode, "--out", str(tmp_path / "ref.npz"))
    assert done.returncode == 0, done.stderr
    losses = dict(_losses(tmp_path / "ref"))
    assert sorted(losses) == list(range(1, TOTAL + 1))
    return losses, dict(np.load(tmp_path / "ref.npz"))


def _compare(final: dict[str, np.ndarray], expected: dict[str, np.ndarray], exact: bool) -> None:
    assert final.keys() == expected.keys()
    for name in expected:
        if exact:
            assert final[name].tobytes() == expected[name].tobytes(), name
        else:
            np.testing.assert_allclose(final[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path: Path, mode: str) -> None:
    ref_losses, ref_params = _reference(tmp_path, mode)
    run = tmp_path / "run"
    killed = _run(tmp_path, "--dir", str(run), "--mode", mode, "--kill-at", "17")
    assert killed.returncode == -signal.SIGKILL
    assert read_train_state(run / "ckpt" / "tiny-2_3.ckpt")[1].global_step == 15  # the last save
    assert "done" not in killed.stdout
    resumed = _run(tmp_path, "--dir", str(run), "--mode", mode, "--resume",
                   "--out", str(tmp_path / "run.npz"))
    assert resumed.returncode == 0, resumed.stderr
    losses = _losses(run)
    steps = [step for step, _ in losses]
    assert steps == list(range(1, 18)) + list(range(16, TOTAL + 1))  # steps 16, 17 are redone
    for step, value in losses:
        if mode == "pynative":
            assert value == ref_losses[step], step  # bitwise, before and after the resume point
        else:
            assert value == pytest.approx(ref_losses[step], rel=1e-5, abs=1e-6), step
    _compare(dict(np.load(tmp_path / "run.npz")), ref_params, exact=mode == "pynative")


def test_ctrl_c_saves_exits_cleanly_and_resumes_exactly(tmp_path: Path) -> None:
    ref_losses, ref_params = _reference(tmp_path, "pynative")
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--dir", str(run), "--save-steps", "100",
                             "--sleep", "0.05"], cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if line.strip() == "step 6":
                proc.send_signal(signal.SIGINT)
                break
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "training interrupted at epoch 1" in err, err
    stopped_at = max(step for step, _ in _losses(run))
    assert 6 <= stopped_at < TOTAL
    saved = read_train_state(run / "ckpt" / f"tiny-1_{stopped_at}.ckpt")[1]  # only save: the interrupt
    assert saved.global_step == stopped_at and saved.step_in_epoch == stopped_at
    resumed = _run(tmp_path, "--dir", str(run), "--resume", "--out", str(tmp_path / "run.npz"))
    assert resumed.returncode == 0, resumed.stderr
    losses = _losses(run)
    assert [step for step, _ in losses] == list(range(1, TOTAL + 1))  # nothing lost, nothing redone
    assert all(value == ref_losses[step] for step, value in losses)
    _compare(dict(np.load(tmp_path / "run.npz")), ref_params, exact=True)


def test_sigint_at_an_epoch_end_keeps_the_epoch_end(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = _run(tmp_path, "--dir", str(run), "--save-steps", "100", "--sigint-at", "12")
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    state = read_train_state(run / "ckpt" / "tiny-1_12.ckpt")[1]
    assert state.next_position() == (1, 0)  # continues with epoch 2
