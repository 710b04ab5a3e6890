"""Bad input is exit 2 with one line, never "training failed" (exit 1) or a traceback:
``precision: fp16`` with clipping or accumulation (refused when the file is read, naming the
key), ``train export --format xyz``, an ``--out`` that cannot be written (a file where its
folder should be, a full disk, a place without permission), a checkpoint whose saved BPE
tokenizer is not one or whose char vocabulary is empty, a zoo ``model.args`` value of the
wrong type, a damaged random-generator state in a checkpoint resumed from, a working folder
whose disk is full with the store unreachable (Python's ``OSError`` named no file), and
offline MLflow records of the wrong shape in ``train sync-offline`` (tracebacks)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from .helpers import HERE, TINY_LM, experiment, one_error, python, train

LM = TINY_LM


def _corpus(folder: Path) -> None:
    rng = np.random.default_rng(0)
    words = ["to be", "or not", "that is", "the question", "whether", "tis nobler"]
    (folder / "corpus.txt").write_text("\n".join(" ".join(rng.choice(words, 6)) for _ in range(400)))


@pytest.fixture(scope="module")
def lm(tmp_path_factory) -> Path:
    """A tiny GPT's checkpoint, trained 4 steps (the folder holds lm.yaml and corpus.txt)."""
    folder = tmp_path_factory.mktemp("lm")
    _corpus(folder)
    experiment(folder, LM, "lm.yaml")
    done = train(folder, "run", "lm.yaml", "--quiet", "mlflow.system_metrics=false")
    assert done.returncode == 0, done.stderr
    return next(folder.glob("checkpoints/lm/*/lm-step-4.ckpt"))


def _edited(ckpt: Path, name: str, edit) -> Path:
    """A copy of ``ckpt`` whose training state ``edit`` changed (a valid digest: written by us)."""
    from framework.checkpoint_formats.twinmode import read_arrays, write_arrays
    from framework.train.checkpoint import STATE_KEY

    arrays, metadata = read_arrays(ckpt)
    metadata = copy.deepcopy(metadata)
    edit(metadata[STATE_KEY])
    out = ckpt.parents[3] / name
    write_arrays(out, arrays, metadata)
    return out


@pytest.mark.parametrize("override, key", [
    ("optimizer.clip_grad_norm=1.0", "optimizer.clip_grad_norm"),
    ("train.accumulate_grad_batches=2", "train.accumulate_grad_batches")])
def test_fp16_with_clipping_or_accumulation_is_refused_with_the_file(tmp_path: Path, override: str,
                                                                     key: str) -> None:
    from trainer.config import ConfigError, load_config

    file = experiment(tmp_path, LM.replace("mode: pynative\n", "mode: pynative\nprecision: fp16\n"))
    with pytest.raises(ConfigError) as caught:
        load_config(file, [override])
    assert str(caught.value) == (f"{file}:5: 'precision: fp16' needs loss scaling, which '{key}' does not "
                                 "do; use precision: bf16 with it (or fp32)")


def test_fp16_with_clipping_is_exit_2_from_the_command_line(tmp_path: Path) -> None:
    _corpus(tmp_path)
    file = experiment(tmp_path, LM.replace("mode: pynative\n", "mode: pynative\nprecision: fp16\n"))
    line = one_error(train(tmp_path, "run", str(file), "optimizer.clip_grad_norm=1.0", "--quiet"))
    assert line.startswith(f"error: {file}:5: 'precision: fp16' needs loss scaling")


@pytest.mark.slow
def test_an_unknown_export_format_is_exit_2(lm: Path) -> None:
    line = one_error(train(lm.parents[3], "export", "lm.yaml", "--checkpoint", str(lm), "--format", "xyz"))
    assert line == "error: export: unknown format 'xyz'; supported: onnx"


@pytest.mark.slow
def test_an_out_that_cannot_be_written_is_exit_2(lm: Path) -> None:
    folder = lm.parents[3]
    (folder / "afile").write_text("")
    line = one_error(train(folder, "export", "lm.yaml", "--checkpoint", str(lm), "--out", "afile/m.onnx"))
    assert line == ("error: export: afile/m.onnx cannot be written (afile is a file, not a folder); "
                    "choose another --out")
    full = folder / "full"
    done = python(folder, HERE / "full_disk_script.py", str(full), "export", "lm.yaml", "--checkpoint",
                  str(lm), "--out", str(full / "m.onnx"))
    assert one_error(done) == (f"error: export: {full}/m.onnx cannot be written (No space left on "
                               "device); choose another --out")


@pytest.mark.slow
@pytest.mark.parametrize("saved, words", [
    ({"kind": "bpe", "json": '{"model": 5}'}, "its BPE JSON is not a Hugging Face tokenizer ("),
    ({"kind": "char", "chars": ""}, "its char vocabulary '' is empty"),
    ({"kind": "char", "chars": "abca"}, "its char vocabulary 'abca' is holding a character twice"),
])
def test_a_checkpoint_with_a_bad_tokenizer_is_exit_2(lm: Path, saved: dict, words: str) -> None:
    pytest.importorskip("tokenizers")
    bad = _edited(lm, "tokenizer.ckpt", lambda state: state["callbacks"].update(tokenizer=saved))
    line = one_error(train(lm.parents[3], "sample", "lm.yaml", "--checkpoint", str(bad), "--tokens", "5"))
    assert line.startswith(f"error: {bad}: not a saved tokenizer: {words}")


@pytest.mark.parametrize("args, words", [
    ("{n_layer: two}", "'model.args.n_layer' of GPT must be a whole number >= 1, got 'two'"),
    ("{n_embd: 0}", "'model.args.n_embd' of GPT must be a whole number >= 1, got 0"),
    ("{dropout: '0.1'}", "'model.args.dropout' of GPT must be a number in [0, 1) (a probability), got '0.1'"),
    ("{bias: 1}", "'model.args.bias' of GPT must be true or false, got 1"),
    ("{n_head: 3}", "'model.args.n_embd' of GPT (16) must be a multiple of 'model.args.n_head' (3)"),
])
def test_a_zoo_model_arg_of_the_wrong_type_is_refused_with_the_file(tmp_path: Path, args: str,
                                                                     words: str) -> None:
    from trainer.config import ConfigError, load_config

    with pytest.raises(ConfigError) as caught:
        load_config(experiment(tmp_path, LM), [f"model.args={args}"])
    assert str(caught.value) == f"override 'model.args={args}': {words}"


def test_a_zoo_model_arg_of_the_wrong_type_is_exit_2_before_training(tmp_path: Path) -> None:
    _corpus(tmp_path)
    file = experiment(tmp_path, LM.replace("n_layer: 1", "n_layer: one"))
    line = one_error(train(tmp_path, "run", str(file), "--quiet"))
    assert line == f"error: {file}:7: 'model.args.n_layer' of GPT must be a whole number >= 1, got 'one'"


@pytest.mark.slow
def test_a_damaged_random_state_is_exit_2_before_anything_resumes(lm: Path) -> None:
    bad = _edited(lm, "rng.ckpt", lambda state: state["rng"]["python"].update(state=[1, 2, 3]))
    line = one_error(train(lm.parents[3], "run", "lm.yaml", "--resume", str(bad), "train.max_steps=8",
                           "--quiet"))
    assert line.startswith(f"error: {bad} has a damaged random-generator state (python: ")
    assert line.endswith("); resume from another checkpoint (its weights alone: ms.load_checkpoint)")


@pytest.mark.slow
def test_a_full_working_folder_with_the_store_unreachable_names_the_file(tmp_path: Path) -> None:
    _corpus(tmp_path)
    experiment(tmp_path, LM, "lm.yaml")
    done = python(tmp_path, HERE / "full_disk_script.py", str(tmp_path / "mlruns-offline"), "run", "lm.yaml",
                  "--quiet", MLFLOW_TRACKING_URI="http://127.0.0.1:9", MLFLOW_HTTP_REQUEST_MAX_RETRIES="0")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: the offline MLflow record mlruns-offline/lm-pynative-")
    assert line.endswith(".jsonl cannot be written (No space left on device) and the store "
                         "http://127.0.0.1:9 is not reachable: the run's record has nowhere to go; free "
                         "space there or set MLFLOW_TRACKING_URI to a store that takes it")


RECORD = {"run_id": "offline-1", "run_name": "r", "experiment": "e", "parent_run_id": None, "time": 0}


@pytest.mark.parametrize("record, words", [
    ([1, 2], "a JSON list, not an object"),
    ({**RECORD, "kind": "metrics", "data": 5}, "'metrics' data must be a list of [key, value, "
                                               "time, step], got 5"),
    ({**RECORD, "kind": "metrics", "data": [["loss", "x", 0, 1]]}, "'metrics' data must be"),
    ({**RECORD, "kind": "params", "data": "lr"}, "'params' data must be a mapping of names"),
    ({**RECORD, "kind": "artifact", "data": {"path": 3}}, "'artifact' data must be a file path"),
    ({**RECORD, "kind": "bogus", "data": 1}, "kind 'bogus' is none of params, tags, metrics"),
    ({**RECORD, "run_name": ["x"], "kind": "end", "data": "FINISHED"}, "run_name is ['x'], not text"),
])
def test_a_malformed_offline_record_is_one_line_and_imports_nothing(tmp_path: Path, record, words) -> None:
    from trainer.offline_sync import OfflineRecordError, sync_offline

    folder = _offline(tmp_path, record)
    with pytest.raises(OfflineRecordError) as caught:
        sync_offline(folder, f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert str(caught.value).startswith(f"{folder / 'b.jsonl'}:2: not an offline MLflow record ({words}")
    assert sorted(p.name for p in folder.iterdir()) == ["a.jsonl", "b.jsonl"]  # nothing imported
    assert not (tmp_path / "mlflow.db").exists()


def _offline(tmp_path: Path, record: object) -> Path:
    """Two offline files: a.jsonl well formed, b.jsonl with ``record`` on its line 2."""
    folder = tmp_path / "mlruns-offline"
    folder.mkdir()
    good = {**RECORD, "kind": "params", "data": {"lr": 0.1}}
    (folder / "a.jsonl").write_text(json.dumps(good) + "\n")
    (folder / "b.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n"
                                    + json.dumps({**RECORD, "kind": "end", "data": "FINISHED"}) + "\n")
    return folder


def test_a_malformed_offline_record_is_exit_2_from_the_command_line(tmp_path: Path) -> None:
    folder = _offline(tmp_path, {**RECORD, "kind": "metrics", "data": [["loss", 1.0, 0]]})
    line = one_error(train(tmp_path, "sync-offline", str(folder)))
    assert line == (f"error: {folder / 'b.jsonl'}:2: not an offline MLflow record ('metrics' data "
                    "must be a list of [key, value, time, step], got [['loss', 1.0, 0]])")
