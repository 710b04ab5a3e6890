"""What `train sweep` shows while trials run: a table redrawn in place on a terminal (read in a
pseudo-terminal through a terminal emulator, pyte), one line per change when piped, and at
the end the trials table and the parent run's MLflow address; `trials.json` as MLflow's
table view reads it. Real sweeps with tiny limits; everything checked against the study."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import app

from .cli_env import SMOKE, needs_data

TINY = ["mode=pynative", "dataset.limit=192", "dataset.test_limit=100", "train.epochs=2",
        "checkpoint.save_steps=0", "mlflow.log_model=false", "mlflow.system_metrics=false"]


def only_study(folder: Path | None = None):
    import optuna

    storage = f"sqlite:///{(folder or Path.cwd()) / 'sweeps.db'}"
    (summary,) = optuna.get_all_study_summaries(storage)
    return optuna.load_study(study_name=summary.study_name, storage=storage)


def parent_run_id(folder: Path | None = None) -> str:
    folder = folder or Path.cwd()
    return only_study(folder).user_attrs["twinmode.mlflow_parent"][f"sqlite:///{folder / 'mlflow.db'}"]


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    """`train sweep` with its output captured (not a terminal): four grid trials on one worker,
    so they run in order: one completes, one cannot batch (fails), one learns nothing and is
    pruned after epoch 1 (worse than the first's), one fails. (output, folder, trials)"""
    folder = tmp_path_factory.mktemp("piped")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.delenv("MLFLOW_TRACKING_URI", raising=False)
        result = CliRunner().invoke(app, [
            "sweep", str(SMOKE), "optimizer.learning_rate=0.05,1e-9", "dataset.batch_size=32,1000", *TINY,
            "--metric", "train/loss", "--pruner", "median(n_startup_trials=1)"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    from optuna.trial import TrialState

    trials = only_study(folder).get_trials()
    assert [t.state for t in trials] == [TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED,
                                         TrialState.FAIL]
    return result.output, folder, trials


@needs_data
def test_piped_one_line_per_change(piped):
    """Every line checked against the study: started, each epoch's reported value, the end."""
    from optuna.trial import TrialState

    output, _, trials = piped
    took = r" \(\d+\.\d s\)"
    expected = []  # one pattern per line, trial by trial (one worker: they ran in order)
    for t in trials:
        lr, bs = t.params["optimizer.learning_rate"], t.params["dataset.batch_size"]
        expected.append(re.escape(f"trial {t.number} started: optimizer.learning_rate={lr:.4g}, "
                                  f"dataset.batch_size={bs}"))
        reported = sorted(t.intermediate_values.items())
        if t.state == TrialState.COMPLETE:
            assert [e for e, _ in reported] == [1, 2]
            expected += [re.escape(f"trial {t.number} epoch {e}/2: train/loss {v:.4f}") for e, v in reported]
            expected.append(re.escape(f"trial {t.number} complete: train/loss {t.value:.4f}") + took
                            + "; the best so far")
        elif t.state == TrialState.PRUNED:
            assert [e for e, _ in reported] == [1] and reported[0][1] > trials[0].intermediate_values[1]
            expected.append(re.escape(f"trial {t.number} pruned after epoch 1/2: train/loss "
                                      f"{reported[0][1]:.4f}") + took)
        else:
            assert "no batches" in t.user_attrs["error"] and not reported
            expected.append(re.escape(f"trial {t.number} failed: {t.user_attrs['error']}") + took)
    # after the table, the notes: why trials failed
    expected += [re.escape(f"trial {t.number} failed: {t.user_attrs['error']}") for t in trials
                 if t.state == TrialState.FAIL]
    lines = [line for line in output.splitlines() if line.startswith("trial ")]
    # the pruned trial's epoch line shows when a poll saw that epoch before the trial was pruned
    pruned = next(t for t in trials if t.state == TrialState.PRUNED)
    seen_epoch = f"trial {pruned.number} epoch 1/2: train/loss {pruned.intermediate_values[1]:.4f}"
    lines = [line for line in lines if line != seen_epoch]
    assert len(lines) == len(expected), "\n".join(lines)
    for line, pattern in zip(lines, expected):
        assert re.fullmatch(pattern, line), (line, pattern)



@needs_data
def test_piped_ends_with_the_table_and_the_parent_run(piped):
    """A Markdown table, one row per trial as the study has it (the best marked), the notes,
    the parent run's address, the summary line."""
    output, folder, trials = piped
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in output.splitlines() if re.match(r"^\|\s+\*?\d+ \|", line)]
    header = next(line for line in output.splitlines() if line.startswith("| trial"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "trial", "learning_rate", "batch_size", "state", "epoch", "train/loss", "time"]
    assert [(r[0], float(r[1]), int(r[2]), r[3], r[4]) for r in rows] == [
        ("*0", 0.05, 32, "complete", "2/2"), ("1", 0.05, 1000, "failed", ""),
        ("2", 1e-9, 32, "pruned", "1/2"), ("3", 1e-9, 1000, "failed", "")]
    assert rows[0][5] == f"{trials[0].value:.4f}"
    assert rows[2][5] == f"{trials[2].intermediate_values[1]:.4f} @ep1"
    url = re.search(r"^MLflow parent run: (\S+)$", output, re.M).group(1)
    parent = parent_run_id(folder)
    assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/#/experiments/\d+/runs/{parent}\?.*", url)
    assert output.rstrip().splitlines()[-1].startswith(f"sweep '{only_study(folder).study_name}': 4/4")


@needs_data
def test_trials_json_shows_every_column_in_mlflows_table_view(piped, tmp_path):
    """MLflow's table view (ShowArtifactLoggedTableView) reads a column named ``a.b`` as the
    path ``row.a.b``, so a dotted key's column showed empty: no column name holds a dot."""
    import mlflow

    _, folder, trials = piped
    parent = parent_run_id(folder)
    client = mlflow.MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    table = json.loads(Path(client.download_artifacts(parent, "trials.json", str(tmp_path))).read_text())
    assert table["columns"] == ["trial", "state", "train/loss", "optimizer/learning_rate",
                                "dataset/batch_size", "seconds", "mlflow_run_id", "note"]
    assert not any("." in name for name in table["columns"])
    column = {name: [row[i] for row in table["data"]] for i, name in enumerate(table["columns"])}
    assert column["trial"] == [t.number for t in trials]
    assert column["optimizer/learning_rate"] == [t.params["optimizer.learning_rate"] for t in trials]
    assert column["dataset/batch_size"] == [t.params["dataset.batch_size"] for t in trials]
    assert column["train/loss"] == [pytest.approx(t.value, rel=1e-9) if t.value else None for t in trials]
    assert {"path": "trials.json", "type": "table"} in json.loads(
        client.get_run(parent).data.tags["mlflow.loggedArtifacts"])
    csv = Path(client.download_artifacts(parent, "trials.csv", str(tmp_path))).read_text()
    assert csv.splitlines()[0] == ("trial,state,train/loss,optimizer.learning_rate,dataset.batch_size,"
                                        "seconds,mlflow_run_id,note")


HEADER = re.compile(r"^\s*trial\s+learning_rate\s+batch_size\s+state\s+epoch\s+eval/accuracy\s+time$")


def frames(raw: str, cols: int = 80, rows: int = 300):
    """The screens a terminal showed, one per redraw of the live table (rich.live erases the
    last frame with ``\\r ESC[2K`` before drawing the next)."""
    pyte = pytest.importorskip("pyte")
    screen = pyte.Screen(cols, rows)
    stream = pyte.Stream(screen)
    for piece in re.split(r"(?=\r\x1b\[2K)", raw.replace("\n", "\r\n") if "\r\n" not in raw else raw):
        stream.feed(piece)
        yield [line.rstrip() for line in screen.display if line.strip()]


@needs_data
def test_a_terminal_gets_the_table_redrawn_in_place_then_the_whole_table(workdir):
    pytest.importorskip("pyte")
    from .test_review_terminal import in_terminal

    grid = ["optimizer.learning_rate=0.05,0.01", "dataset.batch_size=32,16"]
    raw, lines = in_terminal(["sweep", str(SMOKE), *grid, *TINY, "--workers", "2"], workdir, cols=80)
    study = only_study()
    trials = study.get_trials()
    # while the workers ran: the table in place (never two on the screen), with trials running
    live = [screen for screen in frames(raw) if any(re.search(r"trials done, \d+ running", line)
                                                    for line in screen)]
    assert len(live) >= 2, raw
    assert all(sum(bool(HEADER.match(line)) for line in screen) == 1 for screen in live)
    active = [line for screen in live for line in screen
              if re.match(r"^\s+\d+\s+0\.0[15]\s+(16|32)\s+(starting|running)\b", line)]
    assert active, "\n".join(live[-1])
    # at the end: the live table gone, the whole table once, the parent run's address, the summary
    assert sum(bool(HEADER.match(line)) for line in lines) == 1, "\n".join(lines)
    at = next(i for i, line in enumerate(lines) if HEADER.match(line))
    assert lines[at - 1] == f"sweep {study.study_name}: 4/4 trials done"
    best = study.best_trial
    rows = [line.split() for line in lines[at + 2:at + 6]]
    assert [(r[0], float(r[1]), int(r[2]), r[3], r[4], float(r[5])) for r in rows] == [
        (("*" if t.number == best.number else "") + str(t.number), t.params["optimizer.learning_rate"],
         t.params["dataset.batch_size"], "complete", "2/2", round(t.value, 4)) for t in trials]
    assert not any(re.search(r"\b(starting|running)\b", line) for line in lines)
    tail = "".join(lines[at + 6:])  # the address and the summary, wrapped at 80 columns
    url = re.search(r"MLflow parent run: (http://\S+?)(?=sweep ')", tail).group(1)
    assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/#/experiments/\d+/runs/{parent_run_id()}\?.*", url)
    summary = f"best trial {best.number}: eval/accuracy {best.value:.4f}"
    assert summary.replace(" ", "") in tail.replace(" ", "")

def test_a_short_terminal_keeps_the_running_trials_and_the_best(tmp_path):
    """22 trials on a 16-line terminal: the rows that fit are the running ones, the best and
    the latest ended; a running trial shows its epoch, how far through, its last value."""
    pyte = pytest.importorskip("pyte")
    from rich.console import Console

    from trainer.sweep.live import SweepView
    from trainer.sweep.metric import resolve
    from trainer.sweep.spec import build_spec
    from trainer.sweep.study import SweepStudy, make_sampler, parse_pruner

    spec = build_spec(SMOKE, ["optimizer.learning_rate=loguniform(1e-3,1e-1)"])
    study = SweepStudy(f"sqlite:///{tmp_path / 'sweeps.db'}", "short", "maximize",
                       make_sampler("random", spec, 0, False), parse_pruner("none", 3))
    for i in range(22):
        trial = study.study.ask()
        trial.suggest_float("optimizer.learning_rate", 1e-3, 1e-1, log=True)
        if i < 20:
            study.study.tell(trial, 0.5 + (0.3 if i == 4 else 0.01 * (i % 3)))
        else:
            trial.report(0.42, 1)
            trial.set_user_attr("progress", {"epoch": 2, "epochs": 3, "step": 15, "steps": 60, "done": 1})
    console = Console(file=io.StringIO(), force_terminal=True, width=80, height=16)
    with SweepView(study, resolve("eval/accuracy"), ["optimizer.learning_rate"], 30, console=console) as view:
        view.tick()
        screen = pyte.Screen(80, 16)
        pyte.Stream(screen).feed(console.file.getvalue().replace("\n", "\r\n"))
        shown = [line.rstrip() for line in screen.display if line.strip()]
    numbers = [int(m.group(1)) for line in shown if (m := re.match(r"^\s+\*?(\d+)\s+\d", line))]
    assert numbers == [4, 18, 19, 20, 21], "\n".join(shown)  # 5 rows: the best, latest ended, running
    assert shown[0] == "sweep short: 20/30 trials done (17 not shown), 2 running, 0s"
    assert re.search(r"^\s+\*4\s+\S+\s+complete\s+0\.8000", "\n".join(shown), re.M)
    assert [line.split()[2:] for line in shown if re.match(r"^\s+2[01]\s", line)] == [
        ["running", "2/3", "25%", "0.4200", "@ep1", "0s"]] * 2
    assert re.fullmatch(r"best so far: trial 4, eval/accuracy 0\.8000 \[optimizer\.learning_rate=0\.0\d+\]",
                        shown[-1])
    assert len(shown) <= 16


@needs_data
def test_ctrl_c_piped_says_which_trials_were_interrupted(workdir):
    """Ctrl-C once both trials train: each worker saves and stops; the lines say so (stderr),
    the table shows both interrupted, and the sweep exits 130."""
    import signal
    import subprocess
    import sys

    from ..reliability.helpers import interruptible

    train = Path(sys.executable).with_name("train")
    # SIGINT at its default in the child: a test run started in the background inherits it ignored
    proc = interruptible([str(train), "sweep", str(SMOKE), "optimizer.learning_rate=0.05,0.01", *TINY,
                          "train.epochs=5000", "--workers", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in proc.stdout:
            seen.append(line.rstrip("\n"))
            if len({m.group(1) for text in seen if (m := re.match(r"trial (\d) epoch 1/5000", text))}) == 2:
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, "\n".join(seen) + out + err
    trials = only_study().get_trials()
    assert [t.user_attrs.get("interrupted") for t in trials] == ["Ctrl-C", "Ctrl-C"]
    assert "interrupt: each worker finishes its step and saves" in err
    for t in trials:
        assert f"trial {t.number} interrupted: Ctrl-C (" in err
        row = next(line for line in out.splitlines() if re.match(rf"^\|\s+{t.number} \|", line))
        cells = [cell.strip() for cell in row.strip("|").split("|")]  # trial, learning_rate, state, epoch
        assert cells[2] == "interrupted" and re.fullmatch(r"[1-9]\d*/5000", cells[3])
    assert re.search(r"^MLflow parent run: http://\S+/runs/" + parent_run_id(), out, re.M)
    assert "error: interrupted after 0 of 2 trials" in err
