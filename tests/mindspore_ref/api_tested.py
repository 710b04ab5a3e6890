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
    "ms": ("ms",),
    "nn.optim": ("nn_optim", "nn.optim"),
    "experimental.optim": ("optim", "experimental.optim"),
    "experimental.optim.lr_scheduler": ("lr_scheduler",),
    "dataset.text": ("text", "dataset.text"),
    "dataset.vision": ("vision", "dataset.vision"),
    "dataset.transforms": ("transforms", "dataset.transforms"),
    "common": ("common",),
    "common.tensor": ("common_tensor", "common.tensor"),
    "common.parameter": ("common_parameter", "common.parameter"),
    "common.dtype": ("mstype", "common.dtype"),
    "common.initializer": ("init", "initializer", "common.initializer"),
    "common.api": ("common_api", "common.api"),
    "device_context": ("device_context",),
    "device_context.cpu": ("cpu", "device_context.cpu"),
    "device_context.cpu.op_tuning": ("op_tuning",),
    "ops.operations.nn_ops": ("nn_ops",),
    "ops.operations.array_ops": ("array_ops",),
    "ops.operations.math_ops": ("math_ops",),
    "ops.operations._grad_ops": ("G", "_grad_ops"),
}
# the namespaces generated as re-exports of another's objects (framework/api_spec/modules.yaml):
# a name there counts as tested where the very same object is tested in the namespace it
# re-exports (``nn_ops.Softmax`` is ``P.Softmax``; ``common.float32`` is ``ms.float32``)
ALIASES = {"ops.operations.nn_ops": ("ops.operations",), "ops.operations.array_ops": ("ops.operations",),
           "ops.operations.math_ops": ("ops.operations",), "ops.operations._grad_ops": ("ops.operations",),
           "nn.optim": ("nn",), "common": ("ms", "common.dtype"), "common.tensor": ("ms",),
           "common.parameter": ("ms",), "common.dtype": ("ms",), "common.api": ("ms",)}


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
                 and not _tested_as_alias(ns, row[0]) and f"{ns}:{row[0]}" not in skip]
            for ns, rows in coverage(names).items()}


def _tested_as_alias(namespace: str, name: str) -> bool:
    """``namespace.name`` is the object of the namespace it re-exports, tested there."""
    import framework

    if namespace not in ALIASES:
        return False
    here = getattr(importlib.import_module(f"framework.{namespace}"), name, None)
    for target in ALIASES[namespace]:
        there = getattr(framework if target == "ms" else importlib.import_module(f"framework.{target}"),
                        name, None)
        if here is not None and here is there and tested(target, name):
            return True
    return False


if __name__ == "__main__":
    gaps = untested()
    for ns, missing in gaps.items():
        print(f"{ns}: {len(missing)} untested" + (f": {' '.join(missing)}" if missing else ""))
    sys.exit(1 if any(gaps.values()) else 0)
