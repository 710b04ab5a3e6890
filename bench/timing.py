"""How the step benches time their engines: interleaved rounds after a warm-up.

``interleave(runners, args, rounds, steps, warmup, clock)`` calls every runner
``warmup`` times, then for each of ``rounds`` rounds times each runner in turn over
``steps`` calls (PyNative, the slow one, over one call), so that load changes on a shared
machine hit every engine alike. Returns the per-round means in milliseconds, by name.
``CLOCK``: ``wall`` (perf_counter) or ``cpu`` (this process's CPU time, all threads).
"""

from __future__ import annotations

import time
from collections.abc import Callable

CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}


def timed(fn: Callable, args: tuple, steps: int, clock: Callable[[], float] = time.perf_counter) -> float:
    start = clock()
    for _ in range(steps):
        fn(*args)
    return (clock() - start) / steps * 1000


def interleave(runners: dict[str, Callable], args: tuple, rounds: int, steps: int, warmup: int,
               clock: str = "wall") -> dict[str, list[float]]:
    for fn in runners.values():
        for _ in range(warmup):
            fn(*args)
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, fn in runners.items():
            times[name].append(timed(fn, args, 1 if name == "pynative" else steps, CLOCK[clock]))
    return times
