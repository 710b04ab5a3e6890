"""Issue 27, item 14: bad input that gave a traceback, or was found at training time with
exit 1, is one ``error:`` line with exit 2 before anything runs.

Before: a deeply nested YAML (file or override) raised ``RecursionError``; a huge integer
``OverflowError`` (the learning-rate table was built for every epoch); a 10 MB file took
minutes to parse; a ``model.class`` returning something else than an ``nn.Cell`` failed at
its first use, a network with integer outputs in the loss, a truncated ``.npz`` with
``BadZipFile``; and a file with ``model.class`` had no override back to a built-in
``model.name`` (nor the other way round).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .helpers import experiment, one_error, train

NPZ_FILE = ("name: late\nmode: pynative\nmodel:\n  num_classes: 5\ndataset:\n  name: npz\n"
            "  root: data.npz\n  batch_size: 16\ntrain:\n  epochs: 1\n")
MODELS = '''\
import numpy as np
from framework import nn, ops


def not_a_cell(num_classes=5):
    return lambda x: x


class IntOut(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.fc = nn.Dense(1024, num_classes)  # 1 x 32 x 32 after the default resize

    def construct(self, x):
        return ops.cast(self.fc(x.reshape(x.shape[0], -1)), np.int32)
'''


def _data(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (64, 28, 28)).astype(np.uint8)
    y = rng.integers(0, 5, 64).astype(np.int64)
    np.savez(tmp_path / "data.npz", x_train=x[:48], y_train=y[:48], x_test=x[48:], y_test=y[48:])


def test_a_deeply_nested_file_or_override_is_one_line(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: deep\nmodel: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n")
    line = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=120))
    assert line == (f"error: {file}: invalid YAML: nested too deeply (an experiment file has a few "
                    "levels of sections)")
    plain = experiment(tmp_path, "name: deep\n", "plain.yaml")
    nested = "[" * 3000 + "]" * 3000
    line = one_error(train(tmp_path, "run", str(plain), f"train.epochs={nested}", "--print-config",
                            timeout=120))
    assert line == "error: override 'train.epochs=...': its value is nested too deeply"


@pytest.mark.parametrize("value", ["99999999999999999999999999", "100000000"])
def test_an_impossible_count_is_one_line(tmp_path: Path, value: str) -> None:
    file = experiment(tmp_path, "name: big\n")
    line = one_error(train(tmp_path, "run", str(file), f"train.epochs={value}", "--print-config",
                            timeout=120))
    assert line == (f"error: override 'train.epochs={value}': 'train.epochs' must be at most "
                    f"1,000,000, got {value}")


def test_a_huge_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: huge\n" + "# padding\n" * 300_000)
    line = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=60))
    assert line.startswith(f"error: {file}: 3,000,011 bytes is not an experiment file")


def test_a_model_class_that_is_not_a_cell_is_bad_input(tmp_path: Path) -> None:
    _data(tmp_path)
    (tmp_path / "mymodels.py").write_text(MODELS)
    file = experiment(tmp_path, NPZ_FILE.replace("  num_classes: 5\n", "  class: mymodels.py:not_a_cell\n"))
    line = one_error(train(tmp_path, "run", str(file), "--quiet", timeout=300))
    assert line == (f"error: {tmp_path / 'mymodels.py'}: model.class not_a_cell(...) returned function, "
                    "not an nn.Cell; point model.class at a Cell subclass or a function returning one")


def test_integer_outputs_are_found_before_the_first_step(tmp_path: Path) -> None:
    _data(tmp_path)
    (tmp_path / "mymodels.py").write_text(MODELS)
    file = experiment(tmp_path, NPZ_FILE.replace("  num_classes: 5\n", "  class: mymodels.py:IntOut\n"))
    line = one_error(train(tmp_path, "run", str(file), "--quiet", timeout=300))
    assert line == (f"error: the model ({tmp_path / 'mymodels.py'}:IntOut) gives int32 outputs; a "
                    "classifier's logits are floating point (a cast to an integer type has no gradient)")


def test_a_truncated_npz_is_bad_data(tmp_path: Path) -> None:
    _data(tmp_path)
    whole = (tmp_path / "data.npz").read_bytes()
    (tmp_path / "data.npz").write_bytes(whole[: len(whole) // 2])
    file = experiment(tmp_path, NPZ_FILE)
    line = one_error(train(tmp_path, "run", str(file), "--quiet", timeout=300))
    assert line.startswith(f"error: {tmp_path / 'data.npz'}: not a readable .npz file (BadZipFile")


def test_overrides_move_between_a_built_in_model_and_the_users_class(tmp_path: Path) -> None:
    (tmp_path / "mymodels.py").write_text(MODELS)
    own = experiment(tmp_path, "name: own\nmodel:\n  class: mymodels.py:IntOut\n  args: {num_classes: 5}\n")
    done = train(tmp_path, "run", str(own), "model.name=mlp", "--print-config", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "  name: mlp\n" in done.stdout and "  class: null\n" in done.stdout
    assert "  args: {}\n" in done.stdout  # the args were the class's
    built_in = experiment(tmp_path, "name: builtin\nmodel:\n  name: lenet5\n", "builtin.yaml")
    done = train(tmp_path, "run", str(built_in), "model.class=mymodels.py:IntOut", "--print-config",
                 timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"  class: {tmp_path / 'mymodels.py'}:IntOut\n" in done.stdout
