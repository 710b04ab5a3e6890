"""``train run --profile``: the hot-lines table in the summary, profile.json and the flame
graph logged to MLflow; ``--profile`` with PyNative is bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from trainer.cli import app

from .cli_env import SMOKE, needs_data

TINY = ["dataset.limit=160", "dataset.test_limit=64", "train.epochs=1", "checkpoint.save_steps=0",
        "train.log_every=2"]


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@needs_data
def test_profile_prints_hot_lines_and_logs_them(workdir):
    import mlflow

    result = invoke("run", SMOKE, "--mode", "graph", "--quiet", "--profile", *TINY)
    assert result.exit_code == 0, result.output
    assert "hot lines of TrainOneStepCell: " in result.output, result.output
    uri = f"sqlite:///{Path.cwd() / 'mlflow.db'}"
    client = mlflow.MlflowClient(uri)
    mlflow.set_tracking_uri(uri)  # (another test may have pointed it elsewhere)
    run = mlflow.search_runs(experiment_names=["twinmode-smoke"], output_format="list")[0]
    names = {a.path for a in client.list_artifacts(run.info.run_id, "profile")}
    assert names == {"profile/profile.json", "profile/profile.svg"}
    data = json.loads(Path(client.download_artifacts(run.info.run_id, "profile/profile.json", str(workdir)))
                      .read_text())
    step = next(f for f in data["functions"] if f["name"] == "TrainOneStepCell")
    assert step["nodes_with_line"] == step["nodes"] and step["unattributed_ms"] == 0.0
    # the table's first row is the JSON's heaviest line of the train step
    top = step["lines"][0]["line"]
    table = result.output[result.output.index("hot lines of TrainOneStepCell"):].splitlines()
    titles = next(i for i, row in enumerate(table) if row.split()[:1] == ["line"])
    assert table[titles + 1].split()[0] == top, table[:titles + 2]  # (the head, the titles, the rows)
    assert top.split(":")[0].endswith(("lenet.py", "momentum.py", "loss.py"))


def test_profile_with_pynative_is_bad_input(workdir):
    result = invoke("run", SMOKE, "--mode", "pynative", "--profile", *TINY)
    assert result.exit_code == 2
    assert "--profile times graph mode's compiled kernels" in result.output
    assert "add --mode graph" in result.output
