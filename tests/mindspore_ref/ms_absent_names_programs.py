"""Names MindSpore 2.10 does not have, asked of each namespace: the kind of error (an
AttributeError in both engines; ours is a subclass with a message naming the closest name,
checked in ``tests/framework/test_absent_names.py``), ``hasattr`` and ``getattr``'s default.

``EXPECTED`` (``ms_absent_names_expected.json``) holds MindSpore's answers per mode;
``python -m tests.mindspore_ref.ms_absent_names_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

PROGRAMS: dict[str, str] = {}

PROGRAMS["absent_names_in_every_namespace"] = ERROR_KIND + '''
import importlib


def main():
    holders = [ms, ops, nn, ops.operations, Tensor(np.ones(2, np.float32))]
    holders += [importlib.import_module(ms.__name__ + "." + m)
                for m in ("mint", "mint.nn", "mint.nn.functional", "mint.optim", "mint.special")]
    out = []
    for holder in holders:
        for name in ("no_such_name", "Conv7d", "sofmax"):
            out.append((kind(lambda: getattr(holder, name)), hasattr(holder, name),
                        getattr(holder, name, "default")))
    return out
'''


if __name__ == "__main__":  # re-record ms_absent_names_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_absent_names_expected.json"))
