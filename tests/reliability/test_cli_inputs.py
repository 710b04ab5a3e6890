"""Issue 28, items 6 (``train ui``), 7 (names that escape ``checkpoints/``) and 8 (validation
holes): each is bad input with one ``error:`` line naming the key and ``file:line``, exit 2.

Before the fix ``train ui --port 99999`` printed MLflow's traceback and exited 0, and a
second Ctrl-C did not stop the server; ``name: ../../etc`` or an absolute name put the
checkpoints outside ``checkpoints/``; ``.nan``/``.inf`` passed for momentum, weight decay,
``save_seconds``, ``min_delta`` and the normalize mean; an unknown ``model.name`` and a
300-character name failed at run time with exit 1; negative labels were answered with
"set model.num_classes"; an accumulation longer than the run never stepped, silently.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from .helpers import DATA, ROOT, TINY, env, experiment, interruptible, one_error, train

needs_data = pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")


# -- train ui ----------------------------------------------------------------------------------
@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_ui_port_out_of_range_is_one_line_exit_2(tmp_path: Path, port: str) -> None:
    line = one_error(train(tmp_path, "ui", "--port", port, timeout=60))
    assert line == f"error: --port must be in 1..65535, got {port}"


def test_ui_port_in_use_is_one_line_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error(train(tmp_path, "ui", "--port", str(port), timeout=60))
    assert line.startswith(f"error: --port {port}: cannot listen on 127.0.0.1:{port} (")
    assert line.endswith("choose another port, e.g. --port 5001")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies left to an init that does not
    reap them count as gone)."""
    rows = subprocess.run(["ps", "-eo", "pgid=,stat="], capture_output=True, text=True).stdout.split("\n")
    return any(row.split()[0] == str(pgid) and not row.split()[1].startswith("Z")
               for row in rows if row.strip())


@pytest.mark.slow
def test_ui_second_ctrl_c_stops_the_server_at_once(tmp_path: Path) -> None:
    port = _free_port()
    ui = interruptible([sys.executable, "-m", "trainer.cli", "ui", "--port", str(port)], cwd=tmp_path,
                          env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True)
    server_groups: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while True:  # wait until the server answers
            assert ui.poll() is None and time.monotonic() < deadline, ui.communicate()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        server_groups = {int(line.split()[1]) for line in subprocess.run(
            ["ps", "-ww", "-eo", "pid=,pgid=,args="], capture_output=True, text=True).stdout.splitlines()
            if f"--port {port}" in line and line.split()[0] != str(ui.pid)}
        assert server_groups and ui.pid not in server_groups  # the server has its own process group
        started = time.monotonic()
        os.kill(ui.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the foreground group: train
        time.sleep(0.2)
        os.kill(ui.pid, signal.SIGINT)
        out, err = ui.communicate(timeout=20)
    finally:
        for group in {ui.pid, *server_groups}:
            if _group_alive(group):
                os.killpg(group, signal.SIGKILL)
    assert ui.returncode == 130, err
    assert time.monotonic() - started < 10
    assert "stopping the MLflow UI (press Ctrl-C again to stop it at once)" in err
    time.sleep(0.5)
    assert not [g for g in server_groups if _group_alive(g)]  # server, workers, job runner: all gone


# -- names that escape checkpoints/ ---------------------------------------------------------------
@pytest.mark.parametrize("name, rule", [
    ("../../etc", "'name' must be a name without '..' parts"),
    ("runs/../../../x", "'name' must be a name without '..' parts"),
    ("/tmp/elsewhere", "'name' must be a relative name"),
    ("a" * 300, "'name' must be at most 150 characters long"),
])
def test_a_name_that_escapes_checkpoints_is_rejected(tmp_path: Path, name: str, rule: str) -> None:
    file = experiment(tmp_path, f"seed: 0\nname: '{name}'\n")
    line = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=120))
    assert line.startswith(f"error: {file}:2: {rule}")
    assert not (tmp_path / "checkpoints").exists()


def test_a_name_below_checkpoints_is_still_accepted(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: group/exp-1.v2\n")
    done = train(tmp_path, "run", str(file), "--print-config", timeout=120)
    assert done.returncode == 0 and "name: group/exp-1.v2" in done.stdout, done.stderr


def test_an_odd_run_name_keeps_its_offline_file_in_the_offline_folder(tmp_path: Path) -> None:
    from trainer.mlflow_logger import MLflowRun

    (tmp_path / "blocker").write_text("a file where the store's folder should be")
    with pytest.warns(UserWarning, match="unreachable"):
        run = MLflowRun(f"sqlite:///{tmp_path / 'blocker' / 'm.db'}", "e", "../../escape",
                        offline_dir=tmp_path / "offline", system_metrics=False)
    assert not run.online
    assert run.offline_path.parent == tmp_path / "offline"
    assert run.offline_path.name.startswith("_.._escape-")  # one file name, no path


# -- validation holes -------------------------------------------------------------------------------
FILE = """\
name: holes
model:
  name: lenet5
optimizer:
  momentum: 0.9
  weight_decay: 0.0
checkpoint:
  save_seconds: 60
train:
  early_stopping:
    min_delta: 0.0
dataset:
  normalize: [0.1307, 0.3081]
"""


@pytest.mark.parametrize("key, line, old, new", [
    ("optimizer.momentum", 5, "momentum: 0.9", "momentum: .nan"),
    ("optimizer.weight_decay", 6, "weight_decay: 0.0", "weight_decay: .inf"),
    ("checkpoint.save_seconds", 8, "save_seconds: 60", "save_seconds: .nan"),
    ("train.early_stopping.min_delta", 11, "min_delta: 0.0", "min_delta: -.inf"),
    ("dataset.normalize", 13, "[0.1307, 0.3081]", "[.nan, 0.3081]"),
])
def test_non_finite_numbers_are_rejected_with_file_and_line(tmp_path: Path, key, line, old, new) -> None:
    file = experiment(tmp_path, FILE.replace(old, new))
    error = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=120))
    assert error.startswith(f"error: {file}:{line}: '{key}' must be ")
    assert "finite number" in error


def test_a_non_finite_override_names_the_override(tmp_path: Path) -> None:
    file = experiment(tmp_path, FILE)
    error = one_error(train(tmp_path, "run", str(file), "optimizer.momentum=.nan", "--print-config",
                             timeout=120))
    assert error == ("error: override 'optimizer.momentum=.nan': 'optimizer.momentum' must be a finite "
                     "number, got nan")


def test_an_unknown_model_name_is_bad_input(tmp_path: Path) -> None:
    file = experiment(tmp_path, FILE.replace("name: lenet5", "name: lenet6"))
    error = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=120))
    assert error.startswith(f"error: {file}:3: 'model.name' must be one of lenet5, mlp, ")
    assert "(did you mean 'lenet5'?)" in error


def test_negative_labels_say_relabel_not_num_classes(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (64, 28, 28)).astype(np.uint8)
    y = rng.integers(0, 5, 64).astype(np.int64)
    y[3] = -1
    np.savez(tmp_path / "data.npz", x_train=x[:48], y_train=y[:48], x_test=x[48:], y_test=y[48:])
    file = experiment(tmp_path, "name: neg\nmode: pynative\nmodel:\n  num_classes: 5\ndataset:\n"
                                "  name: npz\n  root: data.npz\n  batch_size: 16\n")
    error = one_error(train(tmp_path, "run", str(file), "--quiet", timeout=300))
    assert error == ("error: dataset 'npz' (train) has negative labels (smallest -1); labels must be class "
                     "indices 0..num_classes-1: relabel the data")


@needs_data
def test_an_accumulation_longer_than_the_run_warns(tmp_path: Path) -> None:
    file = experiment(tmp_path, TINY)  # 96 samples of 16: 6 steps per epoch, 2 epochs
    done = train(tmp_path, "run", str(file), "train.accumulate_grad_batches=13", "--quiet",
                 "mlflow.log_model=false", timeout=300)
    assert done.returncode == 0, done.stderr
    assert ("warning: train.accumulate_grad_batches is 13 but the run has 12 steps (2 epoch(s) of 6): "
            "the optimizer never steps and the weights stay as initialized; lower it to 12 or less"
            ) in done.stderr.splitlines()
    quiet = train(tmp_path, "run", str(file), "train.accumulate_grad_batches=12", "--quiet",
                  "mlflow.log_model=false", "name=tiny2", timeout=300)
    assert quiet.returncode == 0 and "accumulate_grad_batches" not in quiet.stderr, quiet.stderr


def test_the_missing_mpi_hint_installs_from_the_project_folder(tmp_path: Path) -> None:
    (tmp_path / "hide").mkdir()  # a Python that cannot import mpi4py
    (tmp_path / "hide" / "sitecustomize.py").write_text("import sys\nsys.modules['mpi4py'] = None\n")
    file = experiment(tmp_path, "name: dist\n")
    done = train(tmp_path, "run", str(file), "--nproc", "2", timeout=120,
                 PYTHONPATH=f"{tmp_path / 'hide'}{os.pathsep}{ROOT}")
    error = one_error(done)
    # without the dist extra, MPICH's mpiexec is missing too (it comes with the extra)
    assert re.fullmatch(r"error: --nproc 2 needs MPI \(mpi4py (and mpiexec )?not found\): pip install "
                        r"-e '\.\[dist\]' in the project's folder \(mpi4py \+ mpich\)", error), error
