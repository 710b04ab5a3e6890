"""MindSpore's own tutorials run here with only their imports changed, in both modes.

Nothing of MindSpore's docs is in this project: the pages are read at run time from a
checkout (or extract) of ``mindspore-ai/docs`` named by ``MINDSPORE_DOCS_DIR`` (the folder
holding ``tutorials/source_en``); without it the tests skip with one line.

For one page (``beginner/quick_start`` ...) and engine ('framework' or 'mindspore') and mode:

1. :func:`parse_page` takes the page's ```` ```python ```` blocks in order; the first
   ```` ```text ```` block that follows a code block with nothing but blank lines between
   is that block's documented output.
2. :func:`rewrite` changes the imports only (``import mindspore as ms`` -> ``import
   framework as ms``, ``import mindspore`` -> ``import framework as mindspore``, ``from
   mindspore.x import y`` -> ``from framework.x import y``: the page's other lines keep
   their names) and applies the environment substitutions, each mechanical and listed in
   ``ADAPTATIONS``: no internet (``from download import download`` is removed; the runner's
   ``download`` builds ``MNIST_Data/{train,test}`` from the local IDX files of
   ``/work/shared/datasets/mnist-10k`` -- 10,000 training images instead of 60,000, so
   batch counts differ from the page -- and refuses other URLs with one line), shorter
   training (``epochs = N`` -> ``epochs = EPOCHS``, ``.train(N, ...`` -> ``.train(EPOCHS,
   ...``). Both engines get the same substitutions.
3. :func:`run_page` writes the blocks as files in a fresh working folder and runs them with
   :mod:`tests.mindspore_ref.tutorial_runner` in a subprocess (``set_context(mode=...)``
   first; a page's own ``set_context`` calls still apply), recording each block's stdout
   and error.
4. :func:`compare` grades an output against an expected text: ``exact`` (equal after
   stripping trailing blanks), ``close`` (same words, numbers within rtol 1e-3/atol 1e-5;
   array column widths may differ), ``format`` (same words, other numbers: stochastic
   outputs such as losses, random initialisations, dataset sizes), ``differs``; a block that
   raised is ``error``.

``python -m tests.mindspore_ref.tutorials [--mindspore] [PAGE ...]`` prints the table
(pages x modes: runs? grade against the docs, grade against MindSpore); ``--record``
writes MindSpore's grades against the docs to ``tutorials_expected.json``, which the tests
use as the bar (a block must do at least as well against the docs as MindSpore does).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
RUNNER = HERE / "tutorial_runner.py"
EXPECTED_PATH = HERE / "tutorials_expected.json"
DATA_DIR = Path(os.environ.get("TRAIN_DATA_DIR", "/work/shared/datasets"))
OUR_PYTHON = sys.executable
EPOCHS = 1

PAGES = (
    "beginner/quick_start", "beginner/tensor", "beginner/dataset", "beginner/model",
    "beginner/autograd", "beginner/train", "beginner/save_load",
    "beginner/accelerate_with_static_graph", "beginner/mixed_precision",
    "compile/static_graph", "compile/statements", "compile/python_builtin_functions",
    "compile/static_graph_expert_programming", "dataset/sampler", "dataset/eager",
    "dataset/python_objects", "custom_program/hook_program", "debug/pynative",
)
MODES = ("pynative", "graph")
GRADES = ("exact", "close", "format", "differs", "error", "missing")
ADAPTATIONS = (
    "imports: mindspore -> framework (the bound names unchanged)",
    "`from download import download` removed; download(url, ...) makes MNIST_Data/ from "
    "the local mnist-10k IDX files, other URLs raise (no internet)",
    "`epochs = N` -> `epochs = EPOCHS`; `.train(N, ` -> `.train(EPOCHS, `",
)


@dataclass
class Block:
    """One code block: its source (dedented), the page line it starts on, and the
    documented output (None where the page shows none)."""

    code: str
    line: int
    expected: str | None = None


_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


def parse_page(text: str) -> list[Block]:
    """The page's python blocks in order, each with the text block right after it."""
    lines = text.splitlines()
    blocks: list[Block] = []
    last_end = None  # line index after the last python block's closing fence
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match or not match.group(2):
            i += 1
            continue
        indent, kind = len(match.group(1)), match.group(2)
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = textwrap.dedent("\n".join(line[indent:] if line[:indent].isspace() else line
                                         for line in lines[i + 1:end]))
        if kind == "python":
            blocks.append(Block(body, i + 1))
            last_end = end + 1
        elif kind == "text" and last_end is not None and blocks[-1].expected is None \
                and all(not line.strip() for line in lines[last_end:i]):
            blocks[-1].expected = body
        i = end + 1
    return blocks


_IMPORT_AS = re.compile(r"^(\s*)import mindspore((?:\.\w+)*)(\s+as\s+\w+)")
_IMPORT = re.compile(r"^(\s*)import mindspore((?:\.\w+)*)\s*$")
_FROM = re.compile(r"^(\s*)from mindspore((?:\.\w+)*) import ")
_EPOCHS = re.compile(r"^(\s*)epochs = \d+\s*$")
_TRAIN = re.compile(r"\.train\(\d+,")


def _rewrite_line(line: str, engine: str) -> str:
    if engine != "mindspore":
        line = _IMPORT_AS.sub(lambda m: f"{m[1]}import {engine}{m[2]}{m[3]}", line)
        if _IMPORT.match(line):
            m = _IMPORT.match(line)
            line = (f"{m[1]}import {engine} as mindspore" if not m[2] else
                    f"{m[1]}import {engine}{m[2]}; import {engine} as mindspore")
        line = _FROM.sub(lambda m: f"{m[1]}from {engine}{m[2]} import ", line)
    if line.strip() == "from download import download":
        return line[:len(line) - len(line.lstrip())] + "pass  # adapted: local download()"
    line = _EPOCHS.sub(lambda m: f"{m[1]}epochs = {EPOCHS}  # adapted", line)
    return _TRAIN.sub(f".train({EPOCHS},", line)


def rewrite(code: str, engine: str) -> str:
    """The block for ``engine``: imports renamed, environment substitutions applied."""
    return "\n".join(_rewrite_line(line, engine) for line in code.splitlines()) + "\n"


DOWNLOAD = '''
import gzip as _gzip, os as _os, shutil as _shutil


def download(url, path="./", kind=None, replace=False, **_):
    """Adapted for no internet: MNIST_Data.zip from local IDX files; other URLs refused."""
    if not url.endswith("MNIST_Data.zip"):
        raise RuntimeError(f"no internet and no local copy of {{url}}")
    source = {data!r}
    for part, prefix in (("train", "train"), ("test", "t10k")):
        folder = _os.path.join(path, "MNIST_Data", part)
        _os.makedirs(folder, exist_ok=True)
        for what in ("images-idx3-ubyte", "labels-idx1-ubyte"):
            target = _os.path.join(folder, f"{{prefix}}-{{what}}")
            if not _os.path.exists(target):
                with _gzip.open(_os.path.join(source, f"{{prefix}}-{{what}}.gz")) as src, \\
                        open(target, "wb") as dst:
                    _shutil.copyfileobj(src, dst)
    return path
'''


def docs_dir() -> Path | None:
    """``MINDSPORE_DOCS_DIR``'s ``tutorials/source_en`` where it exists."""
    root = os.environ.get("MINDSPORE_DOCS_DIR", "")
    folder = Path(root) / "tutorials" / "source_en"
    return folder if root and folder.is_dir() else None


def load_page(name: str, folder: Path | None = None) -> list[Block]:
    folder = folder or docs_dir()
    if folder is None:
        raise FileNotFoundError("MINDSPORE_DOCS_DIR is unset or has no tutorials/source_en")
    path = folder / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such tutorial page")
    return parse_page(path.read_text(encoding="utf-8"))


def run_page(blocks: list[Block], engine: str, mode: str, python: str,
             timeout: float = 1800) -> list[dict]:
    """Each block's ``{"stdout", "error", "seconds"}`` (missing ones: killed for time)."""
    work = Path(tempfile.mkdtemp(prefix=f"tutorial-{engine}-{mode}-"))
    try:
        paths = []
        for i, block in enumerate(blocks):
            path = work / f"block_{i:02d}.py"
            prelude = DOWNLOAD.format(data=str(DATA_DIR / "mnist-10k")) if i == 0 else ""
            path.write_text(prelude + rewrite(block.code, engine))
            paths.append(str(path))
        plan = work / "plan.json"
        plan.write_text(json.dumps({"engine": engine, "mode": mode, "blocks": paths}))
        out = work / "out.json"
        env = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(HERE.parent.parent)}
        why = "not run: the page ran out of time"
        try:
            done = subprocess.run([python, str(RUNNER), str(plan), str(out)], cwd=work,
                                  env=env, capture_output=True, timeout=timeout, check=False,
                                  text=True, errors="replace")
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            why = f"not run: the process ended ({tail[0][:300]})"
        except subprocess.TimeoutExpired:
            pass
        results = json.loads(out.read_text()) if out.is_file() else []
        return results + [{"stdout": "", "error": why, "seconds": 0}] * (
            len(blocks) - len(results))
    finally:
        shutil.rmtree(work, ignore_errors=True)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")


_CLASS = re.compile(r"<class '(?:mindspore|framework)(?:\.\w+)*\.(\w+)'>")


def _normal(text: str) -> str:
    """Trailing blanks dropped; an engine's class paths (``<class 'mindspore.common.tensor.
    Tensor'>``) as ``<class 'ENGINE.Tensor'>``: the renamed import shows there."""
    text = _CLASS.sub(r"<class 'ENGINE.\1'>", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip()


def _skeleton(text: str) -> tuple[str, list[float]]:
    numbers = [float(n) for n in _NUMBER.findall(text)]
    words = " ".join(_NUMBER.sub("#", text).split())
    return re.sub(r"\s*([\[\]\(\),])\s*", r"\1", words), numbers


def compare(got: str, expected: str) -> str:
    """``exact``, ``close``, ``format`` or ``differs`` (see the module docstring)."""
    got, expected = _normal(got), _normal(expected)
    if got == expected:
        return "exact"
    (words, ours), (words_ref, theirs) = _skeleton(got), _skeleton(expected)
    if words != words_ref or len(ours) != len(theirs):
        return "differs"
    import numpy as np

    if np.allclose(ours, theirs, rtol=1e-3, atol=1e-5, equal_nan=True):
        return "close"
    return "format"


def grade(result: dict, expected: str | None) -> str | None:
    """A block's grade against ``expected`` (None where nothing is documented). A block
    that raised is graded on its output plus its error line where the page documents an
    error (``ValueError: ...``), else it is ``error``."""
    error = result.get("error")
    if error and expected and re.search(r"^\w*(Error|Exception)\b", expected, re.M):
        kind, _, message = error.partition(": ")
        got = f"{result['stdout']}{kind.rsplit('.', 1)[-1]}: {message}"
        found = compare(got, expected)
        return found if found != "differs" else "error"
    if error:
        return "error"
    return None if expected is None else compare(result["stdout"], expected)


def _cell(results: list[dict], blocks: list[Block], against: list[str | None]) -> str:
    grades = [grade(r, e) for r, e in zip(results, against)]
    errors = sum(1 for r in results if r.get("error"))
    shown = [g for g in grades if g and g != "error"]
    counts = {g: shown.count(g) for g in GRADES if shown.count(g)}
    text = " ".join(f"{n} {g}" for g, n in counts.items()) or "-"
    return f"{len(blocks) - errors}/{len(blocks)} ran; {text}"


def first_error(results: list[dict]) -> str:
    return next((f"block {i}: {r['error']}" for i, r in enumerate(results) if r.get("error")), "")


def page_line(page: str, mode: str, blocks: list[Block], ms_python: str | None,
              recorded: dict) -> str:
    """One row of the table (runs ours, and MindSpore where ``ms_python`` is given, whose
    grades against the docs go into ``recorded``)."""
    docs = [b.expected for b in blocks]
    ours = run_page(blocks, "framework", mode, OUR_PYTHON)
    line = f"{page:42s} {mode:8s} ours vs docs: {_cell(ours, blocks, docs)}"
    if ms_python:
        theirs = run_page(blocks, "mindspore", mode, ms_python)
        recorded.setdefault(page, {})[mode] = [grade(r, e) for r, e in zip(theirs, docs)]
        ms_out = [None if r.get("error") else r["stdout"] for r in theirs]
        line += (f" | MindSpore vs docs: {_cell(theirs, blocks, docs)}"
                 f" | ours vs MindSpore: {_cell(ours, blocks, ms_out)}")
        if first_error(theirs):
            line += f" | MindSpore {first_error(theirs)}"
    return line + (f" | ours {first_error(ours)}" if first_error(ours) else "")


def main(argv: list[str]) -> None:
    """The table; ``--mindspore`` also runs MindSpore, ``--record`` stores its grades."""
    flags = {a for a in argv if a.startswith("--")}
    pages = [a for a in argv if not a.startswith("--")] or list(PAGES)
    ms_python = os.environ.get("MINDSPORE_PYTHON", "")
    with_ms = ("--mindspore" in flags or "--record" in flags) and Path(ms_python).is_file()
    recorded = json.loads(EXPECTED_PATH.read_text()) if EXPECTED_PATH.is_file() else {}
    for page in pages:
        blocks = load_page(page)
        for mode in MODES:
            print(page_line(page, mode, blocks, ms_python if with_ms else None, recorded),
                  flush=True)
    if "--record" in flags and with_ms:
        EXPECTED_PATH.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
