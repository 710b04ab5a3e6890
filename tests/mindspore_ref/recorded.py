"""MindSpore's answers recorded once, checked everywhere: a set of programs (source using
``ms``, ``nn``, ``ops``, ``Tensor``, ``np``; see :mod:`tests.mindspore_ref.reference`) and a
JSON file of MindSpore 2.10's results for them, made by the programs module's recorder where
MindSpore is installed. :meth:`Recorded.tests` gives the four tests such a set gets:

- the recording covers every program (and both modes, when recorded per mode);
- ours matches the recorded answer in each mode (this runs in CI, without MindSpore);
- our two modes agree (except the programs whose answer depends on the mode);
- with ``MINDSPORE_PYTHON``: MindSpore itself, now, matches ours and the recording.

A test module binds them to its own names:
``(test_recorded_answers_cover_every_program, test_matches_mindspores_answer,
test_modes_agree, test_against_mindspore) = RECORDED.tests()``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.mindspore_ref.reference import MODES, Differential, assert_same, needs_mindspore

# Program source (not a function here): ``kind(fn)``, the builtin kind of error ``fn()``
# raises, for programs that compare error kinds in both engines.
ERROR_KIND = '''
KINDS = (TypeError, ValueError, RuntimeError, IndexError, KeyError, AttributeError)


def kind(fn):
    """The builtin kind of error ``fn()`` raises (a subclass counts as its builtin base)."""
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        return next((k.__name__ for k in KINDS if isinstance(error, k)), type(error).__name__)
    return "no error"
'''


def record(programs: Mapping[str, str], expected: Path) -> None:
    """Re-record ``expected`` from MindSpore (``MINDSPORE_PYTHON``): each program's answer per
    mode, one program per line."""
    import tempfile

    from tests.mindspore_ref.reference import mindspore_results

    results = mindspore_results(programs, Path(tempfile.mkdtemp(prefix="ms-record-")))
    answers = {name: {mode: results[f"{mode}:{name}"] for mode in MODES} for name in sorted(programs)}
    lines = ",\n".join(f" {json.dumps(name)}: {json.dumps(a, separators=(',', ':'))}"
                       for name, a in answers.items())
    Path(expected).write_text("{\n" + lines + "\n}\n")


class Recorded:
    """``programs`` and their recorded answers (``expected``: a JSON file; ``per_mode``: it
    holds ``{name: {mode: answer}}``, else ``{name: answer}``). ``tolerance``: per program
    name, or ``"*"`` for all, the ``rtol``/``atol`` of :func:`assert_same`."""

    def __init__(self, programs: Mapping[str, str], expected: Path, *, per_mode: bool,
                 tolerance: Mapping[str, Mapping[str, float]] | None = None,
                 mode_dependent: Iterable[str] = (), slow_graph: bool = False) -> None:
        self.programs = dict(programs)
        self.names = sorted(self.programs)
        self.expected = json.loads(Path(expected).read_text())
        self.per_mode = per_mode
        self.tolerance = dict(tolerance or {})
        self.mode_dependent = set(mode_dependent)
        self.slow_graph = slow_graph  # graph-mode runs (compiles) in the slow tier
        self.run = Differential(self.programs)

    def tol(self, name: str) -> dict[str, float]:
        return dict(self.tolerance.get(name, self.tolerance.get("*", {})))

    def answer(self, name: str, mode: str) -> Any:
        return self.expected[name][mode] if self.per_mode else self.expected[name]

    def modes(self) -> list[Any]:
        return [pytest.param(m, marks=pytest.mark.slow) if self.slow_graph and m == "graph" else m
                for m in MODES]

    def tests(self) -> tuple[Callable[..., None], ...]:
        recorded = self
        agree = pytest.mark.slow if self.slow_graph else pytest.mark.usefixtures()

        def test_recorded_answers_cover_every_program():
            assert set(recorded.expected) == set(recorded.programs)
            if recorded.per_mode:
                assert all(set(recorded.expected[n]) == set(MODES) for n in recorded.names)

        @pytest.mark.parametrize("mode", recorded.modes())
        @pytest.mark.parametrize("name", recorded.names)
        def test_matches_mindspores_answer(name, mode):
            assert_same(recorded.run.ours(mode, name), recorded.answer(name, mode), f"{name} ({mode})",
                        **recorded.tol(name))

        @agree
        @pytest.mark.parametrize("name", sorted(set(recorded.names) - recorded.mode_dependent))
        def test_modes_agree(name):
            assert_same(recorded.run.ours("graph", name), recorded.run.ours("pynative", name),
                        f"{name}: graph vs pynative", **recorded.tol(name))

        @needs_mindspore
        @pytest.mark.parametrize("mode", recorded.modes())
        @pytest.mark.parametrize("name", recorded.names)
        def test_against_mindspore(name, mode):
            theirs = recorded.run.mindspore(mode, name)
            assert_same(recorded.run.ours(mode, name), theirs, f"{name} ({mode} vs MindSpore)",
                        **recorded.tol(name))
            assert_same(theirs, recorded.answer(name, mode), f"{name} (MindSpore {mode} vs recorded)",
                        **recorded.tol(name))

        return (test_recorded_answers_cover_every_program, test_matches_mindspores_answer,
                test_modes_agree, test_against_mindspore)
