"""Every command the README and docs/ show in a fenced ``bash`` block is checked, so they stay
true. Each one is classified below; a new one that is not fails, naming its ``file:line``:

- synopsis (a ``train`` line with placeholders: ``FILE``, ``N``, ``[...]``): the command
  exists and ``train COMMAND --help`` lists every flag it shows;
- run: run as typed, in order, in a temporary folder (experiments linked in, so checkpoints,
  ``mlflow.db`` and ``best.yaml`` land there), with the budget in ``RUN`` appended where
  training as written would take minutes (fewer samples, epochs, steps, trials, tokens);
  ``<id>`` becomes the id of a run the test made. These are slow (seconds of training each);
- next: the lines ``make run`` prints; ``make next`` must print them and
  test_next_commands.py runs them as typed in a new shell;
- server: starts a server that runs until stopped (``train ui``, ``mlflow models serve``) or
  needs one (``curl``): its flags are checked against ``--help``, it is not started;
- mpi: needs the ``dist`` extra and MPI ranks: flags checked against ``train run --help``;
- make / setup: Makefile targets (they install and run the whole suite: the target must
  exist) and shell setup (the venv's activate script must put ``train`` on PATH).
Flags of every ``train`` line, whatever its class, are checked against its ``--help``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import app

from .doc_commands import ROOT, Command, all_commands, flags, unmarked_command_lines

VENV = Path(sys.executable).parent.parent
DATA = Path(os.environ.get("TRAIN_DATA_DIR", ROOT.parent / "shared" / "datasets"))

LENET_SHORT = " train.epochs=1 dataset.limit=256 dataset.test_limit=128 checkpoint.save_steps=0"
LM_SHORT = " --mode pynative train.max_steps=4 train.eval_every_steps=2 train.eval_batches=1"
SWEEP_SHORT = " mode=pynative train.epochs=1 dataset.limit=64 dataset.test_limit=64"

# run as typed, with this appended (a later flag or key overrides the one the doc shows)
RUN = {
    "train run experiments/gpt_shakespeare.yaml": LM_SHORT,
    'train sample experiments/gpt_shakespeare.yaml --prompt "ROMEO:" --tokens 300':
        " --mode pynative --tokens 20",
    # its cosine schedule decays over max_steps: a 50-step warm-up must fit in the 4 steps
    "train run experiments/lstm_shakespeare.yaml": LM_SHORT + " optimizer.schedule.warmup_steps=1",
    "train sweep experiments/smoke.yaml optimizer.learning_rate=0.01,0.05,0.1 "
    "dataset.batch_size=32,64": SWEEP_SHORT,
    "train sweep experiments/lenet.yaml 'optimizer.learning_rate=loguniform(1e-4,1e-1)' "
    "'optimizer.momentum=uniform(0.5,0.99)' --trials 20 --workers 2 --pruner median "
    "--best-out best.yaml": SWEEP_SHORT + " --trials 2 --workers 1",
    "train run best.yaml": SWEEP_SHORT,
    "python -c \"import mlflow, numpy as np; m = mlflow.pyfunc.load_model('runs:/<id>/lenet-mnist'); "
    "print(m.predict(np.zeros((1, 28, 28), np.uint8)))\"": "",
}
NEXT = {"train eval experiments/lenet.yaml", "train run experiments/lenet.yaml --resume last train.epochs=4",
        "train run experiments/gpt_shakespeare_smoke.yaml",
        "train sample experiments/gpt_shakespeare_smoke.yaml", "train ui"}
SERVER = {"mlflow models serve -m runs:/<id>/lenet-mnist --env-manager local -p 5001",
          "curl -d '{\"inputs\": [[[0, 0, ...]]]}' -H 'Content-Type: application/json' "
          "127.0.0.1:5001/invocations"}
MPI = {"train run experiments/lenet.yaml --nproc 2", "mpirun -n 2 train run experiments/lenet.yaml",
       "train run experiments/lenet.yaml --nproc 4 --hosts a,b"}
MAKE = {"make run", "make test"}
SETUP = {". .venv/bin/activate", "export TRAIN_DATA_DIR=../shared/datasets"}
GPU: set[str] = set()  # none shown: `--device cuda` appears in synopses only
CLASSES = {"run": set(RUN), "next": NEXT, "server": SERVER, "mpi": MPI, "make": MAKE, "setup": SETUP,
           "gpu": GPU}


def is_synopsis(text: str) -> bool:
    return text.startswith("train ") and bool(re.search(r"\[|\b(FILE|PATH|DIR|N)\b", text))


def classify(command: Command) -> str | None:
    if is_synopsis(command.text):
        return "synopsis"
    return next((name for name, texts in CLASSES.items() if command.text in texts), None)


COMMANDS = all_commands()


def test_every_command_is_classified():
    unknown = [f"{c.where}: {c.text}" for c in COMMANDS if classify(c) is None]
    assert not unknown, ("commands in the docs that test_doc_commands.py does not classify:\n"
                         + "\n".join(unknown))
    shown = {c.text for c in COMMANDS}
    stale = [t for texts in CLASSES.values() for t in texts if t not in shown]
    assert not stale, f"classified but no longer in the docs: {stale}"
    assert sum(classify(c) == "synopsis" for c in COMMANDS) >= 10  # the README's CLI table


def test_command_blocks_are_marked_bash():
    assert not unmarked_command_lines(), "command lines in a fenced block not marked ```bash"


def _help(command: str) -> str:
    done = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, f"train {command} --help: {done.output}"
    return done.output


def _train_part(text: str) -> str:
    return text[text.index("train "):]


@pytest.mark.parametrize("command", [c for c in COMMANDS if "train " in c.text and classify(c) != "setup"],
                         ids=lambda c: c.where)
def test_train_commands_exist_and_take_their_flags(command):
    words = _train_part(command.text).split()
    text = _help(words[1])
    missing = [f for f in flags(_train_part(command.text)) if not re.search(rf"(?<![\w-]){f}(?![\w-])", text)]
    assert not missing, f"{command.where}: train {words[1]} --help does not list {missing}"


def test_make_targets_exist():
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    for text in MAKE:
        assert text.split()[1] in targets, text


def test_the_venv_activate_puts_train_on_path():
    done = subprocess.run(["bash", "-c", f". {VENV}/bin/activate && command -v train"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == str(VENV / "bin" / "train"), done.stderr


def test_next_commands_are_what_make_run_prints():
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run([make, "--no-print-directory", "next", f"VENV={VENV}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    printed = {line.strip() for line in done.stdout.splitlines() if line.startswith("  train ")}
    assert printed == NEXT


def test_curl_takes_the_flags_shown():
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    text = subprocess.run([curl, "--help", "all"], capture_output=True, text=True, timeout=30).stdout
    for text_shown in (t for t in SERVER if t.startswith("curl ")):
        assert all(f" {f}," in text or f" {f} " in text for f in flags(text_shown))


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "VIRTUAL_ENV")}
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # train, mlflow, python
    env["PYTHONPATH"] = str(ROOT)
    env["TRAIN_DATA_DIR"] = str(DATA)
    return env


def _run_doc_commands(doc: str, folder: Path, substitute: dict[str, str] | None = None) -> str:
    """The doc's ``run`` commands in its order, as typed plus their budget, in ``folder``."""
    lines = []
    for command in (c for c in COMMANDS if c.file == doc and classify(c) == "run"):
        text = command.text
        for key, value in (substitute or {}).items():
            text = text.replace(key, value)
        lines.append(text + RUN[command.text])
    assert lines, f"no commands of {doc} to run"
    if not (folder / "experiments").exists():
        (folder / "experiments").symlink_to(ROOT / "experiments")
    done = subprocess.run(["bash", "-c", "set -ex\n" + "\n".join(lines)], cwd=folder, env=_env(),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


needs_text = pytest.mark.skipif(not (DATA / "tinyshakespeare").is_dir(),
                                reason="needs TRAIN_DATA_DIR/tinyshakespeare")
needs_mnist = pytest.mark.skipif(not (DATA / "mnist-10k").is_dir() and not (DATA / "mnist").is_dir(),
                                 reason="needs TRAIN_DATA_DIR/mnist-10k")


@pytest.mark.slow
@needs_text
def test_language_model_commands_run(tmp_path):
    out = _run_doc_commands("docs/language_models.md", tmp_path)
    assert "ROMEO:" in out
    assert len(list((tmp_path / "checkpoints").rglob("*.ckpt"))) >= 2  # the GPT's and the LSTM's


@pytest.mark.slow
@needs_mnist
def test_sweep_commands_run(tmp_path):
    _run_doc_commands("docs/sweeps.md", tmp_path)
    assert (tmp_path / "best.yaml").is_file()


@pytest.mark.slow
@needs_mnist
def test_mlflow_commands_run(tmp_path):
    import mlflow

    (tmp_path / "experiments").symlink_to(ROOT / "experiments")
    done = subprocess.run(["bash", "-c", "train run experiments/lenet.yaml" + LENET_SHORT], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    (run_id,) = mlflow.search_runs(experiment_names=["twinmode"])["run_id"]
    out = _run_doc_commands("docs/mlflow.md", tmp_path, {"<id>": run_id})
    assert "label" in out and "logits" in out  # the DataFrame predict returns
    # the server is not started (it runs until stopped); the flags the doc gives it are its own
    serve = next(t for t in SERVER if t.startswith("mlflow "))
    text = subprocess.run([str(VENV / "bin" / "mlflow"), "models", "serve", "--help"], env=_env(),
                          capture_output=True, text=True, timeout=120).stdout
    assert all(re.search(rf"(?<![\w-]){f}(?![\w-])", text) for f in flags(serve)), text
