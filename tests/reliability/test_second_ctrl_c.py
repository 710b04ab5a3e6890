"""A second Ctrl-C aborts at once, without saving, wherever the process is: also while the
main thread is inside one native call (a graph-mode compile), where Python would see two
Ctrl-Cs as one and the first would go on to save a checkpoint (issue 28, item 6)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from .helpers import ROOT, env

SCRIPT = ROOT / "tests" / "trainer" / "train_script.py"


def _two_ctrl_c(proc: subprocess.Popen, gap: float = 0.05) -> tuple[int, str, float]:
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    time.sleep(gap)
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, out, time.monotonic() - start


def _saved(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.rglob("*.ckpt"))


def test_second_ctrl_c_during_a_graph_compile_aborts_without_saving(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "trainer.cli", "run",
                             str(ROOT / "experiments" / "resnet8_synthetic.yaml"), "--mode", "graph",
                             "train.epochs=1", "mlflow.log_model=false"],
                            cwd=tmp_path, env=env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:  # the store is made, the data generated: the compile comes next
        if "Updating database tables" in line:
            break
    time.sleep(2.0)  # inside the ResNet-8 step's compile (several seconds)
    code, out, took = _two_ctrl_c(proc)
    assert code == 130, out
    assert out.strip().splitlines()[-1] == "interrupt: aborted without saving (second Ctrl-C)", out
    assert "Traceback" not in out and took < 10, (took, out)
    assert _saved(tmp_path) == []


def test_second_ctrl_c_between_steps_aborts_with_one_line(tmp_path):
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--dir", str(tmp_path / "run"),
                             "--save-steps", "100", "--sleep", "0.3"], cwd=ROOT, env=env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if line.strip() == "step 3":
            break
    code, out, took = _two_ctrl_c(proc)
    assert code == 130 and "Traceback" not in out, out
    assert out.strip().splitlines()[-1] == "interrupt: aborted without saving (second Ctrl-C)", out
    assert _saved(tmp_path) == [] and took < 10
