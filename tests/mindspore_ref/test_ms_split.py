"""``GeneratorDataset.split`` (:mod:`tests.mindspore_ref.ms_split_programs`): which rows
land in each part, every epoch, against MindSpore's recorded answers (``ms_split_expected.json``,
CI) and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then a randomized split
of a generator function's rows, whose order MindSpore's shuffle buffer decides: checked
for what MindSpore documents (disjoint parts of the sizes, covering every row, the same
rows every epoch)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import dataset as ds
from tests.mindspore_ref.ms_split_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_split_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


def _stream():
    for i in range(13):
        yield np.array([i], np.int32), np.array(i % 2, np.int32)


@pytest.mark.parametrize("sizes", [[0.8, 0.2], [4, 9], [0.4, 0.3, 0.3]])
def test_randomized_split_of_a_stream_partitions_its_rows_the_same_every_epoch(sizes):
    ms.set_seed(7)
    parts = ds.GeneratorDataset(_stream, ["x", "y"]).split(sizes)
    seen = []
    for part in parts:
        it = part.create_tuple_iterator(output_numpy=True, num_epochs=2)
        first, second = ([int(r[0][0]) for r in it] for _ in range(2))
        assert first == second and len(first) == part.get_dataset_size()
        seen += first
    assert sorted(seen) == list(range(13)) and seen != list(range(13))
    counts = [p.get_dataset_size() for p in parts]
    # MindSpore's counts: each fraction rounded, the first part adjusted
    assert counts == ([10, 3] if sizes == [0.8, 0.2] else [4, 9] if sizes == [4, 9] else [5, 4, 4])


def test_split_refuses_a_repeated_dataset_with_a_fix():
    with pytest.raises(ValueError, match="split before repeat"):
        ds.GeneratorDataset(_stream, ["x", "y"]).repeat(2).split([0.5, 0.5])
