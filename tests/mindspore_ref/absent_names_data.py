"""Writes ``framework/mindspore_names.txt``, the package data of
:mod:`framework.absent_names`: MindSpore 2.10's public names by namespace, from
``docs/mindspore_names.json`` (the framework never reads docs/ at run time).
``python -m tests.mindspore_ref.absent_names_data`` regenerates it;
``tests/framework/test_absent_names.py`` checks that it is current."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "mindspore_names.json"
TARGET = ROOT / "framework" / "mindspore_names.txt"


def render() -> str:
    names = json.loads(SOURCE.read_text())["namespaces"]
    return "".join(f"{ns}: {' '.join(sorted(listed))}\n" for ns, listed in sorted(names.items()))


if __name__ == "__main__":
    TARGET.write_text(render())
