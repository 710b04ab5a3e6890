"""``task: language_model`` from YAML (trainer/tasks/language_model.py): the task's keys,
training by steps in both modes, exact resume, the sample at each evaluation, sampling
with one compiled function, the schedule in steps (nanoGPT's formula), ``train eval`` and
the logged model that turns prompts into text."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from framework.train.callbacks import Callback
from trainer.config import ConfigError, load_config
from trainer.experiment import evaluate, run_experiment
from trainer.schedule import step_lrs

YAML = """\
name: lm
task: language_model
seed: 0
mode: pynative
model:
  name: gpt
  args: {n_layer: 1, n_head: 2, n_embd: 16}
dataset:
  name: text
  root: corpus.txt
  block_size: 8
  batch_size: 4
optimizer:
  name: adamw
  learning_rate: 0.01
train:
  max_steps: 12
  eval_every_steps: 6
  eval_batches: 2
  log_every: 3
checkpoint:
  save_steps: 0
"""


@pytest.fixture
def lm(workdir):
    rng = np.random.default_rng(0)
    words = ["to be", "or not", "that is", "the question", "whether", "tis nobler"]
    text = "\n".join(" ".join(rng.choice(words, 6)) for _ in range(400))
    (workdir / "corpus.txt").write_text(text)
    (workdir / "lm.yaml").write_text(YAML)
    return workdir / "lm.yaml"


def run(path, *overrides, **options):
    options = {"quiet": True, "log": False, "checkpoint_dir": str(path.parent / "ck"), **options}
    return run_experiment(load_config(path, list(overrides)), **options)


@pytest.mark.parametrize("override, message", [
    ("dataset.resize=32", r"override 'dataset.resize=32': 'dataset.resize' is a key of task: "
                          r"classification, not of task: language_model"),
    ("train.epochs=3", "'train.epochs' is a key of task: classification"),
    ("train.max_steps=13", r"'train.max_steps' \(13\) must be a multiple of 'train.eval_every_steps'"),
    ("dataset.tokenizer=bpe", "'dataset.vocab_size' must be >= 257 with tokenizer: bpe"),
    ("model.args={n_layers: 2}", "'model.args' of GPT takes n_layer, n_head, n_embd, dropout, bias"),
    ("dataset.name=mnist", "'dataset.name' of a language model must be one of tinyshakespeare, text"),
])
def test_the_schema_takes_the_keys_of_the_chosen_task_only(lm, override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(lm, [override])


def test_a_text_key_under_a_classification_names_its_line(workdir):
    (workdir / "exp.yaml").write_text("name: c\ndataset:\n  name: mnist\n  block_size: 64\n")
    with pytest.raises(ConfigError, match=r"exp.yaml:4: 'dataset.block_size' is a key of task: "
                                          r"language_model, not of task: classification"):
        load_config(workdir / "exp.yaml")


def test_training_by_steps_learns_and_reports_per_token_figures(lm):
    result = run(lm)
    assert result.steps == list(range(1, 13)) and result.mode == "pynative"
    assert np.mean(result.losses[-3:]) < np.mean(result.losses[:3]) - 0.15  # it learns
    m = result.metrics
    assert m["perplexity"] == pytest.approx(math.exp(m["loss"]))
    assert m["bits_per_char"] == pytest.approx(m["loss"] / math.log(2))


def test_both_modes_take_the_same_first_steps(lm):
    eager = run(lm, "train.max_steps=6")
    graph = run(lm, "train.max_steps=6", "mode=graph")
    np.testing.assert_allclose(graph.losses, eager.losses, rtol=2e-4)
    assert graph.metrics["loss"] == pytest.approx(eager.metrics["loss"], rel=2e-4)


def test_a_resume_continues_bit_identically_in_pynative(lm):
    whole = run(lm)
    first = run(lm, "train.max_steps=6", checkpoint_dir=str(lm.parent / "part"))
    rest = run(lm, checkpoint_dir=str(lm.parent / "part"), resume=first.checkpoint)
    assert rest.steps == list(range(7, 13))
    assert rest.losses == whole.losses[6:]  # same windows, same weights: bit for bit
    assert rest.metrics == whole.metrics  # the evaluation at step 12 reads the same windows


def logged(uri: str, run_id: str) -> dict[str, dict[int, float]]:
    """``{metric: {step: value}}`` of a run as MLflow's store holds it, timings left out
    (``perf/*``: wall clock); a step logged twice (redone after a kill) must agree."""
    import mlflow

    client, out = mlflow.MlflowClient(uri), {}
    for key in client.get_run(run_id).data.metrics:
        if key.startswith(("perf/", "system/")):
            continue
        for m in client.get_metric_history(run_id, key):
            assert out.setdefault(key, {}).setdefault(m.step, m.value) == m.value, (key, m.step)
    return out


@pytest.mark.slow
def test_a_resumed_run_logs_the_uninterrupted_runs_metrics(lm):
    """Resumed after its first evaluation, a run logs at step 12 the validation loss, the
    training-loss estimate and every other figure the uninterrupted run logged: the
    evaluation windows are those of the evaluation's step, not of the process's start, and
    the learning rate is logged where it changed, as without the resume."""
    uri = f"sqlite:///{lm.parent / 'mlflow.db'}"
    # a schedule whose LR is flat from step 5 on: logged where it changes, not again at a resume
    logs = (f"mlflow.tracking_uri={uri}", "mlflow.system_metrics=false", "mlflow.log_model=false",
            "optimizer.schedule={name: cosine, warmup_steps: 2, lr_decay_steps: 4, min_lr: 0.001}")
    whole = run(lm, *logs, log=True)
    first = run(lm, *logs, "train.max_steps=6", checkpoint_dir=str(lm.parent / "part"), log=True)
    rest = run(lm, *logs, checkpoint_dir=str(lm.parent / "part"), resume=first.checkpoint, log=True)
    assert rest.run_id == first.run_id != whole.run_id
    expected, got = logged(uri, whole.run_id), logged(uri, rest.run_id)
    assert {"val/loss", "train/loss_estimate", "val/perplexity", "train/loss", "lr"} <= set(expected)
    assert set(expected["val/loss"]) == {6, 12} and set(expected["lr"]) == {1, 2, 3, 4, 5, 6, 9, 12}
    assert got == expected


class Evaluations(Callback):
    """The validation loss of each evaluation, by step."""

    def __init__(self) -> None:
        self.losses: dict[int, float] = {}

    def on_train_epoch_end(self, ctx) -> None:
        if "eval_loss" in ctx.metrics:
            self.losses[ctx.global_step] = ctx.metrics["eval_loss"]


def test_every_evaluation_reads_the_same_validation_windows(lm):
    """With weights that (practically) do not move, the validation estimate of every
    evaluation is the same number: the windows are fixed by the seed, so two evaluations
    differ by the weights only and keep_best compares like with like (before, each
    evaluation drew other windows: 2.797, 2.777, 2.768 for the same weights)."""
    still, moving = Evaluations(), Evaluations()
    run(lm, "optimizer.learning_rate=1e-12", "train.max_steps=18", callbacks=[still])
    run(lm, "train.max_steps=18", "train.eval_every_steps=6", callbacks=[moving])
    assert sorted(still.losses) == [6, 12, 18]
    assert max(still.losses.values()) - min(still.losses.values()) < 1e-6, still.losses
    assert len(set(moving.losses.values())) == 3  # (trained: the figures move with the weights)


def test_checkpoints_are_named_by_step_and_no_epoch_is_logged(lm):
    import mlflow

    uri = f"sqlite:///{lm.parent / 'mlflow.db'}"
    result = run(lm, "checkpoint.save_steps=3", "checkpoint.keep_max=10", f"mlflow.tracking_uri={uri}",
                 "mlflow.system_metrics=false", "mlflow.log_model=false", log=True)
    folder = Path(result.checkpoint).parent
    assert sorted(p.name for p in folder.glob("*.ckpt")) == [f"lm-step-{n}.ckpt" for n in (12, 3, 6, 9)]
    assert Path(result.checkpoint).name == "lm-step-12.ckpt"
    metrics = set(mlflow.MlflowClient(uri).get_run(result.run_id).data.metrics)
    assert "epoch" not in metrics and "perf/epoch_seconds" not in metrics
    assert {"val/loss", "perf/interval_seconds"} <= metrics


def test_resume_last_finds_a_checkpoint_named_by_epoch_before_step_names(lm):
    """A folder written before checkpoints were named by step (``lm-1_6.ckpt``): ``--resume
    last`` continues from it, exactly, and the next files are named by step."""
    whole = run(lm)
    first = run(lm, "train.max_steps=6", checkpoint_dir=str(lm.parent / "old"))
    older = Path(first.checkpoint)
    renamed = older.with_name("lm-1_6.ckpt")
    older.rename(renamed)
    (older.parent / "latest").unlink(missing_ok=True)  # the old name alone says where it is
    rest = run(lm, checkpoint_dir=str(lm.parent / "old"), resume="last")
    assert rest.steps == list(range(7, 13)) and rest.losses == whole.losses[6:]
    assert Path(rest.checkpoint).name == "lm-step-12.ckpt" and Path(rest.checkpoint).parent == renamed.parent


def test_a_run_past_three_intervals_resumes_with_a_larger_step_budget(lm):
    """The resume point is checked against the step budget (``train.max_steps``), not
    ``train.epochs`` (3 by default, a key a language model does not take): 4 intervals
    done, 6 asked for, the last 2 are trained; asking for what is done says so in steps."""
    from framework.train.checkpoint import read_train_state
    from trainer.distributed import Rank
    from trainer.plan import RunOptions, plan_run

    four = ("train.max_steps=8", "train.eval_every_steps=2")
    first = run(lm, *four)
    assert read_train_state(first.checkpoint)[1].global_step == 8
    done = plan_run(load_config(lm, list(four)), Rank(),
                    RunOptions(quiet=True, log=False, resume="last", checkpoint_dir=str(lm.parent / "ck")))
    assert done.nothing_to_train == (f"nothing to train: {first.checkpoint} is already at step 8 of "
                                     "train.max_steps=8; to continue, ask for more (train.max_steps=10 "
                                     "or more, a multiple of train.eval_every_steps=2)")
    more = run(lm, "train.max_steps=12", "train.eval_every_steps=2", resume="last")
    assert more.nothing_to_train is None and more.steps == [9, 10, 11, 12]


def test_a_resume_past_a_smaller_step_budget_names_the_next_whole_interval(lm):
    from framework.train.checkpoint import read_train_state
    from trainer.distributed import Rank
    from trainer.plan import RunOptions, plan_run

    run(lm, "train.max_steps=8", "train.eval_every_steps=4", "checkpoint.save_steps=2",
        checkpoint_dir=str(lm.parent / "mid"))
    mid = lm.parent / "mid" / "lm-step-6.ckpt"
    assert read_train_state(mid)[1].global_step == 6
    past = plan_run(load_config(lm, ["train.max_steps=4", "train.eval_every_steps=4"]), Rank(),
                    RunOptions(quiet=True, log=False, resume=str(mid)))
    assert past.nothing_to_train.endswith("is already at step 6 of train.max_steps=4; to continue, ask "
                                          "for more (train.max_steps=8 or more, a multiple of "
                                          "train.eval_every_steps=4)")


def test_each_evaluation_logs_a_sample_and_the_val_metrics(lm):
    import mlflow

    uri = f"sqlite:///{lm.parent / 'mlflow.db'}"
    result = run(lm, f"mlflow.tracking_uri={uri}", "mlflow.system_metrics=false", log=True)
    client = mlflow.MlflowClient(uri)
    names = {a.path for a in client.list_artifacts(result.run_id, "samples")}
    assert names == {"samples/step_6.txt", "samples/step_12.txt"}
    metrics = client.get_run(result.run_id).data.metrics
    assert {"val/loss", "val/perplexity", "val/bits_per_char", "train/loss_estimate",
            "perf/tokens_per_second"} <= set(metrics)
    tags = client.get_run(result.run_id).data.tags
    assert (tags["task"], tags["model"], tags["dataset"]) == ("language_model", "gpt", "text")
    mlflow.set_tracking_uri(uri)  # runs:/ resolves in the global store
    model = mlflow.pyfunc.load_model(result.model_uri)
    texts = model.predict(["to be", "whether"], params={"max_tokens": 20, "top_k": 5})
    assert [t[:5] for t in texts] == ["to be", "wheth"] and all(len(t) > 20 for t in texts)


def test_sampling_compiles_at_most_two_functions_whatever_the_length(lm):
    from datasets.tokenizer import CharTokenizer
    from trainer.models import GPT
    from trainer.tasks.sampling import Sampler

    tok = CharTokenizer.train("abcdefgh\n")
    sampler = Sampler(GPT(tok.vocab_size, 8, 1, 2, 16), tok, 8, "graph")
    graph = sampler.text("ab", 30, seed=1)  # past the window: the cache restarts from half of it
    sampler.text("abcdefgh", 3)
    assert sampler.compiled_functions == 2 and len(graph) == 30  # the step and the prefill
    eager = Sampler(sampler.net, tok, 8, "pynative").text("ab", 30, seed=1)
    assert eager == graph  # the same logits choose the same tokens


@pytest.mark.parametrize("model", ["gpt", "lstm_lm"])
def test_generation_state_gives_the_forward_passs_logits(model):
    """The cached step (GPT: keys and values; LSTM: its state) and the GPT's prefill give
    the logits the whole-sequence forward gives, position by position, in both modes."""
    import framework as ms
    from framework import Tensor
    from trainer.models import LANGUAGE_MODELS

    ms.set_seed(0)
    net = LANGUAGE_MODELS[model](vocab_size=11, block_size=8, **(
        {"n_layer": 2, "n_head": 2, "n_embd": 16} if model == "gpt" else {"embedding": 8, "hidden": 16}))
    net.set_train(False)
    ids = np.random.default_rng(0).integers(0, 11, 8).astype(np.int32)
    full = net(Tensor(ids[None])).asnumpy()[0]
    for step in (net.decode, ms.jit(net.decode)):
        state, rows = net.init_state(), []
        for pos, token in enumerate(ids):
            args = Tensor(np.array([[token]], np.int32)), Tensor(np.array(pos, np.int32))
            logits, *state = step(*args, *state)
            rows.append(logits.asnumpy()[0])
        np.testing.assert_allclose(np.array(rows), full, rtol=1e-5, atol=1e-5)
    if model == "gpt":
        window = np.zeros((1, 8), np.int32)
        window[0, :5] = ids[:5]
        logits, k, v = ms.jit(net.prefill)(Tensor(window))
        np.testing.assert_allclose(logits.asnumpy()[0, :5], full[:5], rtol=1e-5, atol=1e-5)
        after, *_ = net.decode(Tensor(ids[5:6].reshape(1, 1)), Tensor(np.array(5, np.int32)), k, v)
        np.testing.assert_allclose(after.asnumpy()[0], full[5], rtol=1e-5, atol=1e-5)


def test_train_eval_gives_the_whole_validation_splits_loss(lm):
    """``train eval``: the mean token cross-entropy over every non-overlapping window of the
    validation split (whole batches), against NumPy's on the trained network's logits."""
    from datasets.tokenizer import CharTokenizer
    from framework import Tensor
    from framework.serialization import read_arrays
    from trainer.tasks.language_model import trained_network

    result = run(lm)
    config = load_config(lm)
    metrics = evaluate(config, result.checkpoint)
    text = (lm.parent / "corpus.txt").read_text()
    cut = int(len(text) * 0.9)  # nanoGPT's split; its vocabulary: the training part's characters
    chars = sorted(set(text[:cut]))
    ids = np.array([chars.index(c) for c in text[cut:]])
    windows = (len(ids) - 1) // 8 // 4 * 4  # block 8, whole batches of 4
    x, y = ids[:windows * 8].reshape(-1, 8), ids[1:windows * 8 + 1].reshape(-1, 8)
    net = trained_network(config, CharTokenizer("".join(chars)), read_arrays(result.checkpoint)[0])
    logits = net(Tensor(x.astype(np.int32))).asnumpy().astype(np.float64)
    top = logits.max(-1, keepdims=True)
    logp = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    expected = -np.take_along_axis(logp, y[..., None], -1).mean()
    assert metrics["loss"] == pytest.approx(expected, rel=1e-5)
    assert metrics["tokens"] == x.size
    assert metrics["perplexity"] == pytest.approx(math.exp(expected), rel=1e-5)
    assert metrics["loss"] == pytest.approx(result.metrics["loss"], rel=0.2)  # the run's estimate


def test_the_schedule_in_steps_is_nanogpts():
    from types import SimpleNamespace

    s = SimpleNamespace(name="cosine", warmup_steps=10, lr_decay_steps=100, min_lr=1e-4)
    lrs = step_lrs(s, 1e-3, 120)

    def nanogpt(it):  # nanoGPT train.py's get_lr, written out
        if it < 10:
            return 1e-3 * (it + 1) / (10 + 1)
        if it > 100:
            return 1e-4
        ratio = (it - 10) / (100 - 10)
        return 1e-4 + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (1e-3 - 1e-4)

    assert lrs == pytest.approx([nanogpt(i) for i in range(120)], rel=1e-12)


SHAKESPEARE = pytest.mark.skipif(
    not (Path(os.environ.get("TRAIN_DATA_DIR", "/nonexistent")) / "tinyshakespeare" / "input.txt").is_file(),
    reason="TRAIN_DATA_DIR with tinyshakespeare/ is not set (point it at shared/datasets)")


@pytest.mark.slow
@SHAKESPEARE
@pytest.mark.parametrize("experiment", ["gpt_shakespeare_smoke.yaml", "lstm_shakespeare_smoke.yaml"])
def test_the_smoke_experiments_learn_and_sample_from_the_command_line(workdir, experiment):
    """`train run` then `train sample`, as a user types them (graph mode, Tiny Shakespeare)."""
    import mlflow
    from typer.testing import CliRunner

    from trainer.cli import app

    path = Path(__file__).resolve().parents[2] / "experiments" / experiment
    done = CliRunner().invoke(app, ["run", str(path), "mlflow.system_metrics=false"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "--- sample at step 30 ---" in done.output and "val/loss" in done.output
    losses = [float(x) for x in re.findall(r"step \d+/\d+: train/loss ([\d.]+)", done.output)]
    assert losses[-1] < math.log(65) - 0.5  # below a uniform guess over the 65 characters
    run_id = re.search(r"runs:/(\w+)/[\w-]+-smoke", done.output).group(1)
    client = mlflow.MlflowClient(f"sqlite:///{workdir / 'mlflow.db'}")
    assert {a.path for a in client.list_artifacts(run_id, "samples")} == {
        "samples/step_30.txt", "samples/step_60.txt"}
    sample = CliRunner().invoke(app, ["sample", str(path), "--prompt", "ROMEO:", "--tokens", "40"],
                                catch_exceptions=False)
    assert sample.exit_code == 0 and sample.stdout.startswith("ROMEO:") and len(sample.stdout) > 40


def _script(*args: str) -> subprocess.CompletedProcess:
    script = Path(__file__).with_name("lm_run_script.py")
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300)


def _losses(folder: Path) -> list[tuple[int, str]]:
    lines = (folder / "losses.txt").read_text().split()
    return list(zip(map(int, lines[::2]), lines[1::2]))


def test_a_run_sigkilled_then_resumed_ends_bit_identically_in_pynative(lm):
    """Killed at step 9 (the last save at step 6), resumed with ``last``: the redone steps and
    the rest have the uninterrupted run's losses and final weights, bit for bit (the window
    generator's state comes back from the checkpoint)."""
    from framework.serialization import read_arrays

    lm.write_text(lm.read_text().replace("save_steps: 0", "save_steps: 6"))
    whole = _script(str(lm), str(lm.parent / "whole"))
    assert whole.returncode == 0, whole.stderr
    killed = _script(str(lm), str(lm.parent / "part"), "--kill-at", "9")
    assert killed.returncode == -signal.SIGKILL
    resumed = _script(str(lm), str(lm.parent / "part"), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    reference = dict(_losses(lm.parent / "whole"))
    losses = _losses(lm.parent / "part")
    assert [s for s, _ in losses] == list(range(1, 10)) + list(range(7, 13))  # 7..9 redone
    assert all(value == reference[step] for step, value in losses)
    final = [read_arrays(out.stdout.split("checkpoint ")[-1].strip())[0] for out in (whole, resumed)]
    assert final[0].keys() == final[1].keys() and len(final[0]) > 5
    for name in final[0]:
        assert final[0][name].tobytes() == final[1][name].tobytes(), name


def test_a_sweep_minimizes_the_validation_loss_under_its_name(lm):
    """``train sweep`` of a language model: the trials' value is ``val/loss`` (what they log),
    minimized, and the parent run's best is ``best/val/loss``."""
    import mlflow
    import optuna
    from typer.testing import CliRunner

    from trainer.cli import app

    done = CliRunner().invoke(app, ["sweep", str(lm), "optimizer.learning_rate=0.01,0.001",
                                    "train.max_steps=6", "mlflow.system_metrics=false"],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "minimize val/loss" in done.output
    (summary,) = optuna.get_all_study_summaries(f"sqlite:///{lm.parent / 'sweeps.db'}")
    assert summary.direction == optuna.study.StudyDirection.MINIMIZE
    mlflow.set_tracking_uri(f"sqlite:///{lm.parent / 'mlflow.db'}")
    found = mlflow.search_runs(search_all_experiments=True)
    children = found[found["tags.mlflow.parentRunId"].notna()]
    parent = found[found["tags.mlflow.parentRunId"].isna()].iloc[0]
    assert len(children) == 2
    assert parent["metrics.best/val/loss"] == pytest.approx(children["metrics.val/loss"].min())
    assert summary.best_trial.value == pytest.approx(children["metrics.val/loss"].min())
