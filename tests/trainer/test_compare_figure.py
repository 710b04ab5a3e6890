"""``compare.png``'s step-time panel: the dashed line of each mode is the median of the
series drawn in its colour (the timed steps the speed figures come from)."""

from __future__ import annotations

import numpy as np
import pytest

from trainer.compare import Timing
from trainer.compare_report import time_panel


def test_the_dashed_median_is_the_median_of_the_plotted_series():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    timings = {"graph": Timing("graph", list(rng.uniform(0.004, 0.006, 40))),
               "pynative": Timing("pynative", list(rng.uniform(0.02, 0.05, 40)))}
    fig, ax = plt.subplots()
    try:
        time_panel(ax, ["graph", "pynative"], timings)
        for i, mode in enumerate(timings):
            series = [line for line in ax.get_lines() if line.get_color() == f"C{i}"]
            drawn = [line for line in series if line.get_linestyle() == "-"]
            dashed = [line for line in series if line.get_linestyle() == "--"]
            assert len(drawn) == 1 and len(dashed) == 1
            assert np.allclose(dashed[0].get_ydata(), np.median(drawn[0].get_ydata()))
            assert np.allclose(drawn[0].get_ydata(), np.asarray(timings[mode].seconds) * 1000)
    finally:
        plt.close(fig)
