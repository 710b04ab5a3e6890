"""``framework.runtime`` and ``ms.set_device`` (framework/runtime.py, device_manager.py):
MindSpore 2.10's checks, run on the module state and restored after each test."""

from __future__ import annotations

import pytest

import framework as ms
from framework import device_manager, runtime


@pytest.fixture(autouse=True)
def fresh_state():
    settings, chosen = dict(runtime._settings), dict(device_manager._chosen)
    target = ms.get_context("device_target")
    runtime._settings.clear()
    runtime._settings["launch_blocking"] = False
    device_manager._chosen.clear()
    yield
    runtime._settings.clear()
    runtime._settings.update(settings)
    device_manager._chosen.clear()
    device_manager._chosen.update(chosen)
    ms.set_context(device_target=target)


def test_launch_blocking_is_remembered_and_synchronize_returns():
    assert ms.runtime is runtime and not runtime.blocking()
    assert runtime.launch_blocking() is None and runtime.synchronize() is None
    assert runtime.blocking()


def test_cpu_affinity_is_checked_and_set_once():
    with pytest.raises(TypeError, match="enable_affinity must be a bool"):
        runtime.set_cpu_affinity(3)
    runtime.set_cpu_affinity(True, ["0-3"])
    assert runtime.settings()["cpu_affinity"]["affinity_cpu_list"] == ["0-3"]
    with pytest.raises(RuntimeError, match="cannot be set repeatedly"):
        runtime.set_cpu_affinity(True)


@pytest.mark.parametrize("call,message", [
    (lambda: runtime.set_memory(max_size="2G"), "max_size must be a size like '2GB'"),
    (lambda: runtime.set_memory(optimize_level="O3"), "optimize_level"),
    (lambda: runtime.dispatch_threads_num(0), "positive int"),
    (lambda: runtime.set_kernel_launch_group(thread_num=True), "thread_num"),
])
def test_bad_settings_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_memory_queries_report_no_device_pool():
    runtime.set_memory(init_size="1GB", max_size="8GB")
    assert runtime.settings()["memory"]["max_size"] == "8GB"
    assert (runtime.memory_allocated(), runtime.max_memory_reserved()) == (0, 0)
    assert runtime.memory_stats()["total_allocated_memory"] == 0
    assert runtime.empty_cache() is None and runtime.reset_peak_memory_stats() is None


def test_set_device_sets_the_context_once():
    with pytest.raises(ValueError, match="must be one of"):
        ms.set_device("TPU")
    with pytest.raises(RuntimeError, match="Ascend"):
        ms.set_device("Ascend")
    ms.set_device("CPU")
    ms.set_device("CPU")  # the same again is fine
    assert ms.get_context("device_target") == "CPU"
    assert tuple(ms.get_current_device()) == ("CPU", 0)
    with pytest.raises(RuntimeError, match="can not be modified"):
        ms.set_device("CPU", 1)


def test_set_device_gpu_is_the_context_target():
    ms.set_device("GPU", 0)
    assert ms.get_context("device_target") == "GPU"
    assert ms.get_current_device().device_target == "GPU"
