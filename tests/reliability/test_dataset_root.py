"""Item 8: an explicit ``dataset.root`` without data is bad input; runs record their data.

Before the fix a typo in ``dataset.root`` printed a warning and trained on the data found
elsewhere (exit 0), and MLflow did not say which files a run had read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from .helpers import DATA, TINY, experiment, train

pytestmark = pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")


def test_a_misspelt_root_stops_with_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "mnsit-10k").mkdir()
    done = train(tmp_path, "run", str(experiment(tmp_path, TINY)), "dataset.root=mnsit-10k", "--quiet")
    assert done.returncode == 2, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "dataset.root mnsit-10k holds no mnist-10k train files" in line
    assert "missing train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz]" in line
    assert "remove it to search $TRAIN_DATA_DIR" in line


@pytest.mark.slow
def test_mlflow_records_the_files_read(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    root = Path(DATA) / "mnist-10k"
    done = train(tmp_path, "run", str(experiment(tmp_path, TINY)), f"dataset.root={root}", "--quiet")
    assert done.returncode == 0, done.stderr
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("reliability").experiment_id])
    params = run.data.params
    for split, stem in (("train", "train"), ("test", "t10k")):
        images, labels = Path(params[f"data.{split}.images"]), Path(params[f"data.{split}.labels"])
        assert images.parent == root.resolve() and images.name.startswith(f"{stem}-images")
        expected = hashlib.sha256(images.read_bytes() + labels.read_bytes()).hexdigest()
        assert params[f"data.{split}.sha256"] == expected
    assert params["data.name"] == "mnist-10k"
    assert params["data.train.samples"] == "96" and params["data.test.samples"] == "64"
