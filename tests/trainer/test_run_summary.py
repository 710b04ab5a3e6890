"""The summary's MLflow line: it says how to start the UI only when no UI serves the store."""

from __future__ import annotations

import json
import os
import socket

from trainer.config import ExperimentConfig
from trainer.executor import RunResult
from trainer.run_summary import summary
from trainer.ui import _state_file


def _mlflow_line(config: ExperimentConfig) -> str:
    result = RunResult("graph", checkpoint="checkpoints/x/x-1_1.ckpt", run_url="http://127.0.0.1:5000/#/x",
                       metrics={"accuracy": 0.5, "loss": 1.0}, step_seconds=[0.1], batch_size=2)
    return next(line for line in summary(config, result).splitlines() if line.startswith("  MLflow:"))


def test_the_ui_hint_only_while_no_ui_serves_the_store(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = ExperimentConfig()
    config.mlflow.tracking_uri = uri
    assert _mlflow_line(config).endswith("(to open it, start the UI: train ui)")
    # a train ui of this store is up (its record: a live process, a port that answers)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        record = _state_file(uri)
        record.write_text(json.dumps({"uri": uri, "port": server.getsockname()[1], "pid": os.getpid()}))
        try:
            assert _mlflow_line(config) == "  MLflow:     http://127.0.0.1:5000/#/x"
        finally:
            record.unlink(missing_ok=True)
    config.mlflow.tracking_uri = "http://mlflow.example:5000"  # a tracking server is its own UI
    assert "train ui" not in _mlflow_line(config)
