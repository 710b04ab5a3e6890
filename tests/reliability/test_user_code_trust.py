"""What user code may run. ``model.class``/``dataset.class`` name a class or a function of the
user's; anything else callable was called with ``args`` before its result was checked
(``model.class: os:system`` ran its command, then "not an nn.Cell"): now a builtin, a
function or class of Python's standard library, or a ``model.class`` class that is not an
``nn.Cell`` is refused when the file is read, before anything is called. ``--print-config``
finds the user's file without importing it. ``train sync-offline`` imports only files inside
the offline folder (a record naming any other file of the machine sent it to the store);
artifacts logged offline are copied beside their record, so they are there to import."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from .helpers import experiment, one_error, train

FILE = ("name: trust\nmode: pynative\nmodel:\n  class: {target}\n  args: {args}\ndataset:\n  name: npz\n"
        "  root: data.npz\n  batch_size: 16\ntrain:\n  epochs: 1\n")
SPY = '''\
from pathlib import Path

Path("imported.txt").write_text("the module ran")


class NotACell:
    def __init__(self, num_classes: int = 5):
        Path("called.txt").write_text("NotACell was called")
'''


def _data(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (64, 28, 28)).astype(np.uint8)
    y = rng.integers(0, 5, 64).astype(np.int64)
    np.savez(tmp_path / "data.npz", x_train=x[:48], y_train=y[:48], x_test=x[48:], y_test=y[48:])


@pytest.mark.parametrize("target, args, words", [
    ("os:system", "{command: 'touch pwned.txt'}",
     "os:system is a builtin_function_or_method, not a class or a function written in Python"),
    ("subprocess:call", "{args: [touch, pwned.txt]}",
     "subprocess:call is subprocess.call of Python's standard library, not code of yours; name your own "
     "class (FILE.py:Class)"),
    ("shutil:rmtree", "{path: data.npz}", "shutil:rmtree is shutil.rmtree of Python's standard library"),
])
def test_a_callable_that_is_not_the_users_is_refused_before_it_runs(tmp_path: Path, target: str, args: str,
                                                                   words: str) -> None:
    _data(tmp_path)
    file = experiment(tmp_path, FILE.format(target=target, args=args))
    line = one_error(train(tmp_path, "run", str(file), "--quiet"))
    assert line.startswith(f"error: {file}:4: 'model.class': {words}")
    assert not (tmp_path / "pwned.txt").exists() and (tmp_path / "data.npz").exists()


def test_a_dataset_class_of_the_standard_library_is_refused(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: trust\ndataset:\n  class: subprocess:Popen\n  args: {args: [touch, "
                                "pwned.txt]}\n")
    line = one_error(train(tmp_path, "run", str(file), "--quiet"))
    assert line.startswith(f"error: {file}:3: 'dataset.class': subprocess:Popen is subprocess.Popen of "
                           "Python's standard library")
    assert not (tmp_path / "pwned.txt").exists()


def test_a_model_class_that_is_not_a_cell_is_refused_before_it_is_called(tmp_path: Path) -> None:
    _data(tmp_path)
    (tmp_path / "spy.py").write_text(SPY)
    file = experiment(tmp_path, FILE.format(target="spy.py:NotACell", args="{}"))
    line = one_error(train(tmp_path, "run", str(file), "--quiet"))
    assert line == (f"error: {file}:4: 'model.class': spy.py:NotACell is a class that is not an nn.Cell; "
                    "point it at a Cell subclass or a function returning one")
    assert not (tmp_path / "called.txt").exists()


def test_print_config_finds_the_users_file_without_running_it(tmp_path: Path) -> None:
    _data(tmp_path)
    (tmp_path / "spy.py").write_text(SPY)
    file = experiment(tmp_path, FILE.format(target="spy.py:NotACell", args="{}"))
    done = train(tmp_path, "run", str(file), "--print-config")
    assert done.returncode == 0, done.stderr
    assert f"class: {tmp_path / 'spy.py'}:NotACell" in done.stdout
    assert not (tmp_path / "imported.txt").exists() and not (tmp_path / "called.txt").exists()


RECORD = {"run_id": "offline-1", "run_name": "r", "experiment": "trust", "parent_run_id": None, "time": 0}


@pytest.mark.slow
def test_sync_offline_imports_only_files_inside_the_offline_folder(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    from trainer.offline_sync import sync_offline

    secret = tmp_path / "secret.txt"
    secret.write_text("a file of this machine")
    folder = tmp_path / "mlruns-offline"
    (folder / "r.files").mkdir(parents=True)
    (folder / "r.files" / "0-kept.txt").write_text("logged offline")
    (folder / "r.files" / "1-link.txt").symlink_to(secret)
    records = [{**RECORD, "kind": "artifact", "data": {"path": str(secret), "artifact_path": None}},
               {**RECORD, "kind": "artifact", "data": {"path": "../secret.txt", "artifact_path": None}},
               {**RECORD, "kind": "artifact", "data": {"path": "r.files/1-link.txt", "artifact_path": None}},
               {**RECORD, "kind": "artifact", "data": {"path": "r.files/0-kept.txt", "artifact_path": "x"}},
               {**RECORD, "kind": "end", "data": "FINISHED"}]
    (folder / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    with pytest.warns(UserWarning) as warned:
        sync_offline(folder, uri)
    outside = [str(w.message) for w in warned if "outside" in str(w.message)]
    assert outside == [f"{folder / 'r.jsonl'}: artifact {name} is outside {folder}: not imported "
                       "(sync-offline imports files inside the offline folder only)"
                       for name in (str(secret), "../secret.txt", "r.files/1-link.txt")]
    client = MlflowClient(tracking_uri=uri)
    [run] = client.search_runs([client.get_experiment_by_name("trust").experiment_id])
    assert [a.path for a in client.list_artifacts(run.info.run_id)] == ["x"]
    assert [a.path for a in client.list_artifacts(run.info.run_id, "x")] == ["x/0-kept.txt"]


@pytest.mark.slow
def test_an_artifact_logged_offline_is_kept_and_synced(tmp_path: Path, monkeypatch) -> None:
    from mlflow.tracking import MlflowClient

    from trainer.mlflow_logger import MLflowRun
    from trainer.offline_sync import sync_offline

    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    folder = tmp_path / "mlruns-offline"
    report = tmp_path / "tmp" / "report.txt"
    report.parent.mkdir()
    report.write_text("written in a temporary folder")
    with pytest.warns(UserWarning, match="unreachable"):
        run = MLflowRun("http://127.0.0.1:9", "trust", "offline", offline_dir=folder)
    run.log_artifact(report, "reports")
    run.end("FINISHED")
    report.unlink()  # a temporary folder gone before the sync
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    sync_offline(folder, uri)
    client = MlflowClient(tracking_uri=uri)
    [synced] = client.search_runs([client.get_experiment_by_name("trust").experiment_id])
    [artifact] = client.list_artifacts(synced.info.run_id, "reports")
    assert artifact.path == "reports/report.txt"  # its own name
    local = client.download_artifacts(synced.info.run_id, artifact.path, str(tmp_path))
    assert Path(local).read_text() == "written in a temporary folder"
