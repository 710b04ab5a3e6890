"""A second Ctrl-C aborts at once, without saving, wherever the process is: also while the
main thread is inside one native call (a graph-mode compile), where Python would see two
Ctrl-Cs as one and the first would go on to save a checkpoint (issue 28, item 6)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from .helpers import ROOT, env, interruptible

SCRIPT = ROOT / "tests" / "framework" / "train" / "train_script.py"


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


COMPILE = """
import numpy as np
import framework as ms
from framework import Tensor, nn
from framework.train.loop import InterruptGuard
from trainer.models import resnet8

net = resnet8(num_classes=10)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                  nn.Momentum(net.trainable_params(), 0.1, 0.9)).construct)
x, y = Tensor(np.zeros((8, 3, 32, 32), np.float32)), Tensor(np.zeros(8, np.int32))
with InterruptGuard():  # as the training loop holds it around every step (trainer/loop.py)
    print("compiling", flush=True)
    step(x, y)  # the first call: a ResNet-8 train step's compile, several seconds of native code
    print("compiled", flush=True)
"""


def test_second_ctrl_c_during_a_graph_compile_aborts_without_saving(tmp_path):
    proc = interruptible([sys.executable, "-c", COMPILE], cwd=tmp_path, env=env(tmp_path),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if line.strip() == "compiling":
            break
    time.sleep(0.5)  # inside TVM's build
    code, out, took = _two_ctrl_c(proc)
    assert code == 130, out
    assert out.strip().splitlines()[-1] == "interrupt: aborted without saving (second Ctrl-C)", out
    assert "Traceback" not in out and "compiled" not in out and took < 10, (took, out)
    assert _saved(tmp_path) == [] and not list((tmp_path / "compiled").glob("*.so"))


def test_second_ctrl_c_between_steps_aborts_with_one_line(tmp_path):
    proc = interruptible([sys.executable, str(SCRIPT), "--dir", str(tmp_path / "run"),
                             "--save-steps", "100", "--sleep", "0.3"], cwd=ROOT, env=env(tmp_path),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if line.strip() == "step 3":
            break
    code, out, took = _two_ctrl_c(proc)
    assert code == 130 and "Traceback" not in out, out
    assert out.strip().splitlines()[-1] == "interrupt: aborted without saving (second Ctrl-C)", out
    assert _saved(tmp_path) == [] and took < 10


def test_two_ctrl_c_before_training_end_with_130_and_one_line(tmp_path):
    # outside the training loop's guard (here: the user's dataset function), the first
    # Ctrl-C ends the run; a second one while it is reported ended it by the signal (-2)
    (tmp_path / "slow.py").write_text("import time\n\ndef data(split):\n"
                                      "    print('loading', flush=True)\n    time.sleep(60)\n")
    (tmp_path / "exp.yaml").write_text("name: slow\nmode: pynative\ndataset:\n  class: slow.py:data\n")
    proc = interruptible([sys.executable, "-m", "trainer.cli", "run", "exp.yaml", "--quiet"],
                            cwd=tmp_path, env=env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if line.strip() == "loading":
            break
    code, out, took = _two_ctrl_c(proc, gap=0.01)
    assert code == 130, out
    assert out.strip().splitlines()[-1] == "error: interrupted", out
    assert "Traceback" not in out and took < 10
