"""YAML aliases are bounded by the document's size: ten lines of nine aliases each ("billion
laughs") stand for 9**9 values, and the depth check walked them all (every config load hung
at 100% CPU; each extra line multiplied the time by 9). Each distinct node is now visited
once; aliases may add at most ``MAX_ALIAS_VALUES`` values to those the document writes, and
a file past that is one line naming where, exit 2, in seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.config import ConfigError, load_config
from trainer.config_yaml import MAX_ALIAS_VALUES

from .helpers import experiment, one_error, train

LEVELS = "abcdefghijklmnopqrstuvwxyz"


def _bomb(levels: int) -> str:
    """``a`` nine scalars; each next line nine aliases of the line before."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for before, name in zip(LEVELS, LEVELS[1:levels]):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{before}"] * 9) + "]")
    return "\n".join(lines)


def test_an_alias_bomb_file_is_one_line_naming_where_it_explodes(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: bomb\n" + _bomb(26) + "\n")
    line = one_error(train(tmp_path, "run", str(file), "--print-config", timeout=60))
    # the values of each line's list: a's 1 + 9, then 1 + 9 times the line before's
    sizes = [10]
    for _ in range(25):
        sizes.append(1 + 9 * sizes[-1])
    values = 1 + 2 + 26 + sum(sizes)  # the mapping, name: bomb, the 26 keys, the lists
    written = 1 + 2 + 26 + 10 + 25
    # line 6 (e: 66,430 values) is the first list past the limit; the mapping holds it
    assert sizes[3] < written + MAX_ALIAS_VALUES < sizes[4]
    assert line == (f"error: {file}:6: invalid YAML: its aliases expand to {values:,} values, over the "
                    f"{written + MAX_ALIAS_VALUES:,} allowed (the file's own values plus 10,000); "
                    "write the values out, or reuse an anchor fewer times")


def test_an_alias_bomb_in_an_override_is_one_line(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: plain\n")
    flow = "[" + ", ".join(part.split(": ", 1)[1] for part in _bomb(20).splitlines()) + "]"
    line = one_error(train(tmp_path, "run", str(file), f"model.args={flow}", "--print-config",
                           timeout=60))
    assert line.startswith("error: override 'model.args=...': its aliases expand to ")
    written = 1 + 10 + 19  # the outer list, a's list and scalars, the 19 lists of aliases
    assert line.endswith(f"values, over the {written + MAX_ALIAS_VALUES:,} allowed; write the values out")


def test_an_anchor_reused_a_few_times_still_loads(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: shared\ndataset: {batch_size: &n 24}\ntrain: {epochs: 3}\n"
                      "checkpoint: {keep_max: *n, save_steps: *n}\n")
    config = load_config(file)
    assert config.dataset.batch_size == config.checkpoint.keep_max == config.checkpoint.save_steps == 24


def test_an_alias_inside_its_own_anchor_is_nested_too_deeply(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: loop\nmodel:\n  args: &self {inner: *self}\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(file)


def test_an_alias_bomb_in_a_sweep_value_is_refused_with_the_override() -> None:
    from trainer.sweep.spec import build_spec

    smoke = Path(__file__).resolve().parents[2] / "experiments" / "smoke.yaml"
    flow = "[" + ", ".join(part.split(": ", 1)[1] for part in _bomb(7).splitlines()) + "]"
    with pytest.raises(ConfigError) as caught:
        build_spec(smoke, [f"model.args=choice({flow}, 1)"])
    message = str(caught.value)
    assert message.startswith("override 'model.args=choice(")
    sizes = [10]
    for _ in range(6):
        sizes.append(1 + 9 * sizes[-1])
    written = 1 + 10 + 6  # the outer list, a's list and scalars, the 6 lists of aliases
    assert message.endswith(f"its aliases expand to {1 + sum(sizes):,} values, over the "
                            f"{written + MAX_ALIAS_VALUES:,} allowed")
