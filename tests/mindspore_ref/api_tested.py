"""Which present names of the API coverage table a differential test exercises.

Every file of ``tests/mindspore_ref/`` runs programs against MindSpore 2.10 (live, or its
recorded answers); a present name counts as tested when one of them spells it through its
namespace (the spellings per namespace are ``SPELLINGS``; a Tensor method is any ``.name``).
``python -m tests.mindspore_ref.api_tested`` lists the present names no differential test
names, per namespace; ``test_api_coverage`` fails when a present name is untested.

A heuristic by design (it reads source text): a name counts once a program spells it, not
once every argument form is covered; the programs say what they check. A programs module
(``*_programs.py``) may hold ``UNTESTABLE = {"namespace:name": "MindSpore's error"}``: names
MindSpore 2.10 itself cannot run on CPU (its error recorded), which are not chased.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from functools import cache
from pathlib import Path

from tests.mindspore_ref.api_coverage import NAMES, coverage

HERE = Path(__file__).parent
SPELLINGS = {
    "ops": ("ops", "F", "functional", "ms.ops"),
    "ops.operations": ("P", "ops", "operations", "ops.operations"),
    "nn": ("nn", "ms.nn"),
    "mint": ("mint", "ms.mint"),
    "mint.nn": ("mint.nn", "mnn"),
    "mint.nn.functional": ("mint.nn.functional", "F", "mF"),
    "mint.optim": ("mint.optim",),
    "mint.special": ("mint.special",),
    "mint.linalg": ("mint.linalg",),
    "Tensor": ("",),
}


@cache
def _sources() -> str:
    return "\n".join(p.read_text() for p in sorted(HERE.glob("*.py")) if p.name != Path(__file__).name)


def tested(namespace: str, name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    prefixes = "|".join(re.escape(s) for s in SPELLINGS[namespace] if s)
    qualifier = "" if namespace == "Tensor" else rf"\b(?:{prefixes})"
    pattern = rf"{qualifier}\.{re.escape(last)}\b"
    return re.search(pattern, _sources()) is not None


def untestable() -> dict[str, str]:
    """``{"namespace:name": reason}`` from every programs module's ``UNTESTABLE``."""
    found: dict[str, str] = {}
    for path in sorted(HERE.glob("*_programs.py")):
        module = importlib.import_module(f"tests.mindspore_ref.{path.stem}")
        found.update(getattr(module, "UNTESTABLE", {}))
    return found


def untested() -> dict[str, list[str]]:
    """Per namespace, its present names that no differential test names (and that MindSpore
    can run on CPU)."""
    names, skip = json.loads(NAMES.read_text()), untestable()
    return {ns: [row[0] for row in rows if row[1] == "present" and not tested(ns, row[0])
                 and f"{ns}:{row[0]}" not in skip]
            for ns, rows in coverage(names).items()}


if __name__ == "__main__":
    gaps = untested()
    for ns, missing in gaps.items():
        print(f"{ns}: {len(missing)} untested" + (f": {' '.join(missing)}" if missing else ""))
    sys.exit(1 if any(gaps.values()) else 0)
