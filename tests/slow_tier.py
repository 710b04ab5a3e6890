"""The slow tier: tests whose call took at least ``THRESHOLD`` seconds in a measured run of
the whole suite (on CI's 2-core machine), listed by node id in ``slow_tests.txt`` beside
this file, are marked ``slow`` by ``tests/conftest.py`` at collection, like the tests
marked ``@pytest.mark.slow`` in place. ``make test`` runs everything else (a few minutes);
``make test-slow`` runs the tier; CI runs both.

Regenerate after the suite changes: ``make slow-list`` runs the whole suite with pytest's
``--durations`` and rewrites the list (``python -m tests.slow_tier LOG`` reads a saved log).
A test that was renamed drops out of the list (it then runs in ``make test``) until the
next measurement.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LIST = Path(__file__).with_name("slow_tests.txt")
THRESHOLD = 1.5  # seconds: make test under 10 minutes on 2 cores
_LINE = re.compile(r"^(\d+(?:\.\d+)?)s call\s+(\S.*)$")


def read() -> frozenset[str]:
    """The listed node ids (none when the list is absent)."""
    if not LIST.is_file():
        return frozenset()
    return frozenset(line.split("#", 1)[0].strip() for line in LIST.read_text().splitlines()
                     if line.split("#", 1)[0].strip())


def measured(log: str) -> list[tuple[float, str]]:
    """``(seconds, node id)`` of each test call at or over ``THRESHOLD`` in a pytest log
    written with ``--durations=0``, slowest first."""
    found = [(float(m.group(1)), m.group(2).strip()) for m in map(_LINE.match, log.splitlines()) if m]
    return sorted(((s, node) for s, node in found if s >= THRESHOLD), reverse=True)


def write(entries: list[tuple[float, str]]) -> None:
    lines = [f"# written by tests/slow_tier.py: calls >= {THRESHOLD:g} s in a measured run "
             "(seconds, then the node id)"]
    lines += [f"{node}  # {seconds:.1f} s" for seconds, node in entries]
    LIST.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.slow_tier PYTEST_LOG (a run with --durations=0)")
    entries = measured(Path(sys.argv[1]).read_text())
    write(entries)
    print(f"{LIST}: {len(entries)} tests, {sum(s for s, _ in entries):.0f} s of calls")
