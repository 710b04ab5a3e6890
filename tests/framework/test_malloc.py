"""framework/_malloc.py: after ``import framework``, freed multi-MB NumPy buffers are reused
by the next allocations (no fresh page faults), and ``TWINMODE_MALLOC=default`` leaves glibc's
behaviour (the freed heap top is trimmed, and the next allocations fault their pages
again). Counted in a subprocess with ``getrusage``'s minor faults: a count, not a timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, resource
import numpy as np
import framework
from framework import _malloc

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

n = 4 << 20  # bytes: above glibc's default mmap threshold, below ours

def step():  # like a train step: several buffers alive at once, then all freed
    buffers = [np.ones(n, np.uint8) for _ in range(6)]  # written: faults pages if fresh
    del buffers

step()  # warm up
start = faults()
for _ in range(10):
    step()
print(json.dumps({"applied": _malloc.APPLIED, "faults": faults() - start}))
"""


def probe(**env: str) -> dict:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "TWINMODE_MALLOC")}
    environ.update(env, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE], env=environ, capture_output=True,
                         text=True, check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_buffers_are_reused_without_page_faults() -> None:
    tuned, default = probe(), probe(TWINMODE_MALLOC="default")
    assert tuned["applied"] and not default["applied"]
    pages = 10 * 6 * (4 << 20) // 4096
    assert tuned["faults"] < pages // 20, tuned
    assert default["faults"] > pages // 4, default  # the probe does see the faults it avoids


def test_the_environment_choice_of_glibc_wins() -> None:
    assert not probe(MALLOC_TRIM_THRESHOLD_="1000000")["applied"]
