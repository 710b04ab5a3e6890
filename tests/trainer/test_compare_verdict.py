"""`train compare`'s parity verdict and speed figures, from their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from trainer.compare import Timing, parity
from trainer.executor import RunResult


def result(mode: str, losses: list[float]) -> RunResult:
    return RunResult(mode, list(range(1, len(losses) + 1)), losses, [0.001] * len(losses))


def test_verdict_passes_within_the_tolerance_and_names_the_first_differing_step():
    base = [2.3, 2.2, 2.1, 2.0, 1.9, 1.8]
    near = [v * (1 + 1e-4) for v in base]  # within atol + rtol*|a| = 1e-5 + 1e-3*|a|
    check = parity([result("graph", base), result("pynative", near)], rtol=1e-3, atol=1e-5, n=4)
    assert check.passed and check.first_diff_step is None and check.n == 4
    assert check.max_abs == pytest.approx(max(abs(a - b) for a, b in zip(base[:4], near[:4])))
    assert "PASS - first N=4 steps" in check.text(["graph", "pynative"])

    later = base[:5] + [1.9]  # differs only at step 6, after the N=4 checked
    check = parity([result("graph", base), result("pynative", later)], n=4)
    assert check.passed and check.first_diff_step == 6
    assert "first step beyond it: 6 of 6" in check.text(["graph", "pynative"])

    early = [2.3, 2.25] + base[2:]
    check = parity([result("graph", base), result("pynative", early)], n=4)
    assert not check.passed and check.first_diff_step == 2
    assert check.max_abs == pytest.approx(0.05) and check.max_abs_step == 2
    assert check.text(["graph", "pynative"]).startswith("parity graph vs pynative: FAIL")


def test_a_nan_loss_differs():
    check = parity([result("graph", [1.0, 1.0]), result("pynative", [1.0, float("nan")])], n=2)
    assert not check.passed and check.first_diff_step == 2


def test_speed_is_the_median_with_half_the_interquartile_range():
    seconds = [0.001, 0.002, 0.003, 0.004, 0.100]  # one outlier: the median ignores it
    t = Timing("graph", seconds)
    assert t.median_ms == pytest.approx(3.0)
    q1, q3 = np.percentile(seconds, [25, 75])
    assert t.spread_ms == pytest.approx((q3 - q1) / 2 * 1000)
