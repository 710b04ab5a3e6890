"""Resident-set figures of one engine's train step, for the benches' ``--child`` processes.

``probe(step, args, imported)``: warm up, reset the kernel's high-water mark
(``/proc/self/clear_refs`` = 5), run two steps and read ``VmHWM``. Returns KiB figures:
``imported`` (the resident set after the engine's imports, taken by the caller),
``before`` (just before the measured steps), ``peak`` (the highest during them) and
``life`` (the highest before the reset). "Engine" memory is ``peak - imported``.
"""

from __future__ import annotations

from pathlib import Path


def status_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def probe(step, args: tuple, imported: int) -> dict[str, int]:
    for _ in range(2):
        step(*args)
    before, life = status_kb("VmRSS"), status_kb("VmHWM")
    Path("/proc/self/clear_refs").write_text("5")
    for _ in range(2):
        step(*args)
    return {"imported": imported, "before": before, "peak": status_kb("VmHWM"), "life": life}
