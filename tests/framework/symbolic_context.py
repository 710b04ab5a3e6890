"""What the symbolic-dimension tests share: graph mode with a fresh kernel cache around each
test, and the compile counter."""

from __future__ import annotations

import pytest

import framework as ms
from framework import graph_mode


@pytest.fixture
def graph_context(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))  # compiles counted afresh
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def compiles() -> int:
    """Functions compiled or loaded from the disk cache so far (memory hits not counted)."""
    return graph_mode.cache_stats["compiles"] + graph_mode.cache_stats["disk_hits"]
