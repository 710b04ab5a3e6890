"""The terminal as a user sees it: `train run` and `train compare` run in a pseudo-terminal,
their output rendered by a terminal emulator (pyte), then read line by line."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .cli_env import SMOKE, needs_data
from .test_cli import search, uri

pyte = pytest.importorskip("pyte")
TRAIN = Path(sys.executable).with_name("train")
COLS, ROWS = 140, 300
SMALL = ["dataset.limit=320", "dataset.test_limit=200", "train.log_every=5", "train.epochs=2",
         "checkpoint.save_steps=0", "mlflow.system_metrics=false", "mlflow.log_model=false"]
LOSS_LINE = re.compile(r"^epoch (\d+) step (\d+)/10: train/loss (\d+\.\d{4})$")
EVAL_LINE = re.compile(r"^epoch (\d+): eval/accuracy \d\.\d{4}, eval/loss \d+\.\d{4}, "
                       r"train/accuracy \d\.\d{4}$")


def in_terminal(args: list[str], cwd: Path, timeout: float = 300, cols: int = COLS) -> tuple[str, list[str]]:
    """Run ``train ARGS`` on a pseudo-terminal ``cols`` wide; (raw output, the screen's lines)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, cols, 0, 0))
    proc = subprocess.Popen([str(TRAIN), *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                            env={**os.environ, "COLUMNS": str(cols), "LINES": str(ROWS)})
    os.close(slave)
    chunks, deadline = [], time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    raw = b"".join(chunks).decode("utf-8", "replace")
    screen = pyte.Screen(cols, ROWS)
    stream = pyte.Stream(screen)
    stream.feed(raw.replace("\n", "\r\n") if "\r\n" not in raw else raw)
    lines = [line.rstrip() for line in screen.display]
    assert proc.returncode == 0, "\n".join(lines)
    return raw, [line for line in lines if line]


@needs_data
def test_train_run_in_a_terminal(workdir):  # noqa: F811
    raw, lines = in_terminal(["run", str(SMOKE), "--mode", "graph", "ir.save=true", *SMALL], workdir)
    text = "\n".join(lines)
    # 9. loss and validation lines are whole lines, never torn by a bar
    losses = [LOSS_LINE.match(line) for line in lines if " step " in line]
    assert all(losses), text
    assert [(int(m[1]), int(m[2])) for m in losses] == [(1, 5), (1, 10), (2, 5), (2, 10)], text
    evals = [line for line in lines if re.match(r"^epoch \d: ", line)]
    assert len(evals) == 2 and all(EVAL_LINE.match(line) for line in evals), text
    # 10. compilation is its own phase, named with its stages, before the first bar (and ETA)
    assert "compiling graph" in raw
    compiled = [line for line in lines if line.startswith("graph compiled in")]
    assert len(compiled) == 1 and all(stage in compiled[0] for stage in ("trace", "optimize", "lower",
                                                                         "build"))
    assert raw.index("graph compiled in") < raw.index("epoch 1/2:")
    assert "compile=" not in raw
    bars = [line for line in lines if re.match(r"^epoch \d/2: 100%", line)]
    assert len(bars) == 2, text
    for bar, last in zip(bars, (losses[1], losses[3])):  # the bar's loss is the last step's loss
        shown = float(re.search(r"train/loss=([\d.]+)", bar)[1])
        assert shown == pytest.approx(float(last[3]), abs=1e-4) and "eval/accuracy=" in bar
    # 12. the summary says where everything is
    run = search().iloc[0]
    where = {line.split(":", 1)[0].strip(): line.split(":", 1)[1].strip() for line in lines
             if line.startswith("  ") and ": " in line}  # (the model summary's rows have none)
    assert Path(where["checkpoint"]).is_file()
    assert Path(where["IR"], "TrainOneStepCell", "00_trace.ir").is_file()
    assert where["MLflow"].startswith(f"http://127.0.0.1:5000/#/experiments/{run['experiment_id']}/runs/"
                                      f"{run['run_id']}")


@needs_data
def test_an_80_column_terminal_gets_whole_lines(workdir):  # noqa: F811
    """At 80 columns: the finished bars keep the validation accuracy (items dropped from the
    end, none cut), and the step, evaluation and summary lines are whole, in MLflow's names."""
    _, lines = in_terminal(["run", str(SMOKE), "--mode", "pynative", *SMALL], workdir, cols=80)
    text = "\n".join(lines)
    bars = [line for line in lines if re.match(r"^epoch \d/2: 100%", line)]
    assert len(bars) == 2 and all(re.search(r"eval/accuracy=\d\.\d{4}\]$", bar) for bar in bars), text
    assert sum(bool(LOSS_LINE.match(line)) for line in lines) == 4
    assert sum(bool(EVAL_LINE.match(line)) for line in lines) == 2
    assert re.search(r"^smoke \[pynative\]: eval/accuracy \d\.\d{4}, eval/loss \d+\.\d{4}$", text, re.M), text
    assert re.search(r"^  speed: +\d+\.\d\d ms/step, [\d,]+ samples/s \(wall clock\)$", text, re.M), text


@needs_data
def test_train_compare_shows_progress_speed_and_verdict(workdir):  # noqa: F811
    raw, lines = in_terminal(["compare", str(SMOKE), "--rounds", "2", "--steps", "3",
                              *SMALL[:-3], "train.epochs=1", "mlflow.system_metrics=false"], workdir)
    text = "\n".join(lines)
    # 11. both runs' progress, then the timing
    for mode in ("graph", "pynative"):
        assert f"compare: training {mode}" in raw and f"{mode} epoch 1/1:" in raw
    assert "compare: timing steps" in raw
    # 14. medians with a spread, after warm-up, N said
    assert re.search(r"^graph .* \d+\.\d+ ± \d+\.\d+ .* \d\.\d{4} +\d\.\d{4} +\d+\.\d\dx$", text, re.M), text
    assert re.search(r"^pynative .* \d+\.\d+ ± \d+\.\d+", text, re.M)
    assert "wall clock of 6 training steps per mode after warm-up" in text
    assert "eval/accuracy" in text and "graph graph" not in raw
    # 15. a verdict with N and the tolerance (10 steps from one seed)
    flat = " ".join(text.split())  # (the report wraps at 80 columns)
    assert "parity graph vs pynative: PASS - first N=10 steps within |diff| <= 1e-05 + 0.001*|loss|" in flat
    runs = search()
    parents = runs[runs["tags.mlflow.parentRunId"].isna()]
    children = runs[runs["tags.mlflow.parentRunId"].notna()]
    assert len(parents) == 1 and len(children) == 2
    assert set(children["tags.mode"]) == {"graph", "pynative"}
    assert (children["tags.mlflow.parentRunId"] == parents.iloc[0]["run_id"]).all()
    parent = parents.iloc[0]
    assert parent["metrics.parity/pass"] == 1.0 and parent["tags.parity"] == "PASS"
    assert parent["metrics.parity/steps_checked"] == 10 and parent["metrics.parity/max_abs_loss_diff"] < 1e-3
    for mode in ("graph", "pynative"):  # the test set's figures per mode, in the parent run
        child = children[children["tags.mode"] == mode].iloc[0]
        assert parent[f"metrics.{mode}/eval/accuracy"] == child["metrics.eval/accuracy"]
        assert parent[f"metrics.{mode}/eval/loss"] == child["metrics.eval/loss"]
        assert parent[f"metrics.{mode}/perf/ms_per_step"] > 0
    import json

    import mlflow

    client = mlflow.MlflowClient(uri())
    artifacts = {a.path for a in client.list_artifacts(parent["run_id"])}
    assert {"compare.png", "compare.txt", "compare_table.json"} <= artifacts
    table = json.loads(Path(client.download_artifacts(parent["run_id"], "compare_table.json")).read_text())
    rows = {row[0]: dict(zip(table["columns"], row)) for row in table["data"]}
    assert rows["graph"]["eval/accuracy"] == parent["metrics.graph/eval/accuracy"]
    assert rows["graph"]["timed_steps"] == 6 and rows["pynative"]["ms_per_step_spread"] >= 0
    for mode in ("graph", "pynative"):
        assert parent[f"metrics.{mode}/speed_up"] == pytest.approx(rows[mode]["speed_up"], rel=1e-9)
    series = client.get_metric_history(parent["run_id"], "parity/abs_loss_diff")
    assert [m.step for m in series] == list(range(1, 11)) and max(m.value for m in series) < 1e-3
    # the report ends with where to look
    # from the output as written: a terminal wraps a long path (pytest-xdist's tmp paths are longer)
    where = {m.group(1): m.group(2).strip() for m in re.finditer(r"^  (MLflow|figure):(.*?)\r?$", raw, re.M)}
    assert where["MLflow"].split()[0].endswith(f"/runs/{parent['run_id']}?workflowType=machine_learning")
    assert Path(where["figure"]).is_file() and Path(where["figure"]).name == "compare.png"


def test_print_config_resolves_defaults_and_usage_line(workdir, monkeypatch):  # noqa: F811
    out = subprocess.run([str(TRAIN), "run", str(SMOKE), "--print-config", "--mode", "pynative"],
                         capture_output=True, text=True, cwd=workdir)
    assert out.returncode == 0, out.stderr
    import yaml

    config = yaml.safe_load(out.stdout)
    assert config["checkpoint"]["dir"] == str(workdir / "checkpoints" / "smoke")
    assert config["ir"]["dir"] == str(workdir / "ir" / "smoke")
    assert config["mlflow"]["tracking_uri"] == f"sqlite:///{workdir / 'mlflow.db'}"
    assert config["mlflow"]["run_name"] == "smoke-pynative" and config["mode"] == "pynative"
    out = subprocess.run([str(TRAIN), "run", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "100"})
    assert "Usage: train run [OPTIONS] FILE [KEY=VALUE]..." in out.stdout
