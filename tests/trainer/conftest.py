"""Fixtures of the trainer tests."""

import pytest


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A fresh working directory (relative outputs land there) and no MLflow URI from outside."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return tmp_path
