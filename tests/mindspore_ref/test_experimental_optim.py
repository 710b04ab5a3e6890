"""``mindspore.experimental.optim`` (SGD, Adam, AdamW with PyTorch's signatures) in both modes:
against MindSpore's recorded answers (``experimental_optim_expected.json``, CI), our modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from framework import Parameter, Tensor
from framework.experimental import optim
from tests.mindspore_ref.experimental_optim_programs import PROGRAMS
from tests.mindspore_ref.reference import MODES, Differential, assert_same, needs_mindspore

EXPECTED = json.loads((Path(__file__).parent / "experimental_optim_expected.json").read_text())
NAMES = sorted(PROGRAMS)
RUN = Differential(PROGRAMS)
# Adam divides by sqrt(v): float32 rounding of a near-zero gradient shows at 1e-6
TOL = {"rtol": 1e-4, "atol": 1e-5}


def test_recorded_answers_cover_every_program():
    assert set(EXPECTED) == set(PROGRAMS)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_matches_mindspores_answer(name, mode):
    assert_same(RUN.ours(mode, name), EXPECTED[name], f"{name} ({mode})", **TOL)


@pytest.mark.parametrize("name", NAMES)
def test_modes_agree(name):
    assert_same(RUN.ours("graph", name), RUN.ours("pynative", name), name, **TOL)


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_against_mindspore(name, mode):
    theirs = RUN.mindspore(mode, name)
    assert_same(RUN.ours(mode, name), theirs, f"{name} ({mode} vs MindSpore)", **TOL)
    assert_same(theirs, EXPECTED[name], f"{name} (MindSpore {mode} vs recorded)")


def test_refused_options_say_so():
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    with pytest.raises(ValueError, match="amsgrad=True is not supported"):
        optim.Adam([w], amsgrad=True)
    with pytest.raises(ValueError, match="maximize=True is not supported"):
        optim.SGD([w], lr=0.1, maximize=True)
    with pytest.raises(ValueError, match="'params' and 'weight_decay' only"):
        optim.AdamW([{"params": [w], "lr": 0.1}])
