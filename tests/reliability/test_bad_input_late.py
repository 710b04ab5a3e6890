"""Issue 27, item 14, each case from the CLI: bad input that gave a traceback, or was found
at training time with exit 1, is one ``error:`` line with exit 2 before anything runs; a
full disk under the optional artifacts (kernel cache, IR dump) is one warning, and the run
goes on. (tests/reliability/test_late_bad_input.py has the cases fixed first: a model.class
that is no nn.Cell, int32 outputs, a truncated .npz, 3,000 nesting levels, a 3 MB file.)

Before: ``train.epochs=1e8``, a NaN or infinite learning rate, a huge ``dataset.resize``,
``graph.tuning`` or synthetic shape trained until they failed (exit 1, or a traceback);
data nested a few hundred levels deep (within libyaml's limit) a ``RecursionError``; a date
YAML cannot read a ``ValueError`` traceback; a full disk under the kernel cache or
``ir.dir`` killed the run; a file with ``model.class`` had no override back to a built-in
``model.name`` that said so (``model.args=null`` was refused without naming one).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import DATA, HERE, ROOT, env, experiment, one_error, python, train

SMOKE = str(ROOT / "experiments" / "smoke.yaml")
TINY = ("dataset.limit=96", "dataset.test_limit=64", "train.epochs=1", "mlflow.log_model=false",
        "mlflow.system_metrics=false", "--quiet")
HUGE = "99999999999999999999999999"
needs_data = pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
MODELS = '''\
from framework import nn


class Small(nn.Cell):
    def __init__(self, num_classes=10, width=8):
        super().__init__()
        self.fc = nn.Dense(1024, num_classes)

    def construct(self, x):
        return self.fc(x.reshape(x.shape[0], -1))
'''


@pytest.mark.parametrize("override, message", [
    ("train.epochs=1e8", "'train.epochs' must be an integer, got 100000000.0"),
    ("optimizer.learning_rate=.nan", "'optimizer.learning_rate' must be a finite number, got nan"),
    ("optimizer.learning_rate=-.inf", "'optimizer.learning_rate' must be a finite number, got -inf"),
    (f"dataset.resize={HUGE}", f"'dataset.resize' must be at most 4096 (pixels a side) or null for no "
                               f"resizing, got {HUGE}"),
    (f"graph.tuning={HUGE}", "'graph.tuning' must be 'off', a number of trials per task (e.g. 16, at "
                             f"most 1,000,000) or a time budget like '60s', got {HUGE}"),
])
def test_an_impossible_value_stops_the_run_before_it_starts(tmp_path: Path, override: str,
                                                            message: str) -> None:
    line = one_error(train(tmp_path, "run", SMOKE, *TINY, override, timeout=120))
    assert line == f"error: override '{override}': {message}"


def test_a_nan_learning_rate_in_the_file_names_its_line(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: nan\noptimizer:\n  learning_rate: .nan\n")
    line = one_error(train(tmp_path, "run", str(file), *TINY, timeout=120))
    assert line == f"error: {file}:3: 'optimizer.learning_rate' must be a finite number, got nan"


@pytest.mark.parametrize("override, message", [
    ("dataset.args.shape=[3,100000,100000]",
     "synthetic: train_size 1,000 (and 10 class templates) of shape [3, 100000, 100000] is "
     "30,300,000,000,000 bytes, more than the 4,294,967,296 a generated split may hold; lower "
     "train_size or the shape"),
    (f"dataset.args.train_size={HUGE}", f"synthetic: train_size must be at most 1,000,000, got {HUGE}"),
])
def test_synthetic_data_too_big_to_make_is_bad_input(tmp_path: Path, override: str, message: str) -> None:
    line = one_error(train(tmp_path, "run", SMOKE, "dataset.name=synthetic", override, *TINY, timeout=120))
    assert line == f"error: override '{override}': dataset.args: {message}"


def test_nesting_within_the_parsers_limit_is_refused_too(tmp_path: Path) -> None:
    """libyaml stops at 1,000 levels; 900 passed it and overflowed Python's stack later."""
    nested = "{a: " * 900 + "1" + "}" * 900
    file = experiment(tmp_path, f"name: deep\nmodel:\n  args:\n    x: {nested}\n")
    line = one_error(train(tmp_path, "run", str(file), *TINY, timeout=120))
    assert line == (f"error: {file}: invalid YAML: nested too deeply (an experiment file has a few "
                    "levels of sections)")
    override = "model.args.x=" + "[" * 900 + "]" * 900
    line = one_error(train(tmp_path, "run", SMOKE, *TINY, override, timeout=120))
    assert line == "error: override 'model.args.x=...': its value is nested too deeply"


def test_a_ten_megabyte_file_is_refused_at_once(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: huge\n" + "# padding\n" * 1_000_000)
    line = one_error(train(tmp_path, "run", str(file), *TINY, timeout=60))
    assert line == (f"error: {file}: 10,000,011 bytes is not an experiment file (those are a few KiB; "
                    "at most 1,048,576 bytes are read)")


def test_a_date_yaml_cannot_read_names_its_line(tmp_path: Path) -> None:
    file = experiment(tmp_path, "seed: 1\nname: 2024-13-01\n")
    line = one_error(train(tmp_path, "run", str(file), *TINY, timeout=120))
    assert line == (f"error: {file}:2: invalid YAML: '2024-13-01' is not a valid timestamp (month must "
                    "be in 1..12); quote it to keep it as text")
    plain = experiment(tmp_path, "seed: 1\n", "plain.yaml")
    done = train(tmp_path, "run", str(plain), "name=2024-13-01", "--print-config", timeout=120)
    assert done.returncode == 0 and "name: '2024-13-01'" in done.stdout, done.stderr  # an override: text


def test_model_class_null_goes_back_to_a_built_in_model(tmp_path: Path) -> None:
    (tmp_path / "mymodels.py").write_text(MODELS)
    own = experiment(tmp_path, "name: own\nmodel:\n  class: mymodels.py:Small\n  args: {width: 4}\n")
    done = train(tmp_path, "run", str(own), "model.class=null", "--print-config", timeout=120)
    assert done.returncode == 0, done.stderr
    model = done.stdout.split("model:\n", 1)[1].split("\ndataset:", 1)[0]
    assert model.splitlines() == ["  name: lenet5", "  num_classes: 10", "  num_channel: 1", "  args: {}",
                                  "  class: null"]
    line = one_error(train(tmp_path, "run", str(own), "model.args=null", *TINY, timeout=120))
    assert line == ("error: override 'model.args=null': 'model.args' must be a mapping of names to "
                    "values, got None (model.args={} changes no arguments); to use a built-in "
                    "model.name instead of model.class, override model.class=null: the class's args "
                    "go with it")
    line = one_error(train(tmp_path, "run", str(own), "model.class=lenet5", *TINY, timeout=120))
    assert line == ("error: override 'model.class=lenet5': 'model.class' must be 'FILE.py:NAME' or "
                    "'package.module:NAME', got 'lenet5'; lenet5 is a built-in model: give "
                    "model.name=lenet5 (it replaces model.class and its args)")


# -- a full disk under the optional artifacts -------------------------------------------------
CACHE_FULL = ("warning: compiled-kernel cache {full}/cache: No space left on device; compiling in "
              "memory: kernels are not kept for the next run (free space there or set "
              "TWINMODE_CACHE_DIR to another folder)")
IR_FULL = ("warning: IR artifacts in {full}/ir/graph/TrainOneStepCell: No space left on device; the IR "
           "dump is skipped and the run goes on")


def _trained_with_warnings(done: subprocess.CompletedProcess) -> list[str]:
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "smoke [graph]: eval/accuracy" in done.stdout, done.stderr
    return [line for line in done.stderr.splitlines() if line.startswith("warning:")]


@needs_data
def test_a_full_kernel_cache_compiles_in_memory(tmp_path: Path) -> None:
    full = tmp_path / "full"
    done = python(tmp_path, HERE / "full_disk_script.py", str(full), "run", SMOKE, *TINY,
                  TWINMODE_CACHE_DIR=str(full / "cache"))
    assert _trained_with_warnings(done) == [CACHE_FULL.format(full=full)]
    assert not full.exists()  # nothing was written there


@needs_data
def test_a_full_ir_folder_skips_the_dump(tmp_path: Path) -> None:
    full = tmp_path / "full"
    done = python(tmp_path, HERE / "full_disk_script.py", str(full), "run", SMOKE, "ir.save=true",
                  f"ir.dir={full / 'ir'}", *TINY)
    assert _trained_with_warnings(done) == [IR_FULL.format(full=full)]
    assert not full.exists()
    assert list((tmp_path / "compiled").glob("*.so"))  # the kernel cache is elsewhere: kept


@needs_data
def test_a_full_tuning_database_tunes_nothing(tmp_path: Path) -> None:
    full = tmp_path / "full"
    done = python(tmp_path, HERE / "full_disk_script.py", str(full), "run", SMOKE, "graph.tuning=1", *TINY,
                  TWINMODE_CACHE_DIR=str(full / "cache"))
    assert _trained_with_warnings(done) == [
        f"warning: kernel tuning database in {full}/cache: No space left on device; tuning is skipped: "
        "the kernels keep their default schedules", CACHE_FULL.format(full=full)]


def test_train_ir_into_a_full_disk_is_an_error(tmp_path: Path) -> None:
    """For ``train ir`` the IR is the product, not an optional artifact."""
    full = tmp_path / "full"
    done = python(tmp_path, HERE / "full_disk_script.py", str(full), "ir", SMOKE, "--out", str(full / "ir"))
    assert one_error(done) == (f"error: the IR cannot be written: {full}/ir/TrainOneStepCell: No space "
                                "left on device; free space there or write it elsewhere (--out, "
                                "TWINMODE_CACHE_DIR)")


def _can_mount_tmpfs(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(probe)],
                          capture_output=True)
    return done.returncode == 0


@needs_data
def test_a_really_full_disk_under_cache_and_ir(tmp_path: Path) -> None:
    """A 16 KiB tmpfs, filled: the linker itself fails to write the kernel library."""
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("no tmpfs mount here (unshare -rm: user namespaces disabled)")
    full = tmp_path / "full"
    full.mkdir()
    fill = ('mount -t tmpfs -o size=16k tmpfs "$0" && (head -c 16384 /dev/zero > "$0/fill") 2>/dev/null; '
            'exec "$@"')
    done = subprocess.run(["unshare", "-rm", "sh", "-c", fill, str(full), sys.executable, "-m", "trainer.cli",
                           "run", SMOKE, "ir.save=true", f"ir.dir={full / 'ir'}", *TINY],
                          cwd=tmp_path, env=env(tmp_path, TWINMODE_CACHE_DIR=str(full / "cache")),
                          capture_output=True, text=True, timeout=300)
    assert _trained_with_warnings(done) == [IR_FULL.format(full=full), CACHE_FULL.format(full=full)]
