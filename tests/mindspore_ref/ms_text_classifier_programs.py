"""The text classifier of :mod:`tests.mindspore_ref.text_classifier` as a program run by both
engines: the script's own source with its four import lines replaced by the driver's prelude
(``ms``, ``nn``, ``ops``, ``Tensor``, ``np``) and ``ds`` (the engine's ``dataset``), nothing
else changed. Its answer: the loss of each of the 18 training steps (three epochs of six
batches of the 48-row split), the logits and the number of correct answers on the 12-row
split, and the splits' batch counts.

``EXPECTED`` (``ms_text_classifier_expected.json``) holds MindSpore 2.10's answers per mode;
``python -m tests.mindspore_ref.ms_text_classifier_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

SCRIPT = Path(__file__).with_name("text_classifier.py")
IMPORTS = ("import framework as ms\n", "from framework import Tensor, nn, ops\n",
           "from framework import dataset as ds\n")
ENGINE_DATASET = "import importlib\n\nds = importlib.import_module(ms.__name__ + '.dataset')\n"


def program_source() -> str:
    """The script with its framework imports replaced (the driver's prelude imports the engine)."""
    source = SCRIPT.read_text()
    for line in IMPORTS:
        if line not in source:
            raise ValueError(f"{SCRIPT.name} no longer has the import line {line.strip()!r}")
        source = source.replace(line, "", 1)
    return source.replace("\nVOCAB, ", "\n" + ENGINE_DATASET + "\nVOCAB, ", 1)


PROGRAMS: dict[str, str] = {"text_classifier": program_source()}


if __name__ == "__main__":  # re-record ms_text_classifier_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_text_classifier_expected.json"))
