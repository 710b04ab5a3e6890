"""``dataset.transforms``, ``dataset.text`` and ``dataset.vision`` (:mod:`tests.mindspore_ref.
ms_dataset_names_programs`: every public name, eager and in ``map``, bad arguments) against
MindSpore 2.10's recorded answers (``ms_dataset_names_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.

Exact (tolerance 0) but for the ``*_approx`` programs: interpolations, gamma and JPEG
decoding that MindSpore computes with OpenCV's and libjpeg-turbo's fixed-point arithmetic,
within one or two grey levels; ``AdjustHue``'s 8-bit HSV round trip within four."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.dataset import config
from tests.mindspore_ref.ms_dataset_names_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import needs_mindspore

EXACT = {"rtol": 0.0, "atol": 0.0}
TOLERANCE = {"*": EXACT,
             "first_names": {"rtol": 1e-6, "atol": 1e-6},  # float32 rounding order of Rescale, Normalize
             "vision_color_approx": {"rtol": 0.0, "atol": 1.0},
             "vision_hue_approx": {"rtol": 1e-6, "atol": 4.0},
             # colorsys run on NumPy 1 scalars rounds some hues through float32 (one ulp)
             "vision_color_conversions": {"rtol": 1e-6, "atol": 1e-7},
             "vision_warps_approx": {"rtol": 0.0, "atol": 1.0},
             "vision_jpeg_approx": {"rtol": 0.0, "atol": 2.0}}

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_dataset_names_expected.json", per_mode=True,
                    tolerance=TOLERANCE)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


@pytest.fixture(autouse=True)
def _no_dataset_seed_left_behind():
    yield
    config._seed = None


_TRAIN = '''
import json, sys
import mindspore.dataset.text as text
folder, corpus = sys.argv[1], sys.argv[2]
texts = ["Hello ＡＢＣ world ﬁ  x", "the  quick brown fox", "Ünïcode ½ ①", "", "   "]
out = {}
for name, params in (("nfkc", {}), ("nfkc_cf", {"normalization_rule_name": "nmt_nfkc_cf"})):
    vocab = text.SentencePieceVocab.from_file([corpus], 40, 0.9995, text.SentencePieceModel.UNIGRAM, params)
    text.SentencePieceVocab.save_model(vocab, folder, name + ".model")
    path = folder + "/" + name + ".model"
    pieces = text.SentencePieceTokenizer(path, text.SPieceTokenizerOutType.STRING)
    ids = text.SentencePieceTokenizer(path, text.SPieceTokenizerOutType.INT)
    out[name] = [[pieces(t).tolist(), ids(t).tolist()] for t in texts]
print(json.dumps([texts, out]))
'''


@pytest.mark.slow
@needs_mindspore
def test_sentencepiece_models_trained_by_mindspore(tmp_path):
    """Models MindSpore trains (NFKC normalization maps: the double-array reader) tokenize
    alike here."""
    import json
    import subprocess

    from framework.dataset import text
    from tests.mindspore_ref.reference import MINDSPORE_PYTHON

    lines = ["hello world", "the quick brown fox jumps over the lazy dog", "hello there general kenobi",
             "ＡＢＣ full width ﬁ ligature Ünïcode"] * 32
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([MINDSPORE_PYTHON, "-c", _TRAIN, str(tmp_path), str(corpus)], capture_output=True,
                          text=True, timeout=300, check=True)
    texts, theirs = json.loads(done.stdout.strip().splitlines()[-1])
    for name, answers in theirs.items():
        model = str(tmp_path / f"{name}.model")
        pieces = text.SentencePieceTokenizer(model, text.SPieceTokenizerOutType.STRING)
        ids = text.SentencePieceTokenizer(model, text.SPieceTokenizerOutType.INT)
        for t, (want_pieces, want_ids) in zip(texts, answers, strict=True):
            assert pieces(t).tolist() == want_pieces, (name, t)
            assert ids(t).tolist() == want_ids, (name, t)
