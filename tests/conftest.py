"""Shared test fixtures: PyNative mode and a fixed seed for every test."""

import os
import tempfile

import pytest

# Under pytest-xdist (`-n N`, as make test runs) the workers share the machine: each gets
# its share of the CPUs for TVM's thread pool, as trainer/sweep/pool.py gives sweep
# workers theirs, so N pools do not spin against each other. Set before framework starts TVM.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1 and "TVM_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
    os.environ["TVM_NUM_THREADS"] = str(max(1, len(os.sched_getaffinity(0)) // _WORKERS))

import framework as ms  # noqa: E402

# Compiled graph-mode functions go to a per-session cache unless the caller chose one,
# so runs are isolated from each other and from a developer's ~/.cache.
os.environ.setdefault("TWINMODE_CACHE_DIR", tempfile.mkdtemp(prefix="twinmode-test-cache-"))
# Where graph-mode failures write analyze_fail.ir when a test sets no path itself.
_GRAPHS_DIR = tempfile.mkdtemp(prefix="twinmode-test-graphs-")


@pytest.fixture(autouse=True)
def _fresh_context():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False,
                   save_graphs_path=_GRAPHS_DIR, tuning="off")
    ms.set_seed(0)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False,
                   save_graphs_path=_GRAPHS_DIR)


def pytest_collection_modifyitems(config, items):
    """The measured slow tier (tests/slow_tier.py) gets the ``slow`` mark."""
    from tests.slow_tier import read

    slow = read()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
