"""The `train` CLI end to end on real data (small limits): runs logged to MLflow,
compare, eval, ir, resume, and exit codes for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import app

from .cli_env import SMOKE, needs_data

SMALL = ["dataset.limit=320", "dataset.test_limit=200", "train.log_every=2", "train.epochs=1",
         "checkpoint.save_steps=4"]


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def uri() -> str:
    return f"sqlite:///{Path.cwd() / 'mlflow.db'}"  # the default store: mlflow.db in the cwd


def search(experiment: str = "twinmode-smoke"):
    import mlflow

    mlflow.set_tracking_uri(uri())
    return mlflow.search_runs(experiment_names=[experiment])


@needs_data
@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_run_logs_params_metrics_and_artifacts(workdir, mode):
    result = invoke("run", SMOKE, "--mode", mode, "--quiet", *SMALL)
    assert result.exit_code == 0, result.output
    assert f"smoke [{mode}]: eval/accuracy" in result.output
    runs = search()
    assert len(runs) == 1
    run = runs.iloc[0]
    assert run["tags.mode"] == mode and run["params.dataset.limit"] == "320"
    assert run["params.optimizer.learning_rate"] == "0.05" and run["status"] == "FINISHED"
    for metric in ("train/loss", "train/accuracy", "eval/accuracy", "eval/loss", "perf/epoch_seconds",
                   "perf/ms_per_step", "perf/samples_per_second", "lr"):
        assert run[f"metrics.{metric}"] == run[f"metrics.{metric}"], metric  # not NaN
    if mode == "graph":
        assert run["metrics.perf/compile_s"] > 0
    import mlflow

    client = mlflow.MlflowClient(uri())
    artifacts = {a.path for a in client.list_artifacts(run["run_id"])}
    assert {"config.yaml", "checkpoints"} <= artifacts
    models = mlflow.search_logged_models(experiment_ids=[run["experiment_id"]], output_format="list")
    assert [(m.name, m.source_run_id) for m in models] == [("smoke", run["run_id"])]  # the experiment's
    history = client.get_metric_history(run["run_id"], "train/loss")
    assert [m.step for m in history] == sorted(m.step for m in history) and len(history) >= 2


@needs_data
def test_resume_last_continues_the_latest_run_in_the_same_mlflow_run(workdir):
    assert invoke("run", SMOKE, "--quiet", "--mode", "pynative", *SMALL).exit_code == 0
    result = invoke("run", SMOKE, "--quiet", "--mode", "pynative", "--resume", "last", *SMALL[:-2],
                    "train.epochs=2", "checkpoint.save_steps=4")
    assert result.exit_code == 0, result.output
    runs = search()
    assert len(runs) == 1
    resumed = runs.iloc[0]
    assert resumed["tags.resumed_from"] == "last"
    import mlflow

    history = mlflow.MlflowClient(uri()).get_metric_history(resumed["run_id"], "epoch")
    assert [int(m.value) for m in history] == [1, 2]  # the second process trained the second epoch


@needs_data
def test_eval_and_ir_commands(workdir):
    assert invoke("run", SMOKE, "--quiet", "--mode", "pynative", *SMALL).exit_code == 0
    ckpt = sorted((workdir / "checkpoints" / "smoke").rglob("*.ckpt"))[-1]
    result = invoke("eval", SMOKE, "--checkpoint", ckpt, *SMALL)
    assert result.exit_code == 0 and "accuracy" in result.output
    result = invoke("ir", SMOKE, "--out", workdir / "irdump")
    assert result.exit_code == 0, result.output
    out = workdir / "irdump" / "TrainOneStepCell"
    assert (out / "00_trace.ir").is_file() and (out / "20_kernels.ll").is_file()


@pytest.mark.parametrize("args, message", [
    (["run", SMOKE, "train.epochs=abc"], "'train.epochs' must be an integer"),
    (["run", SMOKE, "optimzer.learning_rate=1"], "did you mean 'optimizer'"),
    (["run", "missing.yaml"], "experiment file not found"),
    (["compare", SMOKE, "--modes", "graph,fast"], "unknown mode(s) fast"),
    (["eval", SMOKE, "--checkpoint", "nope.ckpt"], "does not exist"),
])
def test_bad_input_exits_2_with_one_line(workdir, args, message):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_bad_yaml_file_exits_2(workdir):
    bad = workdir / "bad.yaml"
    bad.write_text("name: x\ntrain:\n  epohcs: 3\n")
    result = CliRunner().invoke(app, ["run", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:3: unknown key 'train.epohcs' (did you mean 'train.epochs'?)" in result.output


def test_console_script_help_and_usage_error():
    train = Path(sys.executable).with_name("train")
    assert train.is_file(), "the `train` console script is installed by pip install -e ."
    out = subprocess.run([str(train), "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    for command in ("run", "compare", "eval", "ir", "ui"):
        assert command in out.stdout
    out = subprocess.run([str(train), "run", str(SMOKE), "--mode", "fast"], capture_output=True,
                         text=True)
    assert out.returncode == 2


def test_print_config_shows_resolved_values(workdir):
    result = invoke("run", SMOKE, "--print-config", "train.epochs=7", "--mode", "pynative")
    assert result.exit_code == 0
    assert "epochs: 7" in result.output and "mode: pynative" in result.output


@needs_data
def test_unreachable_tracking_store_warns_and_keeps_metrics_locally(workdir, monkeypatch):
    import json

    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    with pytest.warns(UserWarning, match="unreachable"):
        result = invoke("run", SMOKE, "--quiet", "--mode", "pynative", *SMALL)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for f in (workdir / "mlruns-offline").glob("*.jsonl")
               for line in f.read_text().splitlines()]
    kinds = {r["kind"] for r in records}
    assert {"params", "tags", "metrics", "end"} <= kinds
    losses = [m for r in records if r["kind"] == "metrics" for m in r["data"] if m[0] == "train/loss"]
    assert len(losses) == 5  # every log_every=2 of the 10 steps, none lost


@needs_data
def test_no_batches_is_bad_input(workdir):
    result = CliRunner().invoke(app, ["run", str(SMOKE), "dataset.batch_size=1000", "dataset.limit=10"])
    assert result.exit_code == 2 and "no batches" in result.output


@needs_data
def test_resumed_epoch_reports_its_real_step_time(workdir):
    """A run resumed mid-epoch ran fewer steps in that epoch: ms/step must divide by those.

    Checked within the resumed process, not against the first one's timing (on a loaded
    machine a PyNative first step can take 70x the others): its MLflow ms/step is the mean
    of the step times that very run measured, over steps 16..20 only."""
    from trainer.config import load_config
    from trainer.experiment import run_experiment

    first = ["dataset.limit=640", "dataset.test_limit=200", "train.epochs=1", "checkpoint.save_steps=15"]
    assert invoke("run", SMOKE, "--quiet", "--mode", "pynative", *first).exit_code == 0
    (ckpt,) = (workdir / "checkpoints" / "smoke").glob("*/smoke-1_15.ckpt")  # the run's folder
    result = run_experiment(load_config(SMOKE, [*first, "mode=pynative"]), resume=str(ckpt), quiet=True)
    assert result.steps == [16, 17, 18, 19, 20]
    run = search().iloc[0]  # the resume continued the same MLflow run
    import mlflow

    first_epoch, resumed = mlflow.MlflowClient(uri()).get_metric_history(run["run_id"], "perf/ms_per_step")
    assert first_epoch.step == resumed.step == 20  # epoch 1 ended twice: once in each process
    assert resumed.value == pytest.approx(result.ms_per_step, rel=1e-9)  # 5 steps, not 20


@needs_data
def test_ctrl_c_saves_exits_130_and_marks_the_run_killed(workdir):
    import signal
    import time

    train = Path(sys.executable).with_name("train")
    env = dict(os.environ)
    proc = subprocess.Popen([str(train), "run", str(SMOKE), "--quiet", "--mode", "pynative",
                             "dataset.limit=2000", "train.epochs=20", "checkpoint.save_steps=1000"],
                            cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not list((workdir / "mlruns").rglob("*")) and time.time() < deadline:
        time.sleep(0.2)  # the run has started once MLflow created its artifact folder
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert list((workdir / "checkpoints" / "smoke").glob("*/smoke-*.ckpt"))  # saved on the way out
    assert search().iloc[0]["status"] == "KILLED"


def test_ir_for_cuda_builds_the_lenet_step_with_its_max_pool_kernels(workdir):
    # the NaN-keeping max pool once used a custom reducer that the GPU's cross-thread
    # reduction cannot split: `--device cuda` failed for every network with a max pool
    lenet = Path(__file__).resolve().parents[2] / "experiments" / "lenet.yaml"
    result = invoke("ir", lenet, "--device", "cuda", "--out", workdir / "cuda")
    assert result.exit_code == 0, result.output
    kernels = (workdir / "cuda" / "TrainOneStepCell" / "20_kernels.cu").read_text()
    assert "__global__" in kernels and "max_pool" in kernels
