"""``train ... --help`` at 80 columns, as a terminal shows it: flags without a ``<bool>``
metavar, choices not split across lines, and each option naming what it takes."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from trainer.cli import app

COMMANDS = ["run", "compare", "sweep", "eval", "sample", "export", "ir", "init", "sync-offline", "ui"]


def help_of(*command: str) -> str:
    done = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.output
    assert all(len(line) <= 80 for line in done.output.splitlines())
    return done.output


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_flags_show_no_bool_metavar(command):
    text = help_of(*command)
    assert "<bool>" not in text
    assert "--help" in text


def test_help_names_what_each_option_takes():
    assert "language_model" in help_of("init")  # one word, not split at the column's edge
    sample = " ".join(help_of("sample").split())
    assert "'last'" in sample and "'best'" in sample
    assert "val/loss" in help_of("sweep")
    ui = help_of("ui")
    assert "--host" in ui and "127.0.0.1" in ui
