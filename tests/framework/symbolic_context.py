"""What the symbolic-dimension tests share: graph mode with a fresh kernel cache around each
test, the compile counter, and train steps compared in lockstep."""

from __future__ import annotations

import numpy as np
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


def lockstep(run, reference, eager, batches, nets, eager_params: bool = False) -> int:
    """Step the symbolic ``run``, the per-shape ``reference`` and the PyNative ``eager`` train
    steps on each ``(x, y)`` of ``batches``: losses equal (per-shape 1e-6, PyNative 1e-5),
    the parameters of ``nets`` (dynamic, reference, eager) equal the per-shape step's (and,
    with ``eager_params``, PyNative's). Returns the compiles ``run`` made."""
    own = 0
    for x, y in batches:
        before = compiles()
        got = run(x, y)[0].asnumpy()
        own += compiles() - before
        want = reference(x, y).asnumpy()
        with ms.pynative():
            np.testing.assert_allclose(eager(x, y).asnumpy(), got, rtol=1e-5)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        for (_, p), (_, q), (_, e) in zip(*(net.parameters_and_names() for net in nets)):
            scale = np.abs(q.asnumpy()).max()
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6, atol=1e-6 * scale)
            if eager_params:
                np.testing.assert_allclose(p.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-5 * scale)
    return own

