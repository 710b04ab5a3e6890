"""TVM's CPU thread pool gets one thread per physical core by default (TVM alone would take
half the logical CPUs on x86), and a thread count the user set wins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from framework.backend.tvm.runtime import threads

CPU = Path("/sys/devices/system/cpu")


@pytest.mark.skipif(not (CPU / "cpu0/topology/core_id").exists(), reason="no Linux CPU topology")
def test_physical_cores_counts_distinct_package_and_core_ids():
    ids = {((CPU / f"cpu{c}/topology/physical_package_id").read_text().strip(),
            (CPU / f"cpu{c}/topology/core_id").read_text().strip()) for c in os.sched_getaffinity(0)}
    assert threads.physical_cores() == len(ids)


@pytest.mark.parametrize("env, expected", [
    ({}, "cores"), ({"TVM_NUM_THREADS": "3"}, "3"), ({"OMP_NUM_THREADS": "1"}, None)])
def test_configure_sets_the_count_only_where_the_user_did_not(monkeypatch, env, expected):
    for name in ("TVM_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    threads.configure()
    want = str(threads.physical_cores()) if expected == "cores" else expected
    assert os.environ.get("TVM_NUM_THREADS") == want


def test_the_tvm_pool_of_a_fresh_process_has_one_thread_per_core():
    env = {k: v for k, v in os.environ.items() if k not in ("TVM_NUM_THREADS", "OMP_NUM_THREADS")}
    code = ("import framework.backend.tvm, tvm; "
            "print(tvm.get_global_func('runtime.NumThreads')())")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(out.stdout.split()[-1]) == threads.physical_cores()
