"""Summed Slice gradients (zero pads) that tile an axis are a Concat (framework/ir/pad_sums.py):
the rewritten graph-mode gradient equals PyNative's and the slicing formula's; pads that
overlap or leave a gap stay a sum, and are right too."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor

PARTS = {  # slices of the last axis (12 wide), and whether their pads tile it
    "tiling": ([(0, 4), (4, 8), (8, 12)], True),
    "overlapping": ([(0, 6), (4, 12)], False),
    "gap": ([(0, 4), (8, 12)], False),
}


def _loss(parts):
    def f(x):
        total = 0
        for i, (b, e) in enumerate(parts):
            piece = x[:, :, b:e]
            total = total + (piece * piece * (i + 1)).sum()
        return total
    return f


@pytest.mark.parametrize("case", list(PARTS))
def test_graph_gradient_of_slices_equals_pynative_and_the_formula(case, tmp_path):
    parts, tiles = PARTS[case]
    x = np.random.default_rng(1).standard_normal((2, 3, 12)).astype(np.float32)
    want = np.zeros_like(x)
    for i, (b, e) in enumerate(parts):
        want[:, :, b:e] += 2 * (i + 1) * x[:, :, b:e]
    grad = ms.grad(_loss(parts))
    pynative = grad(Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        graph = ms.jit(grad)(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    np.testing.assert_allclose(pynative, want, rtol=1e-6)
    np.testing.assert_allclose(graph, want, rtol=1e-6)
    text = "".join(p.read_text() for p in tmp_path.rglob("02_opt.ir"))
    assert ("concat_pads" in text) == tiles
    assert (" Pad(" in text or "Pad[" in text or "= Pad" in text) != tiles
